package api

import "testing"

// TestEveryOpAuthorizesFirst: every route declared as an Op names the action
// it asks of the caller on the project, so that the API authorizes the
// caller before it reads the query or the body, as every other route does: a
// caller who may not see the project, or a viewer posting to an editor's
// route, learns nothing from a mistake in the input (403 or 404, never 400).
func TestEveryOpAuthorizesFirst(t *testing.T) {
	if len(Ops()) == 0 {
		t.Fatal("no Op declared")
	}
	for _, op := range Ops() {
		method, path := op.MethodPath()
		if op.ProjectAction() == "" {
			t.Errorf("%s %s declares no Action", method, path)
		}
	}
}
