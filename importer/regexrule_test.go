package importer

import (
	"context"
	"fmt"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"

	"redirects"
	"redirects/engine/pattern"
)

// TestPCRERegex: each platform expression's regex-rule source, or the
// reason there is none.
func TestPCRERegex(t *testing.T) {
	for _, c := range []struct {
		re     string
		perDir bool
		ci     bool
		src    string
		groups int
		why    string
	}{
		{re: "^/blog/(.*)$", src: "/blog/(.*)", groups: 1},
		{re: "^/(dom|d)$", src: "/(dom|d)", groups: 1},
		{re: "/anywhere", src: ".*?(?:/anywhere).*"},
		{re: "^/a", src: "/a.*"},
		{re: "x$", src: ".*?x"},
		{re: "^/a$|^/b$", src: ".*?(?:^/a$|^/b$).*"},
		{re: "(?i)^/Docs$", src: "(?i)/Docs"},
		{re: "^/caf\xc3\xa9$", ci: true, src: "(?i)/caf(?-i:\xc3\xa9)"},
		{re: "^p/([0-9]+)/?$", perDir: true, src: "/p/([0-9]+)/?", groups: 1},
		{re: "^/?p$", perDir: true, src: "/p"},
		{re: "^/p$", perDir: true, src: "/p"},
		{re: "old", perDir: true, src: "/.*?(?:old).*"},
		{re: "^/a b#c$", src: `/a\x20b\x23c`},
		{re: `^/a\ b$`, src: `/a\x20b`},
		{re: "^a$|^b$", perDir: true, why: "anchors a branch"},
		{re: "a|b", perDir: true, src: "/.*?(?:a|b).*"},
		{re: `^/x([0-9])\1$`, why: "RE2 does not have"},
		{re: `^/x(?=y)`, why: "RE2 does not have"},
		{re: `^/x++$`, why: "RE2 does not have"},
		{re: `^/\v$`, why: `\v`},
		{re: "^/caf\xc3\xa9+$", why: "quantifier follows a character outside ASCII"},
		{re: "^/[\xc3\xa9]$", ci: true, why: "class holds a byte outside ASCII"},
		{re: "^/" + strings.Repeat("a", 1100) + "$", why: "longer than the 1024 bytes"},
	} {
		src, groups, why := pcreRegex(c.re, c.perDir, c.ci)
		if c.why != "" {
			if why == "" || !strings.Contains(why, c.why) {
				t.Errorf("%q: source %q, why %q; want a reason with %q", c.re, src, why, c.why)
			}
			continue
		}
		if why != "" || src != c.src || groups != c.groups {
			t.Errorf("%q: %q %d (%s), want %q %d", c.re, src, groups, why, c.src, c.groups)
			continue
		}
		// The engine takes it as a regex rule's source.
		r := redirects.Rule{Source: src, MatchType: redirects.Regex, Destination: "/x", StatusCode: 301}
		if err := r.Validate(); err != nil {
			t.Errorf("%q: %q is refused: %v", c.re, src, err)
		}
	}
}

// TestPCREDestination: $1..$9 kept, other '$' literal, $0, a missing
// group and braces refused.
func TestPCREDestination(t *testing.T) {
	for _, c := range []struct {
		dst       string
		groups    int
		backslash bool
		want, why string
	}{
		{dst: "/news/$1", groups: 1, want: "/news/$1"},
		{dst: "/p/$2/$1?x=$1", groups: 2, want: "/p/$2/$1?x=$1"},
		{dst: "/price$", want: "/price$$"},
		{dst: `/a\$1`, groups: 1, backslash: true, want: "/a$$1"},
		{dst: "/$0", groups: 1, why: "$0"},
		{dst: "/$2", groups: 1, why: "$2, a group"},
		{dst: "/{x}", why: "braces"},
	} {
		got, why := pcreDestination(c.dst, c.groups, c.backslash)
		if c.why != "" {
			if !strings.Contains(why, c.why) {
				t.Errorf("%q: %q, why %q; want a reason with %q", c.dst, got, why, c.why)
			}
			continue
		}
		if got != c.want || why != "" {
			t.Errorf("%q: %q (%s), want %q", c.dst, got, why, c.want)
		}
	}
}

// TestPCRERegexSearch: the converted source, anchored as the engine
// anchors it, matches exactly the paths in which the platform's search
// finds the expression, with the same groups (Go's unanchored
// leftmost-first search is PCRE's for these expressions).
func TestPCRERegexSearch(t *testing.T) {
	exprs := []string{"^/a/(.*)$", "/b(x*)", "^/(a|ab)(b*)", "(a+)/", "^/a$|b", "c(d)?$", "^/(x|y)?z", "(?i)^/A(b+)", "[ab]{2}"}
	alphabet := []string{"/", "a", "b", "x", "y", "z", "c", "d", "A", "B"}
	rng := rand.New(rand.NewPCG(3, 36))
	for _, e := range exprs {
		src, _, why := pcreRegex(e, false, false)
		if why != "" {
			t.Fatalf("%q: %s", e, why)
		}
		search := regexp.MustCompile(e)
		anchored := regexp.MustCompile("^(?:" + src + ")$")
		for range 3000 {
			var b strings.Builder
			b.WriteByte('/')
			for k := rng.IntN(7); k > 0; k-- {
				b.WriteString(alphabet[rng.IntN(len(alphabet))])
			}
			p := b.String()
			want := search.FindStringSubmatch(p)
			got := anchored.FindStringSubmatch(p)
			if (want == nil) != (got == nil) {
				t.Fatalf("%q on %q: search %q, rule %q (%s)", e, p, want, got, src)
			}
			for i := 1; i < len(want); i++ {
				if want[i] != got[i] {
					t.Fatalf("%q on %q: group %d %q, the rule's %q (%s)", e, p, i, want[i], got[i], src)
				}
			}
		}
	}
}

