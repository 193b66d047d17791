package safety

import (
	"fmt"
	"math/rand/v2"
	"net/url"
	"strings"
	"testing"

	"redirects"
	"redirects/internal/rulemodel"
)

// The brute-force model extended to the project's settings and the rules'
// options (docs/contract.md#rule-options): answers come from
// rulemodel.Lookup, which scans every rule; what lint follows and finds is
// written here from the documentation of Lint and its kinds, sharing
// nothing with the index.

// optHosts are the project's own hosts in the option tests: one of the
// hosts rulemodel's destinations use, so absolute destinations are
// followed too.
var optHosts = []string{"ex.com"}

// modelDecode returns the decoded path of a wire path: cut at '?' or '#',
// percent-decoded once.
func modelDecode(wire string) (string, bool) {
	if i := strings.IndexAny(wire, "?#"); i >= 0 {
		wire = wire[:i]
	}
	p, err := url.PathUnescape(wire)
	return p, err == nil
}

// modelKey is the contract's key of a decoded path under s: one trailing
// '/' trimmed under ignore (the root aside), ASCII letters lower-cased
// without case.
func modelKey(s redirects.Settings, p string) string {
	if s.IgnoreTrailingSlash && len(p) > 1 && strings.HasSuffix(p, "/") {
		p = p[:len(p)-1]
	}
	if s.CaseInsensitive {
		b := []byte(p)
		for i, c := range b {
			if 'A' <= c && c <= 'Z' {
				b[i] = c + 32
			}
		}
		p = string(b)
	}
	return p
}

