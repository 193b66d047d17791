package importer

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"redirects"
	"redirects/engine"
	"redirects/internal/rulemodel"
)

// classesByLine returns the class of every line of res: as is, or its
// outcome's class.
func classesByLine(res *Result) map[int]Class {
	m := map[int]Class{}
	for _, r := range res.AsIsLines {
		for l := r[0]; l <= r[1]; l++ {
			m[l] = AsIs
		}
	}
	for _, o := range res.Lines {
		m[o.Line] = o.Class
	}
	return m
}

// wantLineClasses checks the class of every line named, that no other line has
// one, and that each line's notes hold the fragment given.
func wantLineClasses(t *testing.T, res *Result, want map[int]Class, notes map[int]string) {
	t.Helper()
	got := classesByLine(res)
	for l, c := range want {
		if got[l] != c {
			t.Errorf("line %d: class %q, want %q (%+v)", l, got[l], c, outcomeAt(res, l))
		}
	}
	for l, c := range got {
		if _, ok := want[l]; !ok {
			t.Errorf("line %d: class %q, want no class (a blank or comment line) %+v", l, c, outcomeAt(res, l))
		}
	}
	for l, frag := range notes {
		o := outcomeAt(res, l)
		if !strings.Contains(strings.Join(o.Notes, "; "), frag) {
			t.Errorf("line %d: notes %q, want one holding %q", l, o.Notes, frag)
		}
	}
}

func outcomeAt(res *Result, l int) Outcome {
	for _, o := range res.Lines {
		if o.Line == l {
			return o
		}
	}
	return Outcome{Line: l}
}

// wantRuleAnswers checks what the imported rules answer for wire paths.
func wantRuleAnswers(t *testing.T, res *Result, set redirects.Settings, answers map[string]string) {
	t.Helper()
	for p, want := range answers {
		a, ok := rulemodel.Lookup(res.Rules, rulemodel.Of(set), p)
		got := ""
		if ok {
			got = a.Destination + " " + strconv.Itoa(a.Status)
		}
		if got != want {
			t.Errorf("%s answers %q, want %q", p, got, want)
		}
	}
}

// wantHostAnswers checks what res's rules answer through the engine, as
// a lookup does: each key is a path, or a host, a space and a path; each
// answer the target and status ("" for none).
func wantHostAnswers(t *testing.T, res *Result, set redirects.Settings, answers map[string]string) {
	t.Helper()
	snap, err := engine.CompileChecked(res.Rules, set)
	if err != nil {
		t.Fatal(err)
	}
	for k, want := range answers {
		host, p, ok := strings.Cut(k, " ")
		if !ok {
			host, p = "", k
		}
		m, ok := snap.LookupHost(host, p)
		got := ""
		if ok {
			got = string(m.AppendTarget(nil, p)) + " " + strconv.Itoa(m.StatusCode())
		}
		if got != want {
			t.Errorf("%s answers %q, want %q", k, got, want)
		}
	}
}

