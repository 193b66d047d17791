package pattern_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"

	"redirects"
	"redirects/engine/pattern"
	"redirects/internal/rulemodel"
)

var t0 = time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

// words are the path segments random sources and paths share, so that
// rules overlap often: letters in both cases, digits, a dot, non-ASCII.
var words = []string{"docs", "Docs", "en", "fr", "guide", "a", "b", "v6", "v7", "42", "x.html", "café", "A"}

// hosts are the rules' and lookups' hosts: exact, wildcard, IDN in both
// forms, with a port, a trailing dot and other case.
var ruleHosts = []string{"", "", "", "example.com", "*.example.com", "a.example.com", "*.a.example.com", "bücher.example", "xn--caf-dma.example"}
var lookupHosts = []string{"", "example.com", "A.Example.COM", "b.a.example.com:8443", "example.com.", "x.example.com", "BÜCHER.example", "xn--bcher-kva.example", "café.example", "other.org"}

// conditions are query conditions of every form, one decoded with '+'.
var conditions = []string{"p=123", "id=:qid", "flag", "empty=", "a+b=c%20d", "lang=en"}

var genSettings = rapid.Custom(func(t *rapid.T) redirects.Settings {
	return redirects.Settings{CaseInsensitive: rapid.Bool().Draw(t, "ci"), IgnoreTrailingSlash: rapid.Bool().Draw(t, "ignore")}
})

// genPattern draws a pattern source and the capture names it defines.
func genPattern(t *rapid.T) (string, []string) {
	var b strings.Builder
	var names []string
	multi := false
	n := rapid.IntRange(1, 4).Draw(t, "segments")
	for i := 0; i < n; i++ {
		b.WriteByte('/')
		last := i == n-1
		name := fmt.Sprintf("p%d", i)
		switch rapid.IntRange(0, 9).Draw(t, "piece") {
		case 0, 1, 2:
			b.WriteString(rapid.SampledFrom(words).Draw(t, "word"))
		case 3:
			b.WriteString(":" + name)
			names = append(names, name)
		case 4:
			b.WriteString(":" + name + rapid.SampledFrom([]string{"(v6|v7)", `(\d+)`, "([a-z]+)", "(D.*)"}).Draw(t, "constraint"))
			names = append(names, name)
		case 5:
			b.WriteString(":" + name + ".html")
			names = append(names, name)
		case 6:
			b.WriteString("v:" + name)
			names = append(names, name)
		case 7:
			b.WriteString(":" + name + "?")
			names = append(names, name)
		case 8, 9:
			if multi {
				b.WriteString("guide")
				continue
			}
			multi = true
			switch rapid.IntRange(0, 2).Draw(t, "multi") {
			case 0:
				b.WriteString("*")
				names = append(names, "splat")
			case 1:
				b.WriteString(":" + name + "*")
				names = append(names, name)
			default:
				b.WriteString(":" + name + "+")
				names = append(names, name)
			}
		}
		_ = last
	}
	if rapid.IntRange(0, 5).Draw(t, "trailing") == 0 {
		b.WriteByte('/')
	}
	return b.String(), names
}

var regexes = []struct {
	src   string
	names []string
}{
	{`/docs/(\w+)`, []string{"$1"}},
	{`/(en|fr)/(?P<page>[a-z]+)/?`, []string{"$1", "${page}"}},
	{`/a.*`, nil},
	{`/Docs/(\d+)(/.*)?`, []string{"$1", "$2"}},
	{`/x/(.*)`, []string{"$1"}},
	{`(?i)/guide/(.+)`, []string{"$1"}},
	{`/caf[eé]/([^/]+)`, []string{"$1"}},
	{`/(?:v6|v7)/(?P<rest>.*)`, []string{"${rest}"}},
}

