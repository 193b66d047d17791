package importer

import (
	"context"
	"strings"
	"testing"

	"redirects"
)

// classesOf returns the class of every line of res that became a rule or
// has an outcome.
func classesOf(res *Result) map[int]Class {
	out := map[int]Class{}
	for _, r := range res.AsIsLines {
		for l := r[0]; l <= r[1]; l++ {
			out[l] = AsIs
		}
	}
	for _, o := range res.Lines {
		out[o.Line] = o.Class
	}
	return out
}

// wantClasses fails unless res classes exactly the lines of want, each
// as want says.
func wantClasses(t *testing.T, res *Result, want map[int]Class) {
	t.Helper()
	got := classesOf(res)
	for l, c := range want {
		if got[l] != c {
			t.Errorf("line %d: class %q, want %q (report %+v)", l, got[l], c, res.Lines)
		}
	}
	for l, c := range got {
		if _, ok := want[l]; !ok {
			t.Errorf("line %d: class %q, want no line there", l, c)
		}
	}
}

// wantAnswers fails unless each path answers (under s) with the
// destination and status given ("" for no answer).
func wantAnswers(t *testing.T, res *Result, s redirects.Settings, want map[string]string) {
	t.Helper()
	// The engine answers, as a lookup does: regex, host-scoped and
	// conditional rules among the rest.
	wantHostAnswers(t, res, s, want)
}

func itoa(n int) string {
	const d = "0123456789"
	if n == 0 {
		return "0"
	}
	var b []byte
	for n > 0 {
		b = append([]byte{d[n%10]}, b...)
		n /= 10
	}
	return string(b)
}

func notesOf(res *Result, line int) string {
	for _, o := range res.Lines {
		if o.Line == line {
			return strings.Join(o.Notes, "; ")
		}
	}
	return ""
}

