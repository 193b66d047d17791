package service

import (
	"context"
	"fmt"

	"redirects"
	"redirects/api"
)

// opImpl is the implementation of an operation declared as a value,
// whatever its types: it checks in and out are the op's and calls the
// typed function Implement was given.
type opImpl func(ctx context.Context, s *Service, project string, in, out any) error

// impls are the implementations of the api.Ops without a Call, by method
// and path (an Op's route is its name).
var impls = map[string]opImpl{}

// opKey is op's key in impls.
func opKey(op redirects.Operation) string {
	method, path := op.MethodPath()
	return method + " " + path
}

// Implement registers f as the implementation of op, an api.Op without a
// Call, and returns op. f is written as a method of Service would be: it
// authorizes the caller in ctx (s.project with the route's action),
// validates in and calls the store. Every such Op is implemented once:
// the package's init checks it, so a program that links the service layer
// does not start with one missing.
func Implement[In, Out any](op *api.Op[In, Out], f func(s *Service, ctx context.Context, project string, in In) (Out, error)) *api.Op[In, Out] {
	key := opKey(op)
	if !op.Own() {
		panic("service.Implement: " + key + " has a Call of its own")
	}
	if impls[key] != nil {
		panic("service.Implement: " + key + " is implemented twice")
	}
	impls[key] = func(ctx context.Context, s *Service, project string, in, out any) error {
		i, ok := in.(In)
		o, ok2 := out.(*Out)
		if !ok || !ok2 {
			return redirects.Errorf(redirects.EINTERNAL, "%s takes %T and answers %T, not %T and %T", key, i, o, in, out)
		}
		v, err := f(s, ctx, project, i)
		*o = v
		return err
	}
	return op
}

func init() {
	if missing := Unimplemented(); len(missing) > 0 {
		panic(fmt.Sprintf("service: the api.Ops %q have neither a Call nor an implementation (service.Implement)", missing))
	}
}

// Unimplemented returns the routes of the api.Ops without a Call that
// have no implementation: none, once the package is initialized.
func Unimplemented() []string {
	var missing []string
	for _, op := range api.Ops() {
		if op.Own() && impls[opKey(op)] == nil {
			missing = append(missing, opKey(op))
		}
	}
	return missing
}

// Implemented returns the routes ("GET /projects/{project}/agents") of
// the operations declared as values that the service layer implements,
// for the authorization table to hold every one of them.
func Implemented() []string {
	var out []string
	for _, op := range api.Ops() {
		if impls[opKey(op)] != nil {
			out = append(out, opKey(op))
		}
	}
	return out
}

// RunOp implements redirects.OpService: the implementation registered
// for op.
func (s *Service) RunOp(ctx context.Context, op redirects.Operation, project string, in, out any) error {
	f := impls[opKey(op)]
	if f == nil {
		return redirects.Errorf(redirects.EINTERNAL, "%s has no implementation", opKey(op))
	}
	return f(ctx, s, project, in, out)
}
