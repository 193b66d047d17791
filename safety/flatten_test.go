package safety

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"
	"redirects"
	"redirects/engine/pattern"
	"redirects/internal/rulemodel"
)

// planted is what plantChains made: for each chain it meant to be
// flattenable, its first rule's ID and where the chain ends; and the IDs
// of every rule on a chain that must be left alone (mixed statuses, a 410
// at the end, an end that depends on the request, a loop).
type planted struct {
	flat map[int64]string
	left []int64
}

var (
	permanent = []int{301, 308}
	temporary = []int{302, 303, 307}
)

// plantChains appends to rules, under a namespace of their own (so that
// the random rules beside them reach them only through their destinations),
// chains of each kind: flattenable ones of 2 to 4 exact rules of one status
// class (the first one maybe a starts_with rule, or keeping the query with
// every rule after it), and mixed, 410, request-dependent and looping
// ones. It numbers every rule and returns what it planted. keepQuery
// allows the flattenable chains that keep the query (a project of literal
// rules only).
func plantChains(rng *rand.Rand, rules []redirects.Rule, keepQuery bool, own string) ([]redirects.Rule, planted) {
	pl := planted{flat: map[int64]string{}}
	add := func(r redirects.Rule) int64 {
		if r.Priority == 0 {
			r.Priority = redirects.DefaultPriority
		}
		rules = append(rules, r)
		return int64(len(rules))
	}
	pick := func(class []int) int { return class[rng.IntN(len(class))] }
	for k := range 1 + rng.IntN(3) {
		class := permanent
		if rng.IntN(2) == 0 {
			class = temporary
		}
		n := 2 + rng.IntN(3)
		q := keepQuery && rng.IntN(3) == 0
		end := fmt.Sprintf("https://other.org/fl%d", k)
		var first int64
		for i := range n {
			d := fmt.Sprintf("/fl%d/%d", k, i+1)
			if rng.IntN(3) == 0 {
				d = "https://" + own + d
			}
			if i == n-1 {
				d = end
			}
			r := redirects.Rule{MatchType: redirects.Exact, Source: fmt.Sprintf("/fl%d/%d", k, i), Destination: d,
				StatusCode: pick(class), PreserveQuery: q || (i > 0 && rng.IntN(4) == 0)}
			if i == 0 && rng.IntN(3) == 0 {
				r.MatchType = redirects.StartsWith
				r.Priority = redirects.MinPriority
			}
			id := add(r)
			if i == 0 {
				first = id
			}
		}
		pl.flat[first] = end
	}
	for k := range 1 + rng.IntN(2) {
		// Mixed: one answer of the other class somewhere on the way.
		n := 2 + rng.IntN(3)
		odd := rng.IntN(n)
		for i := range n {
			code := pick(permanent)
			if i == odd {
				code = pick(temporary)
			}
			if odd == 0 && i == 1 {
				code = pick(permanent)
			}
			d := fmt.Sprintf("/mx%d/%d", k, i+1)
			if i == n-1 {
				d = fmt.Sprintf("https://other.org/mx%d", k)
			}
			pl.left = append(pl.left, add(redirects.Rule{MatchType: redirects.Exact, Source: fmt.Sprintf("/mx%d/%d", k, i), Destination: d, StatusCode: code}))
		}
	}
	// Through a 410.
	code := pick(permanent)
	pl.left = append(pl.left,
		add(redirects.Rule{MatchType: redirects.Exact, Source: "/gn/0", Destination: "/gn/1", StatusCode: code}),
		add(redirects.Rule{MatchType: redirects.Exact, Source: "/gn/1", Destination: "/gn/2", StatusCode: code}),
		add(redirects.Rule{MatchType: redirects.Exact, Source: "/gn/2", StatusCode: redirects.StatusGone}))
	// The rest of the path decides where it ends: /in/a ends at /a, /in/b
	// at /b.
	pl.left = append(pl.left,
		add(redirects.Rule{MatchType: redirects.StartsWith, Source: "/in/", Destination: "/inb/", StatusCode: 301, PreservePath: true, Priority: redirects.MinPriority}),
		add(redirects.Rule{MatchType: redirects.Exact, Source: "/inb/a", Destination: "https://other.org/a", StatusCode: 301}),
		add(redirects.Rule{MatchType: redirects.StartsWith, Source: "/inb/", Destination: "https://other.org/b", StatusCode: 301, Priority: redirects.MinPriority}))
	// The query decides: kept by the first rule, not by the next.
	pl.left = append(pl.left,
		add(redirects.Rule{MatchType: redirects.Exact, Source: "/iq", Destination: "/iqb", StatusCode: 302, PreserveQuery: true}),
		add(redirects.Rule{MatchType: redirects.Exact, Source: "/iqb", Destination: "/iqc", StatusCode: 302}),
		add(redirects.Rule{MatchType: redirects.Exact, Source: "/iqc", Destination: "https://other.org/q", StatusCode: 302}))
	// A loop, and a chain into it.
	pl.left = append(pl.left,
		add(redirects.Rule{MatchType: redirects.Exact, Source: "/lp/in", Destination: "/lp/0", StatusCode: 301}),
		add(redirects.Rule{MatchType: redirects.Exact, Source: "/lp/0", Destination: "/lp/1", StatusCode: 301}),
		add(redirects.Rule{MatchType: redirects.Exact, Source: "/lp/1", Destination: "/lp/0", StatusCode: 301}))
	for i := range rules {
		rules[i].ID = int64(i + 1)
		rules[i].CreatedAt = t0.Add(time.Duration(i) * time.Minute)
	}
	return rules, pl
}

