package rulegen

import (
	"fmt"
	"strings"

	"pgregory.net/rapid"

	"redirects"
)

// The pieces AnyKind draws from: hosts in every form a rule may be given
// (docs/contract.md#hosts: case, a trailing dot, a port, IDN in either
// form, a wildcard); sources of each kind with the captures they define;
// query conditions of every form, one capturing.
var (
	kindHosts = []string{"", "", "example.com", "Old.Example.COM.", "*.example.org", "a.example.org:8443", "bücher.example", "xn--caf-dma.example"}
	// kindExcept are exceptHosts entries, in every form a host is given.
	kindExcept = []string{"example.com", "Old.Example.COM.", "*.example.org", "bücher.example", "b.example.net:8080"}
	kindWords  = []string{"docs", "Docs", "en", "guide", "v6", "x.html", "café", "a,b"}
	kindConds  = []string{"p=123", "id=:qid", "flag", "empty=", "a+b=c%20d"}
	patterns   = []struct {
		src   string
		names []string
	}{
		{"/:lang/docs/*", []string{":lang", ":splat"}},
		{"/blog/:year(\\d{4})/:slug.html", []string{":year", ":slug"}},
		{"/v:version/:rest+", []string{":version", ":rest"}},
		{"/shop/:cat?/item", []string{":cat"}},
		{"/a,b/:x", []string{":x"}},
		{"/old/*", []string{":splat"}},
	}
	regexes = []struct {
		src   string
		names []string
	}{
		{`^/p/(\d+)$`, []string{"$1"}},
		{`/(en|fr)/(?P<page>[a-z]+)/?`, []string{"$1", "${page}"}},
		{`/n/(\d{1,3})`, []string{"$1"}},
		{`(?i)/guide/(.+)`, []string{"$1"}},
		{`/x/[a-z]*`, nil},
	}
)

// AnyKind draws a rule of any match type, with or without a host (or,
// without one, exceptHosts), query
// conditions, captures in its destination, any status (a 410 without a
// destination), priority and the options its kind takes: the rules a
// round trip through a file must give back as they were. It draws what
// validation accepts; a caller keeps what Rule.Validate accepts, as a file
// would.
func AnyKind() *rapid.Generator[redirects.Rule] {
	return rapid.Custom(func(t *rapid.T) redirects.Rule {
		r := redirects.Rule{
			MatchType:  rapid.SampledFrom(redirects.MatchTypes).Draw(t, "kind"),
			Host:       rapid.SampledFrom(kindHosts).Draw(t, "host"),
			StatusCode: rapid.SampledFrom(redirects.StatusCodes).Draw(t, "status"),
			Priority:   rapid.SampledFrom([]int{redirects.DefaultPriority, 0, 7, redirects.MaxPriority}).Draw(t, "priority"),
		}
		if r.Host == "" && rapid.IntRange(0, 3).Draw(t, "except") == 0 {
			r.ExceptHosts = rapid.SliceOfNDistinct(rapid.SampledFrom(kindExcept), 1, 3, func(s string) string { return s }).Draw(t, "exceptHosts")
		}
		var names []string
		switch r.MatchType {
		case redirects.Exact, redirects.StartsWith:
			var b strings.Builder
			for k := rapid.IntRange(1, 3).Draw(t, "depth"); k > 0; k-- {
				b.WriteString("/" + rapid.SampledFrom(kindWords).Draw(t, "word"))
			}
			if rapid.Bool().Draw(t, "slash") {
				b.WriteByte('/')
			}
			r.Source = b.String()
		case redirects.Pattern:
			p := rapid.SampledFrom(patterns).Draw(t, "pattern")
			r.Source, names = p.src, p.names
		case redirects.Regex:
			re := rapid.SampledFrom(regexes).Draw(t, "regex")
			r.Source, names = re.src, re.names
		}
		if rapid.IntRange(0, 2).Draw(t, "conditions") == 0 {
			sep := "?"
			if r.MatchType == redirects.Regex {
				sep = "$?"
				if strings.HasSuffix(r.Source, "$") {
					sep = "?"
				}
			}
			conds := rapid.SliceOfNDistinct(rapid.SampledFrom(kindConds), 1, 2, func(s string) string { return s }).Draw(t, "conds")
			r.Source += sep + strings.Join(conds, "&")
			for _, c := range conds {
				if c == "id=:qid" {
					if r.MatchType == redirects.Regex {
						names = append(names, "${qid}")
					} else {
						names = append(names, ":qid")
					}
				}
			}
		}
		if r.StatusCode == redirects.StatusGone && rapid.Bool().Draw(t, "gone") {
			return r // a 410 without a destination and options
		}
		var d strings.Builder
		d.WriteString(rapid.SampledFrom([]string{"/", "/new/", "https://example.net/", "https://example.net:8080/n,m/"}).Draw(t, "base"))
		for _, n := range names {
			if rapid.Bool().Draw(t, "use") {
				d.WriteString(n + "/")
			}
		}
		d.WriteString(rapid.SampledFrom([]string{"", "?x=1", "#top", fmt.Sprintf("?n=%d#f", rapid.IntRange(0, 9).Draw(t, "n"))}).Draw(t, "tail"))
		r.Destination = d.String()
		r.PreservePath = r.MatchType == redirects.StartsWith && rapid.Bool().Draw(t, "preservePath")
		r.PreserveQuery = rapid.Bool().Draw(t, "preserveQuery")
		r.QueryAfterFragment = r.PreserveQuery && strings.Contains(r.Destination, "#") && rapid.Bool().Draw(t, "queryAfterFragment")
		r.MergeQuery = r.PreserveQuery && !r.QueryAfterFragment && strings.Contains(r.Destination, "?") && rapid.Bool().Draw(t, "mergeQuery")
		return r
	})
}