// TestNetlifyShapes reads a _redirects file with every shape of Netlify's
// documentation (https://docs.netlify.com/routing/redirects/ and
// .../redirect-options/: status codes, splats, placeholders, query
// parameters, force, proxies, country, language and role conditions,
// custom 404s, domain-level redirects) and checks each line's class and
// what the rules answer.
func TestNetlifyShapes(t *testing.T) {
	in := strings.Join([]string{
		"# Redirects from what the browser requests to what we serve", // 1
		"/home              /",                                                       // 2 default 301
		"/blog/my-post.php  /blog/my-post   302",                                     // 3
		"/news/*            /blog/:splat    301",                                     // 4 splat appended
		"/old/*             /new            301",                                     // 5 splat without :splat
		"/mid/*             /x/:splat/index.html 301",                                // 6 splat inside: a pattern
		"/archive/:year/:month /blog/:year/:month 301",                               // 7 placeholders expanded
		"/tag/:name         /t/:name        301",                                     // 8 no values: a pattern
		"/store id=:id      /blog/:id       301",                                     // 9 query condition
		"/pass-through      /index.html     200",                                     // 10 rewrite
		"/api/*             https://api.example.com/:splat 200",                      // 11 proxy
		"/ecommerce         /store-closed   404",                                     // 12 custom 404
		"/israel/*          /israel/he/:splat 302 Country=il",                        // 13 country
		"/gated/*           /gated/in/:splat 302! Role=admin",                        // 14 role
		"/forced            /elsewhere      301!",                                    // 15 force
		"/gone              /404.html       410",                                     // 16 410
		"/tmp               /t              307",                                     // 17 307 documented unsupported
		"",                                                                           // 18
		"https://blog.example.com/legacy/* https://www.example.com/blog/:splat 301!", // 19 domain-level
		"/teapot            /tea            418",                                     // 20 other status
		"/authors/c%C3%A9line /authors/about-c%C3%A9line",                            // 21 encoded
		"/home              /other",                                                  // 22 shadowed by 2
		"/news/late         /x              301",                                     // 23 shadowed by the splat of 4
		"/a/*/b             /c              301",                                     // 24 star inside
		"/q                 /dest?x=1       301 # trailing comment",                  // 25
	}, "\n") + "\n"
	o := Options{
		Settings:     redirects.Settings{IgnoreTrailingSlash: true},
		Placeholders: map[string][]string{"year": {"2024", "2025"}, "month": {"01"}},
	}
	res, err := Read(context.Background(), strings.NewReader(in), "netlify", o)
	if err != nil {
		t.Fatal(err)
	}
	wantLineClasses(t, res, map[int]Class{
		2: AsIs, 3: AsIs, 4: AsIs, 5: AsIs, 6: AsIs, 7: Changed, 8: AsIs, 9: AsIs, 10: Skipped,
		11: Skipped, 12: Skipped, 13: Skipped, 14: Skipped, 15: AsIs, 16: Changed, 17: Changed, 19: AsIs,
		20: Skipped, 21: AsIs, 22: Skipped, 23: Skipped, 24: Skipped, 25: AsIs,
	}, map[int]string{
		7: "expanded into 2 rules", 10: "rewrite", 11: "proxy", 12: "custom 404",
		13: "Country=il", 14: "Role=admin", 16: "without a page", 17: "307", 20: "status 418",
		22: "line 2 wins", 23: "line 4 wins", 24: "'*' before the end",
	})
	wantRuleAnswers(t, res, o.Settings, map[string]string{
		"/home":                 "/ 301",
		"/home/":                "/ 301",
		"/HOME":                 "",
		"/blog/my-post.php?a=1": "/blog/my-post?a=1 302",
		"/news/2020/x":          "/blog/2020/x 301",
		"/news":                 "/blog/ 301",
		"/old/any/thing":        "/new 301",
		"/news/2025/01":         "/blog/2025/01 301", // the splat of line 4 comes first
		"/forced":               "/elsewhere 301",
		"/gone":                 " 410",
		"/authors/c%C3%A9line":  "/authors/about-c%C3%A9line 301",
		"/q?k=v":                "/dest?x=1&k=v 301",
		"/archive/2025/01":      "/blog/2025/01 301", "/archive/2023/01": "",
	})
	// Placeholders without values, a splat inside the destination, query
	// conditions and a domain line are rules of their own kind.
	wantHostAnswers(t, res, o.Settings, map[string]string{
		"/mid/a/b":                   "/x/a/b/index.html 301",
		"/tag/go":                    "/t/go 301",
		"/tag/go/":                   "/t/go 301",
		"/tag/go/more":               "",
		"/store?id=7":                "/blog/7?id=7 301",
		"/store?x=1&id=":             "/blog/?x=1&id= 301",
		"/store":                     "",
		"blog.example.com /legacy/a": "https://www.example.com/blog/a 301",
		"/legacy/a":                  "",
		"www.example.com /legacy/a":  "",
	})
	if res.Suggest != nil {
		t.Errorf("suggestion %+v under Netlify's own settings", res.Suggest)
	}
	// Under the default settings, the report suggests Netlify's.
	res, err = Read(context.Background(), strings.NewReader("/a /b\n"), "netlify", Options{})
	if err != nil || res.Suggest == nil || res.Suggest.TrailingSlash != "ignore" || !res.Suggest.CaseSensitive {
		t.Fatalf("suggestion %+v, %v: want trailingSlash ignore, caseSensitive", res.Suggest, err)
	}
}

