package ui

import (
	"strconv"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"redirects"
	"redirects/internal/rulemodel"
)

// The preview's answer held to the contract's brute-force model
// (internal/rulemodel): for a random rule of any kind, with a host and
// query conditions or not, under random settings, and a random sample
// request, the preview matches exactly when the model's lookup among that
// one rule answers, and answers the model's destination.

var previewWords = []string{"docs", "Docs", "en", "fr", "guide", "a", "v6", "42", "x.html", "café"}

var previewHosts = []string{"", "", "example.com", "*.example.com", "bücher.example"}

var previewLookupHosts = []string{"", "example.com", "A.Example.COM", "b.example.com:8443", "example.com.", "xn--bcher-kva.example", "other.org"}

// genPreviewRule draws a rule as the form would send it.
func genPreviewRule(t *rapid.T) rulemodel.PatternRule {
	r := rulemodel.PatternRule{
		Kind:     rapid.SampledFrom([]string{"exact", "starts_with", "pattern", "pattern", "regex"}).Draw(t, "kind"),
		Host:     rapid.SampledFrom(previewHosts).Draw(t, "host"),
		Priority: redirects.DefaultPriority,
	}
	var names []string
	var b strings.Builder
	switch r.Kind {
	case "exact", "starts_with":
		for k := rapid.IntRange(1, 2).Draw(t, "depth"); k > 0; k-- {
			b.WriteString("/" + rapid.SampledFrom(previewWords).Draw(t, "word"))
		}
		r.Source = b.String()
	case "pattern":
		multi := false
		for i := rapid.IntRange(1, 3).Draw(t, "segments"); i > 0; i-- {
			b.WriteByte('/')
			name := "p" + strconv.Itoa(i)
			switch rapid.IntRange(0, 5).Draw(t, "piece") {
			case 0, 1:
				b.WriteString(rapid.SampledFrom(previewWords).Draw(t, "word"))
			case 2:
				b.WriteString(":" + name)
				names = append(names, ":"+name)
			case 3:
				b.WriteString(":" + name + `(\d+)`)
				names = append(names, ":"+name)
			case 4:
				b.WriteString(":" + name + ".html")
				names = append(names, ":"+name)
			default:
				if multi {
					b.WriteString("guide")
					continue
				}
				multi = true
				b.WriteString("*")
				names = append(names, ":splat")
			}
		}
		r.Source = b.String()
	case "regex":
		re := rapid.SampledFrom([]struct {
			src   string
			names []string
		}{
			{`/docs/(\w+)`, []string{"$1"}},
			{`^/p/(\d+)$`, []string{"$1"}},
			{`/(en|fr)/(?P<page>[a-z]+)/?`, []string{"$1", "${page}"}},
			{`(?i)/guide/(.+)`, []string{"$1"}},
		}).Draw(t, "regex")
		r.Source, names = re.src, re.names
	}
	if rapid.IntRange(0, 2).Draw(t, "conditions") == 0 {
		sep := "?"
		if r.Kind == "regex" {
			sep = "$?"
		}
		c := rapid.SampledFrom([]string{"p=123", "id=:qid", "flag"}).Draw(t, "cond")
		r.Source += sep + c
		if c == "id=:qid" {
			if r.Kind == "regex" {
				names = append(names, "${qid}")
			} else {
				names = append(names, ":qid")
			}
		}
	}
	d := rapid.SampledFrom([]string{"/new/", "https://example.org/", "/"}).Draw(t, "dest")
	for _, n := range names {
		if rapid.Bool().Draw(t, "use") {
			d += n + "/"
		}
	}
	r.Destination = d + rapid.SampledFrom([]string{"", "?x=1", "#top"}).Draw(t, "tail")
	return r
}

// genSample draws a sample request: the rule's literal text or words, in
// other case, with a trailing slash or a query or not.
func genSample(t *rapid.T, r rulemodel.PatternRule) string {
	p := ""
	if rapid.Bool().Draw(t, "fromRule") {
		p = strings.TrimRight(rulemodel.LiteralPrefix(r), "/")
	}
	for k := rapid.IntRange(0, 3).Draw(t, "depth"); k > 0; k-- {
		p += "/" + rapid.SampledFrom(append(previewWords, "p", "7", "/evil.example")).Draw(t, "word")
	}
	if !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	if rapid.IntRange(0, 4).Draw(t, "upper") == 0 {
		p = strings.ToUpper(p)
	}
	if rapid.IntRange(0, 3).Draw(t, "slash") == 0 {
		p += "/"
	}
	p = rulemodel.Escape(p, rapid.IntRange(0, 3).Draw(t, "escape") == 0)
	if rapid.Bool().Draw(t, "query") {
		p += "?" + rapid.SampledFrom([]string{"p=123", "id=7", "flag", "x=1&id=a%20b"}).Draw(t, "q")
	}
	return p
}

func TestPreviewAnswersAsTheModel(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		r := genPreviewRule(t)
		st := redirects.Settings{CaseInsensitive: rapid.Bool().Draw(t, "ci"), IgnoreTrailingSlash: rapid.Bool().Draw(t, "ignore")}
		sample := genSample(t, r)
		host := rapid.SampledFrom(previewLookupHosts).Draw(t, "lookupHost")
		v := ruleValues{Source: r.Source, Destination: r.Destination, Host: r.Host, Status: "301", Match: r.Kind,
			Priority: strconv.Itoa(r.Priority), SamplePath: sample, SampleHost: host}
		fe := formErrors{}
		pv := preview(v, st, fe)
		if len(fe) > 0 {
			for k, e := range fe {
				t.Fatalf("%s rule %q → %q on %q refused: %s: %s", r.Kind, r.Source, r.Destination, r.Host, k, e.Msg)
			}
		}
		if !pv.Tried {
			t.Fatalf("a sample path was given and not tried")
		}
		// The model compares the host key; the form takes a host as typed.
		lookup := ""
		if host != "" {
			lookup = rulemodel.HostKey(host)
		}
		ans, ok := rulemodel.LookupPatterns([]rulemodel.PatternRule{r}, rulemodel.Of(st), lookup, sample)
		if ok != pv.Matches {
			t.Fatalf("%s %q on %q for %q %s: preview matches=%v (%s), the model %v", r.Kind, r.Source, r.Host, host, sample, pv.Matches, pv.Why, ok)
		}
		if ok && pv.Destination != ans.Destination {
			t.Fatalf("%s %q → %q for %q: preview answers %q, the model %q", r.Kind, r.Source, r.Destination, sample, pv.Destination, ans.Destination)
		}
	})
}