// TestVercelShapes reads each shape of a vercel.json redirects array as
// Vercel's docs describe it (https://vercel.com/docs/project-configuration#redirects:
// source, destination, permanent true → 308 by default, false → 307,
// statusCode, has and missing; path-to-regexp sources such as
// /blog/:path* and /docs/(.*)).
func TestVercelShapes(t *testing.T) {
	in := `{
  "$schema": "https://openapi.vercel.sh/vercel.json",
  "redirects": [
    { "source": "/me", "destination": "/profile.html" },
    { "source": "/user", "destination": "/api/user", "permanent": false },
    { "source": "/view-source", "destination": "https://github.com/vercel/vercel", "statusCode": 301 },
    { "source": "/blog/:path*", "destination": "/news/:path*" },
    { "source": "/docs/(.*)", "destination": "/guide/$1" },
    { "source": "/api/:rest(.*)", "destination": "https://api.example.com/:rest" },
    { "source": "/:lang/about", "destination": "/:lang/company" },
    { "source": "/post/:slug", "destination": "/p/:slug" },
    { "source": "/:path((?!uk/).*)", "destination": "/uk/:path*",
      "has": [{ "type": "header", "key": "x-vercel-ip-country", "value": "GB" }] },
    { "source": "/home", "destination": "/", "has": [{ "type": "host", "value": "example.com" }] },
    { "source": "/beta", "destination": "/", "missing": [{ "type": "cookie", "key": "beta" }] },
    { "source": "/item/:id(\\d+)", "destination": "/i/:id" },
    { "source": "/me", "destination": "/again" },
    { "source": "/blog/a", "destination": "/never" },
    { "source": "/old/:path+", "destination": "/new" }
  ]
}
`
	o := Options{Hosts: []string{"example.com"}, Placeholders: map[string][]string{"lang": {"en", "fr", "de"}}}
	res, err := Read(context.Background(), strings.NewReader(in), "vercel", o)
	if err != nil {
		t.Fatal(err)
	}
	wantClasses(t, res, map[int]Class{
		4: AsIs, 5: AsIs, 6: AsIs,
		7:  AsIs, // :path*: path-to-regexp's expression, a regex rule
		8:  AsIs, // (.*) is starts_with with preservePath, exactly
		9:  AsIs,
		10: Changed, // :lang expanded over three values
		11: AsIs,    // :slug has no values: a regex rule
		12: Skipped, // a header condition
		14: AsIs,    // a host condition: a rule on that host
		15: Skipped, // missing
		16: AsIs,    // a regex group: a regex rule
		17: Skipped, // /me again: line 4 wins
		18: Skipped, // /blog/a: line 7 wins
		19: AsIs,    // :path+ without a reference in the destination: a regex rule
	})
	if n := notesOf(res, 10); !strings.Contains(n, "placeholder :lang expanded over 3 values (en, fr, de)") {
		t.Errorf("line 10 notes %q", n)
	}
	for _, o := range res.Lines {
		if (o.Line == 17 && o.Winner != 4) || (o.Line == 18 && o.Winner != 7) {
			t.Errorf("line %d: winner %d", o.Line, o.Winner)
		}
		// Every listed line carries its text, a shadowed one too.
		if o.Text == "" || !strings.HasPrefix(o.Text, `{"source":`) {
			t.Errorf("line %d: text %q", o.Line, o.Text)
		}
	}
	wantAnswers(t, res, redirects.Settings{}, map[string]string{
		"/me":                   "/profile.html 308",
		"/user?x=1":             "/api/user?x=1 307", // the query is passed on
		"/view-source":          "https://github.com/vercel/vercel 301",
		"/blog":                 "/news/ 308", // :path* matches no segment: Location /news/$1 with $1 empty
		"/blog/a/b":             "/news/a/b 308",
		"/docs/x/y":             "/guide/x/y 308",
		"/docs":                 "",
		"/api/v1/users":         "https://api.example.com/v1/users 308",
		"/fr/about":             "/fr/company 308",
		"/it/about":             "",
		"/home":                 "", // on example.com only
		"example.com /home":     "/ 308",
		"www.example.com /home": "",
		"/old/a/b":              "/new 308",
		"/old":                  "",
		"/ME":                   "", // case-sensitive
		"/me/":                  "", // strict
		"/item/12":              "/i/12 308",
		"/item/1x":              "",
		"/post/hello":           "/p/hello 308",
		"/post/hello/x":         "",
		"/beta":                 "",
		"/uk/x":                 "",
		"/view-source/":         "",
		"/blog/a":               "/news/a 308",
		"/docs/":                "/guide/ 308",
		"/api/":                 "https://api.example.com/ 308",
		"/blog/a?q=1&r=2":       "/news/a?q=1&r=2 308",
	})
	if res.Suggest != nil {
		t.Errorf("the project's default settings are Vercel's, yet a suggestion %+v", res.Suggest)
	}
}

// TestVercelSettings: trailingSlash and cleanUrls (vercel.json's own
// settings, https://vercel.com/docs/project-configuration#trailingslash
// and #cleanurls) run before the redirects: sources they redirect away
// never match, and the suggestion names trailingSlash ignore.
func TestVercelSettings(t *testing.T) {
	in := `{
  "redirects": [
    { "source": "/a", "destination": "/b" },
    { "source": "/c/", "destination": "/d" },
    { "source": "/about.html", "destination": "/x" },
    { "source": "/e/:path*", "destination": "/f/:path*" }
  ],
  "cleanUrls": true,
  "trailingSlash": false
}`
	res, err := Read(context.Background(), strings.NewReader(in), "vercel", Options{})
	if err != nil {
		t.Fatal(err)
	}
	wantClasses(t, res, map[int]Class{3: Changed, 4: Skipped, 5: Skipped, 6: Changed})
	if n := notesOf(res, 4); !strings.Contains(n, "trailingSlash: false") {
		t.Errorf("line 4 notes %q", n)
	}
	if n := notesOf(res, 5); !strings.Contains(n, "cleanUrls") {
		t.Errorf("line 5 notes %q", n)
	}
	s := res.Suggest
	if s == nil || s.TrailingSlash != "ignore" || !s.CaseSensitive || !strings.Contains(s.Why, "trailingSlash: false") {
		t.Fatalf("suggestion %+v, want trailingSlash ignore, case-sensitive", s)
	}
	wantAnswers(t, res, s.Settings, map[string]string{"/a/": "/b 308", "/a": "/b 308"})

	// trailingSlash: true: a source without its slash never matches.
	res, err = Read(context.Background(), strings.NewReader("{\"trailingSlash\": true, \"redirects\": [\n{\"source\": \"/a\", \"destination\": \"/b\"},\n{\"source\": \"/a.txt\", \"destination\": \"/t\"},\n{\"source\": \"/c/\", \"destination\": \"/d\"}]}"), "vercel", Options{})
	if err != nil {
		t.Fatal(err)
	}
	wantClasses(t, res, map[int]Class{2: Skipped, 3: AsIs, 4: AsIs})
}

