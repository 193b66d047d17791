package safety

import (
	"context"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"redirects"
)

// xr builds rules from lines "KIND SOURCE DEST [host=H] [priority=N]
// [status=N]", numbered from 1 in order of age; KIND is exact, prefix,
// pattern or regex.
func xr(t *testing.T, lines ...string) []redirects.Rule {
	t.Helper()
	kinds := map[string]redirects.MatchType{"exact": redirects.Exact, "prefix": redirects.StartsWith, "pattern": redirects.Pattern, "regex": redirects.Regex}
	var out []redirects.Rule
	for i, l := range lines {
		f := strings.Fields(l)
		k, ok := kinds[f[0]]
		if !ok {
			t.Fatalf("line %q: unknown kind %q", l, f[0])
		}
		r := redirects.Rule{ID: int64(i + 1), MatchType: k, Source: f[1], Destination: f[2], StatusCode: 301, Priority: 100,
			CreatedAt: t0.Add(time.Duration(i) * time.Minute)}
		for _, o := range f[3:] {
			key, v, _ := strings.Cut(o, "=")
			switch key {
			case "host":
				r.Host = v
			case "priority":
				r.Priority = atoi(t, v)
			case "status":
				r.StatusCode = atoi(t, v)
			default:
				t.Fatalf("line %q: unknown option %q", l, o)
			}
		}
		out = append(out, r)
	}
	return out
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	n := 0
	for _, c := range s {
		if c < '0' || c > '9' {
			t.Fatalf("%q is not a number", s)
		}
		n = n*10 + int(c-'0')
	}
	return n
}

// kinds returns the kinds of findings, in order.
func kinds(fs []Finding) []Kind {
	var out []Kind
	for _, f := range fs {
		out = append(out, f.Kind)
	}
	return out
}

func findKind(fs []Finding, k Kind) *Finding {
	for i := range fs {
		if fs[i].Kind == k {
			return &fs[i]
		}
	}
	return nil
}

func TestLintLoopThroughPlaceholder(t *testing.T) {
	rules := xr(t,
		"pattern /:lang/guide/* /:lang/docs/:splat",
		"pattern /:lang/docs/* /:lang/guide/:splat",
	)
	fs := Lint(rules, LintOptions{})
	f := findKind(fs, KindLoop)
	if f == nil {
		t.Fatalf("no loop finding for a loop through :lang; got %v", kinds(fs))
	}
	if f.Severity != SeverityError || len(f.Rules) != 2 || !Blocking(fs) {
		t.Errorf("loop finding %+v: want an error naming both rules", f)
	}
	want := []string{"/lang/guide/splat", "/lang/docs/splat", "/lang/guide/splat"}
	if !slices.Equal(f.Path, want) {
		t.Errorf("loop path %q, want %q (sample values: each placeholder's name)", f.Path, want)
	}
}

func TestLintLoopThroughRegexAndHost(t *testing.T) {
	// A regex rule on old.example sends every path to new.example, whose
	// pattern rule sends it back: a loop through two hosts, both the
	// project's own because rules name them.
	rules := xr(t,
		`regex /a/(\d+) https://new.example/b/$1 host=old.example`,
		"pattern /b/:n https://old.example/a/:n host=new.example",
	)
	fs := Lint(rules, LintOptions{})
	if findKind(fs, KindLoop) == nil {
		t.Fatalf("no loop across the rules' hosts; got %v: %+v", kinds(fs), fs)
	}
	// Without the host scope on the way back, the second request (on
	// new.example, for /b/0) is answered by nothing else: still a loop.
	// With the second rule on a third host, no loop.
	rules[1].Host = "third.example"
	if fs := Lint(rules, LintOptions{}); findKind(fs, KindLoop) != nil {
		t.Errorf("a loop reported though new.example has no rule: %+v", fs)
	}
}

