package storetest

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"redirects/internal/rulegen"

	"redirects"
)

// batch returns rules as an import file gives them: no ID, project or time.
func batch(specs ...string) []redirects.Rule {
	var out []redirects.Rule
	for _, s := range specs {
		m := redirects.Exact
		if strings.HasSuffix(s, "*") {
			m, s = redirects.StartsWith, strings.TrimSuffix(s, "*")
		}
		out = append(out, redirects.Rule{Source: s, Destination: "/to" + s, StatusCode: 301, MatchType: m, Priority: 100})
	}
	return out
}

func testImportStores(t *testing.T, e *env) {
	p := e.newProject()
	deleted := e.rule(p.ID, "/gone", "/x", redirects.Exact, 100)
	if err := e.s.DeleteRule(e.ctx, p.ID, deleted.ID); err != nil {
		t.Fatalf("DeleteRule: %v", err)
	}
	e.clock.Add(time.Hour)
	in := batch("/a", "/b*", "/c", "/b", "/d*")
	in[1].Priority = 3
	n, err := e.s.ImportRules(e.ctx, p.ID, in, false)
	if err != nil {
		t.Fatalf("ImportRules: %v", err)
	}
	if n != len(in) {
		t.Errorf("ImportRules = %d, want %d", n, len(in))
	}
	got := e.rules(p.ID)
	if len(got) != len(in) {
		t.Fatalf("FindRules = %v, want the %d imported", sources(got), len(in))
	}
	// IDs are new: unique, and never a deleted rule's.
	ids := map[int64]bool{deleted.ID: true}
	for _, r := range got {
		if r.ProjectID != p.ID {
			t.Errorf("rule %q: ProjectID = %q, want %q", r.Source, r.ProjectID, p.ID)
		}
		wantTime(t, "imported CreatedAt", r.CreatedAt, e.clock.Now())
		if r.ID <= 0 || ids[r.ID] {
			t.Errorf("rule %q got the ID %d, which is not positive, taken, or a deleted rule's", r.Source, r.ID)
		}
		ids[r.ID] = true
	}
	if got[3].Source != "/b" || got[3].Priority != 3 || got[3].MatchType != redirects.StartsWith {
		t.Errorf("first prefix rule = %+v, want starts_with /b with priority 3", got[3])
	}

	n, err = e.s.ImportRules(e.ctx, p.ID, nil, false)
	if err != nil || n != 0 {
		t.Errorf("ImportRules(nothing) = %d, %v; want 0, nil", n, err)
	}
	if len(e.rules(p.ID)) != len(in) {
		t.Errorf("ImportRules(nothing) changed the rules")
	}
}

func testImportAllOrNothing(t *testing.T, e *env) {
	p := e.newProject()
	taken := e.rule(p.ID, "/taken", "/x", redirects.Exact, 100)
	in := batch("/ok", "no-slash", "/ok2*", "/ok", "/taken", "/ok3", "/ok2*", "/ok", "/taken")
	in[5].StatusCode = 304
	_, err := e.s.ImportRules(e.ctx, p.ID, in, false)
	wantCode(t, "ImportRules(bad batch)", err, redirects.EINVALID)

	// One line per problem, in the order of the batch, each naming the
	// rule's 1-based position; a repeat names the first occurrence too.
	lines := strings.Split(redirects.ErrorMessage(err), "\n")
	want := []struct {
		prefix string
		names  []string
	}{
		{"rule 2: ", []string{"source", `"no-slash"`}},
		{"rule 4: ", []string{`"/ok"`, "rule 1"}},
		{"rule 5: ", []string{`"/taken"`}},
		{"rule 6: ", []string{"304"}},
		{"rule 7: ", []string{`"/ok2"`, "rule 3"}},
		{"rule 8: ", []string{`"/ok"`, "rule 1"}},
		{"rule 9: ", []string{`"/taken"`, "rule 5"}},
	}
	if len(lines) != len(want) {
		t.Fatalf("ImportRules error has %d lines, want %d:\n%s", len(lines), len(want), redirects.ErrorMessage(err))
	}
	for i, w := range want {
		if !strings.HasPrefix(lines[i], w.prefix) {
			t.Errorf("line %d = %q, want it to start with %q", i+1, lines[i], w.prefix)
		}
		for _, n := range w.names {
			if !strings.Contains(lines[i], n) {
				t.Errorf("line %d = %q, want it to name %s", i+1, lines[i], n)
			}
		}
	}
	wantRules(t, "FindRules after a failed import", e.rules(p.ID), []redirects.Rule{*taken})

	// The same problems with replace, less the clash with a stored rule.
	_, err = e.s.ImportRules(e.ctx, p.ID, in, true)
	wantCode(t, "ImportRules(bad batch, replace)", err, redirects.EINVALID)
	if n := strings.Count(redirects.ErrorMessage(err), "\n") + 1; n != 6 {
		t.Errorf("ImportRules(replace) reports %d problems, want 6:\n%s", n, redirects.ErrorMessage(err))
	}
	wantRules(t, "FindRules after a failed replace", e.rules(p.ID), []redirects.Rule{*taken})
}

func testImportConflictOnly(t *testing.T, e *env) {
	p := e.newProject()
	a := e.rule(p.ID, "/a", "/x", redirects.Exact, 100)
	b := e.rule(p.ID, "/b", "/x", redirects.StartsWith, 100)
	_, err := e.s.ImportRules(e.ctx, p.ID, batch("/new", "/a", "/b", "/b*"), false)
	wantCode(t, "ImportRules(clashes)", err, redirects.ECONFLICT, "rule 2: ", "rule 4: ", `"/a"`, `"/b"`)
	if strings.Contains(redirects.ErrorMessage(err), "rule 3:") {
		t.Errorf("ImportRules reports rule 3, an exact /b beside a starts_with /b, as a problem:\n%s", redirects.ErrorMessage(err))
	}
	wantRules(t, "FindRules after a clash", e.rules(p.ID), []redirects.Rule{*a, *b})
}

