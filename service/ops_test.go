package service_test

import (
	"context"
	"reflect"
	"slices"
	"testing"
	"time"

	"redirects"
	"redirects/api"
	"redirects/service"
)

// TestOpsImplementedOnce holds the operations declared as values to their
// implementations: every api.Op without a Call is implemented, and only
// those are.
func TestOpsImplementedOnce(t *testing.T) {
	if missing := service.Unimplemented(); len(missing) > 0 {
		t.Fatalf("api.Ops without an implementation: %q", missing)
	}
	impl := service.Implemented()
	var own []string
	for _, op := range api.Ops() {
		if op.Own() {
			m, p := op.MethodPath()
			own = append(own, m+" "+p)
		}
	}
	if len(own) == 0 || !slices.Equal(impl, own) {
		t.Fatalf("implemented %q, want the Ops without a Call %q", impl, own)
	}
}

// TestImplementRefuses: an Op with a Call of its own, or one implemented
// twice, is a mistake of the program, said at start.
func TestImplementRefuses(t *testing.T) {
	panics := func(name string, f func()) {
		t.Helper()
		defer func() {
			if recover() == nil {
				t.Errorf("%s: no panic", name)
			}
		}()
		f()
	}
	impl := func(*service.Service, context.Context, string, api.None) (int, error) { return 1, nil }
	withCall := &api.Op[api.None, int]{Method: "GET", Path: "/test/with-call",
		Call: func(context.Context, redirects.Services, string, api.None) (int, error) { return 0, nil }}
	panics("an Op with a Call", func() { service.Implement(withCall, impl) })
	twice := &api.Op[api.None, int]{Method: "GET", Path: "/test/twice"}
	service.Implement(twice, impl)
	panics("an Op implemented twice", func() { service.Implement(twice, impl) })
}

// undeclared is an operation nobody implements.
type undeclared struct{}

func (undeclared) MethodPath() (string, string) { return "GET", "/test/undeclared" }

// TestRunOpLocal runs the operations declared as values over the local
// service: the answer is the service's method's in the route's shape; an
// operation without an implementation, or given values of other types,
// is an EINTERNAL that changes nothing.
func TestRunOpLocal(t *testing.T) {
	f := newFixture(t)
	viewer := f.as(redirects.RoleViewer)
	if err := f.svc.AddRule(f.as(redirects.RoleOwner), &redirects.Rule{ProjectID: f.project.ID, Source: "/a", Destination: "/b", StatusCode: 301, MatchType: redirects.Exact}); err != nil {
		t.Fatal(err)
	}
	svc := f.svc.Services()
	got, err := api.HitsOp.Do(viewer, svc, f.project.ID, api.HitsQuery{})
	if err != nil {
		t.Fatal(err)
	}
	rules, hits, err := f.svc.FindRuleHits(viewer, f.project.ID, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	if want := api.HitsOf(rules, hits, time.Time{}); !reflect.DeepEqual(got, want) || len(got.Rules) != 1 {
		t.Fatalf("HitsOp: %+v, want %+v (one rule)", got, want)
	}
	if _, err := api.HitsOp.Do(f.as(""), svc, f.project.ID, api.HitsQuery{}); redirects.ErrorCode(err) != redirects.ENOTFOUND {
		t.Fatalf("HitsOp as a stranger: %v, want ENOTFOUND", err)
	}
	var out api.Hits
	if err := f.svc.RunOp(viewer, undeclared{}, f.project.ID, api.None{}, &out); redirects.ErrorCode(err) != redirects.EINTERNAL {
		t.Fatalf("an operation without an implementation: %v, want EINTERNAL", err)
	}
	var wrong int
	if err := f.svc.RunOp(viewer, api.HitsOp, f.project.ID, "not a query", &wrong); redirects.ErrorCode(err) != redirects.EINTERNAL || wrong != 0 {
		t.Fatalf("values of other types: %v (out %d), want EINTERNAL and out untouched", err, wrong)
	}
}
