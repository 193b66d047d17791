package safety

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"

	"redirects"
	"redirects/internal/rulemodel"
)

// pmAfter draws the version after p: settings kept or drawn again, each
// rule kept, removed or changed (destination, status, priority), and
// rules added, numbered and aged after p's.
func pmAfter(t *rapid.T, p pmSet) pmSet {
	st := p.st
	if rapid.IntRange(0, 2).Draw(t, "newSettings") == 0 {
		st = redirects.Settings{CaseInsensitive: rapid.Bool().Draw(t, "ci2"), IgnoreTrailingSlash: rapid.Bool().Draw(t, "ignore2")}
	}
	var rules []redirects.Rule
	for _, r := range p.rules {
		switch rapid.IntRange(0, 6).Draw(t, "fate") {
		case 6:
			if r.Host == "" {
				r.ExceptHosts = nil
				if rapid.Bool().Draw(t, "newExcept") {
					r.ExceptHosts = pmExceptHosts(t)
				}
			}
		case 0:
			continue
		case 1:
			r.Destination = rapid.SampledFrom([]string{"/moved", "https://example.com/new", "/docs/"}).Draw(t, "newDest")
		case 2:
			r.StatusCode = rapid.SampledFrom([]int{301, 302, 308}).Draw(t, "newStatus")
		case 3:
			r.Priority = rapid.SampledFrom([]int{0, 1, 100}).Draw(t, "newPriority")
		}
		rules = append(rules, r)
	}
	n := int64(len(p.rules))
	for k := rapid.IntRange(0, 3).Draw(t, "added"); k > 0; k-- {
		r := pmRule.Draw(t, "new")
		n++
		r.ID, r.CreatedAt = n, t0.Add(time.Duration(n)*time.Minute)
		rules = append(rules, r)
	}
	return pmSet{st, withoutClashingExcept(distinct(rules), st)}
}

// distinct keeps the first rule of each identity (match type, host key,
// source), as validation keeps one.
func distinct(rules []redirects.Rule) []redirects.Rule {
	seen := map[string]bool{}
	var out []redirects.Rule
	for _, r := range rules {
		k := r.MatchType.String() + " " + hostKey(r.Host) + " " + r.Source
		if !seen[k] {
			seen[k] = true
			out = append(out, r)
		}
	}
	return out
}

// modelAnswer is what the model answers (host, wire) with: the rule's ID
// (0 for none) and "status destination" ("no redirect").
func modelAnswer(p pmSet, host, wire string) (int64, string) {
	a, ok := rulemodel.LookupPatterns(toModel(p.rules), rulemodel.Of(p.st), host, wire)
	if !ok {
		return 0, "no redirect"
	}
	r := &p.rules[a.Rule]
	return r.ID, fmt.Sprint(r.StatusCode, " ", a.Destination)
}

