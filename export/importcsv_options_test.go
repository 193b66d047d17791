package export_test

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"redirects"
	"redirects/export"
	"redirects/internal/rulemodel"
)

// sameRule reports whether got holds every field of want that a CSV file
// carries.
func sameRule(got, want redirects.Rule) bool {
	return got.Source == want.Source && got.Destination == want.Destination && got.StatusCode == want.StatusCode &&
		got.MatchType == want.MatchType && got.Priority == want.Priority &&
		got.PreservePath == want.PreservePath && got.PreserveQuery == want.PreserveQuery &&
		got.QueryAfterFragment == want.QueryAfterFragment && got.MergeQuery == want.MergeQuery
}

// TestDraftCSVRoundTripProperty writes random rule sets of the model's
// generator (every status, option and fragment, under every setting) as the
// draft file and as the import file, and reads each back: the same rules,
// field for field, in the same order, each on its line. The option columns
// are in the header exactly when a rule uses an option.
func TestDraftCSVRoundTripProperty(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		rng := rand.New(rand.NewPCG(rapid.Uint64().Draw(t, "seed"), 20))
		s := redirects.Settings{CaseInsensitive: rapid.Bool().Draw(t, "caseInsensitive"), IgnoreTrailingSlash: rapid.Bool().Draw(t, "ignoreSlash")}
		rules := rulemodel.Rules(rng, rapid.IntRange(0, 60).Draw(t, "n"), s)
		if rapid.Bool().Draw(t, "queryAfterFragment") {
			rulemodel.WithQueryAfterFragment(rng, rules)
		}
		if rapid.Bool().Draw(t, "mergeQuery") {
			rulemodel.WithMergeQuery(rng, rules)
		}
		if len(rules) > 0 && rapid.Bool().Draw(t, "comma") {
			// A field that needs quoting.
			i := rapid.IntRange(0, len(rules)-1).Draw(t, "commaRule")
			if rules[i].StatusCode != redirects.StatusGone {
				rules[i].Destination = "/a,b?q=1#x,y"
			}
		}
		options, qaf, merge := false, false, false
		for _, r := range rules {
			options = options || r.PreservePath || r.PreserveQuery
			qaf = qaf || r.QueryAfterFragment
			merge = merge || r.MergeQuery
		}
		for _, w := range []struct {
			name   string
			write  func(*bytes.Buffer, []redirects.Rule) error
			header string
		}{
			{"WriteDraftCSV", func(b *bytes.Buffer, r []redirects.Rule) error { return export.WriteDraftCSV(b, r) }, "source,destination,statusCode,matchType,priority,id"},
			{"WriteCSV", func(b *bytes.Buffer, r []redirects.Rule) error { return export.WriteCSV(b, r) }, "source,destination,statusCode,matchType,priority"},
		} {
			var buf bytes.Buffer
			if err := w.write(&buf, rules); err != nil {
				t.Fatal(err)
			}
			header, _, _ := strings.Cut(buf.String(), "\r\n")
			want := w.header
			if options {
				want += ",preservePath,preserveQuery"
			}
			if qaf {
				want += ",queryAfterFragment"
			}
			if merge {
				want += ",mergeQuery"
			}
			if header != want {
				t.Fatalf("%s: header %q, want %q", w.name, header, want)
			}
			got, lines, bad, err := export.ReadRules(bytes.NewReader(buf.Bytes()), export.ReadOptions{Settings: s})
			if err != nil || bad != nil {
				t.Fatalf("%s: reading back: %v %+v\nfile:\n%s", w.name, err, bad, buf.String())
			}
			if len(got) != len(rules) {
				t.Fatalf("%s: read %d rules, wrote %d", w.name, len(got), len(rules))
			}
			for i := range rules {
				if !sameRule(got[i], rules[i]) || lines[i] != i+2 {
					t.Fatalf("%s: rule %d read back as %+v on line %d, wrote %+v on line %d", w.name, i, got[i], lines[i], rules[i], i+2)
				}
			}
		}
	})
}

