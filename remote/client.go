// Package remote runs the command line against a running redirects serve
// through its management API (docs/manage.md), instead of the database:
// Store answers the store methods the CLI's commands use with the API's
// routes, with the same values and the same errors (codes and messages), so
// that a command prints what it prints with --db. A store method the API
// does not serve answers an error that says the command needs the
// database.
package remote

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"redirects"
	"redirects/api"
)

// Client calls the management API with a management token.
type Client struct {
	// Base is the API's base URL, without /manage/v1: https://admin.example.com.
	Base  string
	Token string
	HTTP  *http.Client
}

// NewClient returns a client of the API at base, with token.
func NewClient(base, token string) (*Client, error) {
	u, err := url.Parse(strings.TrimRight(base, "/"))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, redirects.Errorf(redirects.EINVALID, "--api %q is not an http:// or https:// URL", base)
	}
	u.Path = strings.TrimSuffix(u.Path, "/manage/v1")
	if !strings.HasPrefix(token, "redir_mgmt_") {
		return nil, redirects.Errorf(redirects.EINVALID, "the management token must start with redir_mgmt_ (create one with \"redirects token create\" or in the dashboard's Tokens tab)")
	}
	return &Client{Base: u.String(), Token: token, HTTP: &http.Client{Timeout: 5 * time.Minute,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}, nil
}

// codes maps the API's error codes to the store's.
var codes = map[string]string{
	"NOT_FOUND": redirects.ENOTFOUND, "CONFLICT": redirects.ECONFLICT, "DEPLOY_BLOCKED": redirects.ECONFLICT,
	"REVISION_CONFLICT": redirects.EREVISION, "UNAUTHENTICATED": redirects.EUNAUTHORIZED,
	"FORBIDDEN": redirects.EFORBIDDEN, "CSRF_TOKEN_INVALID": redirects.EFORBIDDEN, "PASSWORD_CHANGE_REQUIRED": redirects.EFORBIDDEN,
	"SERVICE_UNAVAILABLE": redirects.EUNAVAILABLE, "TOO_MANY_LOGIN_ATTEMPTS": redirects.EUNAVAILABLE,
	"INTERNAL_ERROR": redirects.EINTERNAL,
}

// do sends a request and decodes a JSON answer into out (when not nil;
// a *[]byte receives the body as it is). A body that is an io.Reader is
// sent as it is with contentType; any other non-nil body as JSON. An
// error answer becomes a redirects error with the API's message.
func (c *Client) do(ctx context.Context, method, path string, query url.Values, body any, contentType string, out any) error {
	status, data, err := c.send(ctx, method, path, query, body, contentType)
	if err != nil {
		return err
	}
	if status >= 400 {
		return c.apiError(status, method, path, data)
	}
	switch o := out.(type) {
	case nil:
	case *[]byte:
		*o = data
	default:
		if err := json.Unmarshal(data, out); err != nil {
			return redirects.Errorf(redirects.EINTERNAL, "the management API at %s answered %s %s with what is not its JSON: %v", c.Base, method, path, err)
		}
	}
	return nil
}

// send sends a request and returns the answer's status and body; only a
// failure to reach the API, or a redirect, is an error.
func (c *Client) send(ctx context.Context, method, path string, query url.Values, body any, contentType string) (int, []byte, error) {
	status, data, _, err := c.sendHeader(ctx, method, path, query, body, contentType)
	return status, data, err
}

// sendHeader is send that also returns the answer's header.
func (c *Client) sendHeader(ctx context.Context, method, path string, query url.Values, body any, contentType string) (int, []byte, http.Header, error) {
	u := c.Base + "/manage/v1" + path
	if len(query) > 0 {
		u += "?" + query.Encode()
	}
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case io.Reader:
		rd = b
	default:
		data, err := json.Marshal(b)
		if err != nil {
			return 0, nil, nil, redirects.Errorf(redirects.EINTERNAL, "remote: encoding a request: %v", err)
		}
		rd, contentType = bytes.NewReader(data), "application/json"
	}
	req, err := http.NewRequestWithContext(ctx, method, u, rd)
	if err != nil {
		return 0, nil, nil, redirects.Errorf(redirects.EINVALID, "remote: %v", err)
	}
	req.Header.Set("Authorization", "Bearer "+c.Token)
	req.Header.Set("Accept", "application/json")
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	res, err := c.HTTP.Do(req)
	if err != nil {
		return 0, nil, nil, redirects.Errorf(redirects.EUNAVAILABLE, "the management API at %s cannot be reached: %v", c.Base, errors.Unwrap(err))
	}
	defer res.Body.Close()
	data, err := io.ReadAll(io.LimitReader(res.Body, 1<<30))
	if err != nil {
		return 0, nil, nil, redirects.Errorf(redirects.EUNAVAILABLE, "the management API at %s: reading its answer: %v", c.Base, err)
	}
	if res.StatusCode >= 300 && res.StatusCode < 400 {
		return 0, nil, nil, redirects.Errorf(redirects.EINVALID, "the management API at %s answered %s: is --api the management listener's address?", c.Base, res.Status)
	}
	return res.StatusCode, data, res.Header, nil
}

// apiError is the redirects error of an error answer.
func (c *Client) apiError(status int, method, path string, data []byte) error {
	var e api.Error
	if json.Unmarshal(data, &e) != nil || e.Error == "" {
		return redirects.Errorf(redirects.EINTERNAL, "the management API at %s answered %d to %s %s", c.Base, status, method, path)
	}
	code := codes[e.Code]
	if code == "" {
		code = redirects.EINVALID
	}
	return &redirects.Error{Code: code, Message: e.Error}
}

func parseTime(s string) time.Time {
	t, _ := time.Parse(time.RFC3339Nano, s)
	return t
}

func pathEscape(s string) string { return url.PathEscape(s) }

func jsonUnmarshal(data []byte, v any) error {
	if err := json.Unmarshal(data, v); err != nil {
		return redirects.Errorf(redirects.EINTERNAL, "the management API answered with what is not its JSON: %v", err)
	}
	return nil
}
