package pattern

import (
	"strings"
	"testing"
)

// lookupCase is a request and the destination the rules should answer it
// with ("" for no answer).
type lookupCase struct {
	host, wire, want string
}

func check(t *testing.T, rules []Rule, st Settings, cases []lookupCase) {
	t.Helper()
	for i := range rules {
		rules[i].ID = int64(i + 1)
	}
	s, err := Compile(rules, st)
	if err != nil {
		t.Fatalf("Compile: %v", err)
	}
	var m Match
	for _, c := range cases {
		got := ""
		if s.Lookup(c.host, c.wire, &m) {
			got = string(m.AppendDestination(nil))
			if got == "" {
				got = "(empty)"
			}
		}
		if got != c.want {
			t.Errorf("host %q, path %q: answered %q, want %q", c.host, c.wire, got, c.want)
		}
	}
}

func TestPatternExamples(t *testing.T) {
	rules := []Rule{
		{Kind: Pattern, Source: "/:lang/guide/*", Destination: "/:lang/docs/:splat"},
		{Kind: Pattern, Source: "/docs/*", Destination: "/d/:splat"},
		{Kind: Pattern, Source: "/p/:slug.html", Destination: "/posts/:slug"},
		{Kind: Pattern, Source: "/v/:version(v6|v7)/x", Destination: "/new/:version"},
		{Kind: Pattern, Source: "/o/:a?/end", Destination: "/o2/:a/e"},
		{Kind: Pattern, Source: "/plus/:rest+", Destination: "/p2/:rest"},
		{Kind: Pattern, Source: "/go/*", Destination: "/:splat"},
		{Kind: Pattern, Source: "/lit%3Acolon/:x", Destination: "/c/:x"},
		{Kind: Regex, Source: `/who\.html`, Destination: "/about"},
		{Kind: Regex, Source: `/(dom|d)/(?P<id>\d+)`, Destination: "/dd/$1/${id}?$$"},
		{Kind: Exact, Source: "/index.php?p=123", Destination: "/post-123"},
		{Kind: Exact, Source: "/index.php", Destination: "/home"},
		{Kind: Exact, Source: "/store?id=:id", Destination: "/items/:id"},
		{Kind: Pattern, Host: "old.example.org", Source: "/*", Destination: "https://example.org/:splat", Priority: 200},
		{Kind: Pattern, Host: "*.example.net", Source: "/w/*", Destination: "/wild/:splat"},
	}
	check(t, rules, Settings{}, []lookupCase{
		{"", "/en/guide/a/b", "/en/docs/a/b"},
		{"", "/docs", "/d/"},
		{"", "/docs/", "/d/"},
		{"", "/docs/a/b", "/d/a/b"},
		{"", "/docs/a%20b?x=1", "/d/a%20b"},
		{"", "/p/hello.html", "/posts/hello"},
		{"", "/p/.html", ""},
		{"", "/v/v6/x", "/new/v6"},
		{"", "/v/v5/x", ""},
		{"", "/o/end", "/o2//e"},
		{"", "/o/q/end", "/o2/q/e"},
		{"", "/plus", ""},
		{"", "/plus/", ""},
		{"", "/plus/a/b", "/p2/a/b"},
		{"", "/go//evil.example", "/evil.example"},
		{"", "/go/%2F%2Fevil.example", "/%2F%2Fevil.example"},
		{"", "/lit:colon/z", "/c/z"},
		{"", "/who.html", "/about"},
		{"", "/who-html", ""},
		{"", "/d/42", "/dd/d/42?$"},
		{"", "/index.php?p=123", "/post-123"},
		{"", "/index.php?q=1&p=12%33", "/post-123"},
		{"", "/index.php?p=124", "/home"},
		{"", "/store?id=a%20b", "/items/a%20b"},
		{"", "/store", ""},
		{"old.example.org", "/x/y", "https://example.org/x/y"},
		{"OLD.example.org.:443", "/x/y", "https://example.org/x/y"},
		{"old.example.org", "/docs/a", "/d/a"},
		{"a.b.example.net", "/w/q", "/wild/q"},
		{"example.net", "/w/q", ""},
		{"", "/x/y", ""},
	})
	check(t, []Rule{{Kind: Pattern, Source: "/s/:q??x=1", Destination: "/t/:q"}}, Settings{}, []lookupCase{
		{"", "/s?x=1", "/t/"},
		{"", "/s/a?x=1", "/t/a"},
		{"", "/s/a?x=2", ""},
	})
	check(t, []Rule{{Kind: Pattern, Source: "/s/:q?x=1", Destination: "/t/:q"}}, Settings{}, []lookupCase{
		{"", "/s?x=1", ""},
		{"", "/s/a?x=1", "/t/a"},
	})
}

