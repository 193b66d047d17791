package safety

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"redirects"
)

func TestDiff(t *testing.T) {
	from := rs("exact /a /x", "exact /gone /y", "prefix /blog/ /news 301 50", "prefix /shop /store")
	to := rs("exact /a /x2 302", "prefix /blog/ /news 301 10", "prefix /shop /store", "prefix /new/ /fresh")
	d := Diff(from, to, DiffOptions{})
	var got []string
	for _, r := range d.Added {
		got = append(got, "+ "+r.String())
	}
	for _, r := range d.Removed {
		got = append(got, "- "+r.String())
	}
	for _, c := range d.Changed {
		got = append(got, "~ "+c.To.String()+" "+strings.Join(c.Fields, ","))
	}
	for _, p := range d.Impact {
		got = append(got, fmt.Sprintf("%s: %s -> %s", p.Path, p.From, p.To))
	}
	want := []string{
		"+ rule 4 (starts_with /new/)",
		"- rule 2 (exact /gone)",
		"~ rule 1 (exact /a) destination,statusCode",
		"~ rule 2 (starts_with /blog/) priority",
		"/a: 301 /x -> 302 /x2",
		"/gone: 301 /y -> no redirect",
		"/new/: no redirect -> 301 /fresh",
		"/new/example: no redirect -> 301 /fresh",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("diff:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// /a /gone /blog/ /blog/example /shop /shop/example /new/ /new/example
	if d.Unchanged != 1 || d.PathsChecked != 8 || d.PathsChanged != 4 {
		t.Fatalf("unchanged %d, checked %d, changed %d; want 1, 8, 4", d.Unchanged, d.PathsChecked, d.PathsChanged)
	}
	if d := Diff(from, to, DiffOptions{MaxPaths: 1}); len(d.Impact) != 1 || d.PathsChanged != 4 {
		t.Fatalf("MaxPaths 1: %d listed of %d", len(d.Impact), d.PathsChanged)
	}
	if d := Diff(from, from, DiffOptions{}); len(d.Added)+len(d.Removed)+len(d.Changed)+len(d.Impact) != 0 || d.Unchanged != 4 {
		t.Fatalf("a set against itself: %+v", d)
	}
}

// TestDiffImpactIsTheModel holds the impact of random rule sets against
// the brute-force lookup of every sample path in both.
func TestDiffImpactIsTheModel(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		from, to := genRules(t), genRules(t)
		d := Diff(from, to, DiffOptions{MaxPaths: -1})
		paths := map[string]bool{}
		for _, set := range [][]redirects.Rule{from, to} {
			for _, r := range set {
				paths[r.Source] = true
				if r.MatchType == redirects.StartsWith {
					paths[diffSample(r.Source, nil)] = true
				}
			}
		}
		answer := func(rules []redirects.Rule, p string) string {
			if i := bruteLookup(rules, p, false); i >= 0 {
				return fmt.Sprint(rules[i].StatusCode, " ", rules[i].Destination)
			}
			return "no redirect"
		}
		var sorted []string
		for p := range paths {
			sorted = append(sorted, p)
		}
		slicesSort(sorted)
		var want []string
		for _, p := range sorted {
			if a, b := answer(from, p), answer(to, p); a != b {
				want = append(want, fmt.Sprintf("%s: %s -> %s", p, a, b))
			}
		}
		var got []string
		for _, c := range d.Impact {
			got = append(got, fmt.Sprintf("%s: %s -> %s", c.Path, c.From, c.To))
		}
		if d.PathsChecked != len(paths) || strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("checked %d of %d paths; impact:\n%s\nwant:\n%s", d.PathsChecked, len(paths), strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	})
}

func slicesSort(s []string) {
	for i := 1; i < len(s); i++ {
		for j := i; j > 0 && s[j] < s[j-1]; j-- {
			s[j], s[j-1] = s[j-1], s[j]
		}
	}
}

func TestExplain(t *testing.T) {
	rules := rs("prefix /a /1 301 100", "prefix /a/b /2 301 100", "prefix /a/c /3 301 100", "prefix /a/b/ /4 301 200",
		"prefix /a/ /5 301 100", "prefix /a/ /6 301 50")
	rules[4].Source = "/a/x" // the same length as /a/b, newer
	e := Explain(rules, "/a/b/x?q=/a/c")
	if e.Matched != "/a/b/x" || e.Answer == nil || e.Answer.ID != 6 {
		t.Fatalf("Explain = %+v", e)
	}
	var got []string
	for _, c := range e.Candidates {
		got = append(got, fmt.Sprintf("%d %v %s", c.Rule.ID, c.Answers, c.Reason))
	}
	want := []string{
		"6 true no exact rule; the best of the matching starts_with rules (lowest priority, then longest source, then oldest)",
		"2 false priority 100 loses to 50 (rule 6)",
		"1 false priority 100 loses to 50 (rule 6)",
		"4 false priority 200 loses to 50 (rule 6)",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("candidates:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	rules = rs("prefix /a /1", "prefix /a/b /2", "prefix /a/c /3", "prefix /a/d /4", "exact /a/b/x /exact")
	rules[3].Source = "/a/b" // the same source as rule 2, newer
	rules[3].MatchType = redirects.StartsWith
	e = Explain(rules, "/a/b/y")
	got = nil
	for _, c := range e.Candidates {
		got = append(got, fmt.Sprintf("%d %s", c.Rule.ID, c.Reason))
	}
	want = []string{
		"2 no exact rule; the best of the matching starts_with rules (lowest priority, then longest source, then oldest)",
		"4 same priority 100 and source length, newer rule than rule 2",
		"1 same priority 100, shorter source (2 bytes against 4 of rule 2)",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("candidates:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	e = Explain(rules, "/a/b/x")
	if e.Answer.ID != 5 || e.Candidates[0].Reason != "exact source equals the path: an exact rule answers first" || e.Candidates[1].Reason != "an exact rule answers first" {
		t.Fatalf("exact explanation = %+v", e)
	}
	if e := Explain(rules, "/z"); e.Answer != nil || len(e.Candidates) != 0 {
		t.Fatalf("miss = %+v", e)
	}
}

func TestCases(t *testing.T) {
	file := "path,status,destination,final_destination\n" +
		"/a,301,/b,https://example.com/end\n" +
		"/b,302,/c,\n" +
		"/nothing,none,,\n" +
		"/wrong,301,/x,\n" +
		"/loop,301,/loop2,/somewhere\n" +
		"/c?q=1,301,https://example.com/end,\n"
	cases, err := ParseCases(strings.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	if len(cases) != 6 || cases[2].StatusCode != 0 || cases[5].Line != 7 || cases[0].FinalDestination != "https://example.com/end" {
		t.Fatalf("cases = %+v", cases)
	}
	rules := rs("exact /a /b", "exact /b /c 302", "prefix /c https://example.com/end", "exact /wrong /y", "exact /loop /loop2", "exact /loop2 /loop")
	results := RunCases(rules, cases, LintOptions{})
	var got []string
	for _, r := range results {
		got = append(got, fmt.Sprintf("%s %v %s", r.Case.Path, r.Pass, strings.Join(r.Problems, "; ")))
	}
	want := []string{
		"/a true ",
		"/b true ",
		"/nothing true ",
		"/wrong false answered 301 /y, want 301 /x",
		"/loop false following the answer runs into a redirect loop, want it to end at /somewhere",
		"/c?q=1 true ",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("results:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if Failed(results) != 2 {
		t.Fatalf("Failed = %d", Failed(results))
	}

	var buf bytes.Buffer
	if err := WriteJUnit(&buf, "redirects.www", results); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Suite    struct {
			Name  string `xml:"name,attr"`
			Cases []struct {
				Name    string `xml:"name,attr"`
				Failure *struct {
					Message string `xml:"message,attr"`
				} `xml:"failure"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal(buf.Bytes(), &doc); err != nil {
		t.Fatalf("JUnit XML does not parse: %v\n%s", err, buf.String())
	}
	if doc.Tests != 6 || doc.Failures != 2 || doc.Suite.Name != "redirects.www" || len(doc.Suite.Cases) != 6 ||
		doc.Suite.Cases[3].Name != "line 5: /wrong" || doc.Suite.Cases[3].Failure == nil ||
		doc.Suite.Cases[3].Failure.Message != "answered 301 /y, want 301 /x" || doc.Suite.Cases[0].Failure != nil {
		t.Fatalf("JUnit XML:\n%s", buf.String())
	}
}

func TestParseCasesErrors(t *testing.T) {
	for _, tc := range []struct{ file, want string }{
		{"", "the test file is empty"},
		{"source,destination\n", `line 1: the header has 2 columns; want path,status,destination[,final_destination]`},
		{"path,state,destination\n", `line 1: column 2 of the header is not status; want path,status,destination[,final_destination]`},
		// Every header error names every column the file takes.
		{"path,status\n", `line 1: the header has 2 columns; want path,status,destination[,final_destination][,host] (the last two in either order)`},
		{"path,status,destination,final,host\n", `line 1: column 4 of the header is neither final_destination nor host (each at most once); want path,status,destination[,final_destination][,host] (the last two in either order)`},
		{"path,status,destination,host,host\n", `line 1: column 5 of the header is neither final_destination nor host (each at most once); want path,status,destination[,final_destination][,host] (the last two in either order)`},
		{"path,status,destination\n/a,304,/b\nb,301,/c\n/c,none,/d\n/d,301,\n/e,301\n",
			"the test file has 5 bad lines:\n" +
				"line 2: status \"304\" is not one of 301, 302, 303, 307, 308, 410, none\n" +
				"line 3: path \"b\" must start with / and be at most 2048 bytes\n" +
				"line 4: status none (no redirect) takes no destination, got \"/d\"\n" +
				"line 5: status 301 needs a destination\n" +
				"line 6: 2 fields, want 3 as in the header"},
		{"path,status,destination,final_destination\n/a,none,,/x\n", "line 2: a case expecting no redirect takes no final_destination"},
		{"path,status,destination,final_destination\n/a,410,,/x\n", "line 2: a case expecting no redirect takes no final_destination"},
		{"path,status,destination\n/a,410,/b\n", "line 2: status 410 (gone) takes no destination, got \"/b\""},
		{"path,status,destination\n/a,308,\n", "line 2: status 308 needs a destination"},
		{"path,status,destination\n/a,301,\"/b\n", "the test file has 1 bad line:\nparse error on line 2"},
	} {
		_, err := ParseCases(strings.NewReader(tc.file))
		if redirects.ErrorCode(err) != redirects.EINVALID || !strings.Contains(redirects.ErrorMessage(err), tc.want) {
			t.Errorf("ParseCases(%q) = %v, want EINVALID with %q", tc.file, err, tc.want)
		}
	}
}

// TestParseCasesCountsPastAHundredProblems: a test file of many bad lines
// lists the first 100 and counts the rest, so that its error, and what it
// holds while reading, stays small whatever the file's size.
func TestParseCasesCountsPastAHundredProblems(t *testing.T) {
	_, err := ParseCases(strings.NewReader("path,status,destination\n" + strings.Repeat("a\n", 250)))
	msg := redirects.ErrorMessage(err)
	if redirects.ErrorCode(err) != redirects.EINVALID || !strings.HasPrefix(msg, "the test file has 250 bad lines:\nline 2: 1 fields, want 3") ||
		!strings.Contains(msg, "\nline 101: ") || strings.Contains(msg, "line 102: ") || !strings.HasSuffix(msg, "\n... and 150 more") {
		t.Fatalf("ParseCases of 250 bad lines: %.3000v", err)
	}
}

// TestCasesDecodePaths checks that a case's path is matched as the edge
// matches a requested path: decoded once, so an encoded path meets the
// rule of its decoded source, and a malformed escape meets none.
func TestCasesDecodePaths(t *testing.T) {
	cases, err := ParseCases(strings.NewReader("path,status,destination\n/caf%C3%A9,301,/coffee\n/c%2Fx?q,301,/c-all\n/caf%zz,none,\n"))
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range RunCases(rs("exact /café /coffee", "prefix /c/ /c-all"), cases, LintOptions{}) {
		if !r.Pass {
			t.Errorf("%s: %v", r.Case.Path, r.Problems)
		}
	}
}
