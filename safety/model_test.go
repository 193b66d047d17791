package safety

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"

	"redirects"
	"redirects/engine"
)

// The brute-force model: lookups by scanning every rule, redirects followed
// path by path. It shares nothing with the index but engine.Better.

var t0 = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

// bruteLookup returns the index of the rule answering path, or -1; exact
// rules are skipped when prefixOnly is set.
func bruteLookup(rules []redirects.Rule, path string, prefixOnly bool) int {
	if i := strings.IndexAny(path, "?#"); i >= 0 {
		path = path[:i]
	}
	if !prefixOnly {
		for i, r := range rules {
			if r.MatchType == redirects.Exact && r.Source == path {
				return i
			}
		}
	}
	best := -1
	for i := range rules {
		r := &rules[i]
		if r.MatchType == redirects.StartsWith && strings.HasPrefix(path, r.Source) && (best < 0 || engine.Better(r, &rules[best])) {
			best = i
		}
	}
	return best
}

// bruteFollow is the model of following a destination: a path as is, an
// absolute URL when its host (with or without its port) is one of hosts;
// query and fragment cut.
func bruteFollow(hosts []string, dest string) (string, bool) {
	cut := func(p string) string {
		if i := strings.IndexAny(p, "?#"); i >= 0 {
			return p[:i]
		}
		return p
	}
	if dest[0] == '/' {
		return cut(dest), true
	}
	lower := strings.ToLower(dest)
	var rest string
	switch {
	case strings.HasPrefix(lower, "https://"):
		rest = dest[8:]
	case strings.HasPrefix(lower, "http://"):
		rest = dest[7:]
	default:
		return "", false
	}
	host, path := rest, "/"
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		host = rest[:i]
		if rest[i] == '/' {
			path = rest[i:]
		}
	}
	host = strings.ToLower(host)
	name := host
	if i := strings.IndexByte(host, ':'); i >= 0 {
		name = host[:i]
	}
	for _, h := range hosts {
		if h == host || h == name {
			return cut(path), true
		}
	}
	return "", false
}

// modelRule is what the model knows of one rule's redirects.
type modelRule struct {
	next     int    // the rule answering its destination, or -1
	cycle    int    // length of the cycle it is on, or 0
	final    string // where a chain from it ends; "" into a loop
	mixed    bool
	shadowed bool
}

func model(rules []redirects.Rule, hosts []string) []modelRule {
	out := make([]modelRule, len(rules))
	step := func(i int) int {
		p, ok := bruteFollow(hosts, rules[i].Destination)
		if !ok {
			return -1
		}
		return bruteLookup(rules, p, false)
	}
	for i := range rules {
		m := &out[i]
		m.next = step(i)
		// On a cycle: following from i comes back to i.
		cur := i
		for n := 1; n <= len(rules)+1; n++ {
			cur = step(cur)
			if cur < 0 {
				break
			}
			if cur == i {
				m.cycle = n
				break
			}
		}
		// Where following ends, path by path, with a visited set of paths.
		seen := map[string]bool{}
		cur, codes := i, map[int]bool{}
		for {
			codes[rules[cur].StatusCode] = true
			p, ok := bruteFollow(hosts, rules[cur].Destination)
			if !ok {
				m.final = rules[cur].Destination
				break
			}
			if seen[p] {
				m.final = ""
				break
			}
			seen[p] = true
			n := bruteLookup(rules, p, false)
			if n < 0 {
				m.final = rules[cur].Destination
				break
			}
			cur = n
		}
		m.mixed = codes[301] && codes[302]
		if rules[i].MatchType == redirects.StartsWith {
			// "~~" occurs in no generated source: only rules whose source
			// prefixes this one's match the probe, and it is not exact.
			m.shadowed = bruteLookup(rules, rules[i].Source+"~~", false) != i
		}
	}
	return out
}

var (
	genWords  = []string{"a", "b", "ab", "c"}
	testHosts = []string{"own.example", "www.own.example:8443"}
)

// genPath draws a path of 1..3 segments of few words, so sources overlap.
func genPath(t *rapid.T, label string) string {
	var b strings.Builder
	for range rapid.IntRange(1, 3).Draw(t, label+"Segs") {
		b.WriteString("/" + rapid.SampledFrom(genWords).Draw(t, label+"Word"))
	}
	return b.String()
}

