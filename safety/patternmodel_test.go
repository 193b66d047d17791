package safety

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"

	"redirects"
	"redirects/engine/pattern"
	"redirects/internal/rulemodel"
)

// Property tests of lint and explain on projects with pattern rules,
// against the brute-force model of docs/contract.md#pattern-rules
// (rulemodel.LookupPatterns): random projects mixing every kind, host,
// query condition and setting, whose destinations lead back into the
// project often (relative, on a rule's host, on a declared host).

var pmWords = []string{"docs", "Docs", "en", "fr", "guide", "a", "b", "v6", "42"}

var pmRuleHosts = []string{"", "", "", "example.com", "*.example.com", "a.example.com"}

// pmExceptHosts draws a rule's exceptHosts among the lookups' hosts.
func pmExceptHosts(t *rapid.T) []string {
	return rapid.SliceOfNDistinct(rapid.SampledFrom([]string{"example.com", "*.example.com", "a.example.com", "other.org"}), 1, 2,
		func(s string) string { return s }).Draw(t, "exceptHosts")
}

var pmLookupHosts = []string{"", "example.com", "A.Example.COM", "www.example.com", "a.example.com:8443", "other.org"}

var pmConditions = []string{"p=123", "id=:qid", "flag", "empty="}

var pmRegexes = []struct {
	src   string
	names []string
}{
	{`/docs/(\w+)`, []string{"$1"}},
	{`/(en|fr)/(?P<page>[a-z]+)/?`, []string{"$1", "${page}"}},
	{`/a.*`, nil},
	{`/Docs/(\d+)(/.*)?`, []string{"$1", "$2"}},
	{`/guide/(.*)`, []string{"$1"}},
}

// pmPattern draws a pattern source and the capture names it defines.
func pmPattern(t *rapid.T) (string, []string) {
	var b strings.Builder
	var names []string
	multi := false
	for i := range rapid.IntRange(1, 3).Draw(t, "segments") {
		b.WriteByte('/')
		name := fmt.Sprintf("p%d", i)
		switch rapid.IntRange(0, 7).Draw(t, "piece") {
		case 0, 1, 2:
			b.WriteString(rapid.SampledFrom(pmWords).Draw(t, "word"))
		case 3:
			b.WriteString(":" + name)
			names = append(names, name)
		case 4:
			b.WriteString(":" + name + rapid.SampledFrom([]string{"(v6|v7)", `(\d+)`, "([a-z]+)"}).Draw(t, "constraint"))
			names = append(names, name)
		case 5:
			b.WriteString(":" + name + "?")
			names = append(names, name)
		default:
			if multi {
				b.WriteString("guide")
				continue
			}
			multi = true
			if rapid.Bool().Draw(t, "star") {
				b.WriteString("*")
				names = append(names, "splat")
			} else {
				b.WriteString(":" + name + "+")
				names = append(names, name)
			}
		}
	}
	return b.String(), names
}

var pmRule = rapid.Custom(func(t *rapid.T) redirects.Rule {
	kinds := map[string]redirects.MatchType{"exact": redirects.Exact, "starts_with": redirects.StartsWith, "pattern": redirects.Pattern, "regex": redirects.Regex}
	kind := rapid.SampledFrom([]string{"exact", "starts_with", "pattern", "pattern", "regex"}).Draw(t, "kind")
	r := redirects.Rule{MatchType: kinds[kind], StatusCode: rapid.SampledFrom([]int{301, 302}).Draw(t, "status"),
		Host: rapid.SampledFrom(pmRuleHosts).Draw(t, "host"), Priority: rapid.SampledFrom([]int{0, 1, 100}).Draw(t, "priority")}
	if r.Host == "" && rapid.IntRange(0, 2).Draw(t, "except") == 0 {
		r.ExceptHosts = pmExceptHosts(t)
	}
	var names []string
	switch kind {
	case "exact", "starts_with":
		var b strings.Builder
		for k := rapid.IntRange(1, 3).Draw(t, "depth"); k > 0; k-- {
			b.WriteString("/" + rapid.SampledFrom(pmWords).Draw(t, "word"))
		}
		if rapid.Bool().Draw(t, "slash") {
			b.WriteByte('/')
		}
		r.Source = b.String()
	case "pattern":
		r.Source, names = pmPattern(t)
		for i, n := range names {
			names[i] = ":" + n
		}
	case "regex":
		re := rapid.SampledFrom(pmRegexes).Draw(t, "regex")
		r.Source, names = re.src, re.names
	}
	if rapid.IntRange(0, 3).Draw(t, "conditions") == 0 {
		sep := "?"
		if kind == "regex" {
			sep = "$?"
		}
		c := rapid.SampledFrom(pmConditions).Draw(t, "cond")
		r.Source += sep + c
		if c == "id=:qid" {
			if kind == "regex" {
				names = append(names, "${qid}")
			} else {
				names = append(names, ":qid")
			}
		}
	}
	var d strings.Builder
	d.WriteString(rapid.SampledFrom([]string{"/", "/", "/docs/", "https://example.com/", "https://www.example.com/en/", "https://example.org/", "https://elsewhere.net/"}).Draw(t, "destBase"))
	for _, n := range names {
		if rapid.Bool().Draw(t, "use") {
			d.WriteString(n + "/")
		}
	}
	if rapid.IntRange(0, 2).Draw(t, "word") == 0 {
		d.WriteString(rapid.SampledFrom(pmWords).Draw(t, "destWord"))
	}
	d.WriteString(rapid.SampledFrom([]string{"", "", "?x=1", "#top"}).Draw(t, "tail"))
	r.Destination = d.String()
	return r
})

