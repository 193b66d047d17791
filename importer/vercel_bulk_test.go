package importer

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"redirects"
	"redirects/internal/rulemodel"
)

// TestVercelBulkShapes reads the three file kinds of Vercel's bulk
// redirects as its docs give them
// (https://vercel.com/docs/routing/redirects/bulk-redirects: the fields
// source, destination, permanent (308/307, default false), statusCode
// (over permanent), caseSensitive (default false), query (default false);
// t and f for booleans in CSV; the getting-started example
// "source,destination,permanent / /old-blog,/blog,true ...").
func TestVercelBulkShapes(t *testing.T) {
	csvFile := "source,destination,permanent,statusCode,caseSensitive,query\n" +
		"/old-blog,/blog,true,,,\n" + // 2: 308
		"/old-about,/about,false,,,\n" + // 3: 307
		"/legacy-contact,https://example.com/contact,,301,,t\n" + // 4: 301, query passed on
		"/Pricing,/plans,t,,t,f\n" + // 5: case-sensitive, unlike the project: changed
		"/old-blog,/elsewhere,true,,,\n" + // 6: a repeat of line 2
		"/with space,/x,true,,,\n" // 7: our rules refuse it
	jsonFile := `[
  { "source": "/old-blog", "destination": "/blog", "permanent": true },
  { "source": "/old-about", "destination": "/about", "permanent": false },
  { "source": "/legacy-contact", "destination": "https://example.com/contact", "statusCode": 301, "query": true },
  { "source": "/Pricing", "destination": "/plans", "permanent": true, "caseSensitive": true }
]`
	jsonlFile := `{"source": "/old-blog", "destination": "/blog", "permanent": true}
{"source": "/old-about", "destination": "/about"}

{"source": "/legacy-contact", "destination": "https://example.com/contact", "statusCode": 301, "query": true}
{"source": "/Pricing", "destination": "/plans", "permanent": true, "caseSensitive": true}
`
	set := redirects.Settings{CaseInsensitive: true} // the platform's defaults
	answers := map[string]string{
		"/old-blog":           "/blog 308",
		"/OLD-BLOG":           "/blog 308", // case ignored
		"/old-blog/":          "",          // the whole path, exactly
		"/old-about":          "/about 307",
		"/legacy-contact?a=1": "https://example.com/contact?a=1 301",
		"/old-blog?a=1":       "/blog 308", // query false: not passed on
		"/Pricing":            "/plans 308",
	}
	for _, c := range []struct {
		name, file string
		want       map[int]Class
	}{
		{"csv", csvFile, map[int]Class{2: AsIs, 3: AsIs, 4: AsIs, 5: Changed, 6: Skipped, 7: Skipped}},
		{"json", jsonFile, map[int]Class{2: AsIs, 3: AsIs, 4: AsIs, 5: Changed}},
		{"jsonl", jsonlFile, map[int]Class{1: AsIs, 2: AsIs, 4: AsIs, 5: Changed}},
	} {
		t.Run(c.name, func(t *testing.T) {
			res, err := Read(context.Background(), strings.NewReader(c.file), "auto", Options{Settings: set})
			if err != nil {
				t.Fatal(err)
			}
			if res.Format != "vercel-bulk" {
				t.Fatalf("detected %s (%s)", res.Format, res.Detected)
			}
			wantClasses(t, res, c.want)
			wantAnswers(t, res, set, answers)
			if res.Suggest != nil {
				t.Errorf("suggestion %+v under the platform's settings", res.Suggest)
			}
		})
	}
	// Under the project's default (case-sensitive) settings, the
	// suggestion names caseSensitive false: the lines that keep Vercel's
	// default differ as it says, not one by one; the line that sets
	// caseSensitive answers as the project does.
	res, err := Read(context.Background(), strings.NewReader(jsonFile), "vercel-bulk", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if s := res.Suggest; s == nil || s.CaseSensitive || !strings.Contains(s.Why, "ignore case") || !strings.Contains(s.Why, "--case-sensitive=false") {
		t.Errorf("suggestion %+v", res.Suggest)
	}
	wantClasses(t, res, map[int]Class{2: AsIs, 3: AsIs, 4: AsIs, 5: AsIs})
}

// TestVercelBulkBad: broken lines are refused with their line numbers.
func TestVercelBulkBad(t *testing.T) {
	for _, c := range []struct {
		file  string
		lines string
	}{
		{"source,destination,permanent\n/a,/b,yes\n/c,/d,true\n,/e,true\n/f,/g,true,extra\n", "2 4 5"},
		{"source,destination,statusCode\n/a,/b,404\n/c,/d,abc\n", "2 3"},
		{"source,target\n/a,/b\n", "1"},
		{"{\"source\": \"/a\", \"destination\": \"/b\"}\n{\"source\": \"/c\"}\n{\"source\": \"/d\", \"destination\": \"/e\", \"foo\": 1}\n{broken\n", "2 3 4"},
		{"[\n  {\"source\": \"/a\", \"destination\": \"/b\"},\n  {\"source\": \"a\", \"destination\": \"/b\"},\n  {\"source\": \"/c\", \"destination\": \"/d\", \"permanent\": \"yes\"}\n]\n", "3 4"},
	} {
		_, err := Read(context.Background(), strings.NewReader(c.file), "vercel-bulk", Options{})
		be, ok := err.(*BadLinesError)
		if !ok {
			t.Errorf("%q: err %v, want bad lines %s", c.file, err, c.lines)
			continue
		}
		var got []int
		for _, l := range be.Lines {
			got = append(got, l.Line)
		}
		if itoaList(got) != c.lines {
			t.Errorf("%q: bad lines %v, want %s: %v", c.file, got, c.lines, err)
		}
	}
}

// TestVercelBulkDetect: our own CSV (it has matchType) is never taken
// for a bulk redirects file, nor a bulk file for ours.
func TestVercelBulkDetect(t *testing.T) {
	for head, want := range map[string]string{
		"source,destination,statusCode,matchType,priority,preservePath,preserveQuery\n/a,/b,301,exact,,,\n": "csv",
		"source,destination,permanent,statusCode\n/a,/b,true,\n":                                            "vercel-bulk",
		"source,destination,statusCode\n/a,/b,301\n":                                                        "vercel-bulk",
		`{"source":"/a","destination":"/b","query":true}` + "\n":                                            "vercel-bulk",
	} {
		f, why := Detect([]byte(head), "")
		if f == nil || f.Name != want {
			t.Errorf("%q: detected %v (%s), want %s", head, f, why, want)
		}
	}
}

// vcBulkModel answers a path as Vercel's docs say bulk redirects do: the
// redirect whose source equals the path (without its query), letters in
// either case unless caseSensitive; the destination, with the request's
// query after it when query is true.
func vcBulkModel(entries []map[string]any, wire string) (string, int, int) {
	p, q, hasQ := strings.Cut(wire, "?")
	for i, e := range entries {
		src := e["source"].(string)
		cs, _ := e["caseSensitive"].(bool)
		if src != p && (cs || !strings.EqualFold(src, p)) {
			continue
		}
		status := 307
		if perm, _ := e["permanent"].(bool); perm {
			status = 308
		}
		if sc, ok := e["statusCode"].(int); ok {
			status = sc
		}
		d := e["destination"].(string)
		if qq, _ := e["query"].(bool); qq && hasQ {
			sep := "?"
			if strings.Contains(d, "?") {
				sep = "&"
			}
			d += sep + q
		}
		return d, status, i
	}
	return "", 0, -1
}

// TestVercelBulkProperty: random bulk redirect files, written in CSV,
// JSON or JSONL by a writer of the test, imported under the platform's
// settings, answer every path as the docs' model does, on every line the
// report calls as is; a line noted for its caseSensitive answers so for
// its own spelling.
func TestVercelBulkProperty(t *testing.T) {
	compared := map[bool]int{}
	for seed := uint64(0); seed < 300; seed++ {
		rng := rand.New(rand.NewPCG(seed, 22))
		set := redirects.Settings{CaseInsensitive: true}
		var entries []map[string]any
		seen := map[string]bool{}
		for i := 0; i < 1+rng.IntN(15); i++ {
			src := vcRandomPath(rng, 3)
			if rng.IntN(5) == 0 {
				src += "/"
			}
			if seen[strings.ToLower(src)] {
				continue
			}
			seen[strings.ToLower(src)] = true
			e := map[string]any{"source": src, "destination": fmt.Sprintf("/d%d", i)}
			if rng.IntN(3) == 0 {
				e["destination"] = fmt.Sprintf("https://ex.com/d%d?k=%d", i, i)
			}
			if rng.IntN(2) == 0 {
				e["permanent"] = rng.IntN(2) == 0
			}
			if rng.IntN(3) == 0 {
				e["statusCode"] = []int{301, 302, 303, 307, 308}[rng.IntN(5)]
			}
			if rng.IntN(3) == 0 {
				e["caseSensitive"] = rng.IntN(2) == 0
			}
			if rng.IntN(2) == 0 {
				e["query"] = rng.IntN(2) == 0
			}
			entries = append(entries, e)
		}
		file, lines := vcBulkWrite(rng, entries)
		res, err := Read(context.Background(), strings.NewReader(file), "vercel-bulk", Options{Settings: set})
		if err != nil {
			t.Fatalf("seed %d: %v\n%s", seed, err, file)
		}
		classes := classesOf(res)
		ms := rulemodel.Of(set)
		for k := 0; k < 40; k++ {
			e := entries[rng.IntN(len(entries))]
			p := e["source"].(string)
			switch rng.IntN(4) {
			case 0:
				p = strings.ToUpper(p)
			case 1:
				p = strings.TrimSuffix(p, "/") + "/x"
			case 2:
				p = vcRandomPath(rng, 3)
			}
			if rng.IntN(3) == 0 {
				p += "?q=1&r"
			}
			wd, ws, wi := vcBulkModel(entries, p)
			got, ok := rulemodel.Lookup(res.Rules, ms, p)
			gotLine := 0
			if ok {
				gotLine = res.RuleLines[got.Rule]
			}
			wantLine := 0
			if wi >= 0 {
				wantLine = lines[wi]
			}
			exact := wi >= 0 && entries[wi]["source"] == strings.Split(p, "?")[0]
			check := (wantLine != 0 && (classes[wantLine] == AsIs || exact)) || (gotLine != 0 && classes[gotLine] == AsIs)
			if !check {
				continue
			}
			compared[ok]++
			if ok != (wi >= 0) || ok && (got.Destination != wd || got.Status != ws) {
				t.Fatalf("seed %d path %q: imported %+v %v (line %d), Vercel %q %d (line %d)\n%s\n%+v", seed, p, got, ok, gotLine, wd, ws, wantLine, file, res.Lines)
			}
		}
	}
	if compared[true] < 2000 {
		t.Errorf("too few answers compared: %v", compared)
	}
}

// vcBulkWrite writes entries as one of the three kinds of bulk files and
// returns the line of each.
func vcBulkWrite(rng *rand.Rand, entries []map[string]any) (string, []int) {
	var b strings.Builder
	var lines []int
	boolCSV := func(v any) string {
		x, ok := v.(bool)
		if !ok {
			return ""
		}
		if rng.IntN(2) == 0 {
			return map[bool]string{true: "t", false: "f"}[x]
		}
		return fmt.Sprint(x)
	}
	switch rng.IntN(3) {
	case 0:
		b.WriteString("source,destination,permanent,statusCode,caseSensitive,query\n")
		for i, e := range entries {
			sc := ""
			if v, ok := e["statusCode"]; ok {
				sc = fmt.Sprint(v)
			}
			fmt.Fprintf(&b, "%s,%s,%s,%s,%s,%s\n", e["source"], e["destination"], boolCSV(e["permanent"]), sc, boolCSV(e["caseSensitive"]), boolCSV(e["query"]))
			lines = append(lines, i+2)
		}
	case 1:
		b.WriteString("[\n")
		for i, e := range entries {
			j, _ := json.Marshal(e)
			sep := ","
			if i == len(entries)-1 {
				sep = ""
			}
			fmt.Fprintf(&b, "  %s%s\n", j, sep)
			lines = append(lines, i+2)
		}
		b.WriteString("]\n")
	default:
		for i, e := range entries {
			j, _ := json.Marshal(e)
			fmt.Fprintf(&b, "%s\n", j)
			lines = append(lines, i+1)
		}
	}
	return b.String(), lines
}
