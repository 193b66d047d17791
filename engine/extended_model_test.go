package engine_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"

	"redirects"
	"redirects/engine"
	"redirects/engine/pattern"
	"redirects/internal/rulemodel"
)

// The generators below draw projects that mix every kind of rule, host,
// query condition, option, status and setting (docs/contract.md#pattern-
// rules), literal rules among them, so that a snapshot answers through its
// literal index and its pattern set at once.

var xt0 = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

// xWords are the segments sources and paths share, so that rules overlap.
var xWords = []string{"docs", "Docs", "en", "fr", "guide", "a", "b", "v6", "v7", "42", "x.html", "café", "A"}

var xRuleHosts = []string{"", "", "", "", "example.com", "*.example.com", "a.example.com", "bücher.example"}

// xExceptHosts are exceptHosts entries: names the lookups use, a wildcard
// over some, a name in another form than the lookup's.
var xExceptHosts = []string{"example.com", "*.example.com", "a.example.com", "Bücher.Example", "other.org", "*.a.example.com"}
var xLookupHosts = []string{"", "", "example.com", "A.Example.COM", "b.a.example.com:8443", "example.com.", "x.example.com", "xn--bcher-kva.example", "other.org"}
var xConditions = []string{"p=123", "id=:qid", "flag", "empty=", "lang=en"}

var xRegexes = []struct {
	src   string
	names []string
}{
	{`/docs/(\w+)`, []string{"$1"}},
	{`/(en|fr)/(?P<page>[a-z]+)/?`, []string{"$1", "${page}"}},
	{`/a.*`, nil},
	{`/Docs/(\d+)(/.*)?`, []string{"$1", "$2"}},
	{`(?i)/guide/(.+)`, []string{"$1"}},
}