// pmProject draws settings and rules, every one of which the engine
// accepts, numbered and aged in order (so that among equal keys the first
// is the older, as validation would keep only one).
var pmProject = rapid.Custom(func(t *rapid.T) pmSet {
	st := redirects.Settings{CaseInsensitive: rapid.Bool().Draw(t, "ci"), IgnoreTrailingSlash: rapid.Bool().Draw(t, "ignore")}
	rules := rapid.SliceOfN(pmRule, 1, 16).Draw(t, "rules")
	// A quarter of the projects also hold a rule's mirror (its destination
	// as the source, its source as the destination), which random rules
	// alone make a loop of too rarely for the loop findings to be checked.
	if k := rapid.IntRange(0, 4*len(rules)-1).Draw(t, "mirror"); k < len(rules) {
		r := rules[k]
		m := redirects.Rule{MatchType: r.MatchType, Host: r.Host, Source: r.Destination, Destination: r.Source,
			StatusCode: r.StatusCode, Priority: r.Priority}
		if r.MatchType != redirects.Regex && r.StatusCode != redirects.StatusGone && strings.HasPrefix(r.Destination, "/") &&
			m.Validate() == nil && pattern.Check(m.PatternRule()) == nil {
			rules = append(rules, m)
		}
	}
	// A quarter also hold a near-duplicate of a rule (pmTwin), which lint
	// reports as never answering when the two match the same requests.
	if k := rapid.IntRange(0, 4*len(rules)-1).Draw(t, "twin"); k < len(rules) {
		if tw, ok := pmTwin(t, &rules[k], st); ok {
			rules = append(rules, tw)
		}
	}
	for i := range rules {
		rules[i].ID = int64(i + 1)
		rules[i].CreatedAt = t0.Add(time.Duration(i) * time.Minute)
	}
	return pmSet{st, withoutClashingExcept(rules, st)}
})

// withoutClashingExcept takes the exceptHosts off a rule whose key (match
// type, host, source under st) another rule has: exceptHosts is not part
// of a rule's key, so validation would refuse the pair, and the engine
// answers such a pair as two rules of one key, not as the contract says.
func withoutClashingExcept(rules []redirects.Rule, st redirects.Settings) []redirects.Rule {
	n := map[redirects.RuleKey]int{}
	for i := range rules {
		n[st.RuleKey(&rules[i])]++
	}
	for i := range rules {
		if n[st.RuleKey(&rules[i])] > 1 {
			rules[i].ExceptHosts = nil
		}
	}
	return rules
}

