package importer

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/url"
	"regexp"
	"sort"
	"strings"
	"testing"

	"redirects"
	"redirects/internal/rulemodel"
)

// The plugin's defaults on a fresh install (redirection-settings.php:
// flag_case and flag_trailing set), under which an export is read.
var wpDefaults = redirects.Settings{CaseInsensitive: true, IgnoreTrailingSlash: true}

// TestWordPressCSV reads each shape of Redirection's CSV export, as its
// writer makes it (fileio/csv.php, Red_Csv_File::get_data: the header
// source,target,regex,code,type,hits,title,status; strings quoted,
// numbers not; no target for a 4xx; "active" or "disabled").
func TestWordPressCSV(t *testing.T) {
	in := `source,target,regex,code,type,hits,title,status
"/old-page","/new-page",0,301,"url",12,"Old page","active"
"/shop/","https://shop.example.com/",0,302,"url",0,"","active"
"^/blog/(.*)$","/news/$1",1,301,"url",3,"Blog moved","active"
"^/exact$","/e",1,308,"url",0,"","active"
"^/slash/?$","/s",1,301,"url",0,"","active"
"^/post/(\d+)$","/p/$1",1,301,"url",0,"","active"
"/removed","",0,410,"error",0,"","active"
"/missing","",0,404,"error",0,"","active"
"/draft","/x",0,301,"url",0,"","disabled"
"/pass","/elsewhere",0,301,"pass",0,"","active"
"https://other.example/abs","/a",0,301,"url",0,"","active"
"/q?x=1","/q2",0,301,"url",0,"","active"
"/OLD-PAGE","/again",0,301,"url",0,"","active"
"^/prefix/","/pre/",1,301,"url",0,"","active"
"^/blog/x$","/never",1,301,"url",0,"","active"
`
	res, err := Read(context.Background(), strings.NewReader(in), "auto", Options{Settings: wpDefaults})
	if err != nil {
		t.Fatal(err)
	}
	if res.Format != "wordpress" {
		t.Fatalf("detected %s", res.Format)
	}
	wantClasses(t, res, map[int]Class{
		2: AsIs, 3: AsIs,
		4:  Changed, // ^/blog/(.*)$ is starts_with /blog/; under trailingSlash ignore it also answers /blog
		5:  Changed, // ^/exact$ does not ignore the trailing slash
		6:  AsIs,    // ^/slash/?$: the project ignores the slash
		7:  Changed, // \d: a regex rule (was skipped); under trailingSlash ignore it also answers /post/12/
		8:  AsIs,
		9:  Skipped, // 404
		10: Skipped, // disabled
		11: Skipped, // pass
		12: Changed, // the host dropped
		13: Skipped, // a query in the source
		14: Skipped, // line 2 wins (case ignored)
		15: Changed, // ^/prefix/ does not match /prefix, which trailingSlash ignore answers here
		16: Skipped, // line 4 wins
	})
	for _, o := range res.Lines {
		if o.Line == 14 && o.Winner != 2 || o.Line == 16 && o.Winner != 4 {
			t.Errorf("line %d: winner %d", o.Line, o.Winner)
		}
	}
	for path, want := range map[string]string{"/post/12": "/p/12", "/POST/7?x=1": "/p/7", "/post/x": ""} {
		a, ok := lookupImported(t, res, wpDefaults, "", path)
		if got := a.target; !ok && want != "" || ok && (got != want || a.status != 301) {
			t.Errorf("%s answers %+v %v, want %q", path, a, ok, want)
		}
	}
	wantAnswers(t, res, wpDefaults, map[string]string{
		"/old-page":         "/new-page 301",
		"/Old-Page/":        "/new-page 301",
		"/shop":             "https://shop.example.com/ 302",
		"/blog/a/b?c=1":     "/news/a/b?c=1 301", // preg_replace keeps the query, in $1
		"/exact":            "/e 308",
		"/slash/":           "/s 301",
		"/removed":          " 410",
		"/missing":          "",
		"/draft":            "",
		"/abs":              "/a 301",
		"/prefix/x/y?z":     "/pre/x/y?z 301",
		"/post/12":          "/p/12 301", // line 7, a regex rule
		"/pass":             "",
		"/old-page?utm=x":   "/new-page 301", // the declared difference: flag_query exact would not redirect it
		"/blog":             "/news/ 301",    // line 4's note
		"/prefix-no":        "",
		"/PREFIX/x":         "/pre/x 301",
		"/Removed":          " 410",
		"/slash":            "/s 301",
		"/exact/":           "/e 308",
		"/new-page":         "",
		"/blog/x":           "/news/x 301",
		"/shop/?q=1":        "https://shop.example.com/ 302",
		"/old-page/extra":   "",
		"/EXACT":            "/e 308",
		"/prefix":           "/pre/ 301",
		"/q":                "",
		"/unknown":          "",
		"/blog/":            "/news/ 301",
		"/slash/extra":      "",
		"/removed/":         " 410",
		"/abs/":             "/a 301",
		"/old-page//":       "",
		"/post/12/":         "/p/12 301", // line 7 under trailingSlash ignore
		"/blog/a%20b":       "/news/a%20b 301",
		"/Shop/":            "https://shop.example.com/ 302",
		"/exact?x=1":        "/e 308",
		"/pre/":             "",
		"/draft/":           "",
		"/missing/":         "",
		"/pass/":            "",
		"/q?x=1":            "",
		"/blog/a/b/":        "/news/a/b/ 301",
		"/prefix/":          "/pre/ 301",
		"/old-page/?a=b":    "/new-page 301",
		"/other.example/ab": "",
	})
	if res.Suggest != nil {
		t.Errorf("suggestion %+v under the plugin's settings", res.Suggest)
	}
	// Under the project's default (case-sensitive, exact slash) settings:
	// the suggestion names both (the lines that keep the plugin's
	// defaults are not noted one by one).
	res, err = Read(context.Background(), strings.NewReader(in), "wordpress", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if s := res.Suggest; s == nil || s.CaseSensitive || s.TrailingSlash != "ignore" {
		t.Errorf("suggestion %+v", res.Suggest)
	}
	if n := notesOf(res, 2); n != "" {
		t.Errorf("line 2 notes %q", n)
	}
	// ^/slash/?$ becomes two exact rules when the project compares the slash.
	wantAnswers(t, res, redirects.Settings{}, map[string]string{"/slash": "/s 301", "/slash/": "/s 301", "/SLASH": ""})
}

// TestWordPressJSON reads the JSON export (fileio/json.php and
// Red_Item::to_json: plugin, groups, redirects with url, match_url,
// match_data.source flags, action_code, action_type, action_data.url,
// match_type, regex, position, enabled).
func TestWordPressJSON(t *testing.T) {
	in := `{
    "plugin": {"version": "5.4.2", "date": "Thu, 26 Nov 2026 10:00:00 +0000"},
    "groups": [{"id": 1, "name": "Redirections", "redirects": 6, "module_id": 1, "moduleName": "WordPress", "enabled": true}],
    "redirects": [
        {"id": 1, "url": "/a", "match_url": "/a", "match_data": {"source": {"flag_query": "exact", "flag_case": true, "flag_trailing": true, "flag_regex": false}},
         "action_code": 301, "action_type": "url", "action_data": {"url": "/b"}, "match_type": "url", "title": "", "hits": 0, "regex": false, "group_id": 1, "position": 0, "last_access": "-", "enabled": true},
        {"id": 2, "url": "/Case", "match_url": "/case", "match_data": {"source": {"flag_case": false}},
         "action_code": 302, "action_type": "url", "action_data": {"url": "/c"}, "match_type": "url", "regex": false, "group_id": 1, "position": 1, "enabled": true},
        {"id": 3, "url": "/pass", "match_url": "/pass", "match_data": {"source": {"flag_query": "pass"}},
         "action_code": 307, "action_type": "url", "action_data": {"url": "/p"}, "match_type": "url", "regex": false, "group_id": 1, "position": 2, "enabled": true},
        {"id": 4, "url": "/login", "match_url": "/login", "match_data": {"source": {}},
         "action_code": 301, "action_type": "url", "action_data": {"logged_in": "/in", "logged_out": "/out"}, "match_type": "login", "regex": false, "group_id": 1, "position": 3, "enabled": true},
        {"id": 5, "url": "/random", "match_url": "/random", "action_code": 301, "action_type": "random", "action_data": null, "match_type": "url", "regex": false, "group_id": 1, "position": 4, "enabled": true},
        {"id": 6, "url": "^/r/(.*)$", "match_url": "regex", "match_data": {"source": {"flag_regex": true, "flag_case": true}},
         "action_code": 308, "action_type": "url", "action_data": {"url": "https://ex.com/$1"}, "match_type": "url", "regex": true, "group_id": 1, "position": 5, "enabled": true},
        {"id": 7, "url": "/early", "match_url": "/early", "action_code": 301, "action_type": "url", "action_data": {"url": "/e"}, "match_type": "url", "regex": false, "group_id": 1, "position": 0, "enabled": true},
        {"id": 8, "url": "/off", "match_url": "/off", "action_code": 301, "action_type": "url", "action_data": {"url": "/o"}, "match_type": "url", "regex": false, "group_id": 1, "position": 9, "enabled": false},
        {"id": 9, "url": "/gone", "match_url": "/gone", "action_code": 410, "action_type": "error", "action_data": {"url": ""}, "match_type": "url", "regex": false, "group_id": 1, "position": 10, "enabled": true}
    ]
}
`
	res, err := Read(context.Background(), strings.NewReader(in), "auto", Options{Settings: wpDefaults})
	if err != nil {
		t.Fatal(err)
	}
	if res.Format != "wordpress" {
		t.Fatalf("detected %s", res.Format)
	}
	wantClasses(t, res, map[int]Class{
		5:  AsIs,
		7:  Changed, // flag_case false under a case-insensitive project
		9:  AsIs,    // flag_query pass: preserveQuery
		11: Skipped, // a login match
		13: Skipped, // random
		14: Changed, // regex capture, the slash note
		16: Changed, // position 0 after position 5
		17: Skipped, // disabled
		18: AsIs,    // 410
	})
	if n := notesOf(res, 16); !strings.Contains(n, "before line 14") {
		t.Errorf("line 16 notes %q", n)
	}
	wantAnswers(t, res, wpDefaults, map[string]string{
		"/a/":       "/b 301",
		"/pass?x=1": "/p?x=1 307",
		"/a?x=1":    "/b 301",
		"/r/x?y=1":  "https://ex.com/x?y=1 308",
		"/gone":     " 410",
		"/login":    "",
		"/off":      "",
	})
}

// TestWordPressBad: broken files are refused with the line of the error.
func TestWordPressBad(t *testing.T) {
	_, err := Read(context.Background(), strings.NewReader("{\n  \"plugin\": {},\n  \"redirects\": [\n    {\"url\": \"/a\", \"action_data\": {\"url\": \"/b\"}},\n    {\"url\": \"/c\" \"action_data\": {}}\n  ]\n}\n"), "wordpress", Options{})
	if be, ok := err.(*BadLinesError); !ok || be.Lines[0].Line != 5 {
		t.Errorf("err %v, want line 5", err)
	}
	_, err = Read(context.Background(), strings.NewReader("source,target,regex,code,type,hits,title,status\n\"/a\",\"/b\",0,abc,\"url\",0,\"\",\"active\"\n\"/c\n"), "wordpress", Options{})
	be, ok := err.(*BadLinesError)
	if !ok || len(be.Lines) != 2 || be.Lines[0].Line != 2 || be.Lines[1].Line != 3 {
		t.Errorf("err %v, want lines 2 and 3", err)
	}
}

// wpModelRedirect is a redirect as the model of the plugin sees it.
type wpModelRedirect struct {
	url, target             string
	regex                   bool
	code                    int
	action                  string
	enabled                 bool
	ignoreCase, ignoreSlash bool
	query                   string
	position, id, index     int
	re                      *regexp.Regexp
}

// wpModel answers a request URL as the plugin does, written from its
// source: the enabled redirects tried by position then id
// (Red_Item::sort_urls); a plain source matches when its path, without
// query and urldecoded, equals the request's after removing one trailing
// slash from each (flag_trailing, Red_Url_Path::get_without_trailing_slash)
// and lower-casing both (flag_case); its query as flag_query says
// (Red_Url_Query::is_match: exact wants no other parameter, ignore and pass
// take any); pass adds the request's query to the target
// (Red_Url_Query::add_to_target). A regex source is preg_match'ed on the
// request URL with the flags "s" and "i" for flag_case (Red_Regex) and the
// target is preg_replace's result.
func wpModel(reds []wpModelRedirect, wire string) (string, int, int) {
	order := append([]wpModelRedirect(nil), reds...)
	sort.SliceStable(order, func(i, j int) bool {
		if order[i].position != order[j].position {
			return order[i].position < order[j].position
		}
		return order[i].id < order[j].id
	})
	reqPath, reqQuery, _ := strings.Cut(wire, "?")
	for _, r := range order {
		if !r.enabled || !(r.action == "url" || r.action == "error" && r.code == 410) {
			continue
		}
		if r.regex {
			flags := "s"
			if r.ignoreCase {
				flags += "i"
			}
			re := r.re
			if re == nil {
				re = regexp.MustCompile("(?" + flags + ")" + r.url)
			}
			if !re.MatchString(wire) {
				continue
			}
			if r.code == 410 {
				return "", 410, r.index
			}
			repl := regexp.MustCompile(`\$(\d)`).ReplaceAllString(r.target, "$${$1}")
			return re.ReplaceAllString(wire, repl), r.code, r.index
		}
		src, _ := url.PathUnescape(r.url)
		p, _ := url.PathUnescape(reqPath)
		if r.ignoreSlash {
			src, p = wpTrim(src), wpTrim(p)
		}
		if r.ignoreCase {
			src, p = strings.ToLower(src), strings.ToLower(p)
		}
		if src != p {
			continue
		}
		if r.query == "exact" && reqQuery != "" {
			continue
		}
		if r.code == 410 {
			return "", 410, r.index
		}
		d := r.target
		if r.query == "pass" && reqQuery != "" {
			sep := "?"
			if strings.Contains(d, "?") {
				sep = "&"
			}
			d += sep + reqQuery
		}
		return d, r.code, r.index
	}
	return "", 0, -1
}

func wpTrim(p string) string {
	if p == "/" {
		return p
	}
	return strings.TrimSuffix(p, "/")
}

// TestWordPressProperty: random Redirection exports (JSON with random
// flags and positions, or CSV under the defaults), written by the test,
// imported under the plugin's default settings, answer every request as
// the model of the plugin does wherever the lines involved are as is.
// Files whose plain redirects all pass or ignore the query are asked
// with queries; the others without (flag_query exact is the declared
// difference).
func TestWordPressProperty(t *testing.T) {
	compared := 0
	for seed := uint64(0); seed < 300; seed++ {
		rng := rand.New(rand.NewPCG(seed, 23))
		queryFile := rng.IntN(2) == 0
		asCSV := rng.IntN(3) == 0 && !queryFile
		var reds []wpModelRedirect
		n := 1 + rng.IntN(12)
		for i := 0; i < n; i++ {
			r := wpModelRedirect{url: vcRandomPath(rng, 2), target: fmt.Sprintf("/d%d", i), code: []int{301, 302, 307, 308}[rng.IntN(4)],
				action: "url", enabled: true, ignoreCase: true, ignoreSlash: true, query: "exact", id: i + 1}
			if rng.IntN(4) == 0 {
				r.url += "/"
			}
			if !asCSV {
				if rng.IntN(4) == 0 {
					r.ignoreCase = false
				}
				if rng.IntN(4) == 0 {
					r.ignoreSlash = false
				}
				if rng.IntN(6) == 0 {
					r.position = rng.IntN(3)
				}
			}
			if queryFile {
				r.query = []string{"pass", "ignore"}[rng.IntN(2)]
			}
			shape := rng.IntN(12)
			if queryFile && (shape == 1 || shape == 2 || shape == 4) {
				// A regex ending in $ does not match a URL with a query:
				// the declared difference of flag_query exact.
				shape = 0
			}
			switch shape {
			case 0:
				r.regex, r.url, r.target = true, "^"+strings.TrimSuffix(r.url, "/")+"/(.*)$", r.target+"/$1"
			case 1:
				r.regex, r.url = true, "^"+strings.TrimSuffix(r.url, "/")+"$"
			case 2:
				r.regex, r.url = true, "^"+strings.TrimSuffix(r.url, "/")+"/?$"
			case 3:
				r.regex, r.url, r.target = true, "^"+strings.TrimSuffix(r.url, "/")+"/", r.target+"/"
			case 4:
				r.regex, r.url = true, "^"+strings.TrimSuffix(r.url, "/")+`/(\d+)$`
			case 5:
				r.action, r.code, r.target = "error", 410, ""
			case 6:
				r.action, r.code, r.target = "error", 404, ""
			case 7:
				r.enabled = false
			}
			if r.regex {
				r.query = "exact" // a regex sets flag_query exact (Red_Source_Flags::set_flags)
			}
			reds = append(reds, r)
		}
		file := wpWrite(rng, reds, asCSV)
		for i := range reds {
			reds[i].index = i
			if reds[i].regex {
				flags := "s"
				if reds[i].ignoreCase {
					flags += "i"
				}
				reds[i].re = regexp.MustCompile("(?" + flags + ")" + reds[i].url)
			}
		}
		res, err := Read(context.Background(), strings.NewReader(file.text), "wordpress", Options{Settings: wpDefaults})
		if err != nil {
			t.Fatalf("seed %d: %v\n%s", seed, err, file.text)
		}
		classes := classesOf(res)
		ms := rulemodel.Of(wpDefaults)
		for k := 0; k < 50; k++ {
			var p string
			if rng.IntN(4) == 0 {
				p = vcRandomPath(rng, 3)
			} else {
				r := reds[rng.IntN(len(reds))]
				p = strings.TrimSuffix(strings.TrimPrefix(strings.Split(r.url, "(")[0], "^"), "$")
				p = strings.TrimSuffix(p, "/?")
				switch rng.IntN(5) {
				case 0:
					p = strings.ToUpper(p)
				case 1:
					p = strings.TrimSuffix(p, "/") + "/x/y"
				case 2:
					p = strings.TrimSuffix(p, "/") + "/"
				case 3:
					p = strings.TrimSuffix(p, "/")
				}
				if p == "" {
					p = "/"
				}
			}
			if queryFile && rng.IntN(2) == 0 {
				p += "?q=1"
			}
			wd, ws, wi := wpModel(reds, p)
			got, ok := rulemodel.Lookup(res.Rules, ms, p)
			gotLine, wantLine := 0, 0
			if ok {
				gotLine = res.RuleLines[got.Rule]
			}
			if wi >= 0 {
				wantLine = file.lines[wi]
			}
			// A regex line's query goes along in $1; a plain exact-query
			// line was not asked with a query.
			if wantLine == 0 && gotLine == 0 {
				continue
			}
			asIs := func(l int) bool { return l == 0 || classes[l] == AsIs }
			if !asIs(wantLine) || !asIs(gotLine) {
				continue
			}
			compared++
			if ok != (wi >= 0) || ok && (got.Destination != wd || got.Status != ws) {
				t.Fatalf("seed %d request %q: imported %+v %v (line %d), the plugin %q %d (line %d)\n%s\n%+v", seed, p, got, ok, gotLine, wd, ws, wantLine, file.text, res.Lines)
			}
		}
	}
	if compared < 2000 {
		t.Errorf("only %d answers compared", compared)
	}
}

type wpWritten struct {
	text  string
	lines []int
}

// wpWrite writes reds as the plugin's JSON export (one redirect a line)
// or its CSV export.
func wpWrite(rng *rand.Rand, reds []wpModelRedirect, asCSV bool) wpWritten {
	var b strings.Builder
	var lines []int
	if asCSV {
		b.WriteString("source,target,regex,code,type,hits,title,status\n")
		for i, r := range reds {
			re, status := 0, "active"
			if r.regex {
				re = 1
			}
			if !r.enabled {
				status = "disabled"
			}
			fmt.Fprintf(&b, "%q,%q,%d,%d,%q,%d,%q,%q\n", r.url, r.target, re, r.code, r.action, rng.IntN(9), "t", status)
			lines = append(lines, i+2)
		}
		return wpWritten{b.String(), lines}
	}
	b.WriteString("{\n  \"plugin\": {\"version\": \"5.4.2\"},\n  \"groups\": [],\n  \"redirects\": [\n")
	for i, r := range reds {
		src := map[string]any{"flag_regex": r.regex}
		if !r.ignoreCase || rng.IntN(2) == 0 {
			src["flag_case"] = r.ignoreCase
		}
		if !r.ignoreSlash || rng.IntN(2) == 0 {
			src["flag_trailing"] = r.ignoreSlash
		}
		if r.query != "exact" || rng.IntN(2) == 0 {
			src["flag_query"] = r.query
		}
		e := map[string]any{
			"id": r.id, "url": r.url, "match_url": strings.ToLower(r.url), "match_data": map[string]any{"source": src},
			"action_code": r.code, "action_type": r.action, "action_data": map[string]any{"url": r.target},
			"match_type": "url", "regex": r.regex, "group_id": 1, "position": r.position, "enabled": r.enabled,
		}
		j, _ := json.Marshal(e)
		sep := ","
		if i == len(reds)-1 {
			sep = ""
		}
		fmt.Fprintf(&b, "    %s%s\n", j, sep)
		lines = append(lines, i+5)
	}
	b.WriteString("  ]\n}\n")
	return wpWritten{b.String(), lines}
}

// TestWordPressJSONOlderShapes: an empty PHP array for match_data, and
// an older export's action_data that is the URL itself (fileio/json.php's
// load takes both).
func TestWordPressJSONOlderShapes(t *testing.T) {
	in := `{"redirects": [
{"id": 1, "url": "/a", "match_data": [], "action_code": 301, "action_type": "url", "action_data": "/b", "match_type": "url", "regex": 0, "position": 0},
{"id": 2, "url": "/c", "match_data": {"source": {"flag_case": false}}, "action_code": "302", "action_type": "url", "action_data": {"url": "/d"}, "match_type": "url", "regex": 0, "position": 1},
{"id": 3, "url": "/e", "action_code": {"x": 1}, "action_type": "url", "action_data": {"url": "/f"}}
]}`
	_, err := Read(context.Background(), strings.NewReader(in), "wordpress", Options{Settings: wpDefaults})
	if be, ok := err.(*BadLinesError); !ok || len(be.Lines) != 1 || be.Lines[0].Line != 4 {
		t.Fatalf("err %v, want line 4 bad (action_code an object)", err)
	}
	in = strings.Replace(in, `,
{"id": 3, "url": "/e", "action_code": {"x": 1}, "action_type": "url", "action_data": {"url": "/f"}}`, "", 1)
	res, err := Read(context.Background(), strings.NewReader(in), "wordpress", Options{Settings: wpDefaults})
	if err != nil {
		t.Fatal(err)
	}
	wantClasses(t, res, map[int]Class{2: AsIs, 3: Changed})
	wantAnswers(t, res, wpDefaults, map[string]string{"/A/": "/b 301", "/c": "/d 302", "/C": "/d 302"})
}

// TestWordPressCSVShort: the plugin's CSV import takes lines of two
// columns (a regex when the source holds one of ()[]$^*: is_regex) and a
// regex column read as intval(...) === 1 (parse_regex).
func TestWordPressCSVShort(t *testing.T) {
	in := "/a,/b\n^/c/(.*)$,/d/$1\n/e(x),/f,0\n/g,/h,true\n"
	res, err := Read(context.Background(), strings.NewReader(in), "wordpress", Options{Settings: wpDefaults})
	if err != nil {
		t.Fatal(err)
	}
	wantClasses(t, res, map[int]Class{1: AsIs, 2: Changed, 3: AsIs, 4: AsIs})
	wantAnswers(t, res, wpDefaults, map[string]string{"/a": "/b 301", "/c/x": "/d/x 301", "/e(x)": "/f 301", "/g": "/h 301"})
}

// TestWordPressWrongFormat: a file of another format gets one message.
func TestWordPressWrongFormat(t *testing.T) {
	_, err := Read(context.Background(), strings.NewReader("/a /b 301\n/c /d 302\n/e /f\n"), "wordpress", Options{})
	be, ok := err.(*BadLinesError)
	if !ok || len(be.Lines) != 1 || !strings.Contains(be.Error(), "not a Redirection CSV export") {
		t.Errorf("err %v, want one message", err)
	}
}

// TestWordPressRegexRules: regex sources that are not literal shapes
// become regex rules: one ending in $ as it is, one that does not keeps
// the rest of the URL (path and query) after the target, as preg_replace
// does; flag_case is (?i).
func TestWordPressRegexRules(t *testing.T) {
	in := `[{"url": "^/p/([0-9]+)/(a|b)$", "action_data": {"url": "/q/$2/$1"}, "action_code": 301, "action_type": "url", "match_type": "url", "regex": true, "enabled": true, "position": 0, "match_data": {"source": {"flag_case": false, "flag_trailing": false, "flag_regex": true}}},
{"url": "^/docs/v[0-9]+", "action_data": {"url": "/docs/latest"}, "action_code": 302, "action_type": "url", "match_type": "url", "regex": true, "enabled": true, "position": 1, "match_data": {"source": {"flag_case": true, "flag_trailing": false, "flag_regex": true}}},
{"url": "^/x$|^/y$", "action_data": {"url": "/z"}, "action_code": 301, "action_type": "url", "match_type": "url", "regex": true, "enabled": true, "position": 2}]`
	in = `{"redirects": ` + in + `}`
	res, err := Read(context.Background(), strings.NewReader(in), "wordpress", Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ path, want string }{
		{"/p/12/b", "/q/b/12 301"}, {"/p/12/B", ""}, {"/p/12/b?k=1", "/q/b/12 301"},
		{"/docs/v2/intro?k=1", "/docs/latest/intro?k=1 302"}, {"/DOCS/V10", "/docs/latest 302"}, {"/docs/x", ""},
		{"/x", ""},
	} {
		a, ok := lookupImported(t, res, redirects.Settings{}, "", c.path)
		got := ""
		if ok {
			got = fmt.Sprintf("%s %d", a.target, a.status)
		}
		if got != c.want {
			t.Errorf("%s answers %q, want %q", c.path, got, c.want)
		}
	}
	if res.Skipped != 1 || !strings.Contains(res.Lines[len(res.Lines)-1].Notes[0], "alternation") {
		t.Errorf("want the alternation outside a group skipped: %+v", res.Lines)
	}
}