// applyFixes returns rules with each fix's destination.
func applyFixes(rules []redirects.Rule, fixes []redirects.ChainFix) []redirects.Rule {
	out := slices.Clone(rules)
	at := map[int64]int{}
	for i := range out {
		at[out[i].ID] = i
	}
	for _, f := range fixes {
		out[at[f.Rule.ID]].Destination = f.Destination
	}
	return out
}

// checkPlanted holds the fixes to what plantChains meant: each flattenable
// chain's first rule now points at the chain's end, every rule of a chain
// to leave alone is unchanged, and nothing is both fixed and left.
func checkPlanted(t interface {
	Helper()
	Fatalf(string, ...any)
}, seed any, pl planted, fixes []redirects.ChainFix, left []redirects.ChainLeft) {
	t.Helper()
	fixed := map[int64]string{}
	for _, f := range fixes {
		fixed[f.Rule.ID] = f.Destination
		if f.Rule.StatusCode == redirects.StatusGone || f.Hops < 2 {
			t.Fatalf("%v: fix %+v", seed, f)
		}
	}
	for _, l := range left {
		if _, ok := fixed[l.Rule.ID]; ok {
			t.Fatalf("%v: rule %d both fixed and left alone: %s", seed, l.Rule.ID, l.Message)
		}
	}
	for id, end := range pl.flat {
		if got, ok := fixed[id]; !ok || got != end {
			var msgs []string
			for _, l := range left {
				msgs = append(msgs, l.Message)
			}
			t.Fatalf("%v: flattenable chain from rule %d: fixed to %q (%v), want %q; left:\n%s", seed, id, got, ok, end, strings.Join(msgs, "\n"))
		}
	}
	for _, id := range pl.left {
		if d, ok := fixed[id]; ok {
			t.Fatalf("%v: rule %d is on a chain to leave alone, yet rewritten to %s", seed, id, d)
		}
	}
}

// normEnd is where a client ends, answered dest to a request on host
// (lower-cased; "" for a request whose host is not known): a relative
// destination on a known host, and an absolute one, as "//host/path" (the
// scheme dropped, the host lower-cased) when the host is own; otherwise
// dest as it is.
func normEnd(own func(string) bool, host, dest string) string {
	if strings.HasPrefix(dest, "/") {
		if host == "" {
			return dest
		}
		return "//" + host + dest
	}
	rest, ok := cutSchemeFold(dest)
	if !ok {
		return dest
	}
	h, p := rest, "/"
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		h, p = rest[:i], rest[i:]
	}
	if !own(strings.ToLower(h)) {
		return dest
	}
	return "//" + strings.ToLower(h) + p
}

// nextHost is the host of the request dest makes, answered to one on host.
func nextHost(host, dest string) string {
	if strings.HasPrefix(dest, "/") {
		return host
	}
	rest, _ := cutSchemeFold(dest)
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		rest = rest[:i]
	}
	return strings.ToLower(rest)
}

