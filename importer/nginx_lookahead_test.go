package importer

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"redirects"
	"redirects/internal/servertest"
)

// TestNginxNegativeLookahead: a rewrite ^literal(?!X).+ (werf.io's shape),
// which RE2 cannot read, becomes a regex rule matching the paths under the
// literal whose rest does not start with what X matches, as nginx answers
// (asked of a real one when nginx is on PATH); a lookahead the reader
// cannot write as a set of paths keeps the rewrite skipped, naming why.
func TestNginxNegativeLookahead(t *testing.T) {
	server := `absolute_redirect off;
rewrite ^/docs/(?!(v\d+(?:\.\d+)?|latest)/)(?:.+) /docs/v2/ redirect;
rewrite ^/api/(?!v1/)(.*)$ /api/v1/$1 permanent;
rewrite ^/c/(?!(ab)+x)(.*) /d/$2 permanent;
`
	res, err := Read(context.Background(), strings.NewReader("server {\n"+server+"}\n"), "nginx", Options{})
	if err != nil {
		t.Fatal(err)
	}
	cl, _ := classes(res)
	for l, want := range map[int]Class{3: AsIs, 4: AsIs, 5: Skipped} {
		if cl[l] != want {
			t.Errorf("line %d: class %q, want %q (%+v)", l, cl[l], want, res.Lines)
		}
	}
	want := map[string]string{
		"/docs/a":            "302 /docs/v2/",
		"/docs/latest/a":     "",
		"/docs/latest":       "302 /docs/v2/",
		"/docs/latestx/a":    "302 /docs/v2/",
		"/docs/v1/a":         "",
		"/docs/v1.2/":        "",
		"/docs/v1.2.3/":      "302 /docs/v2/",
		"/docs/v/":           "302 /docs/v2/",
		"/docs/":             "",
		"/api/x/y?k=v":       "301 /api/v1/x/y?k=v",
		"/api/":              "301 /api/v1/",
		"/api/v1/x":          "",
		"/api/v1":            "301 /api/v1/v1",
		"/api/v2/x":          "301 /api/v1/v2/x",
		"/docs/v12.0/latest": "",
	}
	for p, w := range want {
		a, ok := lookupImported(t, res, redirects.Settings{}, "", p)
		got := ""
		if ok {
			got = fmt.Sprintf("%d %s", a.status, a.target)
		}
		if got != w {
			t.Errorf("%s answers %q, want %q", p, got, w)
		}
	}
	bin := servertest.LookPath(t, "nginx")
	dir := t.TempDir()
	port := servertest.FreePort(t)
	conf := filepath.Join(dir, "nginx.conf")
	servertest.WriteFile(t, conf, []byte(servertest.NginxConf(dir, "", []string{server}, []int{port})))
	servertest.Check(t, bin, "-t", "-q", "-c", conf)
	servertest.Start(t, []int{port}, bin, "-c", conf)
	for p, w := range want {
		code, loc := askRetry(t, port, "127.0.0.1", p)
		got := ""
		if code >= 300 && code < 400 {
			got = fmt.Sprintf("%d %s", code, loc)
		}
		if got != w {
			t.Errorf("nginx answers %s with %q, the test wants %q", p, got, w)
		}
	}
}

// TestNginxRewriteFragmentQuery: nginx appends a request's query after a
// rewrite's replacement, fragment included (asked of a real nginx), as a
// rule with queryAfterFragment does: such a line is as is, and so is one
// ending in '?', which passes no query.
func TestNginxRewriteFragmentQuery(t *testing.T) {
	// Line 5: an empty query before the fragment, whose '?' nginx keeps
	// (/h?#i&k=v); the option refuses it, so the rule puts the query
	// before the fragment: changed, noted.
	server := "absolute_redirect off;\nrewrite ^/a$ /b#c redirect;\nrewrite ^/d$ /e#f? redirect;\nrewrite ^/g$ /h?#i redirect;\n"
	res, err := Read(context.Background(), strings.NewReader("server {\n"+server+"}\n"), "nginx", Options{})
	if err != nil {
		t.Fatal(err)
	}
	cl, _ := classes(res)
	if cl[3] != AsIs || cl[4] != AsIs || cl[5] != Changed {
		t.Errorf("lines 3, 4 and 5: %q, %q and %q, want as is, as is and changed (%+v)", cl[3], cl[4], cl[5], res.Lines)
	}
	for p, want := range map[string]string{"/a?k=v": "/b#c?k=v", "/d?k=v": "/e#f", "/a": "/b#c", "/g?k=v": "/h?k=v#i", "/g": "/h?#i"} {
		if a, ok := lookupImported(t, res, redirects.Settings{}, "", p); !ok || a.target != want {
			t.Errorf("the import answers %s with %+v %v, want %q", p, a, ok, want)
		}
	}
	bin := servertest.LookPath(t, "nginx")
	dir := t.TempDir()
	port := servertest.FreePort(t)
	conf := filepath.Join(dir, "nginx.conf")
	servertest.WriteFile(t, conf, []byte(servertest.NginxConf(dir, "", []string{server}, []int{port})))
	servertest.Check(t, bin, "-t", "-q", "-c", conf)
	servertest.Start(t, []int{port}, bin, "-c", conf)
	for p, want := range map[string]string{"/a?k=v": "/b#c?k=v", "/d?k=v": "/e#f", "/g?k=v": "/h?#i&k=v", "/g": "/h?#i"} {
		if _, loc := askRetry(t, port, "127.0.0.1", p); loc != want {
			t.Errorf("nginx answers %s with %q, the test wants %q", p, loc, want)
		}
	}
}
