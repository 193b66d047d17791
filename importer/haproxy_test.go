package importer

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"redirects/internal/rulemodel"
)

// The shapes of the haproxy reader: the haproxy export's (docs/exports.md
// "haproxy", export.appendHAProxyAnswer) and HAProxy's own
// (https://docs.haproxy.org/2.6/configuration.html: "acl <aclname>
// <criterion> [flags] [operator] <value> ...", several acl lines of one
// name are ORed; "http-request redirect location <loc> [code <code>]
// [{if | unless} <condition>]", rules run in order and a redirect stops
// them; a log-format string's "%%" is a literal %).
func TestHAProxyShapes(t *testing.T) {
	in := `# comment
acl redirect_1 path -i /old
http-request redirect code 301 location /new if redirect_1
acl redirect_2 path_beg /docs/
http-request redirect code 308 location https://ex.test/d?x=1 if redirect_2 { path,length gt 6 }
http-request redirect code 308 location https://ex.test/d%%20 if redirect_2
acl redirect_3 path /caf%C3%A9
http-request return status 410 if redirect_3
acl host_a hdr(host) -i a.test
http-request redirect code 301 location /h if host_a
http-request redirect code 302 location /u unless redirect_1
acl redirect_4 path /old/x
http-request redirect code 301 location /never if redirect_4
`
	res, err := Read(context.Background(), strings.NewReader(in), "haproxy", Options{})
	if err != nil {
		t.Fatal(err)
	}
	cl, win := classes(res)
	want := map[int]Class{3: Changed, 6: AsIs, 8: AsIs, 9: Skipped, 10: Skipped, 11: Skipped}
	for l, c := range want {
		if cl[l] != c {
			t.Errorf("line %d: class %q, want %q (%+v)", l, cl[l], c, res.Lines)
		}
	}
	if cl[13] != AsIs || win[13] != 0 {
		t.Errorf("line 13: %q winner %d", cl[13], win[13])
	}
	for _, c := range []struct {
		path, dst string
		code      int
	}{
		{"/old", "/new", 301}, {"/docs/a/b", "https://ex.test/d%20a/b", 308}, {"/café", "", 410},
		{"/caf%C3%A9", "", 410}, {"/h", "", 0}, {"/old/x", "/never", 301},
	} {
		a, ok := rulemodel.Lookup(res.Rules, rulemodel.Settings{}, c.path)
		if c.code == 0 {
			if ok {
				t.Errorf("%s answers %+v", c.path, a)
			}
			continue
		}
		if !ok || a.Status != c.code || a.Destination != c.dst {
			t.Errorf("%s answers %+v %v, want %d %s", c.path, a, ok, c.code, c.dst)
		}
	}
}

func TestHAProxyMapShapes(t *testing.T) {
	in := "# haproxy-map-prefix: 2 starts_with sources for map_beg (docs/exports.md).\n/a/ 301 /b/\n/g 410\n/e /f\n"
	res, err := Read(context.Background(), strings.NewReader(in), "auto", Options{})
	if err != nil || res.Format != "haproxy-map" {
		t.Fatalf("%v %+v", err, res)
	}
	for p, want := range map[string]string{"/a/x": "301 /b/", "/gone": "410 ", "/e": "301 /f", "/e/x": ""} {
		a, ok := rulemodel.Lookup(res.Rules, rulemodel.Settings{}, p)
		got := ""
		if ok {
			got = fmt.Sprintf("%d %s", a.Status, a.Destination)
		}
		if got != want {
			t.Errorf("%s answers %q, want %q", p, got, want)
		}
	}
	_, err = Read(context.Background(), strings.NewReader("/a\n/b 301 /c extra\n/d x /e\n"), "haproxy-map", Options{})
	if be, ok := err.(*BadLinesError); !ok || len(be.Lines) != 3 {
		t.Errorf("err %v, want lines 1-3 bad", err)
	}
}

// TestServerFormatExamples: each example file is detected as its own
// format and imports with no line skipped.
func TestServerFormatExamples(t *testing.T) {
	for _, name := range []string{"apache", "nginx", "haproxy", "haproxy-map"} {
		f := Lookup(name)
		res, err := Read(context.Background(), strings.NewReader(f.Example), "auto", Options{})
		if err != nil || res.Format != name {
			t.Errorf("%s: %v %+v", name, err, res)
			continue
		}
		if res.Skipped != 0 || res.AsIs == 0 {
			t.Errorf("%s: %d as is, %d skipped: %+v", name, res.AsIs, res.Skipped, res.Lines)
		}
	}
}