// xPattern draws a pattern source and the names it captures.
func xPattern(t *rapid.T) (string, []string) {
	var b strings.Builder
	var names []string
	multi := false
	for i, n := 0, rapid.IntRange(1, 3).Draw(t, "segments"); i < n; i++ {
		b.WriteByte('/')
		name := fmt.Sprintf("p%d", i)
		switch rapid.IntRange(0, 7).Draw(t, "piece") {
		case 0, 1, 2:
			b.WriteString(rapid.SampledFrom(xWords).Draw(t, "word"))
		case 3:
			b.WriteString(":" + name)
			names = append(names, name)
		case 4:
			b.WriteString(":" + name + rapid.SampledFrom([]string{"(v6|v7)", `(\d+)`, "(D.*)"}).Draw(t, "constraint"))
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
	if rapid.IntRange(0, 4).Draw(t, "trailing") == 0 {
		b.WriteByte('/')
	}
	return b.String(), names
}

var xKinds = map[string]redirects.MatchType{"exact": redirects.Exact, "starts_with": redirects.StartsWith, "pattern": redirects.Pattern, "regex": redirects.Regex}

var xRule = rapid.Custom(func(t *rapid.T) redirects.Rule {
	kind := rapid.SampledFrom([]string{"exact", "exact", "starts_with", "starts_with", "pattern", "regex"}).Draw(t, "kind")
	r := redirects.Rule{
		MatchType:  xKinds[kind],
		Priority:   rapid.SampledFrom([]int{0, 1, 100}).Draw(t, "priority"),
		StatusCode: rapid.SampledFrom([]int{301, 302, 308, 410}).Draw(t, "status"),
	}
	if h := rapid.SampledFrom(xRuleHosts).Draw(t, "host"); h != "" {
		r.Host, _ = pattern.HostKey(h)
	} else if rapid.IntRange(0, 2).Draw(t, "except") == 0 {
		r.ExceptHosts = xDrawExceptHosts(t)
	}
	var names []string
	switch kind {
	case "exact", "starts_with":
		var b strings.Builder
		for k := rapid.IntRange(1, 3).Draw(t, "depth"); k > 0; k-- {
			b.WriteString("/" + rapid.SampledFrom(xWords).Draw(t, "word"))
		}
		if rapid.Bool().Draw(t, "slash") {
			b.WriteByte('/')
		}
		r.Source = b.String()
	case "pattern":
		r.Source, names = xPattern(t)
		for i, n := range names {
			names[i] = ":" + n
		}
	case "regex":
		re := rapid.SampledFrom(xRegexes).Draw(t, "regex")
		r.Source, names = re.src, re.names
	}
	if rapid.IntRange(0, 3).Draw(t, "conditions") == 0 {
		sep := "?"
		if kind == "regex" {
			sep = "$?"
		}
		conds := rapid.SliceOfNDistinct(rapid.SampledFrom(xConditions), 1, 2, func(s string) string { return s }).Draw(t, "conds")
		r.Source += sep + strings.Join(conds, "&")
		for _, c := range conds {
			if c == "id=:qid" {
				names = append(names, map[bool]string{true: "${qid}", false: ":qid"}[kind == "regex"])
			}
		}
	}
	if r.StatusCode == redirects.StatusGone {
		return r
	}
	var d strings.Builder
	d.WriteString(rapid.SampledFrom([]string{"https://example.org", "https://example.org/n/", "/", "/new/"}).Draw(t, "destKind"))
	for _, n := range names {
		if rapid.Bool().Draw(t, "use") {
			if !strings.HasSuffix(d.String(), "/") {
				d.WriteByte('/')
			}
			d.WriteString(n + "/")
		}
	}
	d.WriteString(rapid.SampledFrom([]string{"", "?x=1", "#top", "?x=1#top"}).Draw(t, "tail"))
	r.Destination = d.String()
	r.PreserveQuery = rapid.IntRange(0, 2).Draw(t, "preserveQuery") == 0
	r.PreservePath = r.MatchType == redirects.StartsWith && rapid.Bool().Draw(t, "preservePath")
	r.QueryAfterFragment = r.PreserveQuery && strings.Contains(r.Destination, "#") && rapid.IntRange(0, 3).Draw(t, "queryAfterFragment") != 0
	if r.PreserveQuery && !r.QueryAfterFragment && rapid.IntRange(0, 2).Draw(t, "mergeQuery") == 0 {
		// A query to merge into, named by a capture at times: the names
		// are the destination's after its captures are inserted.
		path, q, frag := redirects.SplitDestination(r.Destination)
		if q == "" {
			q = rapid.SampledFrom([]string{"x=1", "id=9&lang=fr", "flag"}).Draw(t, "mergeInto")
		}
		if len(names) > 0 && rapid.Bool().Draw(t, "captureName") {
			q += "&" + names[0] + "=c"
		}
		r.Destination = path + "?" + q + frag
		r.MergeQuery = true
	}
	return r
})

// xDrawExceptHosts draws a rule's exceptHosts: one to three distinct
// entries, as host keys.
func xDrawExceptHosts(t *rapid.T) []string {
	hs := rapid.SliceOfNDistinct(rapid.SampledFrom(xExceptHosts), 1, 3, func(s string) string { return s }).Draw(t, "exceptHosts")
	for i, h := range hs {
		hs[i], _ = pattern.RuleHost(h)
	}
	return hs
}

// withoutExceptHosts is rules without their exceptHosts: where the answer
// differs, an excepted host made the difference.
func withoutExceptHosts(rules []redirects.Rule) []redirects.Rule {
	out := slices.Clone(rules)
	for i := range out {
		out[i].ExceptHosts = nil
	}
	return out
}

// xKey is a rule's key (docs/contract.md#keys): a deployment holds one
// rule per key, so the generator drops the later of two that share one.
func xKey(r redirects.Rule, st redirects.Settings) string {
	src := r.Source
	if r.MatchType.Literal() {
		path, q, _ := strings.Cut(src, "?")
		src = st.Key(path) + "?" + q
	}
	return fmt.Sprintf("%v\x00%s\x00%s", r.MatchType, r.Host, src)
}

type xProj struct {
	rules []redirects.Rule
	st    redirects.Settings
}

var xProject = rapid.Custom(func(t *rapid.T) xProj {
	st := redirects.Settings{CaseInsensitive: rapid.Bool().Draw(t, "ci"), IgnoreTrailingSlash: rapid.Bool().Draw(t, "ignore")}
	drawn := rapid.SliceOfN(xRule, 0, 24).Draw(t, "rules")
	// Twins: a rule like an earlier one but for its host or conditions,
	// so that the order's later tie-breaks decide.
	for i := 1; i < len(drawn); i++ {
		if rapid.IntRange(0, 3).Draw(t, "twin") > 0 {
			continue
		}
		r := drawn[rapid.IntRange(0, i-1).Draw(t, "of")]
		sep := "?"
		switch r.MatchType {
		case redirects.Regex:
			sep = "$?"
		case redirects.Pattern:
			sep = "??" // never in a generated pattern: no conditions to drop
		}
		path, _, hasQ := strings.Cut(r.Source, sep)
		switch rapid.IntRange(0, 2).Draw(t, "twist") {
		case 0:
			r.Host = map[bool]string{true: "", false: "example.com"}[r.Host != ""]
			r.ExceptHosts = nil
			if r.Host == "" && rapid.Bool().Draw(t, "twinExcept") {
				r.ExceptHosts = xDrawExceptHosts(t)
			}
		case 1:
			switch {
			case hasQ:
				r.Source = path
			case r.MatchType == redirects.Regex:
				r.Source += "$?flag"
			case r.MatchType == redirects.Pattern && strings.Contains(r.Source, "?"):
				continue
			default:
				r.Source += "?flag"
			}
			if r.StatusCode != redirects.StatusGone && strings.Contains(r.Destination, "qid") {
				r.Destination = "/dropped"
			}
		default:
			r.MatchType = redirects.StartsWith
			if r.PreservePath = false; !strings.ContainsAny(r.Source, ":*()\\?$") {
				r.PreservePath = rapid.Bool().Draw(t, "preservePath")
			} else {
				continue
			}
		}
		drawn[i] = r
	}
	seen := map[string]bool{}
	var rules []redirects.Rule
	for _, r := range drawn {
		if k := xKey(r, st); !seen[k] {
			seen[k] = true
			r.ID = int64(len(rules) + 1)
			r.CreatedAt = xt0.Add(time.Duration(rapid.IntRange(0, 3).Draw(t, "age")) * time.Minute)
			rules = append(rules, r)
		}
	}
	return xProj{rules, st}
})

// xPath draws a request: words, a rule's literal text or an instance of
// its source, in other case, with or without a trailing slash, escaped or
// not, with a query naming the conditions' parameters.
func xPath(t *rapid.T, rules []redirects.Rule) string {
	var b strings.Builder
	if len(rules) > 0 && rapid.IntRange(0, 3).Draw(t, "fromRule") > 0 {
		r := rules[rapid.IntRange(0, len(rules)-1).Draw(t, "rule")]
		src, _, _ := strings.Cut(r.Source, "?")
		if r.MatchType == redirects.Regex {
			src = rapid.SampledFrom([]string{"/docs/intro", "/en/page", "/a", "/Docs/42/x", "/guide/Intro"}).Draw(t, "sample")
		}
		for _, seg := range strings.Split(src, "/")[1:] {
			switch {
			case strings.HasPrefix(seg, ":") || seg == "*":
				if !strings.HasSuffix(seg, "?") || rapid.Bool().Draw(t, "present") {
					b.WriteString("/" + rapid.SampledFrom(append(xWords, "v7", "7", "Dx")).Draw(t, "value"))
				}
			default:
				b.WriteString("/" + seg)
			}
		}
	}
	for k := rapid.IntRange(0, 2).Draw(t, "more"); k > 0; k-- {
		b.WriteString("/" + rapid.SampledFrom(append(xWords, "", "/evil.example")).Draw(t, "word"))
	}
	p := b.String()
	if !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	switch rapid.IntRange(0, 5).Draw(t, "case") {
	case 0:
		p = strings.ToUpper(p)
	case 1:
		p = strings.ToLower(p)
	}
	if rapid.IntRange(0, 3).Draw(t, "slash") == 0 {
		p += "/"
	}
	p = rulemodel.Escape(p, rapid.IntRange(0, 3).Draw(t, "escape") == 0)
	if rapid.IntRange(0, 2).Draw(t, "query") > 0 {
		q := rapid.SliceOfN(rapid.SampledFrom([]string{"p=123", "p=12%33", "id=7", "id=a%20b", "flag", "empty=", "lang=en", "x=2", "", "7=w"}), 1, 3).Draw(t, "params")
		p += "?" + strings.Join(q, "&")
	}
	if rapid.IntRange(0, 5).Draw(t, "fragment") == 0 {
		p += "#f"
	}
	return p
}

// TestExtendedLookupMatchesModel is the property test of a snapshot with
// pattern rules: random projects mixing every kind, host, condition,
// option, status and setting, compiled into a Snapshot, answer every
// lookup (on random hosts, and without one) as internal/rulemodel's model
// of docs/contract.md#pattern-rules does with the rule options applied:
// which rule (its hit is counted under its key), the destination, the
// status, the match type and the JSON body.
func TestExtendedLookupMatchesModel(t *testing.T) {
	seen := map[string]int{}
	rapid.Check(t, func(t *rapid.T) {
		p := xProject.Draw(t, "project")
		rules, st := p.rules, p.st
		snap, err := engine.CompileChecked(rules, st)
		if err != nil {
			t.Fatalf("CompileChecked refused a generated rule: %v", err)
		}
		for k := rapid.IntRange(1, 20).Draw(t, "lookups"); k > 0; k-- {
			host := rapid.SampledFrom(xLookupHosts).Draw(t, "lookupHost")
			wire := xPath(t, rules)
			want, wantOK := rulemodel.LookupRules(rules, rulemodel.Of(st), host, wire)
			m, ok := snap.LookupHost(host, wire)
			if host == "" {
				m2, ok2 := snap.Lookup(wire)
				if ok2 != ok || ok && (m2.StatusCode() != m.StatusCode() || string(m2.AppendTarget(nil, wire)) != string(m.AppendTarget(nil, wire))) {
					t.Fatalf("settings %v, path %q: Lookup and LookupHost without a host differ", st, wire)
				}
			}
			if ok != wantOK {
				t.Fatalf("settings %v, host %q, path %q: found=%v, the model found=%v (%+v)", st, host, wire, ok, wantOK, want)
			}
			if noExcept, neOK := rulemodel.LookupRules(withoutExceptHosts(rules), rulemodel.Of(st), host, wire); neOK != wantOK || noExcept.Rule != want.Rule {
				seen["excepted"]++
			}
			if !ok {
				seen["miss"]++
				continue
			}
			r := rules[want.Rule]
			dest := want.Destination
			got := string(m.AppendTarget(nil, wire))
			if got != dest || m.StatusCode() != r.StatusCode || m.MatchType() != r.MatchType {
				t.Fatalf("settings %v, host %q, path %q: {%q %d %v}; the model: rule %d %+v answering %q",
					st, host, wire, got, m.StatusCode(), m.MatchType(), want.Rule, r, dest)
			}
			if body, wantBody := string(m.AppendJSON([]byte("x"), wire)), "x"+apiJSON(dest, r.StatusCode, r.MatchType); body != wantBody {
				t.Fatalf("settings %v, host %q, path %q: AppendJSON %s, want %s", st, host, wire, body, wantBody)
			}
			snap.CountHit(m)
			m.Release()
			n := 0
			snap.Hits().Harvest(func(k redirects.HitKey, c int64) {
				n++
				if k != r.HitKey() || c != 1 {
					t.Fatalf("settings %v, host %q, path %q: the hit counted %d for %+v, want 1 for %+v", st, host, wire, c, k, r.HitKey())
				}
			})
			if n != 1 {
				t.Fatalf("%d rules harvested, want 1", n)
			}
			seen[r.MatchType.String()]++
			if r.Extended() {
				seen["extended"]++
			} else {
				seen["literal"]++
			}
			if r.Host != "" {
				seen["host"]++
			}
			if len(r.ExceptHosts) > 0 {
				seen["exceptHosts"]++
			}
			if strings.Contains(r.Source, "?") {
				seen["conditions"]++
			}
			if dest != r.Destination {
				seen["computed"]++
				if r.QueryAfterFragment {
					seen["queryAfterFragment"]++
				}
				if r.MergeQuery {
					seen["mergeQuery"]++
				}
			}
		}
	})
	t.Logf("answers by what they exercised: %v", seen)
	// queryAfterFragment is logged, not required: a run of 100 draws
	// answers a few lookups with it (TestLookupMatchesRuleModel, on fixed
	// seeds, requires it).
	for _, k := range []string{"exact", "starts_with", "pattern", "regex", "host", "exceptHosts", "excepted", "conditions", "computed", "literal", "extended", "miss", "mergeQuery"} {
		if seen[k] == 0 {
			t.Errorf("no lookup was answered by %s: the generators stopped exercising it (%v)", k, seen)
		}
	}
}
