package export

import (
	"reflect"
	"testing"

	"redirects"
)

// TestReportKinds: a difference the report states for several formats is
// one kind naming them all, in the order of redirects.Formats; the
// formats of a slow-format line are read past their counts; a line that
// names no format is a kind of its own.
func TestReportKinds(t *testing.T) {
	report := "haproxy-map-exact: exact rules with statusCode 410: left out, the map has no status column (1 rule, e.g. /gone)\n" +
		"nginx-map-exact: exact rules with statusCode 410: left out, the map has no status column (1 rule, e.g. /gone)\n" +
		"csv: all rules with preserveQuery: not carried (1 rule, e.g. /q)\n" +
		"haproxy (12000 ACLs), nginx-map-prefix (11000 regular expressions): tested one by one per request\n" +
		"all formats but csv: repeated sources written once\n" +
		"something else entirely\n"
	got := ReportKinds(report)
	want := []ReportKind{
		{[]string{"nginx-map-exact", "haproxy-map-exact"}, "exact rules with statusCode 410: left out, the map has no status column (1 rule, e.g. /gone)"},
		{[]string{"csv"}, "all rules with preserveQuery: not carried (1 rule, e.g. /q)"},
		{[]string{"nginx-map-prefix", "haproxy"}, "tested one by one per request"},
		{[]string{"nginx", "nginx-map-exact", "nginx-map-prefix", "haproxy", "haproxy-map-exact", "haproxy-map-prefix"}, "repeated sources written once"},
		{nil, "something else entirely"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("ReportKinds:\n%q\nwant\n%q", got, want)
	}
	if f := ReportFormats(got); !reflect.DeepEqual(f, redirects.Formats) {
		t.Errorf("ReportFormats = %q, want every format", f)
	}
	if k := ReportKinds(""); k != nil {
		t.Errorf("ReportKinds of no report = %q", k)
	}
	// A real report: the maps' 302 and 410 lines are one kind each,
	// naming both maps.
	rules := []redirects.Rule{{ID: 1, Source: "/gone", StatusCode: 410}, {ID: 2, Source: "/promo", Destination: "/sale", StatusCode: 302}, {ID: 3, Source: "/q", Destination: "/r", StatusCode: 301, PreserveQuery: true}}
	real := Report(rules, redirects.Settings{})
	seen := map[string]bool{}
	maps := 0
	for _, k := range ReportKinds(real) {
		if seen[k.What] {
			t.Errorf("kind %q twice in %q", k.What, real)
		}
		seen[k.What] = true
		if reflect.DeepEqual(k.Formats, []string{"nginx-map-exact", "haproxy-map-exact"}) {
			maps++
		}
	}
	if maps != 2 {
		t.Errorf("report %q: %d kinds name both maps, want 2 (302 and 410): %q", real, maps, ReportKinds(real))
	}
}
