package safety

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"redirects"
)

// ro builds rules as rs does, from lines "exact|prefix SOURCE DEST
// [STATUS [PRIORITY]] [pp] [pq]": DEST "-" is none (a 410), pp and pq set
// preservePath and preserveQuery.
func ro(lines ...string) []redirects.Rule {
	var out []redirects.Rule
	for i, l := range lines {
		f := strings.Fields(l)
		r := redirects.Rule{ID: int64(i + 1), Source: f[1], Destination: f[2], StatusCode: 301, Priority: 100,
			CreatedAt: t0.Add(time.Duration(i) * time.Minute)}
		if f[0] == "prefix" {
			r.MatchType = redirects.StartsWith
		}
		if r.Destination == "-" {
			r.Destination = ""
		}
		var nums []string
		for _, w := range f[3:] {
			switch w {
			case "pp":
				r.PreservePath = true
			case "pq":
				r.PreserveQuery = true
			default:
				nums = append(nums, w)
			}
		}
		if len(nums) > 0 {
			fmt.Sscan(nums[0], &r.StatusCode)
		}
		if len(nums) > 1 {
			fmt.Sscan(nums[1], &r.Priority)
		}
		if err := r.Validate(); err != nil {
			panic(err)
		}
		out = append(out, r)
	}
	return out
}

var (
	caseless = redirects.Settings{CaseInsensitive: true}
	slashy   = redirects.Settings{IgnoreTrailingSlash: true}
)