// genRules draws a valid rule set with sources unique per match type:
// exact and starts_with rules sharing sources, prefixes ending inside a
// segment, tied priorities and ages, 301 and 302, relative destinations
// (some with a query) and absolute ones on the project's hosts and others.
func genRules(t *rapid.T) []redirects.Rule {
	n := rapid.IntRange(0, 14).Draw(t, "n")
	seen := map[string]bool{}
	var rules []redirects.Rule
	for len(rules) < n {
		r := redirects.Rule{
			ID:         int64(len(rules) + 1),
			Source:     genPath(t, "src"),
			StatusCode: rapid.SampledFrom([]int{301, 302}).Draw(t, "status"),
			Priority:   rapid.SampledFrom([]int{0, 50, 100, 100}).Draw(t, "priority"),
			CreatedAt:  t0.Add(time.Duration(rapid.IntRange(0, len(rules)).Draw(t, "age")) * time.Hour),
		}
		if rapid.Bool().Draw(t, "prefix") {
			r.MatchType = redirects.StartsWith
			switch rapid.IntRange(0, 2).Draw(t, "cut") {
			case 0:
				r.Source += "/"
			case 1:
				if len(r.Source) > 2 {
					r.Source = r.Source[:len(r.Source)-1]
				}
			}
		}
		dest := genPath(t, "dest")
		switch rapid.IntRange(0, 5).Draw(t, "destKind") {
		case 0:
			dest += "?q=1"
		case 1:
			dest = "https://own.example" + dest
		case 2:
			dest = "HTTP://WWW.OWN.EXAMPLE:8443" + dest + "?a=b"
		case 3:
			dest = "https://other.example" + dest
		}
		r.Destination = dest
		key := r.MatchType.String() + r.Source
		if seen[key] {
			continue
		}
		if err := r.Validate(); err != nil {
			t.Fatalf("generated an invalid rule: %v", err)
		}
		seen[key] = true
		rules = append(rules, r)
	}
	return rules
}

// genPaths draws paths to probe: sources, sources with more appended, cut
// short, with a query, and misses.
func genProbe(t *rapid.T, rules []redirects.Rule) string {
	switch k := rapid.IntRange(0, 4).Draw(t, "probeKind"); {
	case k == 0 || len(rules) == 0:
		return genPath(t, "probe")
	default:
		s := rapid.SampledFrom(rules).Draw(t, "probeRule").Source
		switch k {
		case 1:
			return s
		case 2:
			return s + genPath(t, "more")
		case 3:
			return s[:rapid.IntRange(1, len(s)).Draw(t, "cutAt")]
		}
		return s + "?x=/a#b"
	}
}

// TestIndexIsTheEngine holds the package's index and Explain to the
// lookup API's engine, engine.Compile.
func TestIndexIsTheEngine(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		rules := genRules(t)
		snap := engine.Compile(rules)
		x := newIndex(rules, redirects.Settings{})
		for range 20 {
			p := genProbe(t, rules)
			m, ok := snap.Lookup(p)
			want := Answer{}
			if ok {
				want = Answer{StatusCode: m.StatusCode(), Destination: m.Destination()}
			}
			got := x.answer("", p)
			if !got.Same(want) {
				t.Fatalf("index answers %s with %v, the engine with %v", p, got, want)
			}
			if i := bruteLookup(rules, p, false); (i < 0) != (got.StatusCode == 0) || i >= 0 && rules[i].ID != got.RuleID {
				t.Fatalf("index answers %s with rule %d, the model with index %d", p, got.RuleID, i)
			}
			e := Explain(rules, p)
			switch {
			case (e.Answer == nil) != !ok:
				t.Fatalf("Explain(%s).Answer = %v, engine matched %v", p, e.Answer, ok)
			case e.Answer != nil && e.Answer.ID != got.RuleID:
				t.Fatalf("Explain(%s) answers with rule %d, the index with %d", p, e.Answer.ID, got.RuleID)
			}
			checkExplanation(t, rules, p, e)
		}
	})
}

// checkExplanation checks that e lists every matching rule once, the
// answer first and alone marked, each loser with a reason.
func checkExplanation(t *rapid.T, rules []redirects.Rule, path string, e Explanation) {
	matching := 0
	cut := matchPath(path)
	for _, r := range rules {
		if r.MatchType == redirects.Exact && r.Source == cut || r.MatchType == redirects.StartsWith && strings.HasPrefix(cut, r.Source) {
			matching++
		}
	}
	if len(e.Candidates) != matching {
		t.Fatalf("Explain(%s) lists %d candidates, %d rules match", path, len(e.Candidates), matching)
	}
	for k, c := range e.Candidates {
		if c.Answers != (k == 0) || c.Reason == "" {
			t.Fatalf("Explain(%s) candidate %d = %+v", path, k, c)
		}
	}
}

// TestLintIsTheModel holds every finding of Lint on random rule sets to
// the brute-force model, and asks for no finding the model does not make.
func TestLintIsTheModel(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		rules := genRules(t)
		checkAgainstModel(t, rules)
	})
}