// TestLintLoopNamesItsHost: a loop through host-scoped rules says which
// host it is on (a lookup without it never shows the loop); a loop of
// host-less rules names none.
func TestLintLoopNamesItsHost(t *testing.T) {
	for _, tc := range []struct {
		name  string
		rules []string
		kind  Kind
		want  string // in the message; "" for no host named
	}{
		{"two exact rules", []string{"exact /fr /docs host=example.com", "exact /docs /fr host=example.com"}, KindLoop, " on host example.com: /fr -> /docs -> /fr"},
		{"one of two scoped", []string{"exact /fr /docs host=example.com", "exact /docs /fr"}, KindLoop, " on host example.com:"},
		{"a wildcard", []string{"pattern /a/:x /b/:x host=*.example.com", "pattern /b/:x /a/:x host=*.example.com"}, KindLoop, " on host www.example.com:"},
		{"across hosts", []string{`regex /a/(\d+) https://new.example/b/$1 host=old.example`, "pattern /b/:n https://old.example/a/:n host=new.example"}, KindLoop, " on hosts "},
		{"self-match", []string{"pattern /s/:x /s/:x host=example.com"}, KindSelfMatch, "a redirect loop on host example.com"},
		{"host-less", []string{"exact /fr /docs", "exact /docs /fr", "pattern /z/:x /y host=example.com"}, KindLoop, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs := Lint(xr(t, tc.rules...), LintOptions{})
			f := findKind(fs, tc.kind)
			if f == nil {
				t.Fatalf("no %s finding; got %+v", tc.kind, fs)
			}
			if tc.want == "" && strings.Contains(f.Message, " on host") || !strings.Contains(f.Message, tc.want) {
				t.Errorf("message %q, want it to hold %q", f.Message, tc.want)
			}
		})
	}
}

func TestLintChainThroughPatternsFinalDestination(t *testing.T) {
	rules := xr(t,
		"pattern /old/:id /mid/:id",
		"pattern /mid/:x /new/:x.html",
		"prefix /new/ /never/",
	)
	rules[2].Priority = 200
	rules[2].MatchType = redirects.Exact // /new/ exact: /new/id.html is not redirected
	fs := Lint(rules, LintOptions{})
	f := findKind(fs, KindChain)
	if f == nil {
		t.Fatalf("no chain finding; got %v", kinds(fs))
	}
	if f.Rules[0].ID != 1 || f.FinalDestination != "/new/id.html" {
		t.Errorf("chain %+v: want it from rule 1 to end at /new/id.html", f)
	}
}

func TestLintFalseCycleIsAChain(t *testing.T) {
	// From their samples the rules lead into each other (/x/a -> /x/b,
	// /w/b -> /w/a... with x = "x"), but the requests made do not repeat:
	// /x/a -> /x/b -> /fixed/c, which nothing redirects.
	rules := xr(t,
		"pattern /:x/a /:x/b",
		"pattern /:y/b /fixed/c",
		"pattern /fixed/:z /:z/a",
	)
	fs := Lint(rules, LintOptions{})
	for _, f := range fs {
		if f.Kind == KindLoop || f.Kind == KindSelfMatch {
			// fixed/c -> /c/a -> /c/b -> /fixed/c: a real loop.
			if !slices.Contains(f.Path, "/fixed/c") {
				t.Errorf("loop %+v does not go through /fixed/c", f)
			}
		}
	}
}

func TestLintInvalidRegex(t *testing.T) {
	rules := xr(t, "regex /a(b /c", "exact /ok /fine")
	fs := Lint(rules, LintOptions{})
	f := findKind(fs, KindInvalid)
	if f == nil || f.Severity != SeverityError || f.Rules[0].ID != 1 {
		t.Fatalf("no error for an invalid regex: %+v", fs)
	}
	if !strings.Contains(f.Message, "source: position") {
		t.Errorf("message %q does not name the field and the position", f.Message)
	}
	if fs[0].Kind != KindInvalid {
		t.Errorf("the invalid rule's finding is not first: %v", kinds(fs))
	}
	long := xr(t, "regex /"+strings.Repeat("a", 1100)+" /c")
	if f := findKind(Lint(long, LintOptions{}), KindInvalid); f == nil || !strings.Contains(f.Message, "longer than 1024") {
		t.Errorf("an oversized regex: %+v", f)
	}
}