// TestApacheHostCond and TestServerHosts: the host tests that scope rules.
func TestApacheHostCond(t *testing.T) {
	for _, c := range []struct {
		pat   string
		flags []string
		want  string
		why   string
	}{
		{pat: `^www\.example\.com$`, flags: []string{"[NC]"}, want: "www.example.com"},
		{pat: `^Example.COM$`, want: "example.com"},
		{pat: `^(www\.)?example\.com$`, want: "example.com www.example.com"},
		{pat: `=old.example.org`, want: "old.example.org"},
		{pat: `!^www\.`, why: "negated"},
		{pat: `example\.com`, why: "not an anchored host"},
		{pat: `^(a|b)\.example$`, why: "more than one host"},
		{pat: `^www\.example\.com$`, flags: []string{"[NC,OR]"}, why: "flag"},
	} {
		hosts, why := apacheHostCond(c.pat, c.flags)
		if c.why != "" {
			if !strings.Contains(why, c.why) {
				t.Errorf("%s: %v, why %q; want a reason with %q", c.pat, hosts, why, c.why)
			}
			continue
		}
		if strings.Join(hosts, " ") != c.want || why != "" {
			t.Errorf("%s: %v (%s), want %s", c.pat, hosts, why, c.want)
		}
		for _, h := range hosts {
			if k, ok := pattern.HostKey(h); !ok || k != h {
				t.Errorf("%s: host %q is not a host key", c.pat, h)
			}
		}
	}
}

func TestServerHosts(t *testing.T) {
	for _, c := range []struct {
		names     []string
		want, why string
	}{
		{names: []string{"example.org", "www.example.org"}, want: "example.org www.example.org"},
		{names: []string{"*.example.org"}, want: "*.example.org"},
		{names: []string{".example.org"}, want: "example.org *.example.org"},
		{names: []string{"_"}, why: "no server name"},
		{names: []string{`~^(?<s>.+)\.example\.net$`}, why: "regular expression"},
		{names: []string{"www.example.*"}, why: "not a host or a leading wildcard"},
	} {
		hosts, why := serverHosts(c.names)
		if c.why != "" {
			if !strings.Contains(why, c.why) {
				t.Errorf("%v: %v, why %q; want a reason with %q", c.names, hosts, why, c.why)
			}
			continue
		}
		if strings.Join(hosts, " ") != c.want || why != "" {
			t.Errorf("%v: %v (%s), want %s", c.names, hosts, why, c.want)
		}
	}
}

// TestRegexShadowsLaterExact: in a first-match file, an exact rule whose
// path an earlier regex rule matches is shadowed, naming that line (the
// engine would answer it with the exact rule); one the regex does not
// match is kept.
func TestRegexShadowsLaterExact(t *testing.T) {
	in := "RewriteEngine On\nRewriteRule ^(a|b)/x$ /ab [R=301,L]\nRedirect /a/x /never\nRedirect /c/x /c2\n"
	res, err := Read(context.Background(), strings.NewReader(in), "apache", Options{})
	if err != nil {
		t.Fatal(err)
	}
	cl, win := classes(res)
	if cl[2] != AsIs || cl[3] != Changed || win[3] != 2 || cl[4] != AsIs {
		t.Errorf("classes %v, winners %v; want line 3 changed, shadowed by line 2: %+v", cl, win, res.Lines)
	}
	if a, ok := lookupImported(t, res, redirects.Settings{}, "", "/a/x"); !ok || a.line != 2 || a.target != "/ab" {
		t.Errorf("/a/x answers %+v %v, want line 2's /ab", a, ok)
	}
}

// TestRegexRuleCap: a file's regex rules past a project's 10,000 are
// skipped with the limit named; the rest import.
func TestRegexRuleCap(t *testing.T) {
	var b strings.Builder
	for i := range maxRegexRules + 2 {
		fmt.Fprintf(&b, "RedirectMatch 301 ^/(a|b)%d$ /x\n", i)
	}
	res, err := Read(context.Background(), strings.NewReader(b.String()), "apache", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rules) != maxRegexRules || res.Skipped != 2 || !strings.Contains(res.Lines[0].Notes[0], "more than 10000 regex rules") {
		t.Fatalf("%d rules, %d skipped (%+v), want %d and 2 naming the limit", len(res.Rules), res.Skipped, res.Lines, maxRegexRules)
	}
}
