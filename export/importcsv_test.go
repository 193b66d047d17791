package export_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"redirects"
	"redirects/export"
	"redirects/internal/rulegen"
)

// TestCSVRoundTrip writes generated rules, a comma included, as
// an import file and reads them back whole, priorities included.
func TestCSVRoundTrip(t *testing.T) {
	rules := rulegen.Rules(2000, 0.3, 4)
	rules[0].Destination = "/a,b?q=1"
	var buf bytes.Buffer
	if err := export.WriteCSV(&buf, rules); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(buf.String(), "source,destination,statusCode,matchType,priority\r\n") {
		t.Fatalf("import file starts %q", buf.String()[:60])
	}
	got, lines, err := export.ReadCSV(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(rules) || len(lines) != len(rules) {
		t.Fatalf("read %d rules and %d lines, wrote %d", len(got), len(lines), len(rules))
	}
	for i := range rules {
		w, g := rules[i], got[i]
		if g.Source != w.Source || g.Destination != w.Destination || g.StatusCode != w.StatusCode ||
			g.MatchType != w.MatchType || g.Priority != w.Priority {
			t.Fatalf("rule %d read back as %+v, wrote %+v", i, g, w)
		}
		if lines[i] != i+2 {
			t.Fatalf("rule %d on line %d, want %d", i, lines[i], i+2)
		}
	}
}

// TestReadCSVErrors checks that every bad line is reported with its number
// and that nothing is returned beside the error.
func TestReadCSVErrors(t *testing.T) {
	in := "source,destination,statusCode,matchType\n" +
		"/a,/b,301,exact\n" +
		"/c,/d,304,exact\n" +
		"\n" +
		"/e,/f,301\n" +
		"/a,/x,302,exact\n"
	rules, lines, err := export.ReadCSV(strings.NewReader(in))
	if err == nil || rules != nil || lines != nil {
		t.Fatalf("ReadCSV = %v, %v, %v; want only an error", rules, lines, err)
	}
	if redirects.ErrorCode(err) != redirects.EINVALID {
		t.Fatalf("code %s, want EINVALID", redirects.ErrorCode(err))
	}
	msg := redirects.ErrorMessage(err)
	for _, want := range []string{"line 3: ", "line 5: has 3 fields, the header has 4", `line 6: a exact rule for source "/a" already appears on line 2`} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q lacks %q", msg, want)
		}
	}
	if _, _, err := export.ReadCSV(strings.NewReader("")); err == nil || !strings.Contains(err.Error(), "line 1: the file is empty") {
		t.Fatalf("empty file: %v", err)
	}
}

func TestRuleLines(t *testing.T) {
	got := export.RuleLines("rule 1: bad\nrule 2: a rule (rule ID 9)\nrule 7: out of range", []int{4, 10})
	if want := "line 4: bad\nline 10: a rule (rule ID 9)\nrule 7: out of range"; got != want {
		t.Fatalf("RuleLines = %q, want %q", got, want)
	}
}