func TestSettingsExamples(t *testing.T) {
	rules := []Rule{
		{Kind: Pattern, Source: "/Docs/:page/", Destination: "/d/:page"},
		{Kind: Regex, Source: `/Blog/(\w+)`, Destination: "/b/$1"},
		{Kind: Pattern, Source: "/s/*", Destination: "/s2/:splat"},
	}
	check(t, rules, Settings{CaseInsensitive: true, IgnoreTrailingSlash: true}, []lookupCase{
		{"", "/docs/Intro", "/d/Intro"},
		{"", "/DOCS/Intro/", "/d/Intro"},
		{"", "/blog/Hello/", "/b/Hello"},
		{"", "/s/a/", "/s2/a/"},
		{"", "/blog/\u212a", ""},
	})
}

func TestErrorsNamePosition(t *testing.T) {
	for _, c := range []struct {
		r    Rule
		want string
	}{
		{Rule{Kind: Pattern, Source: "/a/:1"}, "source: at byte 3, ':' must start a placeholder name (a letter, then letters, digits, '_'); write a literal ':' as %3A"},
		{Rule{Kind: Pattern, Source: "/a(b"}, "source: at byte 2, '(' must follow a placeholder name, as its constraint; write a literal '(' as %28"},
		{Rule{Kind: Pattern, Source: "/a/*/:b*"}, "source: at byte 5, a second multi-segment placeholder (the first is at byte 3)"},
		{Rule{Kind: Pattern, Source: "/a:b*"}, "source: at byte 2, a '*' placeholder must begin a segment (follow a '/')"},
		{Rule{Kind: Pattern, Source: "/:x([a-)"}, "source: at byte 3, unclosed constraint"},
		{Rule{Kind: Pattern, Source: "/:x(a|*)"}, "source: at byte 6, invalid regular expression: missing argument to repetition operator: \"*\""},
		{Rule{Kind: Pattern, Source: "/o/:a*x"}, "source: at byte 6, a '*' placeholder must end its segment (be followed by '/', query conditions or the end)"},
		{Rule{Kind: Pattern, Source: "/:x", Destination: "/:y"}, "destination: at byte 1, the capture :y is not defined by the source"},
		{Rule{Kind: Pattern, Source: "/:x", Destination: "https://:x.example.com/"}, "destination: at byte 8, a capture may not form the scheme or host"},
		// Errors RE2 reports for the whole expression are placed: the
		// unclosed '(', the stray ')', the second group of a name, the
		// trailing '\\'.
		{Rule{Kind: Regex, Source: "/(a", Destination: "/"}, "source: at byte 1, invalid regular expression: missing closing ): \"/(a\""},
		{Rule{Kind: Regex, Source: "^/r/(a", Destination: "/"}, "source: at byte 4, invalid regular expression: missing closing ): \"^/r/(a\""},
		{Rule{Kind: Regex, Source: "^/(x)/[(]\\((?:a(b)", Destination: "/"}, "source: at byte 11, invalid regular expression: missing closing ): \"^/(x)/[(]\\\\((?:a(b)\""},
		{Rule{Kind: Regex, Source: "^/[)]a\\Q)\\E)b", Destination: "/"}, "source: at byte 11, invalid regular expression: unexpected ): \"^/[)]a\\\\Q)\\\\E)b\""},
		{Rule{Kind: Regex, Source: "(?P<n>a)(?P<n>b)", Destination: "/"}, "source: at byte 8, the capture \"n\" is defined twice"},
		{Rule{Kind: Regex, Source: "/[[:alpha:](]/(?<n>a)/(x)/(?P<n>b)", Destination: "/"}, "source: at byte 26, the capture \"n\" is defined twice"},
		{Rule{Kind: Regex, Source: "/a\\", Destination: "/"}, "source: at byte 2, invalid regular expression: trailing backslash at end of expression: \"\""},
		{Rule{Kind: Regex, Source: "/(a)", Destination: "/$2"}, "destination: at byte 1, the capture $2 is not defined by the source"},
		{Rule{Kind: Pattern, Host: "exa mple.com", Source: "/", Destination: "/"}, "host: at byte 0, \"exa mple.com\" is not a host name (or *.name)"},
		{Rule{Kind: Pattern, Host: "-a.example.com", Source: "/", Destination: "/"}, "host: at byte 0, \"-a.example.com\" is not a host name (or *.name)"},
	} {
		_, err := Compile([]Rule{c.r}, Settings{})
		if err == nil || err.(*RuleError).Err.Error() != c.want {
			t.Errorf("%+v: error %v, want %q", c.r, err, c.want)
		}
	}
}

