package importer

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"redirects"
	"redirects/internal/servertest"
)

// TestApacheExcludedPaths: a RewriteRule whose RewriteCond lines exclude
// paths by a negated test of %{REQUEST_URI} (an ap_expr !~ m|...| and a
// plain !^...) answers every other path of its pattern, and the paths
// excluded go on to the rules below, as on Apache (asked of a real one
// when apache2 is on PATH). Conditions the reader cannot write as a set of
// paths keep the rule skipped, naming why.
func TestApacheExcludedPaths(t *testing.T) {
	in := `RewriteEngine On
RewriteCond expr "%{REQUEST_URI} !~ m|^/docs/next|"
RewriteCond expr "%{REQUEST_URI} !~ m|^/docs/\d+\.\d+\.x|"
RewriteCond %{REQUEST_URI} !^/docs/v\d+/
RewriteRule "^docs/(.*)$" "/docs/2.x/$1" [R=301,L]
RewriteRule "^docs/(.+)/old$" "/docs/$1/new" [R=301,L]
RewriteCond %{REQUEST_URI} !/anywhere
RewriteRule "^a/(.*)$" "/b/$1" [R=301,L]
RewriteCond expr "%{REQUEST_URI} !~ m|^/c/(ab)+$|"
RewriteRule "^c/(.*)$" "/d/$1" [R=301,L]
`
	res, err := Read(context.Background(), strings.NewReader(in), "apache", Options{})
	if err != nil {
		t.Fatal(err)
	}
	cl, _ := classes(res)
	for l, want := range map[int]Class{5: AsIs, 6: AsIs, 8: Skipped, 10: Skipped} {
		if cl[l] != want {
			t.Errorf("line %d: class %q, want %q (%+v)", l, cl[l], want, res.Lines)
		}
	}
	for _, o := range res.Lines {
		switch o.Line {
		case 8:
			if !strings.Contains(strings.Join(o.Notes, " "), "searches the path anywhere") {
				t.Errorf("line 8: notes %q, want the unanchored condition named", o.Notes)
			}
		case 10:
			if !strings.Contains(strings.Join(o.Notes, " "), "line 9 excludes paths: the excluded paths make an automaton with a loop") {
				t.Errorf("line 10: notes %q, want the loop named", o.Notes)
			}
		case 9:
			if o.Class != Skipped || !strings.Contains(strings.Join(o.Notes, " "), "a condition of the RewriteRule on line 10") {
				t.Errorf("line 9: %s %q, want skipped with its rule", o.Class, o.Notes)
			}
		}
	}
	want := map[string]string{
		"/docs/a":          "/docs/2.x/a",
		"/docs/":           "/docs/2.x/",
		"/docs/nex":        "/docs/2.x/nex",
		"/docs/nexus?k=v":  "/docs/2.x/nexus?k=v",
		"/docs/next":       "",
		"/docs/next/x/old": "/docs/next/x/new",
		"/docs/1.2.x/y":    "",
		"/docs/1.2.y":      "/docs/2.x/1.2.y",
		"/docs/12.3.x":     "",
		"/docs/v2":         "/docs/2.x/v2",
		"/docs/v2/a/old":   "/docs/v2/a/new",
		"/docs/v2x/a":      "/docs/2.x/v2x/a",
		"/docs/1.2.xa/b":   "",
		"/docs/1..x":       "/docs/2.x/1..x",
		"/docsx":           "",
	}
	for p, dst := range want {
		a, ok := lookupImported(t, res, redirects.Settings{}, "", p)
		if dst == "" {
			if ok {
				t.Errorf("%s answers %+v, want nothing", p, a)
			}
			continue
		}
		if !ok || a.status != 301 || a.target != dst {
			t.Errorf("%s answers %+v %v, want 301 %s", p, a, ok, dst)
		}
	}

	bin := servertest.LookPath(t, "apache2")
	if _, err := os.Stat(filepath.Join(servertest.ApacheModules, "mod_rewrite.so")); err != nil {
		t.Skipf("no Apache modules in %s: %v", servertest.ApacheModules, err)
	}
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, "htdocs"), 0o755)
	servertest.WriteFile(t, filepath.Join(dir, "htdocs", ".htaccess"), []byte(in))
	port := servertest.FreePort(t)
	conf := filepath.Join(dir, "httpd.conf")
	servertest.WriteFile(t, conf, []byte(servertest.ApacheConf(dir, port, "")))
	servertest.Check(t, bin, "-t", "-f", conf)
	servertest.Start(t, []int{port}, bin, "-DFOREGROUND", "-f", conf)
	for p, dst := range want {
		code, loc := askRetry(t, port, "127.0.0.1", p)
		loc = strings.TrimPrefix(loc, "http://127.0.0.1")
		if dst == "" && code == 301 || dst != "" && (code != 301 || decodeLoose(loc) != decodeLoose(dst)) {
			t.Errorf("Apache answers %s with %d %q, the test wants %q", p, code, loc, dst)
		}
	}
}