// modelFollowWire is the request a browser sends next when answered with
// dest: a relative destination's path and query, or an absolute one's on
// one of hosts; no fragment.
func modelFollowWire(hosts []string, dest string) (string, bool) {
	if i := strings.IndexByte(dest, '#'); i >= 0 {
		dest = dest[:i]
	}
	if strings.HasPrefix(dest, "/") {
		_, ok := modelDecode(dest)
		return dest, ok
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
	if i := strings.IndexAny(rest, "/?"); i >= 0 {
		host, path = rest[:i], rest[i:]
		if path[0] == '?' {
			path = "/" + path
		}
	}
	host = strings.ToLower(host)
	name, _, _ := strings.Cut(host, ":")
	for _, h := range hosts {
		if h == host || h == name {
			_, ok := modelDecode(path)
			return path, ok
		}
	}
	return "", false
}

// optModelRule is what the model knows of one rule under settings and
// options.
type optModelRule struct {
	rep, answer string // the representative request and the rule's answer to it
	next        int    // the rule answering where the answer leads, or -1
	cycle       int    // the length of the cycle the rule is on, or 0
	grows       bool   // on a cycle of one, with a path that changes
	final       string // where a chain from it ends; "" into a loop
	mixed       bool
	shadowed    bool
	redundant   bool
	overlap     bool
	doubleSlash bool
}

func optModel(rules []redirects.Rule, s redirects.Settings, hosts []string) []optModelRule {
	ms := rulemodel.Of(s)
	out := make([]optModelRule, len(rules))
	for i := range rules {
		r := &rules[i]
		m := &out[i]
		m.next = -1
		src := r.Source
		if r.PreservePath {
			if strings.HasSuffix(src, "/") {
				src += "_"
			} else {
				src += "/_"
			}
		}
		m.rep = rulemodel.Escape(src, false)
		if r.StatusCode == redirects.StatusGone {
			continue
		}
		a, ok := rulemodel.Lookup([]redirects.Rule{*r}, ms, m.rep)
		if !ok {
			panic("a rule does not match its own representative request " + m.rep)
		}
		m.answer = a.Destination
		if w, ok := modelFollowWire(hosts, m.answer); ok {
			if n, ok := rulemodel.Lookup(rules, ms, w); ok && n.Status != redirects.StatusGone {
				m.next = n.Rule
			}
		}
	}
	for i := range rules {
		m := &out[i]
		cur := i
		for n := 1; n <= len(rules)+1; n++ {
			if cur = out[cur].next; cur < 0 {
				break
			}
			if cur == i {
				m.cycle = n
				break
			}
		}
		if m.cycle == 1 && rules[i].PreservePath {
			from, _ := modelDecode(m.rep)
			w, _ := modelFollowWire(hosts, m.answer)
			to, _ := modelDecode(w)
			m.grows = modelKey(s, from) != modelKey(s, to)
		}
		// Where following ends, request by request, as a client follows
		// the rule's answer.
		var codes []int
		m.final, _, codes = modelWalk(rules, s, hosts, m.answer)
		perm, temp := false, false
		for _, c := range append(codes, rules[i].StatusCode) {
			switch c {
			case 301, 308:
				perm = true
			default:
				temp = true
			}
		}
		m.mixed = perm && temp
	}
	var prefixOnly []redirects.Rule
	for _, r := range rules {
		if r.MatchType == redirects.StartsWith {
			prefixOnly = append(prefixOnly, r)
		}
	}
	for i := range rules {
		r := &rules[i]
		m := &out[i]
		if r.MatchType == redirects.StartsWith {
			// "~~" occurs in no generated source: only rules whose source
			// prefixes this one's match the probe, and it is not exact.
			a, ok := rulemodel.Lookup(rules, ms, rulemodel.Escape(r.Source, false)+"~~")
			m.shadowed = !ok || a.Rule != i
			if !m.shadowed {
				for _, q := range rules {
					if q.MatchType == redirects.StartsWith && len(q.Source) < len(r.Source) && q.Priority == r.Priority &&
						strings.HasPrefix(modelKey(redirects.Settings{CaseInsensitive: s.CaseInsensitive}, r.Source), modelKey(redirects.Settings{CaseInsensitive: s.CaseInsensitive}, q.Source)) {
						m.overlap = true
					}
				}
			}
			if r.PreservePath && r.StatusCode != redirects.StatusGone && !strings.HasSuffix(r.Source, "/") {
				d := r.Destination
				if k := strings.IndexAny(d, "?#"); k >= 0 {
					d = d[:k]
				}
				lower := strings.ToLower(d)
				hostOnly := (strings.HasPrefix(lower, "http://") && !strings.Contains(d[7:], "/")) ||
					(strings.HasPrefix(lower, "https://") && !strings.Contains(d[8:], "/"))
				m.doubleSlash = strings.HasSuffix(d, "/") || hostOnly
			}
			continue
		}
		// Redundant: the starts_with rules alone answer as it does on its
		// source, its other spellings under the settings, each with and
		// without a query.
		spell := []string{r.Source}
		if s.IgnoreTrailingSlash && len(r.Source) > 1 {
			if strings.HasSuffix(r.Source, "/") {
				spell = append(spell, strings.TrimSuffix(r.Source, "/"))
			} else {
				spell = append(spell, r.Source+"/")
			}
		}
		if s.CaseInsensitive {
			for _, p := range spell {
				sw := []byte(p)
				for k, c := range sw {
					switch {
					case 'a' <= c && c <= 'z':
						sw[k] = c - 32
					case 'A' <= c && c <= 'Z':
						sw[k] = c + 32
					}
				}
				if string(sw) != p {
					spell = append(spell, string(sw))
				}
			}
		}
		m.redundant = true
		for _, p := range spell {
			for _, q := range []string{"", "?q=1"} {
				w := rulemodel.Escape(p, false) + q
				own, _ := rulemodel.Lookup([]redirects.Rule{*r}, ms, w)
				beneath, ok := rulemodel.Lookup(prefixOnly, ms, w)
				if !ok || beneath.Status != own.Status || beneath.Destination != own.Destination {
					m.redundant = false
				}
			}
		}
	}
	return out
}

// optProject returns a random project from rulemodel with some
// destinations pointed at other rules' sources (in another case, with a
// trailing slash, below them, with a query or a fragment), so that chains,
// loops and growing paths are common.
func optProject(rng *rand.Rand, n int) (redirects.Settings, []redirects.Rule) {
	s, rules := rulemodel.Project(rng, n)
	for i := range rules {
		r := &rules[i]
		if r.StatusCode == redirects.StatusGone || len(rules) == 0 || rng.IntN(2) == 0 {
			continue
		}
		d, tail := rules[rng.IntN(len(rules))].Source, ""
		switch rng.IntN(6) {
		case 0:
			d = strings.ToUpper(d)
		case 1:
			d += "/"
		case 2:
			d += "/x"
		case 3:
			tail = "?from=1"
		case 4:
			tail = "#top"
		}
		d = rulemodel.Escape(d, false) + tail
		if rng.IntN(4) == 0 {
			d = "https://ex.com" + d
		}
		old := r.Destination
		r.Destination = d
		if err := r.Validate(); err != nil {
			r.Destination = old
		}
	}
	return s, rules
}

// TestLintIsTheOptionModel holds every finding of Lint on random projects
// (every setting, option and status) to the model.
func TestLintIsTheOptionModel(t *testing.T) {
	kinds := map[Kind]int{}
	for seed := range uint64(3000) {
		rng := rand.New(rand.NewPCG(seed, 7))
		s, rules := optProject(rng, 1+rng.IntN(14))
		for k, n := range checkOptionModel(t, s, rules, optHosts) {
			kinds[k] += n
		}
	}
	// The generator must reach every finding, or the test proves little.
	for _, k := range []Kind{KindLoop, KindSelfMatch, KindPathGrowth, KindChain, KindShadowed, KindRedundant, KindOverlap, KindDoubleSlash} {
		if kinds[k] == 0 {
			t.Errorf("no %s finding in 3,000 random projects: %v", k, kinds)
		}
	}
	t.Logf("findings: %v", kinds)
}

func checkOptionModel(t *testing.T, s redirects.Settings, rules []redirects.Rule, hosts []string) map[Kind]int {
	t.Helper()
	findings := Lint(rules, LintOptions{Hosts: hosts, Settings: s})
	m := optModel(rules, s, hosts)
	want := map[string]bool{}
	onLoop := map[int64]int{}
	for i, r := range rules {
		mr := m[i]
		switch {
		case mr.cycle == 1 && mr.grows:
			want[fmt.Sprintf("%s %d", KindPathGrowth, r.ID)] = true
		case mr.cycle > 0:
			onLoop[r.ID] = mr.cycle
		case mr.next >= 0:
			want[fmt.Sprintf("%s %d", KindChain, r.ID)] = true
		}
		for k, on := range map[Kind]bool{KindShadowed: mr.shadowed, KindRedundant: mr.redundant, KindOverlap: mr.overlap, KindDoubleSlash: mr.doubleSlash} {
			if on {
				want[fmt.Sprintf("%s %d", k, r.ID)] = true
			}
		}
	}
	byID := map[int64]int{}
	for i, r := range rules {
		byID[r.ID] = i
	}
	gotLoop := map[int64]int{}
	kinds := map[Kind]int{}
	dump := func() string {
		return fmt.Sprintf("settings %s\nrules: %+v\nfindings: %v", s, rules, summary(findings))
	}
	for _, f := range findings {
		kinds[f.Kind]++
		switch f.Kind {
		case KindLoop, KindSelfMatch:
			if f.Severity != SeverityError || (f.Kind == KindSelfMatch) != (len(f.Rules) == 1) || f.Hops != len(f.Rules) {
				t.Fatalf("finding %+v\n%s", f, dump())
			}
			for _, r := range f.Rules {
				gotLoop[r.ID] = len(f.Rules)
			}
			continue
		case KindPathGrowth:
			if f.Severity != SeverityError {
				t.Fatalf("finding %+v is not an error", f)
			}
		case KindChain:
			mr := m[byID[f.Rules[0].ID]]
			if f.FinalDestination != mr.final || f.MixedStatus != mr.mixed {
				t.Fatalf("chain finding %+v; model: final %q, mixed %v\n%s", f, mr.final, mr.mixed, dump())
			}
			fallthrough
		default:
			if f.Severity != SeverityWarning {
				t.Fatalf("finding %+v is not a warning", f)
			}
		}
		key := fmt.Sprintf("%s %d", f.Kind, f.Rules[0].ID)
		if !want[key] {
			t.Fatalf("false finding %s: %s\n%s", key, f.Message, dump())
		}
		delete(want, key)
	}
	for key := range want {
		t.Fatalf("missing finding %s\n%s", key, dump())
	}
	if fmt.Sprint(gotLoop) != fmt.Sprint(onLoop) {
		t.Fatalf("rules on loops (ID: length) = %v, the model's %v\n%s", gotLoop, onLoop, dump())
	}
	return kinds
}

// modelFinal follows dest request by request through the model's answers,
// as a case's final destination is documented: it ends at a destination
// that leaves the project or that no redirect answers; a request made
// twice, or more than MaxFollow redirects, is a loop.
func modelFinal(rules []redirects.Rule, s redirects.Settings, hosts []string, dest string) (string, bool) {
	end, loop, _ := modelWalk(rules, s, hosts, dest)
	return end, loop
}

// modelWalk is modelFinal that also returns the status of every answer on
// the way.
func modelWalk(rules []redirects.Rule, s redirects.Settings, hosts []string, dest string) (string, bool, []int) {
	seen := map[string]bool{}
	var codes []int
	for n := 0; ; n++ {
		w, ok := modelFollowWire(hosts, dest)
		if !ok {
			return dest, false, codes
		}
		a, ok := rulemodel.Lookup(rules, rulemodel.Of(s), w)
		if !ok || a.Status == redirects.StatusGone {
			return dest, false, codes
		}
		codes = append(codes, a.Status)
		p, _ := modelDecode(w)
		q := ""
		if i := strings.IndexByte(w, '?'); i >= 0 {
			q = w[i+1:]
		}
		req := modelKey(s, p) + "?" + q
		if seen[req] || n >= MaxFollow {
			return "", true, codes
		}
		seen[req] = true
		dest = a.Destination
	}
}

// TestCasesAndExplainAreTheOptionModel holds the index, RunCases and
// ExplainWith to rulemodel.Lookup on random projects and random paths
// (other case, other trailing slash, a rest, escapes, queries,
// fragments): a case written from the model's answer passes, and the
// explanation names the model's rule and its computed destination.
func TestCasesAndExplainAreTheOptionModel(t *testing.T) {
	for seed := range uint64(300) {
		rng := rand.New(rand.NewPCG(seed, 11))
		s, rules := optProject(rng, 1+rng.IntN(20))
		ms := rulemodel.Of(s)
		paths := rulemodel.Paths(rng, rules, 30)
		var cases []Case
		for k, p := range paths {
			c := Case{Line: k + 2, Path: p}
			if a, ok := rulemodel.Lookup(rules, ms, p); ok {
				c.StatusCode, c.Destination = a.Status, a.Destination
				if isRedirect(a.Status) {
					if end, loop := modelFinal(rules, s, optHosts, a.Destination); !loop {
						c.FinalDestination = end
					}
				}
			}
			cases = append(cases, c)
		}
		for _, res := range RunCases(rules, cases, LintOptions{Hosts: optHosts, Settings: s}) {
			if !res.Pass {
				t.Fatalf("settings %s: case %+v fails: %v\nrules: %+v", s, res.Case, res.Problems, rules)
			}
		}
		for _, p := range paths {
			a, ok := rulemodel.Lookup(rules, ms, p)
			e := ExplainWith(rules, s, p)
			switch {
			case !ok && e.Answer != nil:
				t.Fatalf("settings %s: ExplainWith(%s) answers rule %d, the model nothing", s, p, e.Answer.ID)
			case ok && (e.Answer == nil || e.Answer.ID != rules[a.Rule].ID || e.StatusCode != a.Status || e.Destination != a.Destination):
				t.Fatalf("settings %s: ExplainWith(%s) = %+v, the model rule %d: %d %q", s, p, e, rules[a.Rule].ID, a.Status, a.Destination)
			}
			matching := 0
			for _, r := range rules {
				if _, ok := rulemodel.Lookup([]redirects.Rule{r}, ms, p); ok {
					matching++
				}
			}
			if len(e.Candidates) != matching {
				t.Fatalf("settings %s: ExplainWith(%s) lists %d candidates, %d rules match", s, p, len(e.Candidates), matching)
			}
		}
	}
}