// TestDiffImpactIsTheModelWithPatterns holds a diff of random projects of
// every kind, host, condition and setting to the model: every sampled
// request (each rule's sample on its host, and on the lookup hosts and
// none, and random paths) whose answer differs between the versions is in
// the impact, or is answered (before or after) by a rule the diff lists as
// added, removed or changed, or differs by a change of settings alone
// (the diff names the change);
// and every impact row is a change the model sees, with its answers.
func TestDiffImpactIsTheModelWithPatterns(t *testing.T) {
	var rows, differ, bySettings int
	rapid.Check(t, func(t *rapid.T) {
		before := pmProject.Draw(t, "before")
		before.rules = distinct(before.rules)
		after := pmAfter(t, before)
		d := Diff(before.rules, after.rules, DiffOptions{MaxPaths: -1, From: before.st, To: after.st})

		for _, c := range d.Impact {
			rows++
			fromID, from := modelAnswer(before, c.Host, c.Path)
			toID, to := modelAnswer(after, c.Host, c.Path)
			if from == to || from != c.From.String() && !(c.From.StatusCode == 0 && fromID == 0) || to != c.To.String() {
				t.Fatalf("before %+v %+v\nafter %+v %+v\nimpact row %q on %q: %s -> %s; the model: %s (rule %d) -> %s (rule %d)",
					before.st, before.rules, after.st, after.rules, c.Path, c.Host, c.From, c.To, from, fromID, to, toID)
			}
		}

		listed := map[int64]bool{}
		for _, r := range d.Removed {
			listed[-r.ID] = true
		}
		for _, r := range d.Added {
			listed[r.ID] = true
		}
		for _, c := range d.Changed {
			listed[-c.From.ID], listed[c.To.ID] = true, true
		}
		inImpact := map[string]bool{}
		for _, c := range d.Impact {
			inImpact[c.Host+" "+c.Path] = true
			// The same change between the same rules, seen on another
			// request (a rule answering where another did).
			inImpact[fmt.Sprint(c.From.RuleID, " -> ", c.To.RuleID)] = true
		}
		type req struct{ host, wire string }
		var reqs []req
		hosts := append([]string{""}, pmLookupHosts...)
		for _, p := range []pmSet{before, after} {
			x := newIndex(p.rules, p.st)
			for i := range p.rules {
				h, w, ok := x.rep(int32(i))
				if !ok {
					continue
				}
				reqs = append(reqs, req{h, w})
				for _, lh := range hosts {
					reqs = append(reqs, req{lh, w})
				}
			}
		}
		for k := rapid.IntRange(1, 8).Draw(t, "random"); k > 0; k-- {
			var b strings.Builder
			for n := rapid.IntRange(1, 3).Draw(t, "depth"); n > 0; n-- {
				b.WriteString("/" + rapid.SampledFrom(pmWords).Draw(t, "word"))
			}
			b.WriteString(rapid.SampledFrom([]string{"", "/", "?p=123", "?id=7&flag", "?empty="}).Draw(t, "tail"))
			reqs = append(reqs, req{rapid.SampledFrom(hosts).Draw(t, "host"), b.String()})
		}
		for _, q := range reqs {
			fromID, from := modelAnswer(before, q.host, q.wire)
			toID, to := modelAnswer(after, q.host, q.wire)
			if from == to {
				continue
			}
			differ++
			if inImpact[q.host+" "+q.wire] || inImpact[fmt.Sprint(fromID, " -> ", toID)] || fromID != 0 && listed[-fromID] || toID != 0 && listed[toID] {
				continue
			}
			// A change of settings is a change of its own: the samples
			// cannot reach every request a setting gives to a rule or
			// takes from it (a random path a rule's other spelling
			// matches). A request the after rules answer under the
			// before settings as the before rules do differs by the
			// settings alone, and the diff names them; so does one the after
			// rules answer under the before settings with a rule the diff
			// lists, then otherwise under the after settings.
			if midID, mid := modelAnswer(pmSet{before.st, after.rules}, q.host, q.wire); d.Settings != nil && (mid == from || midID != 0 && listed[midID]) {
				bySettings++
				continue
			}
			t.Fatalf("before %+v %+v\nafter %+v %+v\n%q on %q: %s (rule %d) -> %s (rule %d) in the model; the diff shows none of it: %+v",
				before.st, before.rules, after.st, after.rules, q.wire, q.host, from, fromID, to, toID, d)
		}
	})
	t.Logf("impact rows checked: %d; differing requests: %d, of which by a change of settings alone: %d", rows, differ, bySettings)
	if rows == 0 || differ == 0 {
		t.Error("no impact row or differing request was checked: the generators stopped exercising the diff")
	}
}

// TestDiffNamesExceptHosts: a change of a rule's exceptHosts alone is a
// change that names the field, and its impact lists the excepted host.
func TestDiffNamesExceptHosts(t *testing.T) {
	from := []redirects.Rule{{ID: 1, MatchType: redirects.StartsWith, Source: "/", Destination: "https://example.com/", StatusCode: 301, Priority: 100, CreatedAt: t0}}
	to := slices.Clone(from)
	to[0].ExceptHosts = []string{"example.com"}
	d := Diff(from, to, DiffOptions{MaxPaths: -1})
	if len(d.Changed) != 1 || !slices.Equal(d.Changed[0].Fields, []string{"exceptHosts"}) {
		t.Fatalf("changed %+v, want the rule with the field exceptHosts", d.Changed)
	}
	if !slices.ContainsFunc(d.Impact, func(p PathChange) bool { return p.Host == "example.com" && p.To.StatusCode == 0 }) {
		t.Fatalf("impact %+v lacks a path on example.com that no longer redirects", d.Impact)
	}
}
