package importer

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

// A fuzz target per format (go test -fuzz FuzzReadNginx ./migrate): no
// input makes Read panic or run on; its report is bounded by a small
// multiple of the input, and every note and text in it is valid UTF-8
// without NUL. The corpora start from each format's example, the files
// of the tests (hostileSeeds) and the hostile shapes of issue #31.

func FuzzReadApache(f *testing.F)          { fuzzFormat(f, "apache") }
func FuzzReadCloudflare(f *testing.F)      { fuzzFormat(f, "cloudflare") }
func FuzzReadCloudflarePages(f *testing.F) { fuzzFormat(f, "cloudflare-pages") }
func FuzzReadCSV(f *testing.F)             { fuzzFormat(f, "csv") }
func FuzzReadHAProxy(f *testing.F)         { fuzzFormat(f, "haproxy") }
func FuzzReadHAProxyMap(f *testing.F)      { fuzzFormat(f, "haproxy-map") }
func FuzzReadNetlify(f *testing.F)         { fuzzFormat(f, "netlify") }
func FuzzReadNetlifyTOML(f *testing.F)     { fuzzFormat(f, "netlify-toml") }
func FuzzReadNginx(f *testing.F)           { fuzzFormat(f, "nginx") }
func FuzzReadShopify(f *testing.F)         { fuzzFormat(f, "shopify") }
func FuzzReadVercel(f *testing.F)          { fuzzFormat(f, "vercel") }
func FuzzReadVercelBulk(f *testing.F)      { fuzzFormat(f, "vercel-bulk") }
func FuzzReadWordPress(f *testing.F)       { fuzzFormat(f, "wordpress") }

// fuzzTargets names the format of each target above, so that a format
// registered without one fails TestEveryFormatFuzzed.
var fuzzTargets = []string{"apache", "cloudflare", "cloudflare-pages", "csv", "haproxy", "haproxy-map", "netlify",
	"netlify-toml", "nginx", "shopify", "vercel", "vercel-bulk", "wordpress"}

func TestEveryFormatFuzzed(t *testing.T) {
	for _, f := range Formats() {
		if strings.HasPrefix(f.Name, "test-") {
			continue // the pipeline tests' own
		}
		found := false
		for _, n := range fuzzTargets {
			found = found || n == f.Name
		}
		if !found {
			t.Errorf("format %s has no fuzz target in fuzz_test.go", f.Name)
		}
	}
}

// hostileSeeds are the shapes of issue #31, small enough for a corpus.
func hostileSeeds() []string {
	return []string{
		"[[redirects]]\nfrom = \"/a\"\nto = \"/b\"\nx = " + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + "\n",
		"[[redirects]]\nfrom = \"/a\"\nto = \"/b\"\nx = " + strings.Repeat("[\n", 200) + strings.Repeat("]\n", 200),
		"[[redirects]]\nfrom = \"/a\"\nto = [\"/b\",\n" + strings.Repeat("  \"/c\",\n", 2000),
		"{\"redirects\": [" + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + "]}",
		"/a /b\n/" + strings.Repeat("x", MaxLineLen+10) + " /c\n",
		strings.Repeat("/a /b 301\n", 7000) + "/c\x00 /d\n",
		strings.Repeat("/a /b 301\n", 7000) + "/c\xff /d\n",
		"RedirectMatch 301 ^/(x|y)" + strings.Repeat("a", 5000) + "$ /b\n",
		"source,destination\n" + strings.Repeat("x", 5000) + ",/b\n",
		"include a.conf;\nserver {\n include b.conf;\n location /a/ { include c.conf; }\n}\n",
		"Include a.conf\n<VirtualHost *>\nIncludeOptional b/*.conf\nRewriteMap m txt:/x\n</VirtualHost>\n",
		"Redirect 301 /a \\\n" + strings.Repeat(" \\\n", 500),
		"map $uri $x {\n" + strings.Repeat(" /a /b;\n", 500),
		"server {\n" + strings.Repeat(" location /a/ {\n", 300),
	}
}

