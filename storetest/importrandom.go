package storetest

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"redirects"
)

// testImportUndoRandom: random drafts and random imports of every mode,
// under the default settings and case-insensitively, with rules kept as
// they are, rules changed, rules added and host-scoped rules. Checked
// against a brute-force model of docs/contract.md#importing: the report
// counts (added, updated, unchanged, removed) and the draft after (each
// key's answer and the spelling of its source: an update keeps the
// stored one, a replace takes the batch's); the
// dry run reports what the import then does (the dry run finds the stored
// rules on its own, the applied import in the scan that makes its undo
// record); CheckImportUndo accepts the record, so the digest the import
// kept of the draft it left is the draft's; and UndoImport puts the draft
// back exactly (IDs, revisions, creation times). The seeds past the
// first 24 import the same way through RewriteDraft, whose rewrite must be
// given the draft as FindRules returns it.
func testImportUndoRandom(t *testing.T, e *env) {
	sources := []string{"/a", "/A", "/b", "/B/c", "/b/c", "/d/", "/D/", "/e", "/f/g", "/F/G", "/h"}
	hosts := []string{"", "", "", "shop.example.com"}
	dests := []string{"/to/1", "/to/2", "https://other.example.org/3"}
	for seed := range uint64(48) {
		viaRewrite := seed >= 24
		rng := rand.New(rand.NewPCG(seed, 36))
		mode := []redirects.ImportMode{redirects.ImportAppend, redirects.ImportUpsert, redirects.ImportReplace}[seed%3]
		settings := redirects.Settings{CaseInsensitive: seed%2 == 1}
		key := func(r *redirects.Rule) string {
			return fmt.Sprint(r.MatchType, " ", r.Host, " ", settings.SourceKey(r.MatchType, r.Source))
		}
		randRule := func() redirects.Rule {
			r := redirects.Rule{Source: sources[rng.IntN(len(sources))], Destination: dests[rng.IntN(len(dests))],
				StatusCode: []int{301, 302, 308}[rng.IntN(3)], Priority: redirects.DefaultPriority, Host: hosts[rng.IntN(len(hosts))]}
			if rng.IntN(3) == 0 {
				r.MatchType = redirects.StartsWith
				r.PreservePath = rng.IntN(2) == 0
			}
			r.PreserveQuery = rng.IntN(4) == 0
			if r.PreserveQuery && rng.IntN(3) == 0 {
				r.Destination += "#f"
				r.QueryAfterFragment = rng.IntN(2) == 0
			}
			if r.PreserveQuery && !r.QueryAfterFragment && rng.IntN(2) == 0 {
				path, _, frag := redirects.SplitDestination(r.Destination)
				r.Destination = path + "?m=1" + frag
				r.MergeQuery = true
			}
			if r.Host == "" && rng.IntN(4) == 0 {
				r.ExceptHosts = [][]string{{"shop.example.com"}, {"*.example.com", "example.com"}}[rng.IntN(2)]
			}
			return r
		}

		p := e.newProject()
		if settings.CaseInsensitive {
			if _, err := e.s.SetProjectSettings(e.ctx, p.ID, settings); err != nil {
				t.Fatalf("SetProjectSettings: %v", err)
			}
		}
		// The draft: up to 8 rules of distinct keys, one edited (a revision
		// past 1).
		stored := map[string]redirects.Rule{}
		for range 1 + rng.IntN(8) {
			r := randRule()
			if _, ok := stored[key(&r)]; ok {
				continue
			}
			r.ProjectID = p.ID
			if err := e.s.AddRule(e.ctx, &r); err != nil {
				t.Fatalf("seed %d: AddRule(%+v): %v", seed, r, err)
			}
			stored[key(&r)] = r
		}
		for k, r := range stored {
			dest := "/edited"
			if r.QueryAfterFragment {
				dest += "#f"
			}
			if r.MergeQuery {
				dest += "?m=e"
			}
			if _, err := e.s.UpdateRule(e.ctx, p.ID, r.ID, redirects.RuleUpdate{Destination: &dest}); err != nil {
				t.Fatalf("UpdateRule: %v", err)
			}
			r.Destination = dest
			stored[k] = r
			break
		}
		e.clock.Add(time.Minute)
		before := e.draftOf(p.ID)

		// The batch: distinct keys; some of the draft's rules again (as
		// they are, or for an upsert or a replace with another answer or
		// spelling), the rest new.
		var batch []redirects.Rule
		inBatch := map[string]bool{}
		want := redirects.ImportReport{Mode: mode}
		after := map[string]redirects.Rule{}
		if mode != redirects.ImportReplace {
			for k, r := range stored {
				after[k] = r
			}
		}
		for range rng.IntN(10) {
			var r redirects.Rule
			if len(stored) > 0 && rng.IntN(2) == 0 {
				for _, s := range stored {
					r = s
					break
				}
				r.ProjectID, r.Revision, r.CreatedAt = "", 0, time.Time{}
				if !viaRewrite || seed%2 == 1 {
					// A rewrite may name the stored rules it rewrites by
					// ID (as flattening does), or not.
					r.ID = 0
				}
				if mode != redirects.ImportAppend && rng.IntN(2) == 0 {
					r.Destination = dests[rng.IntN(len(dests))]
					if r.QueryAfterFragment {
						r.Destination += "#g"
					}
					if r.MergeQuery {
						r.Destination += "?m=2"
					}
					if settings.CaseInsensitive && rng.IntN(2) == 0 && r.Source != "" {
						r.Source = swapCase(r.Source)
					}
				}
			} else {
				r = randRule()
			}
			k := key(&r)
			if _, ok := stored[k]; inBatch[k] || (ok && mode == redirects.ImportAppend && (!sameAnswerModel(r, stored[k]) || r.Source != stored[k].Source)) {
				continue // a repeat, or an append's clash: both refused
			}
			inBatch[k] = true
			batch = append(batch, r)
			s, ok := stored[k]
			switch {
			case !ok:
				want.Added++
				after[k] = r
			case sameAnswerModel(r, s):
				want.Unchanged++
				after[k] = s
			default:
				if mode == redirects.ImportAppend {
					t.Fatalf("seed %d: the generator made an append clash", seed)
				}
				want.Updated++
				u := s
				u.Destination, u.StatusCode, u.Priority, u.PreservePath, u.PreserveQuery = r.Destination, r.StatusCode, r.Priority, r.PreservePath, r.PreserveQuery
				u.QueryAfterFragment, u.MergeQuery = r.QueryAfterFragment, r.MergeQuery
				u.ExceptHosts = r.ExceptHosts
				after[k] = u
			}
			if mode == redirects.ImportReplace {
				after[k] = r // every rule of the batch, as the batch has it
			}
		}
		if mode == redirects.ImportReplace {
			want.Removed = len(stored) - want.Updated - want.Unchanged
		}

		if viaRewrite && len(batch) == 0 {
			// A rewrite that returns no rule writes nothing, whatever the
			// mode (an import of none would still replace the draft).
			rep := e.rewriteDraft(p.ID, nil, redirects.ImportOptions{Mode: mode})
			if rep.UndoID != 0 || rep.Added+rep.Updated+rep.Removed != 0 {
				t.Fatalf("seed %d: a rewrite of no rule reported %+v", seed, *rep)
			}
			wantDraft(t, fmt.Sprintf("seed %d: the draft after a rewrite of no rule", seed), e.draftOf(p.ID), before)
			continue
		}
		var dry, rep *redirects.ImportReport
		var err error
		if viaRewrite {
			dry = e.rewriteDraft(p.ID, batch, redirects.ImportOptions{Mode: mode, DryRun: true})
			rep = e.rewriteDraft(p.ID, batch, redirects.ImportOptions{Mode: mode})
		} else {
			dry, err = e.s.Import(e.ctx, p.ID, batch, redirects.ImportOptions{Mode: mode, DryRun: true})
			if err != nil {
				t.Fatalf("seed %d: dry run of %s %v: %v", seed, mode, batch, err)
			}
			rep = e.importRules(p.ID, batch, mode)
		}
		for _, got := range []*redirects.ImportReport{dry, rep} {
			if got.Added != want.Added || got.Updated != want.Updated || got.Unchanged != want.Unchanged || got.Removed != want.Removed {
				t.Fatalf("seed %d: %s of %d rules (dry run %t) reported added %d updated %d unchanged %d removed %d; the model says %d %d %d %d",
					seed, mode, len(batch), got.DryRun, got.Added, got.Updated, got.Unchanged, got.Removed,
					want.Added, want.Updated, want.Unchanged, want.Removed)
			}
		}
		draft := e.rules(p.ID)
		if len(draft) != len(after) {
			t.Fatalf("seed %d: %s left %d rules %v, the model %d", seed, mode, len(draft), keysOf(draft), len(after))
		}
		for _, r := range draft {
			m, ok := after[key(&r)]
			if !ok || !sameAnswerModel(r, m) || r.Source != m.Source {
				t.Fatalf("seed %d: %s left %+v; the model has %+v", seed, mode, r, m)
			}
		}
		e.clock.Add(time.Minute)
		if err := e.s.CheckImportUndo(e.ctx, p.ID, rep.UndoID); err != nil {
			t.Fatalf("seed %d: CheckImportUndo after a %s: %v", seed, mode, err)
		}
		if _, err := e.s.UndoImport(e.ctx, p.ID, rep.UndoID); err != nil {
			t.Fatalf("seed %d: UndoImport of a %s: %v", seed, mode, err)
		}
		wantDraft(t, fmt.Sprintf("seed %d: the draft after undoing a %s", seed, mode), e.draftOf(p.ID), before)
	}
}