// optFinal is what a client asking wire ends at: the first answer's status
// and where following it ends (or a loop), through the model, with the
// host it ends on.
func optFinal(rules []redirects.Rule, s redirects.Settings, wire string) string {
	a, ok := rulemodel.Lookup(rules, rulemodel.Of(s), wire)
	if !ok {
		return "miss"
	}
	if a.Status == redirects.StatusGone {
		return "410"
	}
	own := func(h string) bool {
		name, _, _ := strings.Cut(h, ":")
		return slices.Contains(optHosts, h) || slices.Contains(optHosts, name)
	}
	host, dest := "", a.Destination
	seen := map[string]bool{}
	for n := 0; ; n++ {
		w, ok := modelFollowWire(optHosts, dest)
		if !ok {
			break
		}
		b, ok := rulemodel.Lookup(rules, rulemodel.Of(s), w)
		if !ok || b.Status == redirects.StatusGone {
			break
		}
		host = nextHost(host, dest)
		p, _ := modelDecode(w)
		q := ""
		if i := strings.IndexByte(w, '?'); i >= 0 {
			q = w[i+1:]
		}
		req := host + " " + modelKey(s, p) + "?" + q
		if seen[req] || n >= MaxFollow {
			return fmt.Sprint(a.Status, " loop")
		}
		seen[req] = true
		dest = b.Destination
	}
	return fmt.Sprint(a.Status, " ", normEnd(own, host, dest))
}

// TestFlattenKeepsEveryFinal is the property of flattening on random
// projects of literal rules (every setting, option and status, with
// destinations pointed at other rules' sources, and planted chains of
// every kind): after the fixes, every request (each rule's source as is,
// in another case, with a trailing slash, a rest, a query) ends where it
// ended before, by the model's lookup, with the same first status; every
// flattenable chain planted reaches its end in one redirect; and no rule
// of a chain to leave alone changed.
func TestFlattenKeepsEveryFinal(t *testing.T) {
	fixedN, viaRest := 0, 0
	for seed := range uint64(1500) {
		rng := rand.New(rand.NewPCG(seed, 38))
		s, rules := optProject(rng, 1+rng.IntN(14))
		rules, pl := plantChains(rng, rules, true, optHosts[0])
		fixes, left := FlattenChains(rules, LintOptions{Settings: s, Hosts: optHosts})
		checkPlanted(t, seed, pl, fixes, left)
		after := applyFixes(rules, fixes)
		fixedN += len(fixes)
		var wires []string
		for _, r := range rules {
			src := r.Source
			wires = append(wires, rulemodel.Escape(src, false), rulemodel.Escape(strings.ToUpper(src), false),
				rulemodel.Escape(src+"/", false), rulemodel.Escape(src+"/x", false), rulemodel.Escape(src, false)+"?from=1")
		}
		for _, w := range wires {
			if b, a := optFinal(rules, s, w), optFinal(after, s, w); a != b {
				t.Fatalf("seed %d, settings %s: %s ended at %q, after flattening at %q\nfixes %+v\nrules %+v", seed, s, w, b, a, fixes, rules)
			}
		}
		for _, f := range fixes {
			if f.Rule.ID <= int64(len(rules)) && rules[f.Rule.ID-1].PreservePath {
				viaRest++
			}
		}
		// One hop: each planted chain's first rule, asked its own source,
		// now answers where no rule answers again.
		for id := range pl.flat {
			r := after[id-1]
			w := rulemodel.Escape(r.Source, false) + "?k=v"
			a, ok := rulemodel.Lookup(after, rulemodel.Of(s), w)
			if !ok || a.Rule != int(id-1) {
				continue
			}
			if _, _, codes := modelWalk(after, s, optHosts, a.Destination); len(codes) != 0 {
				t.Fatalf("seed %d: rule %d flattened, yet %s still takes %d more redirects from %s", seed, id, w, len(codes), a.Destination)
			}
		}
	}
	if fixedN == 0 {
		t.Fatal("no fix at all")
	}
	t.Logf("%d rules rewritten", fixedN)
}