// TestLintOptions holds each finding that settings and options bring to a
// small rule set where it shows, and the rule sets where it must not.
func TestLintOptions(t *testing.T) {
	for _, tc := range []struct {
		name  string
		rules []redirects.Rule
		s     redirects.Settings
		want  []string
	}{
		{"growth under its own source", ro("prefix /a/ /a/b/ pp"), redirects.Settings{},
			[]string{"path-growth 1 /a/_ -> /a/b/_"}},
		{"growth under its own source, only without case", ro("prefix /a/ /A/b/ pp"), caseless,
			[]string{"path-growth 1 /a/_ -> /A/b/_"}},
		{"no growth when the case differs and case counts", ro("prefix /a/ /A/b/ pp"), redirects.Settings{}, nil},
		{"no growth when a longer source takes the destination", ro("prefix /a/ /a/b/ pp", "prefix /a/b/ https://ex.com/"), redirects.Settings{},
			[]string{"chain 1,2 /a/_ -> /a/b/_", "overlap 2,1 /a/b/"}},
		{"a preservePath rule onto its own source is a self-match", ro("prefix /a/ /a/ pp"), redirects.Settings{},
			[]string{"self-match 1 /a/_ -> /a/_"}},
		{"without preservePath the same destination is a self-match", ro("prefix /a/ /a/b/"), redirects.Settings{},
			[]string{"self-match 1 /a/b/ -> /a/b/"}},
		{"a chain into a growing path", ro("exact /in /a/x", "prefix /a/ /a/b/ pp"), redirects.Settings{},
			[]string{"path-growth 2 /a/_ -> /a/b/_", "chain 1,2,2 /in -> /a/x -> /a/b/x"}},
		{"double slash", ro("prefix /x /y/ pp"), redirects.Settings{},
			[]string{"double-slash 1 /x/_"}},
		{"double slash on a host without a path", ro("prefix /x https://ex.com?a=1 pp"), redirects.Settings{},
			[]string{"double-slash 1 /x/_"}},
		{"no double slash", ro("prefix /x/ /y/ pp", "prefix /z /y pp", "prefix /w /y/"), redirects.Settings{}, nil},
		{"a chain only without case", ro("exact /a /B", "exact /b https://ex.com/"), caseless,
			[]string{"chain 1,2 /a -> /B"}},
		{"no chain when case counts", ro("exact /a /B", "exact /b https://ex.com/"), redirects.Settings{}, nil},
		{"a loop only without case", ro("exact /a /B", "exact /b /A"), caseless,
			[]string{"loop 1,2 /A -> /B -> /A"}},
		{"a chain only when the slash is ignored", ro("exact /a /b/", "exact /b https://ex.com/"), slashy,
			[]string{"chain 1,2 /a -> /b/"}},
		{"no chain when the slash counts", ro("exact /a /b/", "exact /b https://ex.com/"), redirects.Settings{}, nil},
		{"a 410 ends a chain", ro("exact /a /b", "exact /b - 410"), redirects.Settings{}, nil},
		{"a chain ends before a 410", ro("exact /a /b", "exact /b /c", "exact /c - 410"), redirects.Settings{},
			[]string{"chain 1,2 /a -> /b"}},
		{"a computed destination is followed", ro("prefix /old/ /new/ pp", "exact /new/_ https://ex.com/"), redirects.Settings{},
			[]string{"chain 1,2 /old/_ -> /new/_"}},
		{"a computed destination is followed into a loop", ro("prefix /a/ /b/ pp", "prefix /b/ /a/ pp"), redirects.Settings{},
			[]string{"loop 1,2 /a/_ -> /b/_ -> /a/_"}},
		{"statuses other than 301 and 302", ro("exact /a /b 308", "exact /b /c 307"), redirects.Settings{},
			[]string{"chain 1,2 /a -> /b"}},
		{"redundant with the same computed answer", ro("prefix /docs/ /manual/ pp", "exact /docs/a /manual/a"), redirects.Settings{},
			[]string{"redundant 2,1 /docs/a"}},
		{"not redundant when the rest's case differs", ro("prefix /docs/ /manual/ pp", "exact /docs/a /manual/a"), caseless, nil},
		{"not redundant when only the prefix keeps the query", ro("prefix /docs/ /manual pq", "exact /docs/a /manual"), redirects.Settings{}, nil},
		{"redundant when both keep the query", ro("prefix /docs/ /manual pq", "exact /docs/a /manual pq"), redirects.Settings{},
			[]string{"redundant 2,1 /docs/a"}},
		{"not redundant when the other slash form differs", ro("prefix /a /m pp", "exact /a/ /m/"), slashy, nil},
		{"redundant when the slash counts", ro("prefix /a /m pp", "exact /a/ /m/"), redirects.Settings{},
			[]string{"redundant 2,1 /a/"}},
		{"shadowed without case", ro("prefix /A /x 301 50", "prefix /a/b /y"), caseless,
			[]string{"shadowed 2,1 /a/b"}},
		{"not shadowed when case counts", ro("prefix /A /x 301 50", "prefix /a/b /y"), redirects.Settings{}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := summary(Lint(tc.rules, LintOptions{Hosts: []string{"own.example"}, Settings: tc.s}))
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Fatalf("findings:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

func TestLintOptionMessages(t *testing.T) {
	f := Lint(ro("prefix /a/ /a/b/ pp"), LintOptions{})
	if len(f) != 1 || !Blocking(f) || f[0].Hops != 1 ||
		f[0].Message != "rule 1 (starts_with /a/) keeps the rest of the path and redirects /a/_ to /a/b/_, under its own source: the path grows on each redirect until the client gives up" {
		t.Fatalf("growth = %+v", f)
	}
	f = Lint(ro("prefix /x /y/ pp"), LintOptions{})
	if len(f) != 1 || Blocking(f) ||
		f[0].Message != "rule 1 (starts_with /x) keeps the rest of the path after /x, which starts with '/' below it, and its destination's path ends in '/': /x/_ is answered with /y//_; end the source with '/' or the destination without" {
		t.Fatalf("double slash = %+v", f)
	}
	f = Lint(ro("exact /a /b 308", "exact /b /c 307"), LintOptions{})
	if len(f) != 1 || !f[0].MixedStatus || !strings.HasSuffix(f[0].Message, "(the chain mixes permanent and temporary answers: 307 and 308)") {
		t.Fatalf("chain of 308 and 307 = %+v", f)
	}
	f = Lint(ro("exact /a /b 301", "exact /b /c 308"), LintOptions{})
	if len(f) != 1 || f[0].MixedStatus {
		t.Fatalf("chain of 301 and 308 (both permanent) = %+v", f)
	}
	f = Lint(ro("exact /in /a/x", "prefix /a/ /a/b/ pp"), LintOptions{})
	if len(f) != 2 || !strings.HasSuffix(f[1].Message, "into a path that grows on each redirect") {
		t.Fatalf("chain into a growing path = %+v", f)
	}
	f = Lint(ro("exact /a /b?x=1", "prefix /b /c?y=2#f pq"), LintOptions{})
	if len(f) != 1 || f[0].FinalDestination != "/c?y=2&x=1#f" {
		t.Fatalf("a chain's final destination is the last rule's answer to the request the chain makes: %+v", f)
	}
}

// TestCasesWithOptions runs cases with queries, 410s and computed
// destinations under settings.
func TestCasesWithOptions(t *testing.T) {
	rules := ro("prefix /old/ /new/ pp pq", "exact /Gone - 410", "exact /q /dest?a=1#top pq 308", "exact /in /old/x?k=v")
	file := "path,status,destination,final_destination\n" +
		"/old/a?x=1,301,/new/a?x=1,\n" +
		"/OLD/a,301,/new/a,\n" +
		"/gone/,410,,\n" +
		"/q?b=2,308,/dest?a=1&b=2#top,\n" +
		"/in,301,/old/x?k=v,/new/x?k=v\n" +
		"/old/a?x=1,301,/new/a,\n" +
		"/gone,301,/x,\n"
	cases, err := ParseCases(strings.NewReader(file))
	if err != nil {
		t.Fatal(err)
	}
	res := RunCases(rules, cases, LintOptions{Settings: redirects.Settings{CaseInsensitive: true, IgnoreTrailingSlash: true}})
	var got []string
	for _, r := range res {
		got = append(got, fmt.Sprintf("%d %v %s", r.Case.Line, r.Pass, strings.Join(r.Problems, "; ")))
	}
	want := []string{
		"2 true ", "3 true ", "4 true ", "5 true ", "6 true ",
		"7 false answered 301 /new/a?x=1, want 301 /new/a",
		"8 false answered 410 gone, want 301 /x",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("results:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// Under the default settings the case and slash variants miss.
	res = RunCases(rules, cases[1:3], LintOptions{})
	if res[0].Pass || res[1].Pass || res[0].Got.StatusCode != 0 || res[1].Got.StatusCode != 0 {
		t.Fatalf("default settings: %+v", res)
	}
	// A query that grows on each redirect is followed no further than
	// MaxFollow and counts as a loop.
	res = RunCases(ro("exact /a /a?x=1 pq"), []Case{{Path: "/b"}, {Path: "/a", StatusCode: 301, Destination: "/a?x=1", FinalDestination: "/z"}}, LintOptions{})
	if !res[1].Loop || res[1].Pass {
		t.Fatalf("growing query: %+v", res[1])
	}
}

func TestExplainWithSettings(t *testing.T) {
	rules := ro("exact /A/ /x pq", "prefix /b/ /y/ pp 301 10", "prefix /B /z")
	e := ExplainWith(rules, redirects.Settings{CaseInsensitive: true, IgnoreTrailingSlash: true}, "/a?k=1")
	if e.Answer == nil || e.Answer.ID != 1 || e.Destination != "/x?k=1" || e.StatusCode != 301 || e.Settings == nil ||
		e.Settings.CaseSensitive || e.Settings.TrailingSlash != "ignore" ||
		e.Candidates[0].Reason != "exact source equals the path under the settings (caseSensitive=false trailingSlash=ignore): an exact rule answers first" {
		t.Fatalf("explanation = %+v", e)
	}
	e = ExplainWith(rules, caseless, "/B/c%20d")
	if e.Answer == nil || e.Answer.ID != 2 || e.Destination != "/y/c%20d" || len(e.Candidates) != 2 || e.Candidates[1].Rule.ID != 3 {
		t.Fatalf("explanation = %+v", e)
	}
	if e := Explain(rules, "/B/c"); e.Answer == nil || e.Answer.ID != 3 || e.Settings != nil || len(e.Candidates) != 1 {
		t.Fatalf("default settings: %+v", e)
	}
	if e := ExplainWith(ro("exact /g - 410"), redirects.Settings{}, "/g"); e.StatusCode != 410 || e.Destination != "" {
		t.Fatalf("410: %+v", e)
	}
}

// TestDiffSettings shows a change of settings with its effect on answers:
// the paths in another case or with the other trailing slash.
func TestDiffSettings(t *testing.T) {
	rules := ro("exact /Docs /manual", "prefix /blog/ /news/ pp", "exact /q /r")
	d := Diff(rules, rules, DiffOptions{To: redirects.Settings{CaseInsensitive: true, IgnoreTrailingSlash: true}})
	if d.Settings == nil || d.Settings.From.CaseSensitive != true || d.Settings.To.TrailingSlash != "ignore" ||
		strings.Join(d.Settings.Fields, ",") != "caseSensitive,trailingSlash" {
		t.Fatalf("settings change = %+v", d.Settings)
	}
	var got []string
	for _, p := range d.Impact {
		got = append(got, fmt.Sprintf("%s: %s -> %s", p.Path, p.From, p.To))
	}
	want := []string{
		"/BLOG/: no redirect -> 301 /news/",
		"/Docs/: no redirect -> 301 /manual",
		"/Q: no redirect -> 301 /r",
		"/blog: no redirect -> 301 /news/",
		"/dOCS: no redirect -> 301 /manual",
		"/q/: no redirect -> 301 /r",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") || d.Unchanged != 3 {
		t.Fatalf("impact:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if d := Diff(rules, rules, DiffOptions{}); d.Settings != nil || d.PathsChanged != 0 {
		t.Fatalf("no change: %+v", d)
	}
	// An option's change shows as a field and on a path with a query.
	to := ro("exact /Docs /manual", "prefix /blog/ /news/", "exact /q /r pq")
	d = Diff(rules, to, DiffOptions{})
	got = nil
	for _, c := range d.Changed {
		got = append(got, c.To.String()+" "+strings.Join(c.Fields, ","))
	}
	for _, p := range d.Impact {
		got = append(got, fmt.Sprintf("%s: %s -> %s", p.Path, p.From, p.To))
	}
	want = []string{
		"rule 2 (starts_with /blog/) preservePath",
		"rule 3 (exact /q) preserveQuery",
		"/blog/example: 301 /news/example -> 301 /news/",
		"/q?q=1: 301 /r -> 301 /r?q=1",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("diff:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestVerifyOptions wants Verify to compare the server's answers with the
// computed destinations, a 410, and the other spellings of a source under
// the settings.
func TestVerifyOptions(t *testing.T) {
	rules := ro("prefix /old/ /new/ pp", "exact /q /r pq 308", "exact /gone - 410", "exact /Case /c", "exact /wrong - 410")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.RequestURI() {
		case "/old/_":
			w.Header().Set("Location", "/new/_")
			w.WriteHeader(301)
		case "/q":
			w.Header().Set("Location", "/r")
			w.WriteHeader(308)
		case "/q?q=1":
			w.Header().Set("Location", "/r") // the query is dropped: a mismatch
			w.WriteHeader(308)
		case "/gone":
			w.WriteHeader(410)
		case "/Case", "/cASE":
			w.Header().Set("Location", "/c")
			w.WriteHeader(301)
		case "/wrong":
			w.WriteHeader(404)
		default:
			w.WriteHeader(404)
		}
	}))
	defer srv.Close()
	paths := VerifyPathsFor(rules, caseless)
	if strings.Join(paths, " ") != "/Case /GONE /Q /Q?q=1 /WRONG /cASE /gone /old/_ /q /q?q=1 /wrong" {
		t.Fatalf("paths = %q", paths)
	}
	m, err := Verify(context.Background(), srv.URL, rules, VerifyOptions{Settings: caseless})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, x := range m {
		got = append(got, x.Path+" "+x.Problem)
	}
	if want := "/GONE status,/Q missing redirect,/Q?q=1 missing redirect,/WRONG status,/q?q=1 location,/wrong status"; strings.Join(got, ",") != want {
		t.Fatalf("mismatches %q, want %q", strings.Join(got, ","), want)
	}
}