// TestDraftCSVWithoutOptionsUnchanged: a draft that uses no option is
// written as it always was, byte for byte (a 303, a 410 and a fragment need
// no new column).
func TestDraftCSVWithoutOptionsUnchanged(t *testing.T) {
	rules := []redirects.Rule{
		{ID: 7, Source: "/a", Destination: "/b", StatusCode: 301, MatchType: redirects.Exact, Priority: 100},
		{ID: 9, Source: "/gone", StatusCode: 410, MatchType: redirects.StartsWith, Priority: 5},
		{ID: 11, Source: "/c", Destination: "/d#top", StatusCode: 303, MatchType: redirects.Exact, Priority: 100},
	}
	var buf bytes.Buffer
	if err := export.WriteDraftCSV(&buf, rules); err != nil {
		t.Fatal(err)
	}
	want := "source,destination,statusCode,matchType,priority,id\r\n/a,/b,301,exact,100,7\r\n/gone,,410,starts_with,5,9\r\n/c,/d#top,303,exact,100,11\r\n"
	if buf.String() != want {
		t.Fatalf("WriteDraftCSV =\n%q\nwant\n%q", buf.String(), want)
	}
	rules[0].PreserveQuery = true
	buf.Reset()
	if err := export.WriteDraftCSV(&buf, rules); err != nil {
		t.Fatal(err)
	}
	want = "source,destination,statusCode,matchType,priority,id,preservePath,preserveQuery\r\n/a,/b,301,exact,100,7,false,true\r\n" +
		"/gone,,410,starts_with,5,9,false,false\r\n/c,/d#top,303,exact,100,11,false,false\r\n"
	if buf.String() != want {
		t.Fatalf("WriteDraftCSV with an option =\n%q\nwant\n%q", buf.String(), want)
	}
	// queryAfterFragment adds its column last, only when a rule has it.
	rules[2].PreserveQuery, rules[2].QueryAfterFragment = true, true
	buf.Reset()
	if err := export.WriteDraftCSV(&buf, rules); err != nil {
		t.Fatal(err)
	}
	want = "source,destination,statusCode,matchType,priority,id,preservePath,preserveQuery,queryAfterFragment\r\n/a,/b,301,exact,100,7,false,true,false\r\n" +
		"/gone,,410,starts_with,5,9,false,false,false\r\n/c,/d#top,303,exact,100,11,false,true,true\r\n"
	if buf.String() != want {
		t.Fatalf("WriteDraftCSV with queryAfterFragment =\n%q\nwant\n%q", buf.String(), want)
	}
	// mergeQuery adds its column after queryAfterFragment's, only when a
	// rule has it.
	rules[0].Destination, rules[0].MergeQuery = "/b?x=1", true
	buf.Reset()
	if err := export.WriteDraftCSV(&buf, rules); err != nil {
		t.Fatal(err)
	}
	want = "source,destination,statusCode,matchType,priority,id,preservePath,preserveQuery,queryAfterFragment,mergeQuery\r\n/a,/b?x=1,301,exact,100,7,false,true,false,true\r\n" +
		"/gone,,410,starts_with,5,9,false,false,false,false\r\n/c,/d#top,303,exact,100,11,false,true,true,false\r\n"
	if buf.String() != want {
		t.Fatalf("WriteDraftCSV with mergeQuery =\n%q\nwant\n%q", buf.String(), want)
	}
	rules[2].QueryAfterFragment = false
	buf.Reset()
	if err := export.WriteDraftCSV(&buf, rules); err != nil {
		t.Fatal(err)
	}
	want = "source,destination,statusCode,matchType,priority,id,preservePath,preserveQuery,mergeQuery\r\n/a,/b?x=1,301,exact,100,7,false,true,true\r\n" +
		"/gone,,410,starts_with,5,9,false,false,false\r\n/c,/d#top,303,exact,100,11,false,true,false\r\n"
	if buf.String() != want {
		t.Fatalf("WriteDraftCSV with mergeQuery alone =\n%q\nwant\n%q", buf.String(), want)
	}
}

