package export_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"redirects"
	"redirects/export"
)

// FuzzCSVPatterns renders a random rule of every kind (exact, starts_with,
// pattern, regex; with or without a host, query conditions, options and
// every status), beside literal and pattern rules, into the csv format,
// with any bytes in its source, destination and host: '$', '{', '}', '\',
// '"', ',', line breaks and control bytes, valid or not (a file must stay
// well formed whatever a rule stored before validation holds). The file
// must read back with Go's encoding/csv to its header and exactly one
// record per rule without a host, fields as rendered (encoding/csv reads a
// quoted CRLF as LF), and the rules with a host left out, as
// docs/exports.md says. The project's own reader (export.ReadFile) must
// read back, for a valid rule, exactly those rules' four columns, and for
// an invalid one either as many rules as rows (it can accept what
// validation made of a value, as an import does) or bad lines on the
// invalid row only.
func FuzzCSVPatterns(f *testing.F) {
	for _, s := range [][3]string{
		{"/a,b", "/c,d", ""},
		{"/a\"b", "/b\"\"c", ""},
		{"/a\nb", "/b\r\nc", ""},
		{"/a\rb", "/b\r", "example.com"},
		{"/:lang/docs/*", "/docs/:lang/:splat", ""},
		{"/%24x/%7B%7D/:y+", "https://ex.com/:y?a=1,2", "*.example.com"},
		{"/s/:q??x=1&k=:v", "/r/:v/:q", ""},
		{`^/p/(\d+),(\w+)$`, "/q/$1/${2}/$$", ""},
		{`(?i)^/a(?P<n>[\$\{\}\x22\x27\\,]+)`, "/q/${n}", ""},
		{"/a\x00b\x1f", "/b\x7f", ""},
		{"\"", ",", ""},
		{"/é/:a.html", "/b/:a#f,g", "bücher.example"},
		{" /padded ", " /dest ", ""},
	} {
		for kind := range uint8(4) {
			f.Add(s[0], s[1], s[2], kind, uint8(kind*3))
		}
	}
	f.Fuzz(func(t *testing.T, source, dest, host string, kind, opts uint8) {
		t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
		r := redirects.Rule{ID: 9, CreatedAt: t0, MatchType: redirects.MatchType(kind % 4), Source: source, Destination: dest, Host: host,
			StatusCode: []int{301, 302, 303, 307, 308, 410}[int(opts>>2)%6], Priority: int(opts >> 4)}
		if r.StatusCode == redirects.StatusGone && opts&1 != 0 {
			r.Destination = ""
		}
		r.PreserveQuery = opts&32 != 0
		r.PreservePath = opts&64 != 0 && r.MatchType == redirects.StartsWith
		valid := r
		ok := valid.Validate() == nil
		if ok {
			r = valid // as stored
		}
		rules := []redirects.Rule{
			{ID: 1, CreatedAt: t0, MatchType: redirects.Exact, Source: "/old,one", Destination: "/new?a=1,2", StatusCode: 301},
			{ID: 2, CreatedAt: t0, MatchType: redirects.StartsWith, Source: "/blog/", Destination: "/news/", StatusCode: 302, PreservePath: true},
			{ID: 3, CreatedAt: t0, MatchType: redirects.Pattern, Source: "/p/:x", Destination: "/q/:x", StatusCode: 308},
			{ID: 4, CreatedAt: t0, MatchType: redirects.Exact, Source: "/h", Host: "example.com", Destination: "/hh", StatusCode: 301},
			{ID: 5, CreatedAt: t0, MatchType: redirects.StartsWith, Source: "/gone", StatusCode: redirects.StatusGone},
		}
		for _, o := range rules {
			if o.MatchType == r.MatchType && o.Source == r.Source {
				return // one rule per match type and source (a project refuses the second)
			}
		}
		rules = append(rules, r)
		set := redirects.Settings{CaseInsensitive: opts&1 != 0, IgnoreTrailingSlash: opts&2 != 0}
		body, _ := export.BuildFormat("csv", rules, set)

		// The rows the file must hold: every rule without a host, its four
		// columns as rendered.
		var want [][]string
		for _, o := range rules {
			if o.Host == "" {
				want = append(want, []string{o.Source, o.Destination, strconv.Itoa(o.StatusCode), o.MatchType.String()})
			}
		}
		sortRows := func(rows [][]string) {
			slices.SortFunc(rows, func(a, b []string) int { return slices.Compare(a, b) })
		}
		sortRows(want)

		// Go's encoding/csv: strict (no lazy quotes), four fields a record.
		cr := csv.NewReader(bytes.NewReader(body))
		cr.FieldsPerRecord = 4
		recs, err := cr.ReadAll()
		if err != nil {
			t.Fatalf("encoding/csv: %v\nfile:\n%q", err, body)
		}
		if len(recs) == 0 || strings.Join(recs[0], ",") != "source,destination,statusCode,matchType" {
			t.Fatalf("no header: %q", recs)
		}
		got := recs[1:]
		sortRows(got)
		goWant := make([][]string, len(want))
		for i, w := range want {
			goWant[i] = make([]string, 4)
			for j, v := range w {
				goWant[i][j] = strings.ReplaceAll(v, "\r\n", "\n") // encoding/csv's reading of a quoted CRLF
			}
		}
		sortRows(goWant)
		if !slices.EqualFunc(got, goWant, func(a, b []string) bool { return slices.Equal(a, b) }) {
			t.Fatalf("encoding/csv reads the rows %q; want %q\nfile:\n%q", got, goWant, body)
		}

		// The project's reader.
		file, err := export.ReadFile(context.Background(), bytes.NewReader(body), export.ReadOptions{})
		if err != nil {
			t.Fatalf("ReadFile: %v", err)
		}
		included := r.Host == ""
		if ok || !included {
			if file.BadCount > 0 {
				t.Fatalf("ReadFile reports %v for a file of valid rules\nfile:\n%q", file.Bad, body)
			}
			var back [][]string
			for _, o := range file.Rules {
				if o.Host != "" {
					t.Fatalf("ReadFile reads a host %q from a file without a host column", o.Host)
				}
				back = append(back, []string{o.Source, o.Destination, strconv.Itoa(o.StatusCode), o.MatchType.String()})
			}
			sortRows(back)
			if !slices.EqualFunc(back, want, func(a, b []string) bool { return slices.Equal(a, b) }) {
				t.Fatalf("ReadFile reads the rows %q; want %q\nfile:\n%q", back, want, body)
			}
			return
		}
		// An invalid rule's row: every bad line is on it.
		if file.BadCount == 0 {
			if len(file.Rules) != len(want) {
				t.Fatalf("ReadFile reads %d rules from %d rows\nfile:\n%q", len(file.Rules), len(want), body)
			}
			return
		}
		first, last := rowLines(t, body, r)
		for _, b := range file.Bad {
			if b.Line < first || b.Line > last {
				t.Fatalf("ReadFile reports line %d (%s); the invalid row is on lines %d to %d\nfile:\n%q", b.Line, b.Message, first, last, body)
			}
		}
	})
}

// rowLines returns the first and last line numbers of the csv file's row
// of rule r (its source and destination fields as rendered).
func rowLines(t *testing.T, body []byte, r redirects.Rule) (int, int) {
	t.Helper()
	field := func(s string) string {
		if strings.ContainsAny(s, ",\"\r\n") {
			return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
		}
		return s
	}
	row := field(r.Source) + "," + field(r.Destination) + "," + strconv.Itoa(r.StatusCode) + "," + r.MatchType.String() + "\r\n"
	i := bytes.Index(body, []byte("\r\n"+row))
	if i < 0 {
		t.Fatalf("no row %q in the file:\n%q", row, body)
	}
	first := bytes.Count(body[:i+2], []byte("\n")) + 1
	return first, first + strings.Count(row[:len(row)-1], "\n")
}
