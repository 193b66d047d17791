package export_test

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"redirects"
	"redirects/engine"
	"redirects/export"
	"redirects/internal/rulegen"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/golden")

// smallRules is a hand-written rule set that touches every case the formats
// must get right: a 302, a destination with a query string, an absolute
// https destination, a '%' in a destination, a ',' in a source (csv
// quoting), regular expression metacharacters in a source, an exact and a
// starts_with rule sharing a source, overlapping prefixes whose priorities
// make the closure change the answer, and sources differing only in case.
// It is deliberately not sorted.
func smallRules() []redirects.Rule {
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	rules := []redirects.Rule{
		{Source: "/blog/2019/05", Destination: "/archive/may", StatusCode: 301, MatchType: redirects.StartsWith, Priority: 200},
		{Source: "/old", Destination: "/new", StatusCode: 301},
		{Source: "/promo", Destination: "/sale?utm_source=old&x=1", StatusCode: 302},
		{Source: "/blog", Destination: "/news", StatusCode: 301, MatchType: redirects.StartsWith, Priority: 100},
		{Source: "/partner", Destination: "https://partner.example.com/landing?ref=redirects", StatusCode: 301},
		{Source: "/discount", Destination: "/search?q=50%25off", StatusCode: 301},
		{Source: "/about", Destination: "/about-us", StatusCode: 301},
		{Source: "/About", Destination: "/about-us-2", StatusCode: 302},
		{Source: "/blog/2019", Destination: "/archive/2019", StatusCode: 302, MatchType: redirects.StartsWith, Priority: 50},
		{Source: "/docs/", Destination: "/guide/", StatusCode: 301, MatchType: redirects.StartsWith, Priority: 100},
		{Source: "/docs/v1", Destination: "https://old.example.com/docs?v=1", StatusCode: 302, MatchType: redirects.StartsWith, Priority: 100},
		{Source: "/docs/", Destination: "/guide/index", StatusCode: 301},
		{Source: "/shop.(old)+", Destination: "/shop", StatusCode: 301, MatchType: redirects.StartsWith, Priority: 10},
		{Source: "/a,b", Destination: "/c%d", StatusCode: 301},
		{Source: "/Blog/", Destination: "/news-upper", StatusCode: 301, MatchType: redirects.StartsWith, Priority: 1},
	}
	for i := range rules {
		rules[i].ID = int64(i + 1)
		rules[i].CreatedAt = t0.Add(time.Duration(i) * time.Minute)
	}
	return rules
}

// TestGolden holds every format's exact bytes for smallRules against
// testdata/golden/<format> (go test -run TestGolden -update rewrites them;
// review the diff).
func TestGolden(t *testing.T) {
	rules := smallRules()
	for _, r := range rules {
		if err := r.Validate(); err != nil {
			t.Fatalf("smallRules holds an invalid rule: %v", err)
		}
	}
	c, err := export.Render(rules)
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Exports) != len(redirects.Formats) {
		t.Fatalf("Render returned %d exports, want %d", len(c.Exports), len(redirects.Formats))
	}
	for i, format := range redirects.Formats {
		e := c.Exports[i]
		if e.Format != format {
			t.Errorf("export %d is %q, want %q (redirects.Formats order)", i, e.Format, format)
		}
		single, ok := export.RenderFormat(format, rules)
		if !ok || !bytes.Equal(single, e.Body) {
			t.Errorf("%s: RenderFormat and Render disagree", format)
		}
		if want := export.ETag(e.Body); e.ETag != want || !regexp.MustCompile(`^"[0-9a-f]{32}"$`).MatchString(e.ETag) {
			t.Errorf("%s: ETag %s, want %s (quoted hex)", format, e.ETag, want)
		}
		checkGolden(t, format, e.Body)
	}
	checkGolden(t, "report", []byte(c.Report))
}

func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from %s:\n--- got\n%s\n--- want\n%s", name, path, got, want)
	}
}