var genRule = rapid.Custom(func(t *rapid.T) rulemodel.PatternRule {
	r := rulemodel.PatternRule{
		Kind:     rapid.SampledFrom([]string{"exact", "starts_with", "pattern", "pattern", "regex"}).Draw(t, "kind"),
		Host:     rapid.SampledFrom(ruleHosts).Draw(t, "host"),
		Priority: rapid.SampledFrom([]int{0, 1, 100}).Draw(t, "priority"),
	}
	var names []string
	switch r.Kind {
	case "exact", "starts_with":
		var b strings.Builder
		for k := rapid.IntRange(1, 3).Draw(t, "depth"); k > 0; k-- {
			b.WriteString("/" + rapid.SampledFrom(words).Draw(t, "word"))
		}
		if rapid.Bool().Draw(t, "slash") {
			b.WriteByte('/')
		}
		r.Source = b.String()
	case "pattern":
		r.Source, names = genPattern(t)
		for i, n := range names {
			names[i] = ":" + n
		}
	case "regex":
		re := rapid.SampledFrom(regexes).Draw(t, "regex")
		r.Source, names = re.src, re.names
	}
	if rapid.IntRange(0, 2).Draw(t, "conditions") == 0 {
		// After an optional placeholder's '?', the conditions' '?' is a
		// second one; a regex's conditions follow "$?".
		sep := "?"
		if r.Kind == "regex" {
			sep = "$?"
		}
		conds := rapid.SliceOfNDistinct(rapid.SampledFrom(conditions), 1, 2, func(s string) string { return s }).Draw(t, "conds")
		r.Source += sep + strings.Join(conds, "&")
		for _, c := range conds {
			if c == "id=:qid" {
				if r.Kind == "regex" {
					names = append(names, "${qid}")
				} else {
					names = append(names, ":qid")
				}
			}
		}
	}
	// The destination: a path or an absolute URL, using some captures,
	// sometimes right after the first '/' (where a capture could start
	// "//").
	var d strings.Builder
	switch rapid.IntRange(0, 3).Draw(t, "destKind") {
	case 0:
		d.WriteString("https://example.org/")
	case 1:
		d.WriteString("https://example.org:8080/n/")
	case 2:
		d.WriteString("/")
	default:
		d.WriteString("/new/")
	}
	for _, n := range names {
		if rapid.Bool().Draw(t, "use") {
			d.WriteString(n + "/")
		}
	}
	if r.Kind == "regex" && rapid.Bool().Draw(t, "dollar") {
		d.WriteString("$$")
	}
	d.WriteString(rapid.SampledFrom([]string{"", "?x=1", "#top"}).Draw(t, "tail"))
	r.Destination = d.String()
	return r
})

var genProject = rapid.Custom(func(t *rapid.T) []rulemodel.PatternRule {
	rules := rapid.SliceOfN(genRule, 0, 20).Draw(t, "rules")
	for i := range rules {
		rules[i].ID = int64(i + 1)
		rules[i].CreatedAt = t0.Add(time.Duration(rapid.IntRange(0, 3).Draw(t, "age")) * time.Minute)
	}
	return rules
})

// genPath draws a request: a path built from the words (or a rule's
// literal text), in other case, with a trailing slash or not, escaped or
// not, with a query using the conditions' parameters.
func genPath(t *rapid.T, rules []rulemodel.PatternRule) string {
	var b strings.Builder
	if len(rules) > 0 {
		r := rules[rapid.IntRange(0, len(rules)-1).Draw(t, "rule")]
		switch rapid.IntRange(0, 2).Draw(t, "fromRule") {
		case 0:
			b.WriteString(strings.TrimRight(rulemodel.LiteralPrefix(r), "/"))
		case 1:
			b.WriteString(instantiate(t, r))
		}
	}
	depth := rapid.IntRange(0, 4).Draw(t, "depth")
	if b.Len() > 0 && rapid.Bool().Draw(t, "asIs") {
		depth = 0
	}
	for k := depth; k > 0; k-- {
		b.WriteString("/" + rapid.SampledFrom(append(words, "", "/evil.example", "x.html")).Draw(t, "word"))
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
		q := rapid.SliceOfN(rapid.SampledFrom([]string{"p=123", "p=12%33", "id=7", "id=a%20b", "flag", "flag=1", "empty", "empty=", "a+b=c+d", "a%20b=c%20d", "lang=EN", "lang=en", "x=1"}), 1, 4).Draw(t, "params")
		p += "?" + strings.Join(q, "&")
	}
	if rapid.IntRange(0, 5).Draw(t, "fragment") == 0 {
		p += "#f"
	}
	return p
}

func toEngine(rules []rulemodel.PatternRule) []pattern.Rule {
	kinds := map[string]pattern.Kind{"exact": pattern.Exact, "starts_with": pattern.StartsWith, "pattern": pattern.Pattern, "regex": pattern.Regex}
	out := make([]pattern.Rule, len(rules))
	for i, r := range rules {
		out[i] = pattern.Rule{ID: r.ID, CreatedAt: r.CreatedAt, Kind: kinds[r.Kind], Host: r.Host, Source: r.Source, Destination: r.Destination, Priority: r.Priority}
	}
	return out
}