// TestVercelBadFiles: a file that is not valid vercel.json is refused,
// naming every bad line: broken JSON at the line of the error, an entry
// without destination, both permanent and statusCode (Vercel refuses
// them: routing-utils' checkRedirect), an unknown property, a source
// path-to-regexp refuses.
func TestVercelBadFiles(t *testing.T) {
	in := `{
  "redirects": [
    { "source": "/a" },
    { "source": "/b", "destination": "/c", "permanent": true, "statusCode": 301 },
    { "source": "/d", "destination": "/e", "type": 301 },
    { "source": "/f/:", "destination": "/g" },
    { "source": "/h", "destination": "/i" }
  ]
}`
	_, err := Read(context.Background(), strings.NewReader(in), "vercel", Options{})
	be, ok := err.(*BadLinesError)
	if !ok {
		t.Fatalf("err %v, want bad lines", err)
	}
	var lines []int
	for _, l := range be.Lines {
		lines = append(lines, l.Line)
	}
	if itoaList(lines) != "3 4 5 6" {
		t.Errorf("bad lines %v, want 3 4 5 6: %v", lines, err)
	}
	_, err = Read(context.Background(), strings.NewReader("{\n  \"redirects\": [\n    { \"source\": \"/a\", \"destination\": \"/b\" }\n    { \"source\": \"/c\" }\n  ]\n}"), "vercel", Options{})
	if be, ok := err.(*BadLinesError); !ok || be.Lines[0].Line != 4 {
		t.Errorf("missing comma: err %v, want line 4", err)
	}
	_, err = Read(context.Background(), strings.NewReader("{\n  \"redirects\": [\n    { \"source\": \"/a\", \"destination\": \"/b\" }\n"), "vercel", Options{})
	if _, ok := err.(*BadLinesError); !ok {
		t.Errorf("cut file: err %v, want bad lines", err)
	}
	_, err = Read(context.Background(), strings.NewReader(`{"rewrites": []}`), "vercel", Options{})
	if be, ok := err.(*BadLinesError); !ok || !strings.Contains(be.Error(), "no \"redirects\"") {
		t.Errorf("no redirects: err %v", err)
	}
}

func itoaList(l []int) string {
	var s []string
	for _, n := range l {
		s = append(s, itoa(n))
	}
	return strings.Join(s, " ")
}

// TestVercelDetect: --from auto takes a vercel.json by its name or its
// redirects of source and destination, and leaves other JSON alone.
func TestVercelDetect(t *testing.T) {
	for _, c := range []struct {
		name, head string
		want       string
	}{
		{"vercel.json", `{}`, "vercel"},
		{"x.json", `{"redirects": [{"source": "/a", "destination": "/b"}]}`, "vercel"},
		{"x.json", `{"plugin": {"version": "5.4"}, "groups": [], "redirects": [{"url": "/a", "match_url": "/a", "action_data": {"url": "/b"}}]}`, "wordpress"},
		{"x.json", `[{"source": "/a", "destination": "/b", "permanent": true}]`, "vercel-bulk"},
	} {
		f, why := Detect([]byte(c.head), c.name)
		got := ""
		if f != nil {
			got = f.Name
		}
		if got != c.want {
			t.Errorf("%s %s: detected %q (%s), want %s", c.name, c.head, got, why, c.want)
		}
	}
}