func TestHostKey(t *testing.T) {
	for in, want := range map[string]string{
		"Example.COM.":                       "example.com",
		"example.com:8080":                   "example.com",
		"bücher.example":                     "xn--bcher-kva.example",
		"Bücher.example":                     "xn--bcher-kva.example",
		"xn--bcher-kva.example":              "xn--bcher-kva.example",
		"*.example.com":                      "*.example.com",
		strings.Repeat("a", 63) + ".example": strings.Repeat("a", 63) + ".example",
		"a-b--c.example":                     "a-b--c.example",
	} {
		if got, ok := HostKey(in); !ok || got != want {
			t.Errorf("HostKey(%q) = %q %v, want %q", in, got, ok, want)
		}
	}
	// A label starts and ends with a letter or digit and holds at most 63
	// bytes (an A-label with its "xn--"); the key at most 253.
	for _, in := range []string{
		"-a.example", "a-.example", "a.-example", "example.com-", "*.-a.example",
		strings.Repeat("a", 64) + ".example", "-bücher.example", "bücher-.example",
		strings.Repeat("a", 58) + "ü.example", // its A-label is longer than 63 bytes
		strings.Repeat("a.", 127) + "aa", "", "a..b", "a b",
	} {
		if got, ok := HostKey(in); ok {
			t.Errorf("HostKey(%q) = %q, want it refused", in, got)
		}
	}
}

func TestCapturesForExplain(t *testing.T) {
	s, err := Compile([]Rule{
		{ID: 1, Kind: Pattern, Source: "/:lang/guide/*?ref=:ref", Destination: "/:lang/:splat"},
		{ID: 2, Kind: Regex, Source: `/r/(?P<name>[a-z]+)/(\d+)`, Destination: "/$2/${name}"},
	}, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	var m Match
	for wire, want := range map[string]string{
		"/en/guide/a%20b/c?ref=x+y": "lang=en splat=a%20b/c ref=x+y ",
		"/r/abc/42":                 "name=abc 2=42 ",
	} {
		if !s.Lookup("", wire, &m) {
			t.Fatalf("%s: no match", wire)
		}
		got := ""
		m.Captures(func(name, value string) { got += name + "=" + value + " " })
		if got != want {
			t.Errorf("%s: captures %q, want %q", wire, got, want)
		}
	}
}

// TestRegexExpression: a regex rule's expression is its source up to the
// first "$?" outside an escape and a class, where the conditions start.
func TestRegexExpression(t *testing.T) {
	for src, want := range map[string]string{
		`^/p/(\d+)$?id=:id`: `^/p/(\d+)`,
		`^/a\$?b$`:          `^/a\$?b$`,
		`^/[$?]x$?k`:        `^/[$?]x`,
		`/plain`:            `/plain`,
	} {
		if got := RegexExpression(src); got != want {
			t.Errorf("RegexExpression(%q) = %q, want %q", src, got, want)
		}
	}
}