func TestLintNeverAnswers(t *testing.T) {
	for _, tc := range []struct {
		name  string
		rules []string
		by    int64 // the covering rule, 0 for no warning
	}{
		{"starts_with before pattern", []string{"prefix /docs/ /d priority=10", "pattern /docs/:lang/x /y"}, 1},
		{"splat before regex", []string{`pattern /docs/* /d priority=10`, `regex /docs/(\d+) /y`}, 1},
		{"catch-all splat", []string{`pattern /* /d priority=10`, `pattern /:a/b /y`}, 1},
		{"equal priority and prefix, older wins", []string{"prefix /docs/ /d", "pattern /docs/:lang/x /y"}, 1},
		{"equal priority, longer prefix wins", []string{"prefix /doc /d", "pattern /docs/:lang/x /y"}, 0},
		{"host-scoped cover of host-less rule", []string{"prefix /docs/ /d priority=10 host=a.example", "pattern /docs/:x /y"}, 0},
		{"host-less cover of host-scoped rule", []string{"prefix /docs/ /d priority=10", "pattern /docs/:x /y host=a.example"}, 1},
		{"other hosts", []string{"prefix /docs/ /d priority=10 host=a.example", "pattern /docs/:x /y host=b.example"}, 0},
		{"constrained splat covers nothing", []string{`pattern /docs/:r(a.*)* /d priority=10`, "pattern /docs/:x /y"}, 0},
		{"conditions cover nothing", []string{"prefix /docs/?x=1 /d priority=10", "pattern /docs/:x /y"}, 0},
		{"pattern before literal starts_with", []string{"pattern /shop/* /d priority=10", "prefix /shop/sale /y"}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs := Lint(xr(t, tc.rules...), LintOptions{})
			f := findKind(fs, KindShadowed)
			switch {
			case tc.by == 0 && f != nil:
				t.Errorf("a never-answers warning where the rule does answer: %+v", f)
			case tc.by != 0 && f == nil:
				t.Errorf("no never-answers warning; got %v", kinds(fs))
			case tc.by != 0 && (f.Rules[1].ID != tc.by || f.Rules[0].ID != 2 || f.Severity != SeverityWarning):
				t.Errorf("warning %+v: want rule 2 covered by rule %d", f, tc.by)
			}
		})
	}
}