// TestOrderIsSortRules holds the order of the files, which the renderers
// compute with their own faster sorts, against engine.SortRules, on rule
// sets made to trip them: sources sharing long leading parts, lengths around
// the sorts' 8- and 16-byte digits, bytes above 0x7f, tied priorities,
// lengths and creation times.
func TestOrderIsSortRules(t *testing.T) {
	var sets [][]redirects.Rule
	sets = append(sets, rulegen.Rules(20_000, 0.3, 3))
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	var tricky []redirects.Rule
	stems := []string{"/", "/a", "/abcdefg", "/abcdefgh", "/abcdefghijklmno", "/abcdefghijklmnop", "/abcdefghijklmnopq",
		"/shop/index.php/catalog/product/view/id/", "/é", "/\u00ff", "/~", "/A"}
	for i, a := range stems {
		for j, b := range []string{"", "x", "é", "0123456789abcdef", "/"} {
			for k, mt := range []redirects.MatchType{redirects.Exact, redirects.StartsWith} {
				n := len(tricky)
				tricky = append(tricky, redirects.Rule{
					ID: int64(1000 - n), Source: a + b, Destination: "/d" + strconv.Itoa(n), StatusCode: 301, MatchType: mt,
					Priority: []int{100, 0, 100}[(i+j+k)%3], CreatedAt: t0.Add(time.Duration((i*j)%3) * time.Second),
				})
			}
		}
	}
	sets = append(sets, tricky)
	for n, rules := range sets {
		want := append([]redirects.Rule(nil), rules...)
		engine.SortRules(want)
		var b strings.Builder
		b.WriteString("source,destination,statusCode,matchType\r\n")
		for _, r := range want {
			fmt.Fprintf(&b, "%s,%s,%d,%s\r\n", r.Source, r.Destination, r.StatusCode, r.MatchType)
		}
		if got := string(export.RenderCSV(rules)); got != b.String() {
			t.Errorf("set %d: csv order differs from engine.SortRules", n)
		}
		// Rules in order already, as a deploy hands them over, skip the
		// renderers' sorts and must give the same files.
		fromSorted, err1 := export.Render(want)
		fromInput, err2 := export.Render(rules)
		if err1 != nil || err2 != nil {
			t.Fatalf("set %d: Render: %v, %v", n, err1, err2)
		}
		if !reflect.DeepEqual(fromSorted, fromInput) {
			t.Errorf("set %d: the files of the sorted rules differ from those of the same rules in input order", n)
		}
	}
}

// TestReport checks the report lines that smallRules does not reach, and
// that a rule set every format expresses gets an empty report.
func TestReport(t *testing.T) {
	rule := func(src string, mt redirects.MatchType) redirects.Rule {
		return redirects.Rule{Source: src, Destination: "/d", StatusCode: 301, MatchType: mt, Priority: 100}
	}
	many := func(n int, mt redirects.MatchType, prefix string) []redirects.Rule {
		var rules []redirects.Rule
		for i := range n {
			rules = append(rules, rule(prefix+strconv.Itoa(i), mt))
		}
		return rules
	}
	for _, c := range []struct {
		name  string
		rules []redirects.Rule
		want  []string // substrings, each on its own line
	}{
		{"clean", []redirects.Rule{rule("/a", redirects.Exact), rule("/b/", redirects.StartsWith)}, nil},
		{"nginx normalizes", []redirects.Rule{rule("/a//b", redirects.Exact), rule("/a%20b", redirects.StartsWith), rule("/c/./d", redirects.Exact), rule("/ok", redirects.Exact)},
			[]string{`nginx, nginx-map-exact, nginx-map-prefix: sources that do not match as in the lookup API because they hold "//", "/./" or "/../", which nginx normalizes in the request path before matching (validation refuses them now: edit these rules): 2, e.g. /a//b, /c/./d`}},
		// All three decode the request path once, so neither a stored '%'
		// nor non-ASCII characters nor < > ` make a difference any more.
		{"decoded path", []redirects.Rule{rule("/café", redirects.Exact), rule("/a<b", redirects.StartsWith), rule("/a%20b", redirects.Exact)}, nil},
		{"linear scans", many(10_001, redirects.StartsWith, "/p"),
			[]string{"haproxy (10001 ACLs), nginx-map-prefix (10001 regular expressions): tested one by one per request"}},
		{"nginx insertion sort", append(many(20_000, redirects.Exact, "/z"), many(6_000, redirects.StartsWith, "/a")...),
			[]string{"nginx: 20000 exact and 6000 prefix locations take nginx versions that sort locations by insertion (such as 1.22) some 120 million comparisons",
				"haproxy (26000 ACLs)"}},
		{"long sources", []redirects.Rule{rule("/"+strings.Repeat("a", 255), redirects.Exact), rule("/"+strings.Repeat("b", 254), redirects.StartsWith)},
			[]string{"nginx: sources left out because they are longer than 255 bytes, which nginx 1.22 mishandles in locations (one such location catches every request): 1, e.g. /aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa... (256 bytes)"}},
		{"repeats", []redirects.Rule{rule("/a", redirects.Exact), rule("/a", redirects.Exact), rule("/b", redirects.StartsWith), rule("/b", redirects.StartsWith)},
			[]string{"all formats but csv: repeated sources written once, with the rule the lookup API answers: 2, e.g. exact /a, starts_with /b"}},
	} {
		for i := range c.rules {
			c.rules[i].ID = int64(i + 1)
		}
		content, err := export.Render(c.rules)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSuffix(content.Report, "\n"), "\n")
		if content.Report == "" {
			lines = nil
		}
		if len(lines) != len(c.want) {
			t.Errorf("%s: report has %d lines, want %d:\n%s", c.name, len(lines), len(c.want), content.Report)
			continue
		}
		for i, w := range c.want {
			if !strings.Contains(lines[i], w) {
				t.Errorf("%s: report line %d is\n%s\nwant it to hold\n%s", c.name, i+1, lines[i], w)
			}
		}
	}
}