func testImportReplace(t *testing.T, e *env) {
	p := e.newProject()
	q := e.project(p.OrgID, "other")
	e.rule(p.ID, "/a", "/x", redirects.Exact, 100)
	e.rule(p.ID, "/b", "/x", redirects.Exact, 100)
	other := e.rule(q.ID, "/a", "/x", redirects.Exact, 100)
	e.clock.Add(time.Hour)

	n, err := e.s.ImportRules(e.ctx, p.ID, batch("/a", "/c*"), true)
	if err != nil || n != 2 {
		t.Fatalf("ImportRules(replace) = %d, %v; want 2, nil", n, err)
	}
	got := e.rules(p.ID)
	if s := sources(got); !slices.Equal(s, []string{"exact /a", "starts_with /c"}) {
		t.Errorf("FindRules after replace = %v, want [exact /a starts_with /c]", s)
	}
	for _, r := range got {
		if r.Destination != "/to"+r.Source {
			t.Errorf("rule %q -> %q, want the imported destination", r.Source, r.Destination)
		}
		wantTime(t, "replaced CreatedAt", r.CreatedAt, e.clock.Now())
	}
	wantRules(t, "other project's rules", e.rules(q.ID), []redirects.Rule{*other})

	if _, err := e.s.ImportRules(e.ctx, p.ID, nil, true); err != nil {
		t.Fatalf("ImportRules(nothing, replace): %v", err)
	}
	if got := e.rules(p.ID); len(got) != 0 {
		t.Errorf("FindRules after replacing with nothing = %v, want none", sources(got))
	}
}

func testImportUnknownProject(t *testing.T, e *env) {
	_, err := e.s.ImportRules(e.ctx, "prj_nope", batch("/a"), false)
	wantCode(t, "ImportRules(unknown project)", err, redirects.ENOTFOUND, "prj_nope")
}

// testImportLarge imports enough rules to take the parallel paths of
// ImportRules (sorting halves, validating while inserting, COPY) and checks
// what comes back, that importing them again stores nothing and importing
// them with other destinations reports every clash, that one
// bad rule among many stops everything, and that replacing a large draft
// with itself stores the same rules anew.
func testImportLarge(t *testing.T, e *env) {
	p := e.newProject()
	const n = 50_000
	rules := rulegen.Rules(n, 0.3, 7)
	if got, err := e.s.ImportRules(e.ctx, p.ID, rules, false); err != nil || got != n {
		t.Fatalf("ImportRules = %d, %v; want %d, nil", got, err, n)
	}
	stored := e.rules(p.ID)
	if len(stored) != n {
		t.Fatalf("FindRules = %d rules, want %d", len(stored), n)
	}
	type key struct {
		m redirects.MatchType
		s string
	}
	want := make(map[key]redirects.Rule, n)
	for _, r := range rules {
		want[key{r.MatchType, r.Source}] = r
	}
	for _, r := range stored {
		w, ok := want[key{r.MatchType, r.Source}]
		if !ok || r.Destination != w.Destination || r.StatusCode != w.StatusCode || r.Priority != w.Priority {
			t.Fatalf("stored rule %+v, want %+v", r, w)
		}
	}

	// Importing the same rules again stores nothing new; importing them
	// with other destinations clashes with every one of them.
	if _, err := e.s.ImportRules(e.ctx, p.ID, rules, false); err != nil {
		t.Fatalf("ImportRules(again) = %v, want nil", err)
	}
	if got := len(e.rules(p.ID)); got != n {
		t.Fatalf("FindRules after importing again = %d rules, want %d", got, n)
	}
	moved := slices.Clone(rules)
	for i := range moved {
		moved[i].Destination += "-moved"
	}
	_, err := e.s.ImportRules(e.ctx, p.ID, moved, false)
	if code := redirects.ErrorCode(err); code != redirects.ECONFLICT {
		t.Fatalf("ImportRules(other destinations) = %.200v, want ECONFLICT", err)
	}
	if lines := strings.Count(redirects.ErrorMessage(err), "\n") + 1; lines != n {
		t.Errorf("ImportRules(other destinations) reports %d clashes, want %d", lines, n)
	}

	// A space fails validation; a NUL byte fails it too, before PostgreSQL
	// could refuse it.
	for i, dest := range []string{"/a b", "/a\x00b"} {
		bad := slices.Clone(rules)
		bad[n-7].Destination = dest
		q := e.project(p.OrgID, fmt.Sprint("bad", i))
		_, err = e.s.ImportRules(e.ctx, q.ID, bad, false)
		if redirects.ErrorCode(err) != redirects.EINVALID || !strings.HasPrefix(redirects.ErrorMessage(err), fmt.Sprintf("rule %d: destination", n-6)) ||
			strings.Contains(redirects.ErrorMessage(err), "\n") {
			t.Fatalf("ImportRules(one bad rule, destination %q) = %v, want one EINVALID line for rule %d", dest, err, n-6)
		}
		if got := e.rules(q.ID); len(got) != 0 {
			t.Errorf("FindRules after a failed import = %d rules; want none", len(got))
		}
	}

	// Replacing a large draft with itself stores the same rules anew.
	if got, err := e.s.ImportRules(e.ctx, p.ID, rules, true); err != nil || got != n {
		t.Fatalf("ImportRules(replace) = %d, %v; want %d, nil", got, err, n)
	}
}