// TestReadRulesOptions reads the option columns in any order and case, an
// empty cell as false, every status, a 410 without a destination and a
// fragment, and today's four-column file as it always was read.
func TestReadRulesOptions(t *testing.T) {
	in := "Preserve Query,source,statusCode,destination,matchType,preserve_path\n" +
		"TRUE,/docs/,308,https://ex.com/d#top,starts_with,true\n" +
		",/old,307,/new?x=1,exact,\n" +
		"false,/gone,410,,exact,FALSE\n" +
		"true,/see,303,/other,exact,false\n"
	rules, lines, bad, err := export.ReadRules(strings.NewReader(in), export.ReadOptions{})
	if err != nil || bad != nil {
		t.Fatalf("ReadRules = %v, %+v", err, bad)
	}
	want := []redirects.Rule{
		{Source: "/docs/", Destination: "https://ex.com/d#top", StatusCode: 308, MatchType: redirects.StartsWith, Priority: 100, PreservePath: true, PreserveQuery: true},
		{Source: "/old", Destination: "/new?x=1", StatusCode: 307, MatchType: redirects.Exact, Priority: 100},
		{Source: "/gone", StatusCode: 410, MatchType: redirects.Exact, Priority: 100},
		{Source: "/see", Destination: "/other", StatusCode: 303, MatchType: redirects.Exact, Priority: 100, PreserveQuery: true},
	}
	if len(rules) != len(want) {
		t.Fatalf("read %d rules, want %d: %+v", len(rules), len(want), rules)
	}
	for i := range want {
		if !rules[i].Equal(&want[i]) || lines[i] != i+2 {
			t.Errorf("rule %d = %+v on line %d, want %+v on line %d", i, rules[i], lines[i], want[i], i+2)
		}
	}

	qaf := "source,destination,statusCode,matchType,Query After Fragment,preserveQuery\n/design.html,/documentation#design,301,exact,TRUE,true\n/a,/b#f,301,exact,,true\n"
	rules, _, bad, err = export.ReadRules(strings.NewReader(qaf), export.ReadOptions{})
	if err != nil || bad != nil || len(rules) != 2 || !rules[0].QueryAfterFragment || !rules[0].PreserveQuery || rules[1].QueryAfterFragment {
		t.Fatalf("queryAfterFragment column: %+v %+v %v", rules, bad, err)
	}
	for _, tc := range []struct{ in, says string }{
		{"source,destination,statusCode,matchType,queryAfterFragment\n/a,/b#f,301,exact,yes\n", `queryAfterFragment "yes" is not true or false`},
		{"source,destination,statusCode,matchType,queryAfterFragment\n/a,/b#f,301,exact,true\n", "queryAfterFragment applies with preserveQuery only"},
		{"source,destination,statusCode,matchType,queryAfterFragment,preserveQuery\n/a,/b,301,exact,true,true\n", "queryAfterFragment applies to a destination with a fragment only"},
	} {
		_, _, bad, _ := export.ReadRules(strings.NewReader(tc.in), export.ReadOptions{})
		if len(bad) != 1 || bad[0].Line != 2 || !strings.Contains(bad[0].Message, tc.says) {
			t.Errorf("ReadRules(%q) bad lines %+v, want line 2 saying %q", tc.in, bad, tc.says)
		}
	}

	mq := "source,destination,statusCode,matchType,Merge Query,preserveQuery\n/vscode,/items?itemName=a,308,exact,TRUE,true\n/a,/b?x=1,301,exact,,true\n"
	rules, _, bad, err = export.ReadRules(strings.NewReader(mq), export.ReadOptions{})
	if err != nil || bad != nil || len(rules) != 2 || !rules[0].MergeQuery || !rules[0].PreserveQuery || rules[1].MergeQuery {
		t.Fatalf("mergeQuery column: %+v %+v %v", rules, bad, err)
	}
	for _, tc := range []struct{ in, says string }{
		{"source,destination,statusCode,matchType,mergeQuery\n/a,/b?x=1,301,exact,yes\n", `mergeQuery "yes" is not true or false`},
		{"source,destination,statusCode,matchType,mergeQuery\n/a,/b?x=1,301,exact,true\n", "mergeQuery applies with preserveQuery only"},
		{"source,destination,statusCode,matchType,mergeQuery,preserveQuery\n/a,/b,301,exact,true,true\n", "mergeQuery applies to a destination with a query parameter only"},
	} {
		_, _, bad, _ := export.ReadRules(strings.NewReader(tc.in), export.ReadOptions{})
		if len(bad) != 1 || bad[0].Line != 2 || !strings.Contains(bad[0].Message, tc.says) {
			t.Errorf("ReadRules(%q) bad lines %+v, want line 2 saying %q", tc.in, bad, tc.says)
		}
	}

	four := "source,destination,statusCode,matchType\n/a,/b,302,exact\n"
	rules, _, bad, err = export.ReadRules(strings.NewReader(four), export.ReadOptions{})
	if err != nil || bad != nil || len(rules) != 1 ||
		!rules[0].Equal(&redirects.Rule{Source: "/a", Destination: "/b", StatusCode: 302, MatchType: redirects.Exact, Priority: 100}) {
		t.Fatalf("four-column file: %+v %+v %v", rules, bad, err)
	}
}