// TestNetlifyPlaceholderOrder: expanded placeholders keep the file's order
// (a later splat does not win over them) and values substitute into the
// destination.
func TestNetlifyPlaceholderOrder(t *testing.T) {
	in := "/docs/:lang/start /guide/:lang/begin 308\n/docs/* /d/:splat 301\n"
	o := Options{Settings: redirects.Settings{IgnoreTrailingSlash: true}, Placeholders: map[string][]string{"lang": {"en", "fr"}}}
	res, err := Read(context.Background(), strings.NewReader(in), "netlify", o)
	if err != nil {
		t.Fatal(err)
	}
	wantLineClasses(t, res, map[int]Class{1: Changed, 2: AsIs}, map[int]string{1: ":lang (en, fr)"})
	wantRuleAnswers(t, res, o.Settings, map[string]string{
		"/docs/fr/start": "/guide/fr/begin 308",
		"/docs/de/start": "/d/de/start 301",
	})
}

// TestNetlifyHosts: a domain-level source becomes a rule scoped to its
// host, whatever hosts the project declares, so that it answers on that
// host only, as on Netlify; a line after it on another host is not
// shadowed by it.
func TestNetlifyHosts(t *testing.T) {
	in := "https://a.example/* https://c.example/:splat 301!\nhttps://B.Example./z /w\n/x /y\n/z /v\n"
	for _, hosts := range [][]string{nil, {"a.example"}, {"a.example", "b.example"}} {
		res, err := Read(context.Background(), strings.NewReader(in), "netlify", Options{Hosts: hosts})
		if err != nil {
			t.Fatal(err)
		}
		// On a.example, line 1 answers /x and /z on Netlify: lines 3 and 4
		// become literal patterns ranked after line 1, so that line 1
		// answers them on its host here too, and they elsewhere.
		wantLineClasses(t, res, map[int]Class{1: AsIs, 2: AsIs, 3: AsIs, 4: AsIs}, nil)
		if len(res.Rules) != 4 || res.Rules[0].Host != "a.example" || res.Rules[1].Host != "b.example" || res.Rules[2].Host != "" ||
			res.Rules[2].MatchType != redirects.Pattern || res.Rules[2].Priority <= res.Rules[0].Priority {
			t.Fatalf("hosts %v: rules %+v", hosts, res.Rules)
		}
		wantHostAnswers(t, res, redirects.Settings{}, map[string]string{
			"a.example /x": "https://c.example/x 301",
			"a.example /z": "https://c.example/z 301",
			"a.example /y": "https://c.example/y 301",
			"b.example /z": "/w 301",
			"b.example /x": "/y 301",
			"/z":           "/v 301",
			"/x":           "/y 301",
		})
	}
}

// TestNetlifyBadLines: lines Netlify's parser refuses refuse the file,
// every one named.
func TestNetlifyBadLines(t *testing.T) {
	in := "/ok /fine\n/nodest\n/a b c\n/x /y abc\n/z 301\n/.netlify/functions/x /y\n"
	_, err := Read(context.Background(), strings.NewReader(in), "netlify", Options{})
	be, ok := err.(*BadLinesError)
	if !ok {
		t.Fatalf("err %v, want bad lines", err)
	}
	var got []int
	for _, l := range be.Lines {
		got = append(got, l.Line)
	}
	if len(got) != 5 || got[0] != 2 || got[1] != 3 || got[2] != 4 || got[3] != 5 || got[4] != 6 {
		t.Errorf("bad lines %v (%v), want 2 3 4 5 6", got, err)
	}
}