// sameAnswerModel reports whether a and b answer alike: every field but
// the key (match type, host, source) and the row's own.
func sameAnswerModel(a, b redirects.Rule) bool {
	return a.Destination == b.Destination && a.StatusCode == b.StatusCode && a.Priority == b.Priority &&
		a.PreservePath == b.PreservePath && a.PreserveQuery == b.PreserveQuery && a.QueryAfterFragment == b.QueryAfterFragment &&
		a.MergeQuery == b.MergeQuery && slices.Equal(a.ExceptHosts, b.ExceptHosts)
}

// swapCase swaps the case of s's ASCII letters.
func swapCase(s string) string {
	b := []byte(s)
	for i, c := range b {
		switch {
		case c >= 'a' && c <= 'z':
			b[i] = c - 'a' + 'A'
		case c >= 'A' && c <= 'Z':
			b[i] = c - 'A' + 'a'
		}
	}
	return string(b)
}

func keysOf(rules []redirects.Rule) []string {
	out := make([]string, len(rules))
	for i, r := range rules {
		out[i] = r.MatchType.String() + " " + r.Host + " " + r.Source
	}
	return out
}

// rewriteDraft is RewriteDraft of projectID whose rewrite returns batch,
// once it has checked that the draft it is given is FindRules' (fields,
// IDs, creation times; revisions 0) and that the project is projectID.
// An applied rewrite of a non-empty batch must name its undo record.
func (e *env) rewriteDraft(projectID string, batch []redirects.Rule, opts redirects.ImportOptions) *redirects.ImportReport {
	e.t.Helper()
	want := e.rules(projectID)
	calls := 0
	rep, err := e.s.RewriteDraft(e.ctx, projectID, func(p *redirects.Project, draft []redirects.Rule) ([]redirects.Rule, error) {
		calls++
		if p.ID != projectID {
			return nil, fmt.Errorf("rewrite given project %s, want %s", p.ID, projectID)
		}
		if len(draft) != len(want) {
			return nil, fmt.Errorf("rewrite given %d rules %v, FindRules has %d %v", len(draft), keysOf(draft), len(want), keysOf(want))
		}
		for i := range draft {
			if !draft[i].Equal(&want[i]) {
				return nil, fmt.Errorf("rewrite given rule %+v at %d, FindRules has %+v", draft[i], i, want[i])
			}
		}
		return slices.Clone(batch), nil
	}, opts)
	if err != nil {
		e.t.Fatalf("RewriteDraft(%s, dry run %t, %d rules): %v", opts.Mode, opts.DryRun, len(batch), err)
	}
	if calls != 1 {
		e.t.Fatalf("RewriteDraft called its rewrite %d times, want 1", calls)
	}
	if !opts.DryRun && len(batch) > 0 && rep.UndoID == 0 {
		e.t.Fatalf("RewriteDraft(%s) applied without an UndoID", opts.Mode)
	}
	return rep
}