// pmTwin draws a rule that matches what r matches, or nearly: r's source
// with its placeholders and query captures renamed, its letters' case
// swapped (under caseSensitive false, outside constraints), its
// conditions escaped and, with a second condition added to both, in the
// other order; another priority now and then. r is changed when a
// condition is added to it. ok is false when the engine refuses the twin.
func pmTwin(t *rapid.T, r *redirects.Rule, st redirects.Settings) (redirects.Rule, bool) {
	if r.MatchType == redirects.Regex {
		return redirects.Rule{}, false
	}
	tw := *r
	path, q, hasQ := strings.Cut(r.Source, "?")
	if r.MatchType == redirects.Pattern {
		// "?" can be an optional modifier: the conditions are the
		// drawn ones, after the last '?'.
		if i := strings.LastIndex(r.Source, "?"); i >= 0 && i+1 < len(r.Source) && r.Source[i+1] != '/' && r.Source[i+1] != '?' {
			path, q, hasQ = r.Source[:i], r.Source[i+1:], true
		} else {
			path, q, hasQ = r.Source, "", false
		}
		path = strings.ReplaceAll(path, ":p", ":z")
	}
	if st.CaseInsensitive && !strings.Contains(path, "(") && rapid.Bool().Draw(t, "swapCase") {
		path = swapCase(path)
	}
	src := path
	if hasQ {
		twq := strings.NewReplacer("p=123", "p=%31%323", ":qid", ":qz", "empty=", "%65mpty=").Replace(q)
		if rapid.Bool().Draw(t, "second") {
			extra := rapid.SampledFrom([]string{"lang=en", "v", "x=a+b"}).Draw(t, "extra")
			q += "&" + extra
			twq = strings.Replace(extra, "a+b", "a%20b", 1) + "&" + twq
			r.Source += "&" + extra
		}
		src += "?" + twq
	}
	tw.Source = src
	tw.Destination = strings.NewReplacer(":p", ":z", ":qid", ":qz").Replace(tw.Destination)
	if rapid.IntRange(0, 3).Draw(t, "twinPriority") == 0 {
		tw.Priority = rapid.SampledFrom([]int{0, 1, 100}).Draw(t, "priority")
	}
	for _, x := range []*redirects.Rule{r, &tw} {
		if x.Validate() != nil || pattern.Check(x.PatternRule()) != nil {
			return redirects.Rule{}, false
		}
	}
	return tw, true
}

type pmSet struct {
	st    redirects.Settings
	rules []redirects.Rule
}

func toModel(rules []redirects.Rule) []rulemodel.PatternRule {
	out := make([]rulemodel.PatternRule, len(rules))
	for i, r := range rules {
		out[i] = rulemodel.PatternRule{ID: r.ID, CreatedAt: r.CreatedAt, Kind: r.MatchType.String(), Host: r.Host, ExceptHosts: r.ExceptHosts,
			Source: r.Source, Destination: r.Destination, Priority: r.Priority}
	}
	return out
}

// pmDeclared is the project's declared host in these tests.
var pmDeclared = []string{"example.org"}

// modelOwn reports whether a destination's host (lower-cased) is the
// project's own: declared, or a rule's host key (a wildcard's subdomains).
func modelOwn(rules []redirects.Rule, host string) bool {
	k := rulemodel.HostKey(host)
	for _, h := range pmDeclared {
		if k == h {
			return true
		}
	}
	for _, r := range rules {
		if r.Host == "" {
			continue
		}
		rk := rulemodel.HostKey(r.Host)
		if rk == k || strings.HasPrefix(rk, "*.") && strings.HasSuffix(k, rk[1:]) && len(k) > len(rk)-1 {
			return true
		}
	}
	return false
}

// modelFollow follows dest, the answer to a request on host, through the
// model's lookups as a client does: where it ends, or loop when a request
// comes again or MaxFollow redirects pass.
func modelFollow(rules []redirects.Rule, st redirects.Settings, host, dest string) (final string, loop bool) {
	mr := toModel(rules)
	seen := map[string]bool{}
	for n := 0; ; n++ {
		d, _, _ := strings.Cut(dest, "#")
		wire := d
		if !strings.HasPrefix(d, "/") {
			rest, ok := cutSchemeFold(d)
			if !ok {
				return dest, false
			}
			h, p := rest, "/"
			if i := strings.IndexAny(rest, "/?"); i >= 0 {
				h, p = rest[:i], rest[i:]
				if rest[i] == '?' {
					p = "/" + p
				}
			}
			if !modelOwn(rules, strings.ToLower(h)) {
				return dest, false
			}
			host, wire = strings.ToLower(h), p
		}
		path, err := redirects.DecodePath(wire)
		if err != nil {
			return dest, false
		}
		a, ok := rulemodel.LookupPatterns(mr, rulemodel.Of(st), host, wire)
		if !ok || rules[a.Rule].StatusCode == redirects.StatusGone {
			return dest, false
		}
		req := host + " " + st.Key(path) + "?" + redirects.RequestQuery(wire)
		if seen[req] || n >= MaxFollow {
			return "", true
		}
		seen[req] = true
		dest = a.Destination
	}
}

func ruleIndex(rules []redirects.Rule, id int64) int32 {
	for i := range rules {
		if rules[i].ID == id {
			return int32(i)
		}
	}
	return -1
}