func TestNetlifyDetect(t *testing.T) {
	for _, c := range []struct {
		head, name string
		want       bool
	}{
		{"/a /b\n", "_redirects", true},
		{"anything", "site/public/_redirects", true},
		{"# c\n/home / 301\n/news/* /blog/:splat\n", "", true},
		{"/store id=:id /blog/:id 301\n", "", true},
		{"source,destination,matchType\n/a,/b,exact\n", "", false},
		{"example.com/a,https://x.example/b\n", "", false},
		{"Redirect 301 /a /b\n", "", false},
		{"location = /a { return 301 /b; }\n", "", false},
		{"/old /new;\n/a /b;\n", "", false},
		{"Redirect from,Redirect to\n/a,/b\n", "", false},
	} {
		if got, _ := detectNetlify([]byte(c.head), c.name); got != c.want {
			t.Errorf("detect %q %q = %v, want %v", c.head, c.name, got, c.want)
		}
	}
}

// TestNetlifyTOMLShapes reads a netlify.toml with the [[redirects]] shapes
// of Netlify's documentation ("Syntax for the Netlify configuration file":
// from, to, status, force, query, conditions, headers; other tables
// around), each reported at its [[redirects]] line.
func TestNetlifyTOMLShapes(t *testing.T) {
	in := strings.Join([]string{
		`[build]`,                        // 1
		`  publish = "public" # comment`, // 2
		`  command = """`,                // 3
		`[[redirects]] inside a string`,  // 4
		`"""`,                            // 5
		`[[redirects]]`,                  // 6
		`  from = "/old"`,                // 7
		`  to = "/new"`,                  // 8
		`[[redirects]]`,                  // 9
		`  from = "/news/*"`,             // 10
		`  to = "/blog/:splat"`,          // 11
		`  status = 302`,                 // 12
		`  force = true`,                 // 13
		`[[redirects]]`,                  // 14
		`  from = "/store"`,              // 15
		`  to = "/blog/:id"`,             // 16
		`  query = {id = ":id"}`,         // 17
		`[[redirects]]`,                  // 18
		`  from = "/"`,                   // 19
		`  to = "/uk"`,                   // 20
		`  status = 302`,                 // 21
		`  [redirects.conditions]`,       // 22
		`    Country = ["GB"]`,           // 23
		`[[redirects]]`,                  // 24
		`  from = "/h"`,                  // 25
		`  to = "/i"`,                    // 26
		`  [redirects.headers]`,          // 27
		`    X-From = "Netlify"`,         // 28
		`[[redirects]]`,                  // 29
		`  from = "/app/*"`,              // 30
		`  status = 200`,                 // 31
		`[context.production]`,           // 32
		`  environment = { A = "b" }`,    // 33
	}, "\n") + "\n"
	res, err := Read(context.Background(), strings.NewReader(in), "auto", Options{Settings: redirects.Settings{IgnoreTrailingSlash: true}, FileName: "site/netlify.toml"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Format != "netlify-toml" {
		t.Fatalf("format %q, want netlify-toml", res.Format)
	}
	wantLineClasses(t, res, map[int]Class{6: AsIs, 9: AsIs, 14: AsIs, 18: Skipped, 24: Changed, 29: Skipped},
		map[int]string{18: "Country=GB", 24: "headers dropped", 29: "rewrite"})
	wantHostAnswers(t, res, redirects.Settings{IgnoreTrailingSlash: true}, map[string]string{
		"/old": "/new 301", "/news/a?b=1": "/blog/a?b=1 302", "/store": "", "/store?id=4": "/blog/4?id=4 301", "/": "",
	})
	_, err = Read(context.Background(), strings.NewReader("[[redirects]]\n  to = \"/x\"\n[[redirects]]\n  from = \"/a\"\n  to = /b\n[[redirects]]\n  from = \"/c\"\n  to = \"/d\"\n  status = \"abc\"\n"), "netlify-toml", Options{})
	be, ok := err.(*BadLinesError)
	if !ok || len(be.Lines) != 3 || be.Lines[0].Line != 1 || be.Lines[1].Line != 5 || be.Lines[2].Line != 6 {
		t.Fatalf("err %v, want lines 1 (no from), 5 (a bare word) and 6 (a status that is not a number)", err)
	}
	if ok, _ := detectNetlifyTOML([]byte("[build]\n[[redirects]]\nfrom = \"/a\"\n"), ""); !ok {
		t.Error("a [[redirects]] table is not detected")
	}
	if ok, _ := detectNetlifyTOML([]byte("/a /b\n"), ""); ok {
		t.Error("a _redirects file is detected as netlify.toml")
	}
}

// TestCloudflarePagesDefaultStatus: Cloudflare Pages' _redirects answer
// 302 when a line gives no status ("code (default: 302)", its redirects
// page); the rest reads as Netlify's.
func TestCloudflarePagesDefaultStatus(t *testing.T) {
	in := "/home301 / 301\n/home302 /\n/blog/* https://blog.example.com/:splat\n/shop id=:id /blog/:id 301\n/x /404.html 404\n"
	res, err := Read(context.Background(), strings.NewReader(in), "cloudflare-pages", Options{})
	if err != nil {
		t.Fatal(err)
	}
	wantLineClasses(t, res, map[int]Class{1: AsIs, 2: AsIs, 3: AsIs, 4: Skipped, 5: Skipped},
		map[int]string{4: "Cloudflare Pages matches no query parameters", 5: "Cloudflare Pages serves"})
	for _, o := range res.Lines {
		for _, note := range o.Notes {
			if strings.Contains(note, "Netlify") {
				t.Errorf("line %d: a Cloudflare Pages note names Netlify: %s", o.Line, note)
			}
		}
	}
	wantRuleAnswers(t, res, redirects.Settings{}, map[string]string{
		"/home301": "/ 301", "/home302": "/ 302", "/blog/a/b": "https://blog.example.com/a/b 302",
	})
	if res.Suggest != nil {
		t.Errorf("suggestion %+v: Cloudflare documents no matching defaults", res.Suggest)
	}
	for _, c := range []struct {
		head, name, want string
	}{
		{"# Cloudflare Pages redirects\n/a /b\n", "", "cloudflare-pages"},
		{"# cloudflare pages\n/a /b\n", "_redirects", "cloudflare-pages"},
		{"# My site\n/a /b\n", "_redirects", "netlify"},
		{"/a /b\n# Cloudflare Pages\n", "", "netlify"},
		{"# Cloudflare Pages\nsource,destination,matchType\n", "", ""},
	} {
		f, _ := Detect([]byte(c.head), c.name)
		got := ""
		if f != nil {
			got = f.Name
		}
		if got != c.want && !(c.want == "" && got != "cloudflare-pages" && got != "netlify") {
			t.Errorf("detect %q %q = %q, want %q", c.head, c.name, got, c.want)
		}
	}
}

// TestNetlifyPatternsOneToOne: each Netlify construct becomes one rule, as
// is, without --placeholder, and answers as Netlify does; an exact line
// under an earlier placeholder line is shadowed, naming it.
func TestNetlifyPatternsOneToOne(t *testing.T) {
	cases := []struct {
		line    string
		mt      redirects.MatchType
		host    string
		answers map[string]string
	}{
		{"/blog/:year/:slug /posts/:slug 301", redirects.Pattern, "",
			map[string]string{"/blog/2024/hi": "/posts/hi 301", "/blog/2024/hi/": "/posts/hi 301", "/blog/2024": ""}},
		{"/docs/:lang/* /guide/:splat?l=:lang 302", redirects.Pattern, "",
			map[string]string{"/docs/fr/a/b": "/guide/a/b?l=fr 302", "/docs/fr": "/guide/?l=fr 302"}},
		{"/in/* /out/:splat/index.html 301", redirects.Pattern, "",
			map[string]string{"/in/a": "/out/a/index.html 301"}},
		{"/store id=:id /items/:id 301", redirects.Exact, "",
			map[string]string{"/store?id=9": "/items/9?id=9 301", "/store": ""}},
		{"/shop page=2 /shop-2 301", redirects.Exact, "",
			map[string]string{"/shop?page=2": "/shop-2?page=2 301", "/shop?page=3": ""}},
		{"/p/:id ref=:src /q/:id/:src 301", redirects.Pattern, "",
			map[string]string{"/p/1?ref=x": "/q/1/x?ref=x 301", "/p/1": ""}},
		{"https://old.example.org/* https://example.org/:splat 301!", redirects.StartsWith, "old.example.org",
			map[string]string{"old.example.org /a": "https://example.org/a 301", "/a": "", "example.org /a": ""}},
		{"http://old.example.org/x/:n https://example.org/:n 301", redirects.Pattern, "old.example.org",
			map[string]string{"old.example.org /x/1": "https://example.org/1 301", "/x/1": ""}},
		{"/a:b/:c /d 301", redirects.Pattern, "",
			map[string]string{"/a:b/1": "/d 301"}},
	}
	set := redirects.Settings{IgnoreTrailingSlash: true}
	for _, c := range cases {
		res, err := Read(context.Background(), strings.NewReader(c.line+"\n"), "netlify", Options{Settings: set})
		if err != nil {
			t.Fatalf("%s: %v", c.line, err)
		}
		if res.AsIs != 1 || len(res.Rules) != 1 || res.Rules[0].MatchType != c.mt || res.Rules[0].Host != c.host {
			t.Fatalf("%s: %d as is, rules %+v (report %+v): want one %s rule on %q", c.line, res.AsIs, res.Rules, res.Lines, c.mt, c.host)
		}
		wantHostAnswers(t, res, set, c.answers)
	}
	// First-match order: an exact line under an earlier pattern is
	// shadowed, naming it; a later pattern comes after an earlier prefix.
	in := "/blog/:slug /p/:slug\n/blog/hello /never\n/x/* /first/:splat\n/x/:a /second/:a\n"
	res, err := Read(context.Background(), strings.NewReader(in), "netlify", Options{Settings: set})
	if err != nil {
		t.Fatal(err)
	}
	wantLineClasses(t, res, map[int]Class{1: AsIs, 2: Skipped, 3: AsIs, 4: AsIs}, map[int]string{2: "line 1 wins"})
	if o := outcomeAt(res, 2); o.Winner != 1 || o.Text != "/blog/hello /never" {
		t.Errorf("line 2: winner %d, text %q: want 1 and the line", o.Winner, o.Text)
	}
	wantHostAnswers(t, res, set, map[string]string{"/blog/hello": "/p/hello 301", "/x/y": "/first/y 301"})
	// Notes name the platform: no line of a Netlify file speaks of nginx.
	for _, o := range res.Lines {
		for _, n := range o.Notes {
			if strings.Contains(strings.ToLower(n), "nginx") {
				t.Errorf("line %d: a Netlify note speaks of nginx: %s", o.Line, n)
			}
		}
	}
}

// TestNetlifyNotesNameNoOtherPlatform: a line our rules refuse is skipped
// with a note that speaks of the source and of Netlify, never of nginx.
func TestNetlifyNotesNameNoOtherPlatform(t *testing.T) {
	res, err := Read(context.Background(), strings.NewReader("/a//b /c\n/d/../e /f\n"), "netlify", Options{})
	if err != nil {
		t.Fatal(err)
	}
	wantLineClasses(t, res, map[int]Class{1: Skipped, 2: Skipped}, map[int]string{1: `empty segment ("//")`, 2: `".." segment`})
	for _, o := range res.Lines {
		for _, n := range o.Notes {
			if strings.Contains(strings.ToLower(n), "nginx") {
				t.Errorf("line %d: %s", o.Line, n)
			}
		}
		if o.Text == "" {
			t.Errorf("line %d has no text", o.Line)
		}
	}
}
