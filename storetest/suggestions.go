package storetest

import (
	"testing"

	"redirects"
	"redirects/service"
)

// suggestionTests are the suggestions' store side, through the service
// layer (docs/suggest.md), on every engine.
var suggestionTests = []struct {
	name string
	fn   func(*testing.T, *env)
}{
	{"Suggestions/Lifecycle", testSuggestionsLifecycle},
}

// testSuggestionsLifecycle: misses and a draft give suggestions, stored
// and read back; dismissing one keeps it from being proposed again after
// a recomputation (and is audited); accepting one puts its rule in the
// draft (audited) and leaves the live version alone; a closed suggestion
// cannot be accepted or dismissed again; an unknown one is ENOTFOUND; a
// bad limit changes nothing.
func testSuggestionsLifecycle(t *testing.T, e *env) {
	p := e.newProject()
	e.rule(p.ID, "/Docs/Intro", "/guide/intro", redirects.Exact, 0)
	e.rule(p.ID, "/old/a.html", "/new/a", redirects.Exact, 0)
	e.rule(p.ID, "/old/b.html", "/new/b", redirects.Exact, 0)
	at := e.clock.Now()
	if err := e.s.AddMisses(e.ctx, []redirects.Miss{
		{ProjectID: p.ID, Path: "/docs/intro", Count: 9, FirstSeen: at, LastSeen: at},
		{ProjectID: p.ID, Path: "/old/c.html", Count: 5, FirstSeen: at, LastSeen: at},
		{ProjectID: p.ID, Path: "/nothing/like/it", Count: 1, FirstSeen: at, LastSeen: at},
	}); err != nil {
		t.Fatalf("AddMisses: %v", err)
	}
	svc := service.New(service.Deps{Store: e.s})
	ctx := asLocal(e.ctx)
	if _, err := svc.Suggest(ctx, p.ID, redirects.SuggestOptions{Limit: redirects.MaxSuggestions + 1}); redirects.ErrorCode(err) != redirects.EINVALID {
		t.Fatalf("Suggest(limit too high) = %v, want EINVALID", err)
	}
	if got, _ := svc.FindSuggestions(ctx, p.ID); len(got) != 0 {
		t.Fatalf("a refused Suggest stored %v", got)
	}
	got, err := svc.Suggest(ctx, p.ID, redirects.SuggestOptions{})
	if err != nil {
		t.Fatalf("Suggest: %v", err)
	}
	if len(got) != 2 || got[0].Path != "/docs/intro" || got[0].Destination != "/guide/intro" || got[0].Kind != redirects.SuggestCase ||
		got[0].Misses != 9 || got[0].Setting != "caseInsensitive" || got[1].Path != "/old/c.html" || got[1].Destination != "/new/c" || got[1].Kind != redirects.SuggestPrefix {
		t.Fatalf("Suggest = %+v; want /docs/intro -> /guide/intro (case), /old/c.html -> /new/c (prefix)", got)
	}
	stored, err := svc.FindSuggestions(ctx, p.ID)
	if err != nil || len(stored) != 2 || stored[0].ID != got[0].ID || stored[0].State != redirects.SuggestionOpen || stored[0].Reason != got[0].Reason {
		t.Fatalf("FindSuggestions = %+v, %v; want what Suggest returned, open", stored, err)
	}

	if err := svc.DismissSuggestion(ctx, p.ID, got[1].ID); err != nil {
		t.Fatalf("DismissSuggestion: %v", err)
	}
	if err := svc.DismissSuggestion(ctx, p.ID, got[1].ID); redirects.ErrorCode(err) != redirects.ECONFLICT {
		t.Errorf("DismissSuggestion again = %v, want ECONFLICT", err)
	}
	again, err := svc.Suggest(ctx, p.ID, redirects.SuggestOptions{})
	if err != nil || len(again) != 1 || again[0].ID != got[0].ID {
		t.Fatalf("Suggest after a dismissal = %+v, %v; want only %s", again, err, got[0].ID)
	}
	if a := e.audit(redirects.AuditFilter{ProjectID: p.ID, Action: redirects.AuditSuggestionDismiss}); len(a) != 1 || a[0].ObjectID != got[1].ID {
		t.Errorf("audit of the dismissal = %v", a)
	}

	r, err := svc.AcceptSuggestion(ctx, p.ID, got[0].ID)
	if err != nil || r.Source != "/docs/intro" || r.Destination != "/guide/intro" || r.StatusCode != 301 {
		t.Fatalf("AcceptSuggestion = %+v, %v", r, err)
	}
	found := false
	for _, x := range e.draftOf(p.ID) {
		found = found || x.Source == "/docs/intro" && x.Destination == "/guide/intro"
	}
	if !found {
		t.Errorf("the accepted rule is not in the draft: %v", e.draftOf(p.ID))
	}
	if ds, err := e.s.FindDeployments(e.ctx, p.ID); err != nil || len(ds) != 0 {
		t.Errorf("accepting deployed: %v, %v", ds, err)
	}
	if a := e.audit(redirects.AuditFilter{ProjectID: p.ID, Action: redirects.AuditSuggestionAccept}); len(a) != 1 {
		t.Errorf("audit of the acceptance = %v, want one", a)
	}
	if _, err := svc.AcceptSuggestion(ctx, p.ID, got[0].ID); redirects.ErrorCode(err) != redirects.ECONFLICT {
		t.Errorf("AcceptSuggestion again = %v, want ECONFLICT", err)
	}
	if _, err := svc.AcceptSuggestion(ctx, p.ID, "sg_0000000000000000"); redirects.ErrorCode(err) != redirects.ENOTFOUND {
		t.Errorf("AcceptSuggestion(unknown) = %v, want ENOTFOUND", err)
	}
	final, _ := svc.FindSuggestions(ctx, p.ID)
	states := map[string]string{}
	for _, g := range final {
		states[g.ID] = g.State
	}
	if len(final) != 2 || states[got[0].ID] != redirects.SuggestionAccepted || states[got[1].ID] != redirects.SuggestionDismissed {
		t.Errorf("stored at the end: %+v", final)
	}
}
