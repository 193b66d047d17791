package importer

import (
	"fmt"
	"strings"
	"testing"

	"redirects"
	"redirects/export"
	"redirects/internal/rulegen"

	"pgregory.net/rapid"
)

// TestOurCSVKeepsHostsAndPatterns: the draft CSV read as the csv format
// (the way "rule import" sends a file through the management API) keeps
// every rule as the file says: hosts, pattern and regex rules, query
// conditions, and one source on several hosts, each as is.
func TestOurCSVKeepsHostsAndPatterns(t *testing.T) {
	in := "source,destination,statusCode,matchType,priority,host\n" +
		"/imported,/here,302,exact,,Imported.Example.com\n" +
		"/imported,/there,302,exact,,\n" +
		"/docs/,/d/,301,starts_with,5,*.example.org\n" +
		"/docs/,/e/,301,starts_with,5,\n" +
		"/:y/old/*,/:y/new/:splat,301,pattern,,\n" +
		"^/p/(\\d+)$,/posts/$1,308,regex,,\n" +
		"/index.php?p=:id,/posts/:id,301,exact,,\n"
	res, err := Read(t.Context(), strings.NewReader(in), "csv", Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range res.Rules {
		got = append(got, fmt.Sprintf("%s %s %s %s", r.MatchType, r.Host, r.Source, r.Destination))
	}
	want := []string{"exact imported.example.com /imported /here", "exact  /imported /there", "starts_with *.example.org /docs/ /d/",
		"starts_with  /docs/ /e/", "pattern  /:y/old/* /:y/new/:splat", `regex  ^/p/(\d+)$ /posts/$1`, "exact  /index.php?p=:id /posts/:id"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") || res.AsIs != len(want) || res.Skipped != 0 {
		t.Fatalf("rules:\n%s\nwant:\n%s\n(as is %d, skipped %d, lines %+v)", strings.Join(got, "\n"), strings.Join(want, "\n"), res.AsIs, res.Skipped, res.Lines)
	}
}

// TestOurCSVRoundTripAnyKind: random rules of every kind written as the
// draft CSV come back from the csv format equal, in order.
func TestOurCSVRoundTripAnyKind(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		drawn := rapid.SliceOfN(rulegen.AnyKind(), 0, 20).Draw(rt, "rules")
		type key struct {
			mt           redirects.MatchType
			host, source string
		}
		seen := map[key]bool{}
		var rules []redirects.Rule
		for _, r := range drawn {
			if r.Validate() != nil || seen[key{r.MatchType, r.Host, r.Source}] {
				continue
			}
			seen[key{r.MatchType, r.Host, r.Source}] = true
			rules = append(rules, r)
		}
		var b strings.Builder
		if err := export.WriteDraftCSV(&b, rules); err != nil {
			rt.Fatal(err)
		}
		res, err := Read(t.Context(), strings.NewReader(b.String()), "csv", Options{})
		if err != nil {
			rt.Fatal(err)
		}
		if len(res.Rules) != len(rules) {
			rt.Fatalf("read %d rules of %d: %+v\n%s", len(res.Rules), len(rules), res.Lines, b.String())
		}
		for i, w := range rules {
			g := res.Rules[i]
			if g.Source != w.Source || g.Destination != w.Destination || g.StatusCode != w.StatusCode || g.MatchType != w.MatchType ||
				g.Priority != w.Priority || g.Host != w.Host || g.PreservePath != w.PreservePath || g.PreserveQuery != w.PreserveQuery ||
				g.QueryAfterFragment != w.QueryAfterFragment || g.MergeQuery != w.MergeQuery {
				rt.Fatalf("rule %d came back as %+v, want %+v", i, g, w)
			}
		}
	})
}
