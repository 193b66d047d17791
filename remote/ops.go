package remote

import (
	"context"
	"net/url"
	"strings"

	"redirects"
	"redirects/api"
)

// Call calls op's route for project with in and returns its answer: in
// is the query of a GET (when it is an api.Query), the JSON body of any
// other method. Errors: as the local service's, from the API's answer.
func Call[In, Out any](ctx context.Context, c *Client, op *api.Op[In, Out], project string, in In) (Out, error) {
	var out Out
	err := c.RunOp(ctx, op, project, in, &out)
	return out, err
}

// RunOp implements redirects.OpService: it calls op's route for project
// with in (a GET's query when in is an api.Query, any other method's JSON
// body) and decodes the answer into out, so that every operation declared
// as an api.Op is served by the client with no method of its own.
func (c *Client) RunOp(ctx context.Context, op redirects.Operation, project string, in, out any) error {
	method, path := op.MethodPath()
	var (
		query url.Values
		body  any
	)
	if method == "GET" {
		if q, ok := in.(api.Query); ok {
			query = q.Values()
		}
	} else {
		body = in
	}
	return c.do(ctx, method, strings.ReplaceAll(path, "{project}", url.PathEscape(project)), query, body, "", out)
}