// TestLintChainsFollowTheModel: every chain finding's final destination
// is where following the model's lookups from its first rule's sample
// request ends, and a chain into a loop, or a loop, loops there.
func TestLintChainsFollowTheModel(t *testing.T) {
	seen := map[string]int{}
	rapid.Check(t, func(t *rapid.T) {
		p := pmProject.Draw(t, "project")
		fs := Lint(p.rules, LintOptions{Hosts: pmDeclared, Settings: p.st})
		x := newIndex(p.rules, p.st)
		for _, f := range fs {
			if f.Kind != KindChain && f.Kind != KindLoop && f.Kind != KindSelfMatch {
				continue
			}
			seen[string(f.Kind)]++
			first := ruleIndex(p.rules, f.Rules[0].ID)
			host, wire, ok := x.rep(first)
			if !ok {
				t.Fatalf("finding %+v starts at a rule without a sample", f)
			}
			// The first rule's own answer to its sample, in the model: a
			// project of that rule alone.
			own, ok := rulemodel.LookupPatterns(toModel(p.rules[first:first+1]), rulemodel.Of(p.st), host, wire)
			if !ok {
				t.Fatalf("rule %+v does not match its sample %q on %q in the model", p.rules[first], wire, host)
			}
			final, loop := modelFollow(p.rules, p.st, host, own.Destination)
			switch {
			case f.Kind == KindChain && f.FinalDestination != "":
				if loop || final != f.FinalDestination {
					t.Fatalf("settings %+v, rules %+v:\nchain %s\nends at %q; following the model from %q on %q ends at %q (loop %v)",
						p.st, p.rules, f.Message, f.FinalDestination, wire, host, final, loop)
				}
			case f.Kind == KindChain:
				if !loop {
					t.Fatalf("rules %+v: chain %s runs into a loop; the model ends at %q", p.rules, f.Message, final)
				}
			default:
				// A loop's first path is a request of the loop: following
				// it in the model comes back, on the host it was made
				// for (a rule's host, the declared one, or none).
				path, q, _ := strings.Cut(f.Path[0], "?")
				from := rulemodel.Escape(path, false)
				if q != "" {
					from += "?" + q
				}
				loops := false
				hosts := append(append([]string{host}, pmLookupHosts...), pmDeclared...)
				for _, r := range p.rules {
					if r.Host != "" {
						hosts = append(hosts, strings.Replace(r.Host, "*", "www", 1))
					}
				}
				for _, h := range hosts {
					if _, l := modelFollow(p.rules, p.st, h, from); l {
						loops = true
						break
					}
				}
				if !loops {
					t.Fatalf("settings %+v, rules %+v: loop %s; following %q in the model ends", p.st, p.rules, f.Message, from)
				}
			}
		}
		for _, f := range fs {
			switch f.Kind {
			case KindShadowed:
				checkNeverAnswers(t, p, x, f)
				seen["shadowed"]++
				if strings.Contains(f.Message, "matches the same requests") {
					seen["duplicate"]++
				}
			case KindRedundant:
				checkRedundant(t, p, f)
				seen["redundant"]++
			}
		}
	})
	t.Logf("findings checked: %v", seen)
	for _, k := range []string{"chain", "loop", "shadowed", "duplicate"} {
		if seen[k] == 0 {
			t.Errorf("no %s finding was checked: the generators stopped exercising it (%v)", k, seen)
		}
	}
}

// checkNeverAnswers holds a "never answers" warning to the model: the rule
// it names answers none of the requests its source matches that are tried
// (its sample, and its sample's slash twin and other case, on its host and
// the hosts lookups use).
func checkNeverAnswers(t *rapid.T, p pmSet, x *index, f Finding) {
	r := ruleIndex(p.rules, f.Rules[0].ID)
	host, wire, ok := x.rep(r)
	if !ok {
		return
	}
	path, query, _ := strings.Cut(wire, "?")
	variants := []string{path, path + "/", strings.TrimSuffix(path, "/"), strings.ToUpper(path), path + "/" + rapid.SampledFrom(pmWords).Draw(t, "below")}
	mr := toModel(p.rules)
	for _, h := range append([]string{host}, pmLookupHosts...) {
		for _, v := range variants {
			if v == "" {
				continue
			}
			w := v
			if query != "" {
				w += "?" + query
			}
			if a, ok := rulemodel.LookupPatterns(mr, rulemodel.Of(p.st), h, w); ok && int32(a.Rule) == r {
				t.Fatalf("settings %+v, rules %+v: %s; but the model answers %q on %q with it", p.st, p.rules, f.Message, w, h)
			}
		}
	}
}

