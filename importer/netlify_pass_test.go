package importer

import (
	"context"
	"strings"
	"testing"

	"redirects"
)

// TestNetlifyAfterRewrites: a "/*" line after rewrites that take some of
// its paths first (on its host or every host) answers every other path,
// as on Netlify, where the rewrite answers those without a redirect; it
// is as is, not changed, and the rewrites name no later line.
func TestNetlifyAfterRewrites(t *testing.T) {
	in := "/play/*  /play/index.html  200\n" +
		"https://other.example/a  /b  200\n" +
		"/about  /about.html  200\n" +
		"https://old.example.org/*  https://new.example.org/x/:splat  301!\n"
	res, err := Read(context.Background(), strings.NewReader(in), "netlify", Options{})
	if err != nil {
		t.Fatal(err)
	}
	set := redirects.Settings{}
	if res.Suggest != nil {
		set = res.Suggest.Settings
		if res, err = Read(context.Background(), strings.NewReader(in), "netlify", Options{Settings: set}); err != nil {
			t.Fatal(err)
		}
	}
	cl, _ := classes(res)
	if cl[4] != AsIs {
		t.Errorf("line 4: class %q, want as is (%+v)", cl[4], res.Lines)
	}
	for _, o := range res.Lines {
		if o.Line == 1 && strings.Contains(strings.Join(o.Notes, " "), "later") {
			t.Errorf("line 1 names a later line: %q", o.Notes)
		}
	}
	for p, want := range map[string]string{
		"/play": "", "/play/": "", "/play/a/b": "", "/about": "", "/about/": "",
		"/aboutx": "https://new.example.org/x/aboutx", "/about/x": "https://new.example.org/x/about/x",
		"/pla": "https://new.example.org/x/pla", "/playx/y": "https://new.example.org/x/playx/y",
		"/": "https://new.example.org/x/", "/a?k=v": "https://new.example.org/x/a?k=v",
	} {
		a, ok := lookupImported(t, res, set, "old.example.org", p)
		if want == "" {
			if ok {
				t.Errorf("%s on old.example.org answers %+v, want nothing", p, a)
			}
			continue
		}
		if !ok || a.status != 301 || a.target != want {
			t.Errorf("%s on old.example.org answers %+v %v, want 301 %s", p, a, ok, want)
		}
	}
	if a, ok := lookupImported(t, res, set, "site.example", "/x"); ok {
		t.Errorf("/x on site.example answers %+v, want nothing", a)
	}
}
