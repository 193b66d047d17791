package remote

import (
	"bytes"
	"context"
	"net/url"

	"redirects"
	"redirects/api"
)

// Lookup asks the API's lookup route, which answers with the server's
// engine: only the answer travels, not the rules.
func (c *Client) Lookup(ctx context.Context, projectID, spec, host, path string) (*redirects.LookupResult, error) {
	q := url.Values{"path": {path}, "version": {spec}}
	if host != "" {
		q.Set("host", host)
	}
	var j api.Lookup
	if err := c.do(ctx, "GET", deployProjectPath(projectID)+"/lookup", q, nil, "", &j); err != nil {
		return nil, err
	}
	res := &redirects.LookupResult{}
	switch v := j.Version.(type) {
	case float64:
		res.Version = int(v)
	case string:
		res.Draft = v == "draft"
	}
	if len(j.Answer) > 0 && !bytes.Equal(j.Answer, []byte("null")) {
		res.Body = []byte(j.Answer)
	}
	return res, nil
}