// TestLookupMatchesPatternModel is the property test of pattern rules:
// random projects mixing every kind, host, query condition and setting,
// looked up on random requests and hosts, answer as the brute-force model
// of docs/contract.md#pattern-rules does (which rule, which destination).
func TestLookupMatchesPatternModel(t *testing.T) {
	seen := map[string]int{}
	rapid.Check(t, func(t *rapid.T) {
		st := genSettings.Draw(t, "settings")
		rules := genProject.Draw(t, "rules")
		set, err := pattern.Compile(toEngine(rules), pattern.Settings(st))
		if err != nil {
			t.Fatalf("Compile refused a generated rule: %v", err)
		}
		var m pattern.Match
		for k := rapid.IntRange(1, 30).Draw(t, "lookups"); k > 0; k-- {
			host := rapid.SampledFrom(lookupHosts).Draw(t, "lookupHost")
			wire := genPath(t, rules)
			want, wantOK := rulemodel.LookupPatterns(rules, rulemodel.Of(st), host, wire)
			ok := set.Lookup(host, wire, &m)
			if ok != wantOK {
				t.Fatalf("settings %+v, host %q, path %q: found=%v, the model found=%v (%+v)", st, host, wire, ok, wantOK, want)
			}
			if !ok {
				seen["miss"]++
				continue
			}
			got := string(m.AppendDestination(nil))
			if m.Rule() != want.Rule || got != want.Destination {
				t.Fatalf("settings %+v, host %q, path %q: rule %d %+v answering %q; the model: rule %d %+v answering %q",
					st, host, wire, m.Rule(), rules[m.Rule()], got, want.Rule, rules[want.Rule], want.Destination)
			}
			r := rules[want.Rule]
			seen[r.Kind]++
			if r.Host != "" {
				seen["host"]++
			}
			if strings.Contains(r.Source, "?") {
				seen["conditions"]++
			}
			if got != r.Destination {
				seen["computed"]++
			}
		}
	})
	t.Logf("answers by what they exercised: %v", seen)
	for _, k := range []string{"exact", "starts_with", "pattern", "regex", "host", "conditions", "computed", "miss"} {
		if seen[k] == 0 {
			t.Errorf("no lookup was answered by %s: the generators stopped exercising it (%v)", k, seen)
		}
	}
}

// regexSamples are paths each generated regex matches (in some case).
var regexSamples = []string{"/docs/intro", "/en/page", "/fr/page/", "/a", "/abc/d", "/Docs/42", "/Docs/7/x/y", "/x/", "/x/a/b", "/guide/Intro", "/café/b", "/cafe/b", "/v6/a/b", "/v7"}

// instantiate returns a path a rule's source may match: its placeholders
// replaced by words (none, one or two segments for a multi-segment one,
// nothing for an optional one at times).
func instantiate(t *rapid.T, r rulemodel.PatternRule) string {
	src := r.Source
	switch r.Kind {
	case "regex":
		return rapid.SampledFrom(regexSamples).Draw(t, "sample")
	case "pattern":
	default:
		if i := strings.Index(src, "?"); i >= 0 {
			src = src[:i]
		}
		return src
	}
	var out []string
	for _, seg := range strings.Split(src, "/")[1:] {
		if i := strings.Index(seg, "??"); i >= 0 {
			seg = seg[:i+1]
		} else if i := strings.IndexAny(seg, "?"); i >= 0 && i+1 < len(seg) {
			seg = seg[:i]
		}
		switch {
		case !strings.ContainsAny(seg, ":*"):
			out = append(out, seg)
		case strings.HasSuffix(seg, "*") || strings.HasSuffix(seg, "+"):
			for k := rapid.IntRange(0, 2).Draw(t, "splatDepth"); k > 0; k-- {
				out = append(out, rapid.SampledFrom(words).Draw(t, "word"))
			}
		case strings.HasSuffix(seg, "?"):
			if rapid.Bool().Draw(t, "present") {
				out = append(out, rapid.SampledFrom(words).Draw(t, "word"))
			}
		default:
			prefix, _, _ := strings.Cut(seg, ":")
			w := rapid.SampledFrom(append(words, "v6", "v7", "7", "Dx")).Draw(t, "word")
			if strings.HasSuffix(seg, ".html") {
				w += ".html"
			}
			out = append(out, prefix+w)
		}
	}
	return "/" + strings.Join(out, "/")
}