// testSeeds are shapes of every format, from the tests' files.
var testSeeds = []string{
	"source,destination,statusCode,matchType,priority\n/a,/b,301,exact,\n/docs/,https://docs.example.com/,308,starts_with,5\n/gone,,410,exact,\n",
	"/home /\n/news/* /blog/:splat 302!\n/store id=:id /blog/:id\n/:lang/x /y/:lang\n",
	"server {\n rewrite ^/blog/(.*)$ /news/$1 permanent;\n location = /a { return 301 /b; }\n location ^~ /d/ { return 302 https://e.x/; }\n}\n",
	"RewriteEngine On\nRewriteRule ^/?a$ /b [R=301,L]\nRedirect 302 /c /d\nRedirectMatch ^/e(.*)$ /f$1\n",
	"frontend f\n acl a path /a\n http-request redirect location /b code 301 if a\n",
	"/a /b\n/c 302 /d\n",
	"{\"redirects\": [{\"source\": \"/a/:x\", \"destination\": \"/b/:x\", \"permanent\": true}], \"trailingSlash\": false}",
	"[{\"source\": \"/a\", \"destination\": \"/b\", \"permanent\": true}]",
	"source,destination,permanent\n/a,/b,true\n",
	"{\"redirects\": [{\"url\": \"/a\", \"action_data\": {\"url\": \"/b\"}, \"action_code\": 301, \"match_type\": \"url\", \"action_type\": \"url\"}]}",
	"example.com/a,https://example.com/b,301,TRUE,FALSE,TRUE,TRUE\n",
	"Redirect from,Redirect to\n/a,/b\n",
}

func fuzzFormat(f *testing.F, name string) {
	format := Lookup(name)
	if format == nil {
		f.Fatalf("no format %s", name)
	}
	f.Add(format.Example)
	for _, s := range testSeeds {
		f.Add(s)
	}
	for _, s := range hostileSeeds() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		o := Options{Placeholders: map[string][]string{"lang": {"en", "fr"}}, Hosts: []string{"example.com"}, FileName: "x"}
		res, err := Read(context.Background(), strings.NewReader(in), name, o)
		lines := strings.Count(in, "\n") + 1
		// 64 KiB and four times the input, and per line of the file
		// two notes' fixed words and its text (a note quotes at most
		// MaxExcerpt bytes of each value, so what a note holds beyond
		// its fixed words comes from the line).
		bound := 64<<10 + 4*len(in) + lines*(2*MaxNoteLen+MaxTextLen)
		var be *BadLinesError
		switch {
		case errors.As(err, &be):
			if len(be.Lines) > MaxBadLines {
				t.Fatalf("%d bad lines listed, more than %d", len(be.Lines), MaxBadLines)
			}
			for _, l := range be.Lines {
				if l.Line < 1 || l.Line > lines {
					t.Fatalf("bad line %d of a %d-line file: %v", l.Line, lines, err)
				}
				plain(t, "a bad line's message", l.Message)
			}
			if len(err.Error()) > bound {
				t.Fatalf("an error of %d bytes for %d bytes of input", len(err.Error()), len(in))
			}
			return
		case err != nil:
			plain(t, "the error", err.Error())
			if len(err.Error()) > 4096 {
				t.Fatalf("an error of %d bytes: %.300q", len(err.Error()), err.Error())
			}
			return
		}
		j, err := json.Marshal(res)
		if err != nil {
			t.Fatal(err)
		}
		if len(j) > bound {
			t.Fatalf("a report of %d bytes for %d bytes of input (%d lines)", len(j), len(in), lines)
		}
		for _, o := range res.Lines {
			if o.Line < 1 || o.Line > lines {
				t.Fatalf("an outcome at line %d of a %d-line file", o.Line, lines)
			}
			plain(t, "a text", o.Text)
			for _, n := range o.Notes {
				plain(t, "a note", n)
			}
		}
		plain(t, "detected", res.Detected)
		for _, l := range res.RuleLines {
			if l < 1 || l > lines {
				t.Fatalf("a rule from line %d of a %d-line file", l, lines)
			}
		}
	})
}

// plain fails unless s is valid UTF-8 without a control character (NUL,
// a line break, ESC, DEL, C1): one line of plain text.
func plain(t *testing.T, what, s string) {
	t.Helper()
	if !utf8.ValidString(s) || strings.IndexFunc(s, isControl) >= 0 {
		t.Fatalf("%s is not plain text: %q", what, s)
	}
}