// TestReadRulesQuirks reads the files that spreadsheets and other tools
// write: a byte order mark, CRLF, ';' and tab delimiters, header names in
// any case and spacing, match types in any case, spaces around values,
// rows of empty fields, columns in another order, and the id column.
func TestReadRulesQuirks(t *testing.T) {
	want := []redirects.Rule{
		{Source: "/a", Destination: "/to/a", StatusCode: 301, MatchType: redirects.Exact, Priority: 100},
		{Source: "/b", Destination: "https://x.example/b", StatusCode: 302, MatchType: redirects.StartsWith, Priority: 7},
		{Source: "/c", Destination: "/to/c", StatusCode: 301, MatchType: redirects.StartsWith, Priority: 100},
	}
	files := map[string]string{
		"bom crlf comma":   "\uFEFFsource,destination,statusCode,matchType,priority\r\n/a,/to/a,301,exact,\r\n/b,https://x.example/b,302,starts_with,7\r\n/c,/to/c,301,starts_with,100\r\n",
		"semicolon spaced": "Source; Destination ; Status Code ; Match Type ; Priority\n /a ; /to/a ; 301 ; Exact ; \n/b;https://x.example/b;302;Starts With;7\n;;;;\n/c;/to/c;301;STARTS_WITH;\n",
		"tab":              "source\tdestination\tstatus_code\tmatch_type\tpriority\tid\n/a\t/to/a\t301\tEXACT\t100\t12\n/b\thttps://x.example/b\t302\tstartsWith\t7\t13\n/c\t/to/c\t301\tprefix\t\t\n",
		"reordered":        "matchType,statusCode,destination,source,ID,PRIORITY\nexact,301,/to/a,/a,1,\nstarts_with,302,https://x.example/b,/b,2,7\nstarts_with,301,/to/c,/c,,\n",
		"quoted semicolon": "\"source\";\"destination\";\"status\";\"match\"\n\"/a\";\"/to/a\";\"301\";\"exact\"\n",
	}
	for name, in := range files {
		rules, lines, bad, err := export.ReadRules(strings.NewReader(in), export.ReadOptions{})
		if err != nil || bad != nil {
			t.Errorf("%s: ReadRules = %v, %v", name, bad, err)
			continue
		}
		w := want
		if name == "quoted semicolon" {
			w = want[:1]
		}
		if len(rules) != len(w) {
			t.Errorf("%s: read %d rules, want %d", name, len(rules), len(w))
			continue
		}
		for i := range w {
			if !rules[i].Equal(&w[i]) {
				t.Errorf("%s: rule %d = %+v, want %+v", name, i, rules[i], w[i])
			}
		}
		if lines[0] != 2 {
			t.Errorf("%s: first rule on line %d, want 2", name, lines[0])
		}
	}
}