// checkRedundant holds a "redundant" warning to the model: without the
// exact rule, its source (and with a query) is answered the same.
func checkRedundant(t *rapid.T, p pmSet, f Finding) {
	r := ruleIndex(p.rules, f.Rules[0].ID)
	without := append(append([]redirects.Rule{}, p.rules[:r]...), p.rules[r+1:]...)
	src := p.rules[r].Source
	for _, w := range []string{rulemodel.Escape(src, false), rulemodel.Escape(src, false) + probeQuery} {
		a, okA := rulemodel.LookupPatterns(toModel(p.rules), rulemodel.Of(p.st), "", w)
		b, okB := rulemodel.LookupPatterns(toModel(without), rulemodel.Of(p.st), "", w)
		if okA != okB || !okA || a.Destination != b.Destination || p.rules[a.Rule].StatusCode != without[b.Rule].StatusCode {
			t.Fatalf("settings %+v, rules %+v: %s; but without it the model answers %q otherwise (%+v, %+v)", p.st, p.rules, f.Message, w, a, b)
		}
	}
}

// TestExplainCapturesFollowTheModel: explain answers with the model's rule
// and destination, and its captures are the model's.
func TestExplainCapturesFollowTheModel(t *testing.T) {
	captured := 0
	rapid.Check(t, func(t *rapid.T) {
		p := pmProject.Draw(t, "project")
		x := newIndex(p.rules, p.st)
		mr := toModel(p.rules)
		for k := rapid.IntRange(1, 10).Draw(t, "lookups"); k > 0; k-- {
			host := rapid.SampledFrom(pmLookupHosts).Draw(t, "host")
			var wire string
			if rapid.Bool().Draw(t, "fromSample") {
				// A rule's sample, so that rules with captures answer.
				i := int32(rapid.IntRange(0, len(p.rules)-1).Draw(t, "rule"))
				var ok bool
				var h string
				if h, wire, ok = x.rep(i); !ok {
					continue
				}
				if h != "" {
					host = h
				}
			} else {
				var b strings.Builder
				for d := rapid.IntRange(1, 3).Draw(t, "depth"); d > 0; d-- {
					b.WriteString("/" + rapid.SampledFrom(pmWords).Draw(t, "word"))
				}
				wire = b.String() + rapid.SampledFrom([]string{"", "?p=123", "?id=7&flag", "?empty="}).Draw(t, "query")
			}
			e := ExplainFor(p.rules, p.st, host, wire)
			want, ok := rulemodel.LookupPatterns(mr, rulemodel.Of(p.st), host, wire)
			if !ok {
				if e.Answer != nil {
					t.Fatalf("settings %+v, rules %+v: %q on %q: explain answers %+v, the model nothing", p.st, p.rules, wire, host, e.Answer)
				}
				continue
			}
			if e.Answer == nil || e.Answer.ID != p.rules[want.Rule].ID || e.Destination != want.Destination {
				t.Fatalf("settings %+v, rules %+v: %q on %q: explain answers %+v %q; the model rule %d %q",
					p.st, p.rules, wire, host, e.Answer, e.Destination, p.rules[want.Rule].ID, want.Destination)
			}
			if len(e.Candidates) == 0 || !e.Candidates[0].Answers && (len(e.Candidates) < 2 || !anyAnswers(e.Candidates)) {
				t.Fatalf("%q on %q: no candidate answers: %+v", wire, host, e.Candidates)
			}
			for _, c := range e.Captures {
				key := c.Name
				if _, err := strconv.Atoi(key); err == nil {
					key = "$" + key
				}
				if got := want.Captures[key]; got != c.Value {
					t.Fatalf("settings %+v, rule %+v: %q on %q: capture %s = %q, the model's %q (%v)",
						p.st, p.rules[want.Rule], wire, host, c.Name, c.Value, got, want.Captures)
				}
				captured++
			}
			if p.rules[want.Rule].Extended() == (e.Captures == nil) && len(want.Captures) > 0 {
				t.Fatalf("rule %+v: %q: explain's captures %+v, the model's %v", p.rules[want.Rule], wire, e.Captures, want.Captures)
			}
		}
	})
	if captured == 0 {
		t.Error("no capture was compared: the generators stopped exercising them")
	}
}

func anyAnswers(cs []Candidate) bool {
	for _, c := range cs {
		if c.Answers {
			return true
		}
	}
	return false
}
