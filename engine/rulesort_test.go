package engine_test

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
	"time"

	"redirects"
	"redirects/engine"
	"redirects/internal/rulegen"
)

// TestSortRules holds SortRules, whose radix and key sorts are built for
// speed, against a plain stable sort by CompareRules, on shuffled generated
// rules and on rules made to trip the sorts: sources sharing long leading
// parts, lengths around the 8- and 16-byte digits, bytes above 0x7f, tied
// priorities, lengths and creation times, repeated rules. Input in order
// already must stay as it is.
func TestSortRules(t *testing.T) {
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	var tricky []redirects.Rule
	stems := []string{"/", "/a", "/abcdefg", "/abcdefgh", "/abcdefghijklmno", "/abcdefghijklmnop", "/abcdefghijklmnopq",
		"/shop/index.php/catalog/product/view/id/", "/é", "/\u00ff", "/~", "/A"}
	for i, a := range stems {
		for j, b := range []string{"", "x", "é", "0123456789abcdef", "/"} {
			for k, mt := range []redirects.MatchType{redirects.Exact, redirects.StartsWith} {
				n := len(tricky)
				tricky = append(tricky, redirects.Rule{
					ID: int64(1000 - n), Source: a + b, Destination: "/d" + strconv.Itoa(n), StatusCode: 301, MatchType: mt,
					Priority: []int{100, 0, 100}[(i+j+k)%3], CreatedAt: t0.Add(time.Duration((i*j)%3) * time.Second),
				})
			}
		}
	}
	tricky = append(tricky, tricky[:7]...) // identical rules
	rng := rand.New(rand.NewPCG(1, 2))
	generated := rulegen.Rules(30_000, 0.3, 3)
	rng.Shuffle(len(generated), func(i, j int) { generated[i], generated[j] = generated[j], generated[i] })
	for n, rules := range [][]redirects.Rule{tricky, generated} {
		want := slices.Clone(rules)
		slices.SortStableFunc(want, func(a, b redirects.Rule) int { return engine.CompareRules(&a, &b) })
		got := slices.Clone(rules)
		engine.SortRules(got)
		if !slices.EqualFunc(got, want, func(a, b redirects.Rule) bool { return a.Equal(&b) }) {
			t.Fatalf("set %d: SortRules differs from a stable sort by CompareRules", n)
		}
		again := slices.Clone(got)
		engine.SortRules(again)
		if !slices.EqualFunc(again, want, func(a, b redirects.Rule) bool { return a.Equal(&b) }) {
			t.Fatalf("set %d: SortRules changed rules that were in order", n)
		}
		exact, prefix := engine.SortOrder(rules)
		if len(exact)+len(prefix) != len(rules) {
			t.Fatalf("set %d: SortOrder returned %d+%d positions for %d rules", n, len(exact), len(prefix), len(rules))
		}
		for i, p := range append(exact, prefix...) {
			if !rules[p].Equal(&want[i]) {
				t.Fatalf("set %d: SortOrder puts rule %d at %d, want %+v", n, p, i, want[i])
			}
		}
	}
}