// TestReadRulesURLSources checks that a full URL source is read as its path
// when its host is the project's, and refused with a message naming the
// host and how to declare it otherwise.
func TestReadRulesURLSources(t *testing.T) {
	in := "source,destination,statusCode,matchType\n" +
		"https://WWW.Example.com/old,/new,301,exact\n" +
		"http://www.example.com,/home,301,starts_with\n" +
		"https://other.example/x,/y,301,exact\n" +
		"https://www.example.com/q?x=1,/y,301,exact\n"
	_, _, bad, err := export.ReadRules(strings.NewReader(in), export.ReadOptions{Hosts: []string{"www.example.com"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(bad) != 1 || bad[0].Line != 4 {
		t.Fatalf("bad lines = %+v, want line 4", bad)
	}
	for _, want := range []string{"host other.example", "not one of the hosts the project declares", "project update --host other.example"} {
		if !strings.Contains(bad[0].Message, want) {
			t.Errorf("line 4: %q lacks %q", bad[0].Message, want)
		}
	}
	// A query in a URL source is the rule's query conditions
	// (docs/contract.md#query-conditions), which a source may now have.
	rules, _, bad, _ := export.ReadRules(strings.NewReader("source,destination,statusCode,matchType\n"+
		"https://www.example.com/q?x=1,/y,301,exact\n"), export.ReadOptions{Hosts: []string{"www.example.com"}})
	if bad != nil || len(rules) != 1 || rules[0].Source != "/q?x=1" {
		t.Fatalf("a URL source with a query read as %+v, %+v; want /q?x=1", rules, bad)
	}
	rules, _, bad, _ = export.ReadRules(strings.NewReader(in[:strings.Index(in, "https://other")]), export.ReadOptions{Hosts: []string{"www.example.com"}})
	if bad != nil || len(rules) != 2 || rules[0].Source != "/old" || rules[1].Source != "/" {
		t.Fatalf("URL sources read as %+v, %+v; want /old and /", rules, bad)
	}
	_, _, bad, _ = export.ReadRules(strings.NewReader(in), export.ReadOptions{})
	if len(bad) != 4 || !strings.Contains(bad[0].Message, "the project declares no hosts") {
		t.Fatalf("without hosts: %+v", bad)
	}
}

// TestReadRulesHeaderErrors checks that a header's problem is line 1's
// and names the column.
func TestReadRulesHeaderErrors(t *testing.T) {
	for in, want := range map[string]string{
		"source,destination,statusCode\n/a,/b,301\n":                     "column matchType is missing",
		"source,destination,statusCode,matchType,notes\n":                `column "notes" is not one of`,
		"source,destination,status,statusCode,matchType\n":               `column "statusCode" appears twice`,
		"source,destination,statusCode,matchType,\n/a,/b,301,exact,x\n":  "column 5 has no name",
		"source,destination,statusCode,matchType\n/a,/b,301,exact,9,9\n": "",
	} {
		_, _, bad, err := export.ReadRules(strings.NewReader(in), export.ReadOptions{})
		if err != nil || len(bad) == 0 {
			t.Errorf("%q: bad = %v, err = %v; want a bad line", in, bad, err)
			continue
		}
		if want == "" {
			if bad[0].Line != 2 || bad[0].Message != "has 6 fields, the header has 4" {
				t.Errorf("%q: %+v", in, bad)
			}
			continue
		}
		if bad[0].Line != 1 || !strings.Contains(bad[0].Message, want) {
			t.Errorf("%q: %+v, want line 1 saying %q", in, bad, want)
		}
	}
}

// TestStoreLineErrors maps a store's "rule N" lines to the file's lines.
func TestStoreLineErrors(t *testing.T) {
	got := export.StoreLineErrors("rule 1: bad\nrule 2: clash (rule ID 9)\nsomething else", []int{4, 10})
	want := []export.LineError{{4, "bad"}, {10, "clash (rule ID 9)"}, {0, "something else"}}
	if len(got) != len(want) {
		t.Fatalf("StoreLineErrors = %+v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("StoreLineErrors[%d] = %+v, want %+v", i, got[i], want[i])
		}
	}
}

// BenchmarkReadRules1M reads a 1,000,000-rule import file, the CSV work of
// a 1M-row import through the API or the CLI.
//
//	go test -run '^$' -bench ReadRules1M -benchtime 3x -benchmem ./export
func BenchmarkReadRules1M(b *testing.B) {
	var buf bytes.Buffer
	if err := export.WriteCSV(&buf, rulegen.Rules(1_000_000, 0.3, 1)); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(buf.Len()))
	b.ResetTimer()
	for range b.N {
		rules, _, bad, err := export.ReadRules(bytes.NewReader(buf.Bytes()), export.ReadOptions{MaxRows: 1_000_000})
		if err != nil || bad != nil || len(rules) != 1_000_000 {
			b.Fatalf("ReadRules = %d rules, %d bad lines, %v", len(rules), len(bad), err)
		}
	}
}

// TestReadRulesLongLines (issue #31, finding 5): a line or a quoted field
// longer than export.MaxLineBytes ends the report with a bad line that
// names its line and length, after the good lines before it; a value or a
// header too long for a message is quoted as an excerpt with its size.
func TestReadRulesLongLines(t *testing.T) {
	head := "source,destination,statusCode,matchType\r\n/a,/b,301,exact\r\n"
	for _, c := range []struct{ name, in, want string }{
		{"a long line", head + "/c,/" + strings.Repeat("d", 100000) + ",301,exact\r\n/e,/f,301,exact\r\n",
			"line 3: the line is 100,014 bytes long, more than the 65,536 a line may hold"},
		{"a long line at the end", head + strings.Repeat("x", 70000),
			"line 3: the line is 70,000 bytes long, more than the 65,536 a line may hold"},
		{"a long header", strings.Repeat("source,", 20000) + "\n/a,/b,301,exact\n",
			"line 1: the line is 140,000 bytes long"},
		{"an open quote", head + "\"/c" + strings.Repeat(",/d,301,exact\n", 10000),
			"line 3: the quoted field that starts on this line runs on past 65,536 bytes, the most a line may hold (at line 4683)"},
		{"a long value", head + "/c,/d," + strings.Repeat("9", 60000) + ",exact\n",
			`line 3: statusCode "` + strings.Repeat("9", 80) + `…" (60000 bytes) is not one of`},
		{"a long bad column", "source,destination,statusCode,matchType," + strings.Repeat("é", 30000) + "\n",
			`line 1: header is "source,destination,statusCode,matchType,` + strings.Repeat("é", 20) + `…" (60040 bytes); want the columns`},
		{"invalid UTF-8", "source,destination,statusCode,matchType\n/a,/b,30\xff1,exact\n",
			"line 2: statusCode \"30\uFFFD1\" is not one of"},
	} {
		_, _, err := export.ReadCSV(strings.NewReader(c.in))
		msg := redirects.ErrorMessage(err)
		if !strings.HasPrefix(msg, c.want) || len(msg) > 1000 {
			t.Errorf("%s: %.300q (%d bytes); want a short message starting %q", c.name, msg, len(msg), c.want)
		}
	}
	// The bad column's excerpt names its column.
	_, _, bad, _ := export.ReadRules(strings.NewReader("source,destination,statusCode,matchType,"+strings.Repeat("n", 500)+"\n"), export.ReadOptions{})
	if len(bad) != 1 || !strings.HasSuffix(bad[0].Message, "…\" (500 bytes) is not one of source, destination, statusCode, matchType, priority, id, preservePath, preserveQuery, host, queryAfterFragment, mergeQuery, exceptHosts: it is column 5)") {
		t.Errorf("a bad column: %+v", bad)
	}
}

// TestReadFileKeepsFirstErrors: with MaxErrors, ReadFile keeps the first
// bad lines and counts them all; MaxRows ends the reading at the line past
// it.
func TestReadFileKeepsFirstErrors(t *testing.T) {
	var in strings.Builder
	in.WriteString("source,destination,statusCode,matchType\n")
	for range 5000 {
		in.WriteString("/a,/b,999,exact\n")
	}
	f, err := export.ReadFile(context.Background(), strings.NewReader(in.String()), export.ReadOptions{MaxErrors: 10})
	if err != nil || len(f.Bad) != 10 || f.BadCount != 5000 || f.Bad[9].Line != 11 || f.Rules != nil {
		t.Fatalf("ReadFile: %d bad kept, %d counted, %d rules, err %v; want 10 kept of 5000", len(f.Bad), f.BadCount, len(f.Rules), err)
	}
	f, err = export.ReadFile(context.Background(), strings.NewReader(in.String()), export.ReadOptions{MaxRows: 100, MaxErrors: 1000})
	if err != nil || f.BadCount != 101 || f.Bad[100] != (export.LineError{Line: 102, Message: "the file has more than 100 rules, the most one import takes; split it"}) {
		t.Fatalf("MaxRows 100: %d bad, last %+v, err %v; want the 101st row's line 102 to end the reading", f.BadCount, f.Bad[len(f.Bad)-1], err)
	}
}

// TestReadFileStopsWithItsContext: once the context is done, ReadFile
// reads no further and returns its error.
func TestReadFileStopsWithItsContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	r := &cancelAfter{cancel: cancel, after: 1 << 20}
	_, err := export.ReadFile(ctx, r, export.ReadOptions{})
	if !errors.Is(err, context.Canceled) || r.read > 4<<20 {
		t.Fatalf("ReadFile of an endless file, cancelled after 1 MiB: %v after %d bytes; want context.Canceled within a few MiB", err, r.read)
	}
}

// cancelAfter is an endless import file of good rules that cancels its
// context once after bytes are read.
type cancelAfter struct {
	cancel      func()
	after, read int
}

func (c *cancelAfter) Read(p []byte) (int, error) {
	const head = "source,destination,statusCode,matchType\n"
	n := 0
	for n < len(p) {
		var line string
		if c.read == 0 {
			line = head
		} else {
			line = fmt.Sprintf("/p%d,/q,301,exact\n", c.read)
		}
		if len(line) > len(p)-n {
			break
		}
		n += copy(p[n:], line)
		c.read += len(line)
	}
	if c.read >= c.after {
		c.cancel()
	}
	return n, nil
}