// TestLintNeverAnswersSameRequests: of two rules of one match type and
// host that match the same requests (sources equal up to placeholder
// names, case folding, the order and escapes of their conditions), the
// later in the contract's order is reported once, naming the earlier;
// sources that only nearly match the same are not.
func TestLintNeverAnswersSameRequests(t *testing.T) {
	ci := redirects.Settings{CaseInsensitive: true}
	for _, tc := range []struct {
		name  string
		st    redirects.Settings
		rules []string
		want  map[int64]int64 // shadowed rule -> the rule named first
	}{
		{"placeholder names", redirects.Settings{}, []string{"pattern /n/:x /a/:x", "pattern /n/:y /b/:y"}, map[int64]int64{2: 1}},
		{"placeholder names, constraints equal", redirects.Settings{}, []string{`pattern /n/:x(\d+)/:r* /a`, `pattern /n/:y(\d+)/* /b`}, map[int64]int64{2: 1}},
		{"priority decides", redirects.Settings{}, []string{"pattern /n/:x /a", "pattern /n/:y /b priority=10"}, map[int64]int64{1: 2}},
		{"case folded", ci, []string{"pattern /N/:x /a", "pattern /n/:x /b"}, map[int64]int64{2: 1}},
		{"case kept", redirects.Settings{}, []string{"pattern /N/:x /a", "pattern /n/:x /b"}, nil},
		{"conditions reordered and escaped", redirects.Settings{}, []string{"exact /j?a=1&b=2 /a", "exact /j?b=2&a=1 /b", "exact /j?a=%31&b=2 /c"}, map[int64]int64{2: 1, 3: 1}},
		{"a capture is a presence test", redirects.Settings{}, []string{"exact /j?id=:v /a/:v", "exact /j?id /b"}, map[int64]int64{2: 1}},
		{"conditions on a pattern", redirects.Settings{}, []string{"pattern /p/:x?a=1&b /a", "pattern /p/:y?b&a=%31 /b"}, map[int64]int64{2: 1}},
		{"host-scoped alike", redirects.Settings{}, []string{"pattern /n/:x /a host=a.example", "pattern /n/:y /b host=a.example"}, map[int64]int64{2: 1}},
		{"other hosts", redirects.Settings{}, []string{"pattern /n/:x /a host=a.example", "pattern /n/:y /b host=b.example"}, nil},
		{"other constraints", redirects.Settings{}, []string{`pattern /n/:x(\d+) /a`, "pattern /n/:y([0-9]+) /b"}, nil},
		{"optional against required", redirects.Settings{}, []string{"pattern /n/:x? /a", "pattern /n/:y /b"}, nil},
		{"other condition values", redirects.Settings{}, []string{"exact /j?a=1 /a", "exact /j?a=2 /b"}, nil},
		{"a condition more", redirects.Settings{}, []string{"exact /j?a=1 /a", "exact /j?a=1&b /b"}, nil},
		{"splat and named splat, reported once", redirects.Settings{}, []string{"pattern /n/* /a", "pattern /n/:rest* /b"}, map[int64]int64{2: 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rules := xr(t, tc.rules...)
			for _, r := range rules {
				if err := r.Validate(); err != nil {
					t.Fatalf("rule %+v: %v", r, err)
				}
			}
			got := map[int64]int64{}
			for _, f := range Lint(rules, LintOptions{Settings: tc.st}) {
				if f.Kind != KindShadowed {
					continue
				}
				if _, twice := got[f.Rules[0].ID]; twice {
					t.Errorf("rule %d reported twice", f.Rules[0].ID)
				}
				got[f.Rules[0].ID] = f.Rules[1].ID
				if f.Severity != SeverityWarning || !strings.Contains(f.Message, "never answers") {
					t.Errorf("finding %+v: want a never-answers warning", f)
				}
			}
			if len(got) != len(tc.want) {
				t.Fatalf("never-answers warnings %v, want %v", got, tc.want)
			}
			for k, v := range tc.want {
				if got[k] != v {
					t.Errorf("never-answers warnings %v, want %v", got, tc.want)
				}
			}
		})
	}
}

func TestExplainCaptures(t *testing.T) {
	rules := xr(t,
		"pattern /:lang/guide/* /:lang/docs/:splat",
		`regex /v(?P<major>\d+)/(.*) /docs/${major}/$2 host=*.example.com`,
		"exact /p?id=:id /items/:id",
		"prefix /en/ /fallback priority=200",
	)
	e := ExplainFor(rules, redirects.Settings{}, "", "/en/guide/a/b?x=1")
	if e.Answer == nil || e.Answer.ID != 1 || e.Destination != "/en/docs/a/b" {
		t.Fatalf("answer %+v %q, want rule 1 and /en/docs/a/b", e.Answer, e.Destination)
	}
	want := []Capture{{"lang", "en"}, {"splat", "a/b"}}
	if !slices.Equal(e.Captures, want) {
		t.Errorf("captures %+v, want %+v", e.Captures, want)
	}
	if len(e.Candidates) != 2 || !e.Candidates[0].Answers || e.Candidates[1].Rule.ID != 4 || e.Candidates[1].Answers {
		t.Errorf("candidates %+v: want rule 1 answering, then rule 4", e.Candidates)
	}

	e = ExplainFor(rules, redirects.Settings{}, "www.Example.com", "/v2/a%20b")
	if e.Answer == nil || e.Answer.ID != 2 || e.Destination != "/docs/2/a%20b" || e.Host != "www.Example.com" {
		t.Fatalf("regex answer %+v %q", e.Answer, e.Destination)
	}
	want = []Capture{{"major", "2"}, {"2", "a%20b"}}
	if !slices.Equal(e.Captures, want) {
		t.Errorf("regex captures %+v, want %+v", e.Captures, want)
	}
	if e := ExplainFor(rules, redirects.Settings{}, "", "/v2/a"); e.Answer != nil {
		t.Errorf("a host-scoped rule answered a lookup without a host: %+v", e.Answer)
	}

	e = ExplainFor(rules, redirects.Settings{}, "", "/p?id=7")
	if e.Answer == nil || e.Answer.ID != 3 || e.Destination != "/items/7" || !slices.Equal(e.Captures, []Capture{{"id", "7"}}) {
		t.Errorf("query capture: %+v %q %+v", e.Answer, e.Destination, e.Captures)
	}
	if e := ExplainFor(rules[3:], redirects.Settings{}, "", "/en/x"); e.Captures != nil || e.Host != "" {
		t.Errorf("a literal project's explanation has captures or a host: %+v", e)
	}
}