// patFinal is optFinal for projects with pattern, regex, host-scoped and
// conditional rules, on a host, through the pattern model (as modelFollow,
// with the host it ends on).
func patFinal(rules []redirects.Rule, mr []rulemodel.PatternRule, st redirects.Settings, host, wire string) string {
	a, ok := rulemodel.LookupPatterns(mr, rulemodel.Of(st), host, wire)
	if !ok {
		return "miss"
	}
	code := rules[a.Rule].StatusCode
	if code == redirects.StatusGone {
		return "410"
	}
	own := func(h string) bool { return modelOwn(rules, h) }
	host = strings.ToLower(host)
	dest := a.Destination
	seen := map[string]bool{}
	for n := 0; ; n++ {
		d, _, _ := strings.Cut(dest, "#")
		nh, w := host, d
		if !strings.HasPrefix(d, "/") {
			rest, ok := cutSchemeFold(d)
			if !ok {
				break
			}
			h, p := rest, "/"
			if i := strings.IndexAny(rest, "/?"); i >= 0 {
				h, p = rest[:i], rest[i:]
				if rest[i] == '?' {
					p = "/" + p
				}
			}
			if !own(strings.ToLower(h)) {
				break
			}
			nh, w = strings.ToLower(h), p
		}
		path, err := redirects.DecodePath(w)
		if err != nil {
			break
		}
		b, ok := rulemodel.LookupPatterns(mr, rulemodel.Of(st), nh, w)
		if !ok || rules[b.Rule].StatusCode == redirects.StatusGone {
			break
		}
		host = nh
		req := host + " " + st.Key(path) + "?" + redirects.RequestQuery(w)
		if seen[req] || n >= MaxFollow {
			return fmt.Sprint(code, " loop")
		}
		seen[req] = true
		dest = b.Destination
	}
	return fmt.Sprint(code, " ", normEnd(own, host, dest))
}

// TestFlattenKeepsEveryFinalWithPatterns is the same property on random
// projects of pattern, regex, host-scoped and conditional rules beside
// literal ones (pmProject, with destinations pointed at other rules'
// sample requests so that chains are common, and the planted chains):
// every rule's sample request, and its variants, on every host, ends
// where it ended before.
func TestFlattenKeepsEveryFinalWithPatterns(t *testing.T) {
	fixedN, extFixed := 0, 0
	rapid.Check(t, func(rt *rapid.T) {
		p := pmProject.Draw(rt, "project")
		rules := p.rules
		st := p.st
		// Point some destinations at other rules' sample requests.
		for i := range rules {
			r := &rules[i]
			if r.StatusCode == redirects.StatusGone || !rapid.Bool().Draw(rt, "point") {
				continue
			}
			o := rules[rapid.IntRange(0, len(rules)-1).Draw(rt, "at")]
			info, err := pattern.Inspect(o.PatternRule(), st.PatternSettings())
			if err != nil || info.SamplePath == "" {
				continue
			}
			d := pattern.EscapePath(info.SamplePath)
			if info.SampleQuery != "" {
				d += "?" + info.SampleQuery
			}
			if o.Host != "" && !strings.HasPrefix(o.Host, "*.") {
				d = "https://" + o.Host + d
			}
			old := r.Destination
			r.Destination = d
			if r.Validate() != nil || pattern.Check(r.PatternRule()) != nil {
				r.Destination = old
			}
		}
		rng := rand.New(rand.NewPCG(rapid.Uint64().Draw(rt, "seed"), 1))
		rules, pl := plantChains(rng, rules, false, pmDeclared[0])
		fixes, left := FlattenChains(rules, LintOptions{Settings: st, Hosts: pmDeclared})
		checkPlanted(rt, "project", pl, fixes, left)
		after := applyFixes(rules, fixes)
		mrBefore, mrAfter := toModel(rules), toModel(after)
		fixedN += len(fixes)
		for _, f := range fixes {
			if f.Rule.Extended() {
				extFixed++
			}
		}
		for _, r := range rules {
			info, err := pattern.Inspect(r.PatternRule(), st.PatternSettings())
			if err != nil || info.SamplePath == "" {
				continue
			}
			w := pattern.EscapePath(info.SamplePath)
			if info.SampleQuery != "" {
				w += "?" + info.SampleQuery
			}
			for _, wire := range []string{w, w + "/x"} {
				for _, h := range pmLookupHosts {
					if b, a := patFinal(rules, mrBefore, st, h, wire), patFinal(after, mrAfter, st, h, wire); a != b {
						rt.Fatalf("%s on host %q ended at %q, after flattening at %q\nfixes %+v\nrules %+v", wire, h, b, a, fixes, rules)
					}
				}
			}
		}
	})
	if fixedN == 0 || extFixed == 0 {
		t.Fatalf("%d rules rewritten, %d of them extended: the generator proves little", fixedN, extFixed)
	}
	t.Logf("%d rules rewritten, %d of them pattern, regex, host-scoped or conditional", fixedN, extFixed)
}

