package export

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"redirects"
)

// TestSeenRulesAsMap holds seenRules to a map of the keys, with hashes cut
// to a few bits so that keys share them.
func TestSeenRulesAsMap(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var keys []redirects.RuleKey
		s := newSeenRules(func(i int32) redirects.RuleKey { return keys[i] })
		s.mask = rapid.SampledFrom([]uint64{0, 1, 7, ^uint64(0)}).Draw(t, "mask")
		model := map[redirects.RuleKey]int32{}
		for range rapid.IntRange(0, 200).Draw(t, "n") {
			k := redirects.RuleKey{
				MatchType: rapid.SampledFrom([]redirects.MatchType{redirects.Exact, redirects.StartsWith, redirects.Regex}).Draw(t, "match"),
				Host:      rapid.SampledFrom([]string{"", "a.example", "b.example"}).Draw(t, "host"),
				Source:    rapid.StringMatching(`/[ab]{0,3}`).Draw(t, "source"),
			}
			got, ok := s.get(k)
			want, wok := model[k]
			if ok != wok || got != want {
				t.Fatalf("key %+v: got %d %v, want %d %v", k, got, ok, want, wok)
			}
			if !ok {
				model[k] = int32(len(keys))
				keys = append(keys, k)
				s.add(k)
			}
		}
	})
}

// TestHeldRulesRoundTrip: a rule held and read back is the rule, with its
// line, across the chunks.
func TestHeldRulesRoundTrip(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var h heldRules
		var want []redirects.Rule
		n := rapid.IntRange(0, 3*heldChunk).Draw(t, "n")
		rnd := rand.New(rand.NewPCG(rapid.Uint64().Draw(t, "seed"), 1))
		matches := []redirects.MatchType{redirects.Exact, redirects.StartsWith, redirects.Pattern, redirects.Regex}
		for i := range n {
			r := redirects.Rule{Source: "/a" + strconv.Itoa(rnd.IntN(100)), Destination: "/b" + strconv.Itoa(i), Host: []string{"", "h.example"}[rnd.IntN(2)],
				Priority: rnd.IntN(2001) - 1000, StatusCode: redirects.StatusCodes[rnd.IntN(len(redirects.StatusCodes))],
				MatchType: matches[rnd.IntN(len(matches))], PreservePath: rnd.IntN(2) == 0, PreserveQuery: rnd.IntN(2) == 0,
				QueryAfterFragment: rnd.IntN(2) == 0, MergeQuery: rnd.IntN(2) == 0}
			h.add(hold(&r, i+2))
			want = append(want, r)
		}
		if h.n != n {
			t.Fatalf("held %d rules, want %d", h.n, n)
		}
		for i := range want {
			got := h.at(int32(i))
			if g, w := got.rule(), want[i]; !g.Equal(&w) || int(got.line) != i+2 {
				t.Fatalf("rule %d: got %+v line %d, want %+v line %d", i, got.rule(), got.line, want[i], i+2)
			}
		}
	})
}

// TestReadFileFindsRepeatsWhateverTheHash: ReadFile reports a line as
// repeating an earlier rule exactly when a brute-force search of the lines
// before it finds one of the same key under the settings (the first such
// line named), with every hash distinct and with hashes cut to a bit or
// none (every key then shares a hash and the exact map decides), and with
// ReadOptions.Each as without it.
func TestReadFileFindsRepeatsWhateverTheHash(t *testing.T) {
	defer func(m uint64) { seenMask = m }(seenMask)
	rapid.Check(t, func(t *rapid.T) {
		settings := redirects.Settings{CaseInsensitive: rapid.Bool().Draw(t, "case"), IgnoreTrailingSlash: rapid.Bool().Draw(t, "slash")}
		type row struct {
			rule redirects.Rule
			line int
		}
		var rows []row
		var file strings.Builder
		file.WriteString("source,destination,statusCode,matchType,host\n")
		for i := range rapid.IntRange(0, 60).Draw(t, "n") {
			r := redirects.Rule{
				Source:      rapid.StringMatching(`/([aA]{1,2}/?)?`).Draw(t, "source"),
				Destination: "/d" + strconv.Itoa(i),
				StatusCode:  301,
				MatchType:   rapid.SampledFrom([]redirects.MatchType{redirects.Exact, redirects.StartsWith}).Draw(t, "match"),
				Host:        rapid.SampledFrom([]string{"", "a.example"}).Draw(t, "host"),
			}
			fmt.Fprintf(&file, "%s,%s,301,%s,%s\n", r.Source, r.Destination, r.MatchType, r.Host)
			rows = append(rows, row{r, i + 2})
		}
		// The model: a line repeats the first earlier line of its key.
		want := map[int]int{}
		for i, a := range rows {
			for _, b := range rows[:i] {
				if _, bad := want[b.line]; !bad && settings.RuleKey(&a.rule) == settings.RuleKey(&b.rule) {
					want[a.line] = b.line
					break
				}
			}
		}
		for _, mask := range []uint64{^uint64(0), 1, 0} {
			for _, each := range []bool{false, true} {
				seenMask = mask
				opts := ReadOptions{Settings: settings}
				var got []redirects.Rule
				if each {
					opts.Each = func(_ int, r redirects.Rule) { got = append(got, r) }
				}
				f, err := ReadFile(context.Background(), strings.NewReader(file.String()), opts)
				if err != nil {
					t.Fatal(err)
				}
				if len(f.Bad) != len(want) {
					t.Fatalf("mask %d, each %v: bad lines %v, want the repeats %v", mask, each, f.Bad, want)
				}
				for _, b := range f.Bad {
					first, ok := want[b.Line]
					if !ok || !strings.HasSuffix(b.Message, fmt.Sprintf("on line %d", first)) && !strings.Contains(b.Message, fmt.Sprintf("on line %d:", first)) {
						t.Fatalf("mask %d, each %v: line %d: %q, want a repeat of line %d (%v)", mask, each, b.Line, b.Message, first, ok)
					}
				}
				// Each takes every good rule; a file with a repeat returns
				// none.
				var good []redirects.Rule
				for _, r := range rows {
					if _, bad := want[r.line]; !bad && (each || len(want) == 0) {
						good = append(good, r.rule)
					}
				}
				if !each {
					got = f.Rules
				}
				if len(got) != len(good) {
					t.Fatalf("mask %d, each %v: %d rules, want %d", mask, each, len(got), len(good))
				}
				for i := range got {
					if w := good[i]; got[i].Source != w.Source || got[i].Destination != w.Destination || got[i].Host != w.Host || got[i].MatchType != w.MatchType {
						t.Fatalf("mask %d, each %v: rule %d is %+v, want %+v", mask, each, i, got[i], w)
					}
				}
			}
		}
	})
}