func TestCasesHostColumn(t *testing.T) {
	rules := xr(t, "exact /a /b host=example.com", "exact /a /c")
	cases, err := ParseCases(strings.NewReader("path,status,destination,host\n/a,301,/b,Example.com\n/a,301,/c,\n/a,301,/c,other.org\n"))
	if err != nil {
		t.Fatal(err)
	}
	if cases[0].Host != "Example.com" || cases[1].Host != "" {
		t.Fatalf("cases %+v", cases)
	}
	for _, r := range RunCases(rules, cases, LintOptions{}) {
		if !r.Pass {
			t.Errorf("case %+v failed: %v", r.Case, r.Problems)
		}
	}
	// Both optional columns, in either order; a bad host is refused with
	// its line.
	cases, err = ParseCases(strings.NewReader("path,status,destination,host,final_destination\n/a,301,/b,example.com,/b\n"))
	if err != nil || cases[0].FinalDestination != "/b" || cases[0].Host != "example.com" {
		t.Errorf("host then final_destination: %+v, %v", cases, err)
	}
	_, err = ParseCases(strings.NewReader("path,status,destination,host\n/a,301,/b,exa mple\n"))
	if err == nil || !strings.Contains(err.Error(), "line 2: host") {
		t.Errorf("a bad host: %v", err)
	}
	_, err = ParseCases(strings.NewReader("path,status,destination,hosts\n/a,301,/b,x\n"))
	if err == nil || !strings.Contains(err.Error(), "column 4") {
		t.Errorf("an unknown column: %v", err)
	}
}

func TestDiffKeysIncludeHostAndConditions(t *testing.T) {
	from := xr(t, "exact /a /b", "exact /p /q")
	to := xr(t, "exact /a /z host=example.com", "exact /p?id=1 /q")
	d := Diff(from, to, DiffOptions{})
	if len(d.Added) != 2 || len(d.Removed) != 2 || len(d.Changed) != 0 {
		t.Fatalf("diff %+v: rules differing only in host or conditions must be different rules", d)
	}
	if d.Added[0].Host == "" && d.Added[1].Host == "" {
		t.Errorf("the added host-scoped rule shows no host: %+v", d.Added)
	}
	var hosted bool
	for _, p := range d.Impact {
		hosted = hosted || p.Host == "example.com"
	}
	if !hosted {
		t.Errorf("no impact on the rule's host: %+v", d.Impact)
	}
	// The same rule with the host in other case is the same rule.
	same := xr(t, "exact /a /z host=EXAMPLE.com", "exact /p?id=1 /q")
	if d := Diff(to, same, DiffOptions{}); d.Unchanged != 2 {
		t.Errorf("host keys compared without case: %+v", d)
	}
}

func TestVerifySendsHost(t *testing.T) {
	var hosts []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hosts = append(hosts, r.Host)
		if r.Host == "example.com" && r.URL.Path == "/a" {
			w.Header().Set("Location", "/b")
			w.WriteHeader(301)
			return
		}
		w.WriteHeader(404)
	}))
	defer srv.Close()
	rules := xr(t, "exact /a /b host=example.com")
	ms, err := Verify(context.Background(), srv.URL, rules, VerifyOptions{Host: "example.com", Concurrency: 1})
	if err != nil || len(ms) != 0 {
		t.Fatalf("verify on the rule's host: %v, %+v", err, ms)
	}
	if len(hosts) == 0 || hosts[0] != "example.com" {
		t.Errorf("the server saw hosts %q, want example.com", hosts)
	}
	if ms, err := Verify(context.Background(), srv.URL, rules, VerifyOptions{Concurrency: 1}); err != nil || len(ms) != 0 {
		t.Errorf("verify without a host: the API answers nothing, as the server does: %v %+v", err, ms)
	}
}

