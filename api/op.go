package api

import (
	"context"
	"net/url"
	"strings"

	"redirects"
)

// Op is a route of the management API declared once: its method, its
// path, its input (a JSON body, or for GET the query, see Query), its
// answer (JSON) and the service call it makes. The management API serves
// every Op of Ops (manage), the API's client calls one (remote.Call), and
// the command line runs one either way: with --db it makes the call
// itself, with --api it calls the route. A new route of this kind is its
// Op and its shapes here, and its command.
type Op[In, Out any] struct {
	// Method is the HTTP method.
	Method string
	// Path is the route's path under /manage/v1/, in net/http.ServeMux's
	// form; {project} (the project's ID) is the one path value an Op
	// takes.
	Path string
	// Call makes the operation through the service layer, which
	// authorizes the caller in ctx, for project and in.
	Call func(ctx context.Context, svc redirects.Services, project string, in In) (Out, error)
}

// Query is an Op's input read from, and written to, the query of a GET.
type Query interface {
	// Values returns the input as a query.
	Values() url.Values
}

// None is the input of an Op that takes none.
type None struct{}

// Values is the empty query.
func (None) Values() url.Values { return nil }

// Route is what the management API needs of an Op whatever its types.
type Route interface {
	// MethodPath returns the Op's method and path.
	MethodPath() (method, path string)
	// Serve decodes the input with decode (given a pointer to it), makes
	// the call and returns the answer.
	Serve(ctx context.Context, svc redirects.Services, project string, decode func(in any) error) (any, error)
}

// MethodPath returns op's method and path.
func (op *Op[In, Out]) MethodPath() (string, string) { return op.Method, op.Path }

// Serve decodes op's input and makes its call.
func (op *Op[In, Out]) Serve(ctx context.Context, svc redirects.Services, project string, decode func(any) error) (any, error) {
	var in In
	if err := decode(&in); err != nil {
		return nil, err
	}
	return op.Call(ctx, svc, project, in)
}

// URL returns op's path for project, escaped.
func (op *Op[In, Out]) URL(project string) string {
	return strings.ReplaceAll(op.Path, "{project}", url.PathEscape(project))
}

// ops are the Ops declared with Declare, in their order.
var ops []Route

// Declare adds op to Ops and returns it.
func Declare[In, Out any](op *Op[In, Out]) *Op[In, Out] {
	ops = append(ops, op)
	return op
}

// Ops returns every Op declared, for the management API to serve.
func Ops() []Route { return ops }
