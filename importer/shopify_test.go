package importer

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"redirects"
	"redirects/internal/rulemodel"
)

// TestShopifyShapes reads a Shopify URL redirects CSV with the shapes of
// Shopify's help page "URL redirects" (help.shopify.com/en/manual/
// online-store/menus-and-links/url-redirect: the Redirect from and
// Redirect to columns, relative and absolute targets, the prefixes it never
// redirects) and of its import's documented clean-up (a full URL in
// Redirect from keeps its path; a path without '/' gets one).
func TestShopifyShapes(t *testing.T) {
	in := strings.Join([]string{
		"Redirect from,Redirect to",                 // 1
		"/old-product,/products/new-product",        // 2
		"/pages/About-Us,https://example.com/about", // 3
		"https://shop.example.com/legacy,/new",      // 4 full URL on the project's host
		"https://other.example/x,/y",                // 5 another host
		"/blog?page=2,/blogs/news",                  // 6 query
		"/cart/old,/cart",                           // 7 reserved prefix
		"no-slash,products/x",                       // 8 slash added
		"/old-product/,/again",                      // 9 repeats line 2 (slash ignored)
		"/SHOPPING,/s",                              // 10 not under /shop
		"",                                          // 11
		`"/with,comma",/c`,                          // 12
	}, "\n") + "\n"
	o := Options{Settings: redirects.Settings{CaseInsensitive: true, IgnoreTrailingSlash: true}, Hosts: []string{"shop.example.com"}}
	res, err := Read(context.Background(), strings.NewReader(in), "shopify", o)
	if err != nil {
		t.Fatal(err)
	}
	wantLineClasses(t, res, map[int]Class{2: AsIs, 3: AsIs, 4: AsIs, 5: Skipped, 6: Skipped, 7: Skipped, 8: AsIs, 9: Skipped, 10: AsIs, 12: AsIs},
		map[int]string{5: "not one of the project's hosts", 6: "query", 7: "never redirects paths under /cart", 9: "line 2"})
	wantRuleAnswers(t, res, o.Settings, map[string]string{
		"/old-product":        "/products/new-product 301",
		"/OLD-PRODUCT/?utm=1": "/products/new-product 301",
		"/pages/about-us":     "https://example.com/about 301",
		"/legacy":             "/new 301",
		"/no-slash":           "/products/x 301",
		"/shopping":           "/s 301",
		"/blog":               "",
	})
	if res.Suggest != nil {
		t.Errorf("suggestion %+v under Shopify's own settings", res.Suggest)
	}
	res, err = Read(context.Background(), strings.NewReader("Redirect from,Redirect to\n/a,/b\n"), "auto", Options{})
	if err != nil || res.Format != "shopify" || res.Suggest == nil || res.Suggest.CaseSensitive || res.Suggest.TrailingSlash != "ignore" {
		t.Fatalf("auto: %+v %v: want shopify with a suggestion of caseSensitive=false trailingSlash=ignore", res, err)
	}
}

func TestShopifyBadLines(t *testing.T) {
	_, err := Read(context.Background(), strings.NewReader("Redirect from,Redirect to\n/a,\n,/b\n/c,/d\n/e\n"), "shopify", Options{})
	be, ok := err.(*BadLinesError)
	if !ok || len(be.Lines) != 3 || be.Lines[0].Line != 2 || be.Lines[1].Line != 3 || be.Lines[2].Line != 5 {
		t.Fatalf("err %v, want lines 2, 3 and 5", err)
	}
	_, err = Read(context.Background(), strings.NewReader("from,to\n/a,/b\n"), "shopify", Options{})
	if be, ok := err.(*BadLinesError); !ok || be.Lines[0].Line != 1 {
		t.Fatalf("err %v, want the header refused", err)
	}
}

// TestShopifyPropertyModel: random Shopify CSVs written by the test's own
// writer import into rules that answer as the model of Shopify's matching
// (one exact path per row, letters' case and a trailing slash ignored, the
// target answered as stored) does, except on the rows the report names.
func TestShopifyPropertyModel(t *testing.T) {
	asserted := 0
	set := redirects.Settings{CaseInsensitive: true, IgnoreTrailingSlash: true}
	key := func(p string) string {
		if len(p) > 1 {
			p = strings.TrimSuffix(p, "/")
		}
		// ASCII letters only: how Shopify folds other letters is not
		// documented, and the paths compared keep them as they are.
		return strings.Map(func(r rune) rune {
			if 'A' <= r && r <= 'Z' {
				return r + 32
			}
			return r
		}, p)
	}
	for seed := uint64(0); seed < 300; seed++ {
		rng := rand.New(rand.NewPCG(seed, 41))
		var b strings.Builder
		b.WriteString("Redirect from,Redirect to\n")
		type row struct {
			line     int
			from, to string
		}
		var rows []row
		byKey := map[string]int{}
		for k := 2 + rng.IntN(15); k > 0; k-- {
			from := randomNetlifyPath(rng)
			if rng.IntN(8) == 0 {
				from = "/cart" + from
			}
			to := cfTargets[rng.IntN(len(cfTargets))]
			line := len(rows) + 2
			fmt.Fprintf(&b, "%s,%s\n", rulemodel.Escape(from, false), to)
			rows = append(rows, row{line, from, to})
			if _, dup := byKey[key(from)]; !dup {
				byKey[key(from)] = len(rows) - 1
			}
		}
		res, err := Read(context.Background(), strings.NewReader(b.String()), "shopify", Options{Settings: set})
		if err != nil {
			t.Fatalf("seed %d: %v\n%s", seed, err, b.String())
		}
		classes := classesByLine(res)
		var pseudo []redirects.Rule
		for _, r := range rows {
			pseudo = append(pseudo, redirects.Rule{Source: r.from})
			// Each row's class by its shape: under /cart, or a repeated
			// path, skipped; the rest as is.
			want := AsIs
			if strings.HasPrefix(r.from, "/cart/") || rows[byKey[key(r.from)]].line != r.line {
				want = Skipped
			}
			if classes[r.line] != want {
				t.Fatalf("seed %d: line %d is %q, want %q\n%s", seed, r.line, classes[r.line], want, b.String())
			}
		}
		for _, p := range rulemodel.Paths(rng, pseudo, 60) {
			end := strings.IndexAny(p, "?#")
			if end < 0 {
				end = len(p)
			}
			dp, ok := decodeWire(p[:end])
			i, found := byKey[key(dp)]
			got, gok := rulemodel.Lookup(res.Rules, rulemodel.Of(set), p)
			if !ok || !found || strings.HasPrefix(rows[i].from, "/cart/") {
				if gok {
					t.Fatalf("seed %d: %q answers %+v, Shopify answers nothing\n%s", seed, p, got, b.String())
				}
				continue
			}
			want := rows[i].to // the target as stored, the request's query dropped
			asserted++
			if classes[rows[i].line] != AsIs || !gok || got.Destination != want || got.Status != 301 {
				t.Fatalf("seed %d: %q answers %q (%v, line %d %s), Shopify answers %q\n%s", seed, p, got.Destination, gok, rows[i].line, classes[rows[i].line], want, b.String())
			}
		}
	}
	if asserted < 3000 {
		t.Errorf("only %d answers compared", asserted)
	}
}