func TestGateBlocksLoopThroughPatterns(t *testing.T) {
	draft := xr(t,
		"pattern /:lang/guide/* /:lang/docs/:splat",
		"pattern /:lang/docs/* /:lang/guide/:splat",
	)
	g := Gate(nil, draft, nil, GateOptions{ShrinkLimit: 10})
	if len(g.Blocked) != 1 || g.Errors != 1 || findKind(g.Findings, KindLoop) == nil {
		t.Fatalf("a loop through :lang: blocked %q with %d errors, findings %v", g.Blocked, g.Errors, kinds(g.Findings))
	}
	// A failing case on a host blocks too; the same rule moved to
	// another host is a removed rule for the shrink guard.
	live := xr(t, "exact /a /b host=example.com")
	cases := []Case{{Line: 2, Path: "/a", Host: "example.com", StatusCode: 301, Destination: "/b"}}
	moved := xr(t, "exact /a /b host=example.org")
	g = Gate(live, moved, cases, GateOptions{ShrinkLimit: 10, Live: true})
	if len(g.FailingCases) != 1 || g.Shrink.Removed != 1 {
		t.Errorf("a rule moved to another host: failing cases %+v, shrink %+v", g.FailingCases, g.Shrink)
	}
}

func TestLintRedundantWithPatterns(t *testing.T) {
	// The exact rule answers as the starts_with rule would, but without it
	// the pattern rule, of a better priority, would answer: it is not
	// redundant.
	rules := xr(t, "exact /docs/a /d", "prefix /docs/ /d", "pattern /:x/a /p priority=10")
	if f := findKind(Lint(rules, LintOptions{}), KindRedundant); f != nil {
		t.Errorf("a redundant warning though a pattern would answer without the rule: %+v", f)
	}
	rules = xr(t, "exact /docs/a /d", "prefix /docs/ /d", "pattern /:x/b /p priority=10")
	if f := findKind(Lint(rules, LintOptions{}), KindRedundant); f == nil {
		t.Errorf("no redundant warning where no pattern matches")
	}
}

func TestLintRuleHostsInEitherForm(t *testing.T) {
	// The rule's host is stored as its key; the destination names it in
	// Unicode, with other case, a port and a trailing dot: the same host.
	rules := xr(t,
		"exact /a https://BÜCHER.example.:443/b host=xn--bcher-kva.example",
		"exact /b /a",
	)
	if f := findKind(Lint(rules, LintOptions{}), KindLoop); f == nil {
		t.Errorf("no loop through a rule's host written in its other form")
	}
}

// TestDiffLooksSamplesUpOnRuleHosts: a host-scoped rule added in front of
// a host-less one changes the answer to the latter's source on its host,
// which only a lookup of that source on the rule's host shows.
func TestDiffLooksSamplesUpOnRuleHosts(t *testing.T) {
	from := xr(t, "prefix /a /x")
	to := xr(t, "prefix /a /x", "pattern /:p+ /z host=example.com priority=10")
	d := Diff(from, to, DiffOptions{MaxPaths: -1})
	var rows []string
	found := false
	for _, c := range d.Impact {
		rows = append(rows, c.Host+" "+c.Path+": "+c.From.String()+" -> "+c.To.String())
		found = found || c.Host == "example.com" && c.Path == "/a" && c.From.Destination == "/x" && c.To.Destination == "/z"
	}
	if !found {
		t.Errorf("impact %q: want /a on example.com, /x -> /z", rows)
	}
	// Without host-scoped rules nothing is looked up on a host.
	d = Diff(from, xr(t, "prefix /a /y"), DiffOptions{MaxPaths: -1})
	for _, c := range d.Impact {
		if c.Host != "" {
			t.Errorf("a row on host %q in a project without hosts: %+v", c.Host, c)
		}
	}
	if d.PathsChecked != 2 {
		t.Errorf("%d paths checked, want 2 (/a, /a/_)", d.PathsChecked)
	}
}
