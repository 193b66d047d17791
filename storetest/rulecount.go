package storetest

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"redirects"
)

// testRuleCountModel: the number of rules a project's unfiltered page
// reports (Total, which the stores keep per project instead of counting)
// stays the number of rules the project holds (FindRules) after random
// sequences of every write of rules: AddRule (some clashing), UpdateRule,
// DeleteRule and DeleteRuleRevision (some of a stale revision or an unknown
// ID), DeleteRules with filters, imports of every mode (some dry runs, some
// refused whole), UndoImport (some refused), settings changes, and a second
// project deleted and made again beside the first. Each write that fails
// must leave the count as it was; the other project's count never moves
// with this one's writes.
func testRuleCountModel(t *testing.T, e *env) {
	sources := []string{"/a", "/A", "/a/b", "/b", "/B/c", "/c/", "/d", "/d/e", "/f", "/g/h"}
	hosts := []string{"", "", "shop.example.com"}
	for seed := range uint64(6) {
		rng := rand.New(rand.NewPCG(seed, 22))
		org := e.org(fmt.Sprintf("Count %d", seed))
		main := e.project(org.ID, "main")
		other := e.project(org.ID, "other")
		randRule := func(projectID string) redirects.Rule {
			r := redirects.Rule{ProjectID: projectID, Source: sources[rng.IntN(len(sources))], Destination: "/to/" + fmt.Sprint(rng.IntN(3)),
				StatusCode: []int{301, 302, 308, 410}[rng.IntN(4)], Priority: redirects.DefaultPriority, Host: hosts[rng.IntN(len(hosts))]}
			if r.StatusCode == redirects.StatusGone {
				r.Destination = ""
			}
			if rng.IntN(3) == 0 {
				r.MatchType = redirects.StartsWith
			}
			return r
		}
		var undos []int64
		check := func(step int, what string) {
			t.Helper()
			for _, p := range []*redirects.Project{main, other} {
				if p == nil {
					continue
				}
				rules := e.rules(p.ID)
				page, err := e.s.FindRulePage(e.ctx, p.ID, redirects.RulePageQuery{Limit: 1})
				if err != nil {
					t.Fatalf("seed %d step %d (%s): FindRulePage: %v", seed, step, what, err)
				}
				if page.Total != len(rules) {
					t.Fatalf("seed %d step %d (%s): project %s reports %d rules, holds %d", seed, step, what, p.Name, page.Total, len(rules))
				}
			}
		}
		pick := func(projectID string) *redirects.Rule {
			rules := e.rules(projectID)
			if len(rules) == 0 {
				return nil
			}
			return &rules[rng.IntN(len(rules))]
		}
		for step := range 120 {
			target := main
			if other != nil && rng.IntN(4) == 0 {
				target = other
			}
			var what string
			switch op := rng.IntN(10); op {
			case 0, 1:
				what = "add"
				r := randRule(target.ID)
				_ = e.s.AddRule(e.ctx, &r) // a clash is refused
			case 2:
				what = "update"
				if r := pick(target.ID); r != nil {
					dest := "/updated"
					src := sources[rng.IntN(len(sources))]
					_, _ = e.s.UpdateRule(e.ctx, target.ID, r.ID, redirects.RuleUpdate{Destination: &dest, Source: &src})
				}
			case 3:
				what = "delete"
				if r := pick(target.ID); r != nil {
					switch rng.IntN(3) {
					case 0:
						if err := e.s.DeleteRule(e.ctx, target.ID, r.ID); err != nil {
							t.Fatalf("seed %d step %d: DeleteRule: %v", seed, step, err)
						}
					case 1:
						_ = e.s.DeleteRuleRevision(e.ctx, target.ID, r.ID, r.Revision+1) // stale: refused
					default:
						_ = e.s.DeleteRule(e.ctx, target.ID, r.ID+1000) // unknown
					}
				}
			case 4:
				what = "delete matching"
				f := redirects.RuleFilter{Query: []string{"/a*", "/b", "/d/*", "c"}[rng.IntN(4)]}
				if rng.IntN(2) == 0 {
					m := redirects.StartsWith
					f.MatchType = &m
				}
				if _, err := e.s.DeleteRules(e.ctx, target.ID, f); err != nil {
					t.Fatalf("seed %d step %d: DeleteRules(%+v): %v", seed, step, f, err)
				}
			case 5, 6:
				mode := []redirects.ImportMode{redirects.ImportAppend, redirects.ImportUpsert, redirects.ImportReplace}[rng.IntN(3)]
				what = "import " + string(mode)
				var batch []redirects.Rule
				seen := map[string]bool{}
				for range rng.IntN(7) {
					r := randRule(target.ID)
					k := fmt.Sprint(r.MatchType, r.Host, r.Source)
					if !seen[k] {
						seen[k] = true
						batch = append(batch, r)
					}
				}
				if len(batch) > 0 && rng.IntN(5) == 0 {
					batch[rng.IntN(len(batch))].StatusCode = 200 // invalid: nothing changes
					what += " refused"
				}
				dry := rng.IntN(5) == 0
				rep, err := e.s.Import(e.ctx, target.ID, batch, redirects.ImportOptions{Mode: mode, DryRun: dry})
				if err == nil && !dry && target == main && rep.UndoID != 0 {
					undos = append(undos, rep.UndoID)
				}
			case 7:
				what = "undo"
				if len(undos) > 0 {
					k := rng.IntN(len(undos))
					_, _ = e.s.UndoImport(e.ctx, main.ID, undos[k]) // refused once the draft moved on
					undos = append(undos[:k], undos[k+1:]...)
				}
			case 8:
				what = "settings"
				s := redirects.Settings{CaseInsensitive: rng.IntN(2) == 0, IgnoreTrailingSlash: rng.IntN(2) == 0}
				_, _ = e.s.SetProjectSettings(e.ctx, target.ID, s) // refused when keys would clash
			case 9:
				if other == nil {
					what = "project made again"
					other = e.project(org.ID, fmt.Sprintf("other %d", step))
				} else {
					what = "project deleted"
					if err := e.s.DeleteProject(e.ctx, other.ID); err != nil {
						t.Fatalf("seed %d step %d: DeleteProject: %v", seed, step, err)
					}
					other = nil
				}
			}
			check(step, what)
		}
	}
}
