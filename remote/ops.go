package remote

import (
	"context"
	"net/url"

	"redirects/api"
)

// Call calls op's route for project with in and returns its answer: in
// is the query of a GET (when it is an api.Query), the JSON body of any
// other method. Errors: as the local service's, from the API's answer.
func Call[In, Out any](ctx context.Context, c *Client, op *api.Op[In, Out], project string, in In) (Out, error) {
	var (
		out   Out
		query url.Values
		body  any
	)
	if op.Method == "GET" {
		if q, ok := any(in).(api.Query); ok {
			query = q.Values()
		}
	} else {
		body = in
	}
	err := c.do(ctx, op.Method, op.URL(project), query, body, "", &out)
	return out, err
}