// TestExamplesOfVercelAndWordPress: each format's example (the dashboard
// offers it, the browser suite imports it) is detected as its format
// and imports with every class the format's shapes give.
func TestExamplesOfVercelAndWordPress(t *testing.T) {
	for name, want := range map[string][3]int{
		// as is, changed, skipped
		"vercel":      {3, 3, 1},
		"vercel-bulk": {3, 1, 0}, // /Pricing sets caseSensitive
		"wordpress":   {3, 1, 1},
	} {
		f := Lookup(name)
		res, err := Read(context.Background(), strings.NewReader(f.Example), "auto", Options{
			Settings:     *f.Defaults,
			Placeholders: map[string][]string{"lang": {"en", "fr"}},
		})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if res.Format != name {
			t.Errorf("%s's example detected as %s (%s)", name, res.Format, res.Detected)
		}
		if got := [3]int{res.AsIs, res.Changed, res.Skipped}; got != want {
			t.Errorf("%s's example: as is, changed, skipped %v, want %v (%+v)", name, got, want, res.Lines)
		}
	}
}

// TestVercelGroupNumbers: a placeholder before the tail is group 1 and
// the tail group 2 ($1 and $2 in the destination, as routing-utils
// numbers the keys of path-to-regexp).
func TestVercelGroupNumbers(t *testing.T) {
	in := "{\"redirects\": [\n{\"source\": \"/:lang/docs/(.*)\", \"destination\": \"/x/$1/$2\"},\n{\"source\": \"/:lang/k/:rest*\", \"destination\": \"/k/:lang/:rest*\"}\n]}"
	res, err := Read(context.Background(), strings.NewReader(in), "vercel", Options{Placeholders: map[string][]string{"lang": {"en", "fr"}}})
	if err != nil {
		t.Fatal(err)
	}
	wantClasses(t, res, map[int]Class{2: Changed, 3: AsIs}) // 3: :rest* is a regex rule
	wantAnswers(t, res, redirects.Settings{}, map[string]string{
		"/en/docs/a/b": "/x/en/a/b 308", "/fr/docs/": "/x/fr/ 308", "/de/docs/a": "",
		"/fr/k/a": "/k/fr/a 308", "/en/k": "/k/en/ 308",
	})
}