func checkAgainstModel(t *rapid.T, rules []redirects.Rule) []Finding {
	findings := Lint(rules, LintOptions{Hosts: testHosts})
	m := model(rules, testHosts)
	want := map[string]bool{}
	onLoop := map[int64]int{}
	for i, r := range rules {
		mr := m[i]
		if mr.cycle > 0 {
			onLoop[r.ID] = mr.cycle
		} else if mr.next >= 0 {
			want[fmt.Sprintf("%s %d", KindChain, r.ID)] = true
		}
		if mr.shadowed {
			want[fmt.Sprintf("%s %d", KindShadowed, r.ID)] = true
		}
		if r.MatchType == redirects.Exact {
			if w := bruteLookup(rules, r.Source, true); w >= 0 && rules[w].Destination == r.Destination && rules[w].StatusCode == r.StatusCode {
				want[fmt.Sprintf("%s %d", KindRedundant, r.ID)] = true
			}
		}
		if r.MatchType == redirects.StartsWith && !mr.shadowed {
			for _, q := range rules {
				if q.MatchType == redirects.StartsWith && len(q.Source) < len(r.Source) && strings.HasPrefix(r.Source, q.Source) && q.Priority == r.Priority {
					want[fmt.Sprintf("%s %d", KindOverlap, r.ID)] = true
				}
			}
		}
	}
	byID := map[int64]int{}
	for i, r := range rules {
		byID[r.ID] = i
	}
	gotLoop := map[int64]int{}
	for _, f := range findings {
		switch f.Kind {
		case KindLoop, KindSelfMatch:
			if f.Severity != SeverityError || (f.Kind == KindSelfMatch) != (len(f.Rules) == 1) || f.Hops != len(f.Rules) {
				t.Fatalf("finding %+v", f)
			}
			for _, r := range f.Rules {
				gotLoop[r.ID] = len(f.Rules)
			}
			if len(f.Path) != len(f.Rules)+1 || f.Path[0] != f.Path[len(f.Path)-1] {
				t.Fatalf("loop finding's path %q does not come back to its start", f.Path)
			}
			continue
		case KindChain:
			mr := m[byID[f.Rules[0].ID]]
			if f.FinalDestination != mr.final || f.MixedStatus != mr.mixed {
				t.Fatalf("chain finding %+v; model: final %q, mixed %v", f, mr.final, mr.mixed)
			}
		}
		if f.Severity != SeverityWarning {
			t.Fatalf("finding %+v is not a warning", f)
		}
		key := fmt.Sprintf("%s %d", f.Kind, f.Rules[0].ID)
		if !want[key] {
			t.Fatalf("false finding %s: %s\nrules: %+v", key, f.Message, rules)
		}
		delete(want, key)
	}
	for key := range want {
		t.Fatalf("missing finding %s\nrules: %+v\nfindings: %+v", key, rules, findings)
	}
	if fmt.Sprint(gotLoop) != fmt.Sprint(onLoop) {
		t.Fatalf("rules on loops (ID: length) = %v, the model's %v\nrules: %+v", gotLoop, onLoop, rules)
	}
	return findings
}

// TestLintFindsPlantedLoops plants a loop of 1..5 rules (exact and
// starts_with, relative and absolute destinations) into a random rule set
// that cannot reach it and wants exactly that loop reported, besides
// everything the model finds.
func TestLintFindsPlantedLoops(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		rules := genRules(t)
		k := rapid.IntRange(1, 5).Draw(t, "loopLen")
		path := func(i int) string { return fmt.Sprintf("/lp/%d/x", i%k) }
		planted := map[int64]bool{}
		for i := range k {
			r := redirects.Rule{ID: int64(100 + i), Source: path(i), StatusCode: 301, Priority: 100, CreatedAt: t0}
			if rapid.Bool().Draw(t, "plantPrefix") {
				r.MatchType = redirects.StartsWith
				r.Source = r.Source[:len(r.Source)-rapid.IntRange(0, 1).Draw(t, "plantCut")]
			}
			switch rapid.IntRange(0, 2).Draw(t, "plantDest") {
			case 0:
				r.Destination = path(i + 1)
			case 1:
				r.Destination = path(i+1) + "?from=loop"
			case 2:
				r.Destination = "https://Own.Example" + path(i+1)
			}
			if k == 1 && r.MatchType == redirects.StartsWith {
				r.Destination = r.Source + "/deeper" // a prefix rule that matches its own destination
			}
			planted[r.ID] = true
			rules = append(rules, r)
		}
		findings := checkAgainstModel(t, rules)
		for _, f := range findings {
			if f.Kind != KindLoop && f.Kind != KindSelfMatch || !planted[f.Rules[0].ID] {
				continue
			}
			if len(f.Rules) != k {
				t.Fatalf("planted a loop of %d rules, found %+v", k, f)
			}
			for _, r := range f.Rules {
				if !planted[r.ID] {
					t.Fatalf("planted loop reported with rule %d: %+v", r.ID, f)
				}
			}
			return
		}
		t.Fatalf("the planted loop of %d rules is not reported: %+v", k, findings)
	})
}