// TestFlattenLeavesQueryAfterFragment: a chain through a rule that puts
// the request's query after its destination's fragment is left alone,
// naming the option (the next request of the chain goes without the
// query), whichever rule of the chain has it; the same chain without it
// is flattened.
func TestFlattenLeavesQueryAfterFragment(t *testing.T) {
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	chain := func(first, second bool) []redirects.Rule {
		return []redirects.Rule{
			{ID: 1, Source: "/a", Destination: "/b#f", StatusCode: 301, PreserveQuery: true, QueryAfterFragment: first, Priority: 100, CreatedAt: t0},
			{ID: 2, Source: "/b", Destination: "/c#g", StatusCode: 301, PreserveQuery: true, QueryAfterFragment: second, Priority: 100, CreatedAt: t0},
			{ID: 3, Source: "/c", Destination: "/d", StatusCode: 301, PreserveQuery: true, Priority: 100, CreatedAt: t0},
		}
	}
	fixes, left := FlattenChains(chain(false, false), LintOptions{})
	if len(fixes) == 0 || len(left) != 0 {
		t.Fatalf("without queryAfterFragment: fixes %+v, left %+v; want the chain flattened", fixes, left)
	}
	for _, c := range [][2]bool{{true, false}, {false, true}, {true, true}} {
		fixes, left := FlattenChains(chain(c[0], c[1]), LintOptions{})
		if slices.ContainsFunc(fixes, func(f redirects.ChainFix) bool { return f.Rule.ID == 1 }) {
			t.Errorf("queryAfterFragment on %v: rule 1 flattened: %+v", c, fixes)
		}
		i := slices.IndexFunc(left, func(l redirects.ChainLeft) bool { return l.Rule.ID == 1 })
		if i < 0 || left[i].Reason != redirects.ChainInexpressible || !strings.Contains(left[i].Message, "queryAfterFragment") {
			t.Errorf("queryAfterFragment on %v: rule 1 left as %+v, want inexpressible naming the option", c, left)
		}
	}
}

// TestFlattenLeavesMergeQuery: a chain through a rule that merges the
// request's query into its destination's is left alone, naming the option
// (which parameters go on depends on their names), whichever rule of the
// chain has it; the same chain without it is flattened.
func TestFlattenLeavesMergeQuery(t *testing.T) {
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	chain := func(first, second bool) []redirects.Rule {
		return []redirects.Rule{
			{ID: 1, Source: "/a", Destination: "/b?x=1", StatusCode: 301, PreserveQuery: true, MergeQuery: first, Priority: 100, CreatedAt: t0},
			{ID: 2, Source: "/b", Destination: "/c?y=2", StatusCode: 301, PreserveQuery: true, MergeQuery: second, Priority: 100, CreatedAt: t0},
			{ID: 3, Source: "/c", Destination: "/d", StatusCode: 301, PreserveQuery: true, Priority: 100, CreatedAt: t0},
		}
	}
	fixes, left := FlattenChains(chain(false, false), LintOptions{})
	if len(fixes) == 0 || len(left) != 0 {
		t.Fatalf("without mergeQuery: fixes %+v, left %+v; want the chain flattened", fixes, left)
	}
	for _, c := range [][2]bool{{true, false}, {false, true}, {true, true}} {
		fixes, left := FlattenChains(chain(c[0], c[1]), LintOptions{})
		if slices.ContainsFunc(fixes, func(f redirects.ChainFix) bool { return f.Rule.ID == 1 }) {
			t.Errorf("mergeQuery on %v: rule 1 flattened: %+v", c, fixes)
		}
		i := slices.IndexFunc(left, func(l redirects.ChainLeft) bool { return l.Rule.ID == 1 })
		if i < 0 || left[i].Reason != redirects.ChainInexpressible || !strings.Contains(left[i].Message, "mergeQuery") {
			t.Errorf("mergeQuery on %v: rule 1 left as %+v, want inexpressible naming the option", c, left)
		}
	}
}