// TestVercelPatternsOneToOne: each path-to-regexp form and each has
// condition on host or query becomes one rule, as is, that answers as
// Vercel does; what has no equivalent is skipped naming it.
func TestVercelPatternsOneToOne(t *testing.T) {
	in := `{"redirects": [
{"source": "/a/:name", "destination": "/b/:name"},
{"source": "/c/:rest*", "destination": "/d/:rest*"},
{"source": "/e/:rest+", "destination": "/f/:rest"},
{"source": "/g/:opt?", "destination": "/h/:opt"},
{"source": "/i/:id(\\d+)", "destination": "/j/$1"},
{"source": "/k/:version(v6|v7)/x", "destination": "/l/:version"},
{"source": "/m/(.*)/n", "destination": "/o/$1"},
{"source": "/p", "destination": "/q", "has": [{"type": "host", "value": "old.example.org"}]},
{"source": "/r", "destination": "/s/:ref", "has": [{"type": "query", "key": "ref"}]},
{"source": "/t", "destination": "/u", "has": [{"type": "query", "key": "page", "value": "home"}]},
{"source": "/v", "destination": "/w", "has": [{"type": "query", "key": "page", "value": "(a|b)"}]},
{"source": "/x", "destination": "/y", "has": [{"type": "cookie", "key": "beta"}]},
{"source": "/z/:a(?!no)", "destination": "/"}
]}`
	res, err := Read(context.Background(), strings.NewReader(in), "vercel", Options{})
	if err != nil {
		t.Fatal(err)
	}
	wantClasses(t, res, map[int]Class{2: AsIs, 3: AsIs, 4: AsIs, 5: AsIs, 6: AsIs, 7: AsIs, 8: AsIs, 9: AsIs, 10: AsIs, 11: AsIs,
		12: Skipped, 13: Skipped, 14: Skipped})
	for l, want := range map[int]string{12: "regular expression (a|b)", 13: "cookie beta", 14: "our rules refuse it"} {
		if n := notesOf(res, l); !strings.Contains(n, want) {
			t.Errorf("line %d notes %q, want %q", l, n, want)
		}
	}
	wantAnswers(t, res, redirects.Settings{}, map[string]string{
		"/a/x": "/b/x 308", "/a/x/y": "", "/a/": "",
		"/c": "/d/ 308", "/c/1/2": "/d/1/2 308",
		"/e/1/2": "/f/1/2 308", "/e": "",
		"/g": "/h/ 308", "/g/1": "/h/1 308", "/g/1/2": "",
		"/i/42": "/j/42 308", "/i/4x": "",
		"/k/v6/x": "/l/v6 308", "/k/v8/x": "",
		"/m/a/b/n":           "/o/a/b 308",
		"old.example.org /p": "/q 308", "OLD.example.org:443 /p": "/q 308", "/p": "", "other.example /p": "",
		"/r?ref=hn": "/s/hn?ref=hn 308", "/r": "",
		"/t?page=home": "/u?page=home 308", "/t?page=about": "",
	})
}

// TestVercelMergeQuery: a redirect whose destination has a query sets
// mergeQuery, Vercel merging the request's parameters into it (a name the
// destination holds keeping its value), and is as is without a note on
// it; on a placeholder and a regex rule too, the destination's names
// taken after its captures. A destination with an empty query is noted
// and keeps preserveQuery alone.
func TestVercelMergeQuery(t *testing.T) {
	in := `{
  "redirects": [
    { "source": "/:path*", "has": [{ "type": "host", "value": "vscode.example.com" }],
      "destination": "https://marketplace.example/items?itemName=pomdtr.excalidraw-editor" },
    { "source": "/p/:id", "destination": "/q?id=:id&v=1" },
    { "source": "/e", "destination": "/f?" },
    { "source": "/g", "destination": "/h?x=1#top" }
  ]
}
`
	res, err := Read(context.Background(), strings.NewReader(in), "vercel", Options{Hosts: []string{"example.com"}})
	if err != nil {
		t.Fatal(err)
	}
	wantClasses(t, res, map[int]Class{3: AsIs, 5: AsIs, 6: Changed, 7: AsIs})
	for _, r := range res.Rules {
		if _, q, _ := redirects.SplitDestination(r.Destination); r.MergeQuery != (q != "") || !r.PreserveQuery {
			t.Errorf("rule %+v: mergeQuery %v for a destination query %q", r, r.MergeQuery, q)
		}
	}
	if n := notesOf(res, 3); strings.Contains(n, "merges") {
		t.Errorf("line 3 notes %q", n)
	}
	if n := notesOf(res, 6); !strings.Contains(n, "the destination's query is empty") {
		t.Errorf("line 6 notes %q", n)
	}
	wantAnswers(t, res, redirects.Settings{}, map[string]string{
		"vscode.example.com /x?itemName=x&a=1":  "https://marketplace.example/items?itemName=pomdtr.excalidraw-editor&a=1 308",
		"vscode.example.com /a/b?a=1&&itemName": "https://marketplace.example/items?itemName=pomdtr.excalidraw-editor&a=1 308",
		"vscode.example.com /a":                 "https://marketplace.example/items?itemName=pomdtr.excalidraw-editor 308",
		"/p/7?id=9&w=2&v=3":                     "/q?id=7&v=1&w=2 308",
		"/e?k=v":                                "/f?k=v 308",
		"/g?x=2&y=3":                            "/h?x=1&y=3#top 308",
	})
}
