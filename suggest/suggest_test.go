package suggest

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"redirects"
)

var words = []string{"alpha", "beta", "gamma", "delta", "intro", "guide", "api", "config", "install", "faq", "team", "blog", "news", "docs", "start"}

func randSlug(r *rand.Rand) string {
	n := 1 + r.IntN(3)
	parts := make([]string, n)
	for i := range parts {
		parts[i] = words[r.IntN(len(words))]
	}
	return strings.Join(parts, "-")
}

// variantModel is heuristic (a) as docs/suggest.md states it, brute force:
// every exact rule (on the miss's host or none) whose source differs from
// the missed path but equals it once both are lower-cased and lose a
// trailing slash proposes its own destination.
func variantModel(m redirects.Miss, rules []redirects.Rule) []string {
	norm := func(s string) string {
		s = strings.ToLower(s)
		if len(s) > 1 {
			s = strings.TrimSuffix(s, "/")
		}
		return s
	}
	var out []string
	for _, r := range rules {
		if r.MatchType == redirects.Exact && r.Source != m.Path && norm(r.Source) == norm(m.Path) && (r.Host == "" || strings.EqualFold(r.Host, m.Host)) {
			out = append(out, r.Destination)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func mangle(r *rand.Rand, p string) string {
	switch r.IntN(4) {
	case 0:
		return strings.ToUpper(p[:2]) + p[2:]
	case 1:
		if strings.HasSuffix(p, "/") {
			return strings.TrimSuffix(p, "/")
		}
		return p + "/"
	case 2:
		return strings.ToUpper(p) + "/"
	}
	return p
}

// TestVariantsModel: on random drafts and misses, the case and
// trailing-slash candidates are exactly the model's, with the kind and
// setting the difference calls for.
func TestVariantsModel(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for iter := 0; iter < 500; iter++ {
		var rules []redirects.Rule
		seen := map[string]bool{}
		for i := 0; i < 1+r.IntN(8); i++ {
			src := "/" + randSlug(r)
			if r.IntN(2) == 0 {
				src += "/"
			}
			if r.IntN(4) == 0 {
				src = strings.ToUpper(src)
			}
			if seen[src] {
				continue
			}
			seen[src] = true
			rules = append(rules, redirects.Rule{Source: src, Destination: fmt.Sprintf("/d%d", i), StatusCode: 301, MatchType: redirects.Exact})
		}
		var misses []redirects.Miss
		for i := 0; i < 5; i++ {
			misses = append(misses, redirects.Miss{Path: mangle(r, rules[r.IntN(len(rules))].Source), Count: 1})
		}
		cands := Candidates(Input{Misses: misses, Rules: rules})
		for i, m := range misses {
			var got []string
			for _, c := range cands[i] {
				if c.Kind == redirects.SuggestCase || c.Kind == redirects.SuggestSlash {
					got = append(got, c.Destination)
					src := c.Evidence
					wantSetting := ""
					caseDiff := !strings.EqualFold(src, m.Path) && strings.TrimSuffix(src, "/") != strings.TrimSuffix(m.Path, "/")
					slashDiff := strings.HasSuffix(src, "/") != strings.HasSuffix(m.Path, "/")
					switch {
					case slashDiff && caseDiff:
						wantSetting = "caseInsensitive,ignoreTrailingSlash"
					case slashDiff:
						wantSetting = "ignoreTrailingSlash"
					default:
						wantSetting = "caseInsensitive"
					}
					if c.Setting != wantSetting || c.Confidence != confExactVariant {
						t.Fatalf("miss %q, rule %q: setting %q confidence %d; want %q, %d", m.Path, src, c.Setting, c.Confidence, wantSetting, confExactVariant)
					}
				}
			}
			slices.Sort(got)
			if want := variantModel(m, rules); !slices.Equal(got, want) {
				t.Fatalf("miss %q over %v: variants %v, model %v", m.Path, rules, got, want)
			}
		}
	}
}

// TestPrefixModel: a folder whose rules all rewrite paths the same way
// (old folder, extension; new folder, suffix), a random half of them in
// the draft: every missed path of the other half gets the model's
// rewrite first, with 2 or more agreeing rules.
func TestPrefixModel(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for iter := 0; iter < 300; iter++ {
		oldDir := "/" + words[r.IntN(len(words))] + "/v" + fmt.Sprint(r.IntN(3)) + "/"
		newDir := []string{"/guide/", "https://v2.example.org/docs/", "/en/latest/"}[r.IntN(3)]
		ext := []string{".html", "", "/"}[r.IntN(3)]
		suffix := []string{"", "/", ".html"}[r.IntN(3)]
		slugs := map[string]bool{}
		for len(slugs) < 6 {
			slugs[randSlug(r)] = true
		}
		var rules []redirects.Rule
		var held []string
		k := 0
		for _, s := range slices.Sorted(func(yield func(string) bool) {
			for s := range slugs {
				if !yield(s) {
					return
				}
			}
		}) {
			if k%2 == 0 {
				rules = append(rules, redirects.Rule{Source: oldDir + s + ext, Destination: newDir + s + suffix, StatusCode: 308, MatchType: redirects.Exact})
			} else {
				held = append(held, s)
			}
			k++
		}
		// Noise: a rule elsewhere that follows no pattern.
		rules = append(rules, redirects.Rule{Source: "/elsewhere/x", Destination: "/y", StatusCode: 302, MatchType: redirects.Exact})
		var misses []redirects.Miss
		for _, s := range held {
			misses = append(misses, redirects.Miss{Path: oldDir + s + ext, Count: 3})
		}
		cands := Candidates(Input{Misses: misses, Rules: rules})
		for i, s := range held {
			want := newDir + s + suffix
			if len(cands[i]) == 0 || cands[i][0].Destination != want || cands[i][0].Kind != redirects.SuggestPrefix || cands[i][0].StatusCode != 308 {
				t.Fatalf("miss %q with rules %v: candidates %+v; want %s (prefix, 308) first", misses[i].Path, rules, cands[i], want)
			}
		}
	}
}

// TestSitemapModel: pages of random slugs in folders; a missed path with
// a page's slug under another folder and extension gets that page first,
// and a path sharing no word with any page gets none.
func TestSitemapModel(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for iter := 0; iter < 200; iter++ {
		slugs := map[string]bool{}
		for len(slugs) < 20 {
			slugs[randSlug(r)] = true
		}
		var pages []string
		var list []string
		for s := range slugs {
			list = append(list, s)
		}
		slices.Sort(list)
		for i, s := range list {
			pages = append(pages, fmt.Sprintf("https://new.example.com/section%d/%s/", i%3, s))
		}
		pick := list[r.IntN(len(list))]
		misses := []redirects.Miss{
			{Path: "/old/" + pick + ".html", Count: 2},
			{Path: "/zzz/qqq-xxx", Count: 1},
		}
		cands := Candidates(Input{Misses: misses, Sitemap: pages, Hosts: []string{"new.example.com"}})
		got := cands[0]
		if len(got) == 0 || !strings.HasSuffix(got[0].Destination, "/"+pick+"/") || got[0].Kind != redirects.SuggestSitemap {
			t.Fatalf("miss %s over %v: %+v; want the page of %s first", misses[0].Path, pages, got, pick)
		}
		if !strings.HasPrefix(got[0].Destination, "/section") {
			t.Fatalf("a page on the project's host must become a path: %q", got[0].Destination)
		}
		if len(cands[1]) != 0 {
			t.Fatalf("a path sharing no word with any page got %+v", cands[1])
		}
	}
}

// TestScore holds the scoring's stated properties: 1 for the same slug
// and words, a fragment as the slug, 0 with no word in common.
func TestScore(t *testing.T) {
	if s := Score("/docs/install.html", "https://x.org/docs/install/"); s < 0.999 {
		t.Errorf("same words: %v, want 1", s)
	}
	if a, b := Score("/v2/examples/svg.html", "https://x.org/examples/#svg"), Score("/v2/examples/svg.html", "https://x.org/examples/#grid"); a <= b || a < 0.8 {
		t.Errorf("the fragment is the slug: %v for #svg, %v for #grid", a, b)
	}
	if s := Score("/a/b", "https://x.org/c/d"); s > 0.2 {
		t.Errorf("nothing in common: %v", s)
	}
	if d := levenshtein("kitten", "sitting"); d != 3 {
		t.Errorf("levenshtein(kitten, sitting) = %d", d)
	}
}

// TestSitemapBoost: a folder rewrite whose destination the sitemap lists
// gains the boost and says so.
func TestSitemapBoost(t *testing.T) {
	rules := []redirects.Rule{
		{Source: "/old/a.html", Destination: "/new/a", StatusCode: 301},
		{Source: "/old/b.html", Destination: "/new/b", StatusCode: 301},
	}
	m := []redirects.Miss{{Path: "/old/c.html", Count: 1}}
	plain := Candidates(Input{Misses: m, Rules: rules})[0][0]
	boosted := Candidates(Input{Misses: m, Rules: rules, Sitemap: []string{"https://site.example/new/c"}, Hosts: []string{"site.example"}})[0][0]
	if boosted.Destination != "/new/c" || boosted.Confidence != min(99, plain.Confidence+sitemapBoost) || !strings.Contains(boosted.Reason, "sitemap lists") {
		t.Errorf("plain %+v, boosted %+v", plain, boosted)
	}
}