// TestApacheURIExpr reads the forms of ap_expr's negated match of
// %{REQUEST_URI}, and nothing else.
func TestApacheURIExpr(t *testing.T) {
	for in, want := range map[string]string{
		`%{REQUEST_URI} !~ m|^/a|`:  "^/a",
		`%{REQUEST_URI}!~m#^/a/b#`:  "^/a/b",
		` %{REQUEST_URI} !~ /^a$/ `: "^a$",
		`%{REQUEST_URI} !~ /^/a/`:   "",
		`%{REQUEST_URI} =~ m|^/a|`:  "",
		`%{REQUEST_URI} !~ m|^/a`:   "",
		`%{REQUEST_URI} !~ mx^/ax`:  "",
		`%{HTTP_HOST} !~ m|^a|`:     "",
		`%{REQUEST_URI} !~ m|a|b|`:  "",
	} {
		got, ok := apacheURIExpr(in)
		if ok != (want != "") || got != want {
			t.Errorf("apacheURIExpr(%q) = %q, %v; want %q", in, got, ok, want)
		}
	}
}

// TestApacheRedirectRestAfterURL: a Redirect of a URL-path to a URL with a
// query or a fragment appends the rest of the path after them, as Apache
// does (asked of a real one); with a query or a fragment the line is as
// is (Apache appends the request's query after the fragment too, as
// queryAfterFragment does).
func TestApacheRedirectRestAfterURL(t *testing.T) {
	in := "Redirect 301 /p /q?x=1\nRedirect 301 /design.html /documentation#design\n"
	res, err := Read(context.Background(), strings.NewReader(in), "apache", Options{})
	if err != nil {
		t.Fatal(err)
	}
	cl, _ := classes(res)
	if cl[1] != AsIs || cl[2] != AsIs {
		t.Errorf("lines 1 and 2: %q and %q, want as is and as is (%+v)", cl[1], cl[2], res.Lines)
	}
	want := map[string]string{
		"/p": "/q?x=1", "/p?z=2": "/q?x=1", "/p/r": "/q?x=1/r", "/p/r/s?z=2": "/q?x=1/r/s", "/pr": "",
		"/design.html": "/documentation#design", "/design.html/x/y": "/documentation#design/x/y",
		"/design.html?k=v": "/documentation#design?k=v", "/design.html/x/y?k=v&z": "/documentation#design/x/y?k=v&z",
	}
	for p, dst := range want {
		a, ok := lookupImported(t, res, redirects.Settings{}, "", p)
		if dst == "" {
			if ok {
				t.Errorf("%s answers %+v, want nothing", p, a)
			}
			continue
		}
		if !ok || a.status != 301 || a.target != dst {
			t.Errorf("%s answers %+v %v, want 301 %s", p, a, ok, dst)
		}
	}
	bin := servertest.LookPath(t, "apache2")
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, "htdocs"), 0o755)
	servertest.WriteFile(t, filepath.Join(dir, "htdocs", ".htaccess"), []byte(in))
	port := servertest.FreePort(t)
	conf := filepath.Join(dir, "httpd.conf")
	servertest.WriteFile(t, conf, []byte(servertest.ApacheConf(dir, port, "")))
	servertest.Start(t, []int{port}, bin, "-DFOREGROUND", "-f", conf)
	for p, dst := range want {
		code, loc := askRetry(t, port, "127.0.0.1", p)
		loc = strings.TrimPrefix(loc, "http://127.0.0.1")
		if dst == "" && code == 301 || dst != "" && (code != 301 || loc != dst) {
			t.Errorf("Apache answers %s with %d %q, the test wants %q", p, code, loc, dst)
		}
	}
}

// TestApacheRedirectRestAfterURLCapped: past maxApacheRestRegexes such
// Redirects, the rest joins the URL's path (changed, noted), and none is
// lost to a project's limit of regex rules.
func TestApacheRedirectRestAfterURLCapped(t *testing.T) {
	var b strings.Builder
	n := maxApacheRestRegexes + 5
	for i := range n {
		fmt.Fprintf(&b, "Redirect 301 /p%d /q%d?x=1\n", i, i)
	}
	res, err := Read(context.Background(), strings.NewReader(b.String()), "apache", Options{})
	if err != nil {
		t.Fatal(err)
	}
	cl, _ := classes(res)
	regexes := 0
	for _, r := range res.Rules {
		if r.MatchType == redirects.Regex {
			regexes++
		}
	}
	if regexes != maxApacheRestRegexes || cl[n] != Changed || cl[1] != AsIs || len(res.Rules) != 2*n {
		t.Errorf("%d regex rules of %d, line %d %q, line 1 %q; want %d, changed and as is", regexes, len(res.Rules), n, cl[n], cl[1], maxApacheRestRegexes)
	}
}
