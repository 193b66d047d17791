package importer

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// TestPrefixSet: each finds every recorded prefix of a string, shortest
// first, with the line that recorded it first, as a naive check of every
// length does.
func TestPrefixSet(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	word := func() string {
		var b strings.Builder
		for n := rng.IntN(8); n >= 0; n-- {
			b.WriteByte("ab/"[rng.IntN(3)])
		}
		return b.String()
	}
	for round := 0; round < 200; round++ {
		set, naive := newPrefixSet(), map[string]int{}
		for line := 1; line <= 20; line++ {
			w := word()
			set.add(w, line)
			if _, ok := naive[w]; !ok {
				naive[w] = line
			}
		}
		for i := 0; i < 20; i++ {
			s := word() + word()
			var want, got []int
			for n := 0; n <= len(s); n++ {
				if l, ok := naive[s[:n]]; ok {
					want = append(want, l)
				}
			}
			set.each(s, func(l int) bool { got = append(got, l); return true })
			if len(got) != len(want) {
				t.Fatalf("prefixes of %q: lines %v, want %v", s, got, want)
			}
			for k := range got {
				if got[k] != want[k] {
					t.Fatalf("prefixes of %q: lines %v, want %v", s, got, want)
				}
			}
		}
	}
}