// TestReadRulesOptionErrors: every bad line is reported with its line and
// the field it is about, and nothing is read.
func TestReadRulesOptionErrors(t *testing.T) {
	in := "source,destination,statusCode,matchType,preservePath,preserveQuery\n" +
		"/ok,/fine,301,exact,,\n" +
		"/a,/b,304,exact,,\n" +
		"/c,/d,301,exact,true,\n" +
		"/e,/f,410,exact,,\n" +
		"/g,,410,exact,,true\n" +
		"/h,/i,301,starts_with,yes,\n" +
		"/j,/k,301,exact,,1\n" +
		"/l,,301,exact,,\n" +
		"/m,/n#a#b,301,exact,,\n"
	rules, _, bad, err := export.ReadRules(strings.NewReader(in), export.ReadOptions{})
	if err != nil || rules != nil {
		t.Fatalf("ReadRules = %d rules, %v; want only bad lines", len(rules), err)
	}
	want := []struct {
		line int
		says []string
	}{
		{3, []string{"statusCode", "304", "301, 302, 303, 307, 308, 410"}},
		{4, []string{"preservePath", "starts_with"}},
		{5, []string{"destination", "410"}},
		{6, []string{"preserveQuery", "410"}},
		{7, []string{"preservePath", `"yes"`, "true or false"}},
		{8, []string{"preserveQuery", `"1"`, "true or false"}},
		{9, []string{"destination"}},
		{10, []string{"destination", "#"}},
	}
	if len(bad) != len(want) {
		t.Fatalf("bad lines = %+v, want lines 3..10", bad)
	}
	for i, w := range want {
		if bad[i].Line != w.line {
			t.Errorf("bad line %d is line %d (%q), want line %d", i, bad[i].Line, bad[i].Message, w.line)
		}
		for _, s := range w.says {
			if !strings.Contains(bad[i].Message, s) {
				t.Errorf("line %d: %q lacks %q", bad[i].Line, bad[i].Message, s)
			}
		}
	}
}

// TestReadRulesSettingsClash: under the project's settings two sources
// that compare as one are a clash of their two lines, named both; without
// those settings both are read.
func TestReadRulesSettingsClash(t *testing.T) {
	in := "source,destination,statusCode,matchType\n/Docs,/a,301,exact\n/b/,/c,301,exact\n/docs,/d,301,exact\n/b,/e,301,exact\n/DOCS,/f,301,starts_with\n"
	rules, _, bad, err := export.ReadRules(strings.NewReader(in), export.ReadOptions{})
	if err != nil || bad != nil || len(rules) != 5 {
		t.Fatalf("default settings: %d rules, %+v, %v; want all 5", len(rules), bad, err)
	}
	s := redirects.Settings{CaseInsensitive: true, IgnoreTrailingSlash: true}
	_, _, bad, err = export.ReadRules(strings.NewReader(in), export.ReadOptions{Settings: s})
	if err != nil || len(bad) != 2 {
		t.Fatalf("settings %v: %+v, %v; want lines 4 and 5", s, bad, err)
	}
	for i, w := range []struct {
		line int
		says string
	}{
		{4, `source "/docs" clashes with the exact rule for source "/Docs" on line 2`},
		{5, `source "/b" clashes with the exact rule for source "/b/" on line 3`},
	} {
		if bad[i].Line != w.line || !strings.Contains(bad[i].Message, w.says) || !strings.Contains(bad[i].Message, "caseSensitive=false trailingSlash=ignore") {
			t.Errorf("bad line %+v, want line %d saying %q and the settings", bad[i], w.line, w.says)
		}
	}
}
