package importer

import (
	"bytes"
	"context"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"

	"redirects"
	"redirects/internal/rulemodel"
)

// TestVercelWriterProperty: random drafts (every option and status,
// random settings), written with the vercel writer and run through
// Vercel's own route compiler, answer every path as the draft does here,
// except where a rule the writer reported unexpressed could match it (a
// dropped rule, other spellings under case-insensitivity; the query only
// for a path with one).
func TestVercelWriterProperty(t *testing.T) {
	type draft struct {
		set   redirects.Settings
		rules []redirects.Rule
		un    []Unexpressed
	}
	var (
		drafts []draft
		cases  []vercelCase
	)
	w := LookupWriter("vercel")
	for seed := uint64(0); seed < 300; seed++ {
		rng := rand.New(rand.NewPCG(seed, 24))
		set, rules := rulemodel.Project(rng, 14)
		merge := seed%2 == 1
		if merge {
			// Draws of its own, so that the other drafts stay as they were.
			rulemodel.WithMergeQuery(rand.New(rand.NewPCG(seed, 25)), rules)
		}
		var b bytes.Buffer
		un, err := w.Write(&b, rules, set, nil)
		if err != nil {
			t.Fatal(err)
		}
		var cfg map[string]any
		if err := json.Unmarshal(b.Bytes(), &cfg); err != nil {
			t.Fatalf("seed %d: the writer wrote invalid JSON: %v\n%s", seed, err, b.String())
		}
		var paths []string
		all := rulemodel.Paths(rng, rules, 80)
		if merge {
			all = append(all, rulemodel.MergePaths(rand.New(rand.NewPCG(seed, 26)), rules, 40)...)
		}
		for _, p := range all {
			// Vercel matches the path as the client sent it: escaped
			// spellings and bytes past ASCII are left out (docs/migrate.md).
			if strings.ContainsAny(p, "%#") || strings.IndexFunc(p, func(r rune) bool { return r >= 0x80 }) >= 0 {
				continue
			}
			paths = append(paths, p)
		}
		drafts = append(drafts, draft{set, rules, un})
		cases = append(cases, vercelCase{Config: cfg, Paths: paths})
	}
	ref := vercelRef(t, cases)
	compared, merged := 0, 0
	for i, d := range drafts {
		ms := rulemodel.Of(d.set)
		relaxed := rulemodel.Settings{CaseInsensitive: true, IgnoreTrailingSlash: true}
		unOf := map[int64][]Unexpressed{}
		for _, u := range d.un {
			unOf[u.RuleID] = append(unOf[u.RuleID], u)
		}
		for k, p := range cases[i].Paths {
			hasQuery := strings.Contains(p, "?")
			exempt := false
			for j := range d.rules {
				if _, ok := rulemodel.Lookup(d.rules[j:j+1], relaxed, p); !ok {
					continue
				}
				for _, u := range unOf[d.rules[j].ID] {
					if hasQuery || !strings.Contains(u.Reason, "query") {
						exempt = true
					}
				}
			}
			if exempt {
				continue
			}
			want := ref[i][k]
			got, ok := rulemodel.Lookup(d.rules, ms, p)
			compared++
			if ok && hasQuery && d.rules[got.Rule].MergeQuery {
				merged++
			}
			if ok != (want.Redirect >= 0) || ok && (got.Destination != want.Location || got.Status != want.Status) {
				var b bytes.Buffer
				w.Write(&b, d.rules, d.set, nil)
				t.Fatalf("draft %d (%s) path %q: here %+v %v, Vercel %+v\nunexpressed %+v\n%s", i, d.set, p, got, ok, want, d.un, b.String())
			}
		}
	}
	if compared < 1500 {
		t.Errorf("only %d answers compared", compared)
	}
	if merged < 50 {
		t.Errorf("only %d answers of a mergeQuery rule to a request with a query compared", merged)
	}
}

// TestVercelWriterShapes: what the writer writes for each shape, and
// what it reports, read back by the vercel reader.
func TestVercelWriterShapes(t *testing.T) {
	rules := []redirects.Rule{
		{ID: 1, Source: "/docs/", Destination: "/guide/", MatchType: redirects.StartsWith, StatusCode: 308, Priority: 100, PreservePath: true, PreserveQuery: true},
		{ID: 2, Source: "/old", Destination: "/new", MatchType: redirects.Exact, StatusCode: 301, PreserveQuery: true},
		{ID: 3, Source: "/gone", MatchType: redirects.Exact, StatusCode: 410},
		{ID: 4, Source: "/a:b(c)", Destination: "https://ex.com", MatchType: redirects.Exact, StatusCode: 307, PreserveQuery: true},
		{ID: 5, Source: "/d", Destination: "/e", MatchType: redirects.Exact, StatusCode: 302},
	}
	var b bytes.Buffer
	un, err := LookupWriter("vercel").Write(&b, rules, redirects.Settings{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := `{
  "redirects": [
    {"source":"/old","destination":"/new","statusCode":301},
    {"source":"/a\\:b\\(c\\)","destination":"https://ex.com","permanent":false},
    {"source":"/d","destination":"/e","statusCode":302},
    {"source":"/docs/(.*)","destination":"/guide/$1","permanent":true}
  ]
}
`
	if b.String() != want {
		t.Errorf("wrote\n%s\nwant\n%s", b.String(), want)
	}
	if len(un) != 2 || un[0].RuleID != 3 || !un[0].Dropped || un[1].RuleID != 5 || un[1].Dropped {
		t.Errorf("unexpressed %+v, want rule 3 dropped (410) and rule 5's query", un)
	}
	// Read back, the file gives the draft's rules (the 410 aside).
	res, err := Read(context.Background(), &b, "vercel", Options{})
	if err != nil {
		t.Fatal(err)
	}
	wantAnswers(t, res, redirects.Settings{}, map[string]string{
		"/old": "/new 301", "/a:b(c)": "https://ex.com 307", "/docs/x?y": "/guide/x?y 308", "/gone": "",
	})
}