// optionRules is a hand-written rule set that uses every rule option and
// status (docs/contract.md#rule-options): 303, 307, 308 and 410 rules,
// fragments, preservePath and preserveQuery with and without a destination
// query, an empty destination query, an absolute destination without a
// path, and an exact and a starts_with rule sharing a source.
func optionRules() []redirects.Rule {
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	rules := []redirects.Rule{
		{Source: "/old/", Destination: "/new/#top", StatusCode: 308, MatchType: redirects.StartsWith, Priority: 100, PreservePath: true, PreserveQuery: true},
		{Source: "/gone", StatusCode: 410},
		{Source: "/Docs", Destination: "https://docs.example.com", StatusCode: 301, MatchType: redirects.StartsWith, Priority: 50, PreservePath: true},
		{Source: "/search", Destination: "/find?src=old", StatusCode: 307, PreserveQuery: true},
		{Source: "/promo/", Destination: "/sale?", StatusCode: 302, PreserveQuery: true},
		{Source: "/faq", Destination: "/help#faq", StatusCode: 303},
		{Source: "/old/", Destination: "/new/index", StatusCode: 301},
		{Source: "/archive", StatusCode: 410, MatchType: redirects.StartsWith, Priority: 10},
		{Source: "/About", Destination: "/about-us", StatusCode: 301},
	}
	for i := range rules {
		rules[i].ID = int64(i + 1)
		rules[i].CreatedAt = t0.Add(time.Duration(i) * time.Minute)
	}
	return rules
}

// TestGoldenOptions holds every format's exact bytes for optionRules under
// the default settings and under caseSensitive false with trailingSlash
// ignore against testdata/golden/options/ and testdata/golden/settings/.
func TestGoldenOptions(t *testing.T) {
	rules := optionRules()
	for _, r := range rules {
		if err := r.Validate(); err != nil {
			t.Fatalf("optionRules holds an invalid rule: %v", err)
		}
	}
	for dir, set := range map[string]redirects.Settings{
		"options":  {},
		"settings": {CaseInsensitive: true, IgnoreTrailingSlash: true},
	} {
		c, err := export.Build(rules, set)
		if err != nil {
			t.Fatal(err)
		}
		for i, format := range redirects.Formats {
			if single, ok := export.BuildFormat(format, rules, set); !ok || !bytes.Equal(single, c.Exports[i].Body) {
				t.Errorf("%s %s: BuildFormat and Build disagree", dir, format)
			}
			checkGolden(t, filepath.Join(dir, format), c.Exports[i].Body)
		}
		checkGolden(t, filepath.Join(dir, "report"), []byte(c.Report))
	}
}
