package suggest

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"redirects"
)

// BenchmarkCandidatesLargest is one computation at the limits: 1,000
// missed paths (the most Suggest takes), 10,000 draft rules in 500
// folders, and a sitemap of 50,000 pages (the most it reads).
func BenchmarkCandidatesLargest(b *testing.B) {
	r := rand.New(rand.NewPCG(7, 8))
	var rules []redirects.Rule
	for i := 0; i < 10_000; i++ {
		s := randSlug(r)
		rules = append(rules, redirects.Rule{Source: fmt.Sprintf("/old%d/%s-%d.html", i%500, s, i), Destination: fmt.Sprintf("/new%d/%s-%d/", i%500, s, i), StatusCode: 301})
	}
	var pages []string
	for i := 0; i < 50_000; i++ {
		pages = append(pages, fmt.Sprintf("https://site.example/section%d/%s-%d/", i%700, randSlug(r), i))
	}
	var misses []redirects.Miss
	for i := 0; i < 1000; i++ {
		misses = append(misses, redirects.Miss{Path: fmt.Sprintf("/old%d/%s-x%d.html", i%600, randSlug(r), i), Count: int64(1000 - i)})
	}
	in := Input{Misses: misses, Rules: rules, Sitemap: pages, Hosts: []string{"site.example"}}
	b.ResetTimer()
	for b.Loop() {
		if c := Candidates(in); len(c) != len(misses) {
			b.Fatal(len(c))
		}
	}
}
