package api

import (
	"context"
	"net/url"
	"strings"

	"redirects"
)

// Op is a route of the management API declared once: its method, its
// path, its input (a JSON body, or for GET the query, see Query), its
// answer (JSON) and the operation it makes. The management API serves
// every Op of Ops (manage), the API's client calls one (remote.Call), and
// the command line runs one either way (Do): with --db it makes the
// operation itself, with --api it calls the route.
//
// An Op made of the service layer's methods says so in Call. An Op that is
// a new operation of its own has no Call: it is a redirects.Operation,
// implemented once in the service layer (service.Implement) and reached
// through Services.Ops, so that the API's client serves it with its route
// and no method of its own. A new route of either kind is its Op and its
// shapes here, and its command; one of the second kind adds its
// implementation.
type Op[In, Out any] struct {
	// Method is the HTTP method.
	Method string
	// Path is the route's path under /manage/v1/, in net/http.ServeMux's
	// form; {project} (the project's ID) is the one path value an Op
	// takes.
	Path string
	// Action, when set, is what the route asks of the caller on the
	// project before it reads the input, as every route of the API does
	// (a caller who may not see the project learns nothing from a
	// mistake in the query); the operation decides again.
	Action redirects.Action
	// Upload marks an input that may be large by design (a sitemap's
	// URLs): its body is capped as an import's is, not as other bodies.
	Upload bool
	// Call, when set, makes the operation of the service layer's
	// methods, which authorize the caller in ctx, for project and in;
	// when nil, the operation is the service layer's own (Do).
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
	// Own reports whether the Op is an operation of its own, without a
	// Call, which the service layer implements.
	Own() bool
	// ProjectAction returns the Op's Action.
	ProjectAction() redirects.Action
	// IsUpload returns the Op's Upload.
	IsUpload() bool
	// Serve decodes the input with decode (given a pointer to it), makes
	// the call and returns the answer.
	Serve(ctx context.Context, svc redirects.Services, project string, decode func(in any) error) (any, error)
}

// IsUpload returns op's Upload.
func (op *Op[In, Out]) IsUpload() bool { return op.Upload }

// MethodPath returns op's method and path.
func (op *Op[In, Out]) MethodPath() (string, string) { return op.Method, op.Path }

// Own reports whether op has no Call: the service layer implements it.
func (op *Op[In, Out]) Own() bool { return op.Call == nil }

// ProjectAction returns op's Action.
func (op *Op[In, Out]) ProjectAction() redirects.Action { return op.Action }

// Serve decodes op's input and makes its call.
func (op *Op[In, Out]) Serve(ctx context.Context, svc redirects.Services, project string, decode func(any) error) (any, error) {
	var in In
	if err := decode(&in); err != nil {
		return nil, err
	}
	return op.Do(ctx, svc, project, in)
}

// Do makes op for project with in over svc: its Call, or the operation
// the service layer implements for it (svc.Ops), which the local service
// runs and the API's client calls the route of.
func (op *Op[In, Out]) Do(ctx context.Context, svc redirects.Services, project string, in In) (Out, error) {
	if op.Call != nil {
		return op.Call(ctx, svc, project, in)
	}
	var out Out
	err := svc.Ops.RunOp(ctx, op, project, in, &out)
	return out, err
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
