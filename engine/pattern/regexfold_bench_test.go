package pattern

import (
	"fmt"
	"testing"
)

// regexRules returns n regex rules shaped like real sets: wiki pages under
// 100 prefixes, documentation pages numbered under one shared prefix
// (every such rule is tried on a path under it), product pages behind an
// alternation of languages (no literal prefix but "/"), and dated archive
// items. One in 50 has a query condition.
func regexRules(n int, firstID int64) []Rule {
	rules := make([]Rule, 0, n)
	for i := 0; len(rules) < n; i++ {
		r := Rule{ID: firstID + int64(i), Kind: Regex, Priority: 100}
		switch i % 4 {
		case 0:
			r.Source, r.Destination = fmt.Sprintf(`/wiki%d/(?P<title>[A-Za-z_]+)/(\d+)`, i%100), fmt.Sprintf("/w/%d/${title}/$2", i)
		case 1:
			r.Source, r.Destination = fmt.Sprintf(`/docs/(.*)-%d`, i), fmt.Sprintf("/d%d/$1", i)
		case 2:
			r.Source, r.Destination = fmt.Sprintf(`/(en|fr|de)/Product-%d/(\d+)`, i), fmt.Sprintf("/$1/p/%d/$2", i)
		default:
			r.Source, r.Destination = fmt.Sprintf(`/archive/(\d{4})/(\d{2})/item%d\.html`, i), fmt.Sprintf("/a/$1/$2/%d", i)
		}
		if i%50 == 49 {
			r.Source += "$?ref=:ref"
		}
		rules = append(rules, r)
	}
	return rules
}

// regexFoldSet is n regex rules and 1,000 realistic pattern rules compiled
// under st.
func regexFoldSet(b *testing.B, n int, st Settings) *Set {
	b.Helper()
	s, err := Compile(append(realisticPatterns(1000), regexRules(n, 100000)...), st)
	if err != nil {
		b.Fatal(err)
	}
	return s
}

// BenchmarkRegexFold: lookups among 1,000 and 10,000 regex rules (and
// 1,000 pattern rules) with caseInsensitive off and on: hits of the last
// rule of a shared prefix, of a wiki prefix, of a rule without a literal
// prefix, and misses that try every rule under their prefix. Under
// caseInsensitive the "upper" paths are the hits' paths in other case.
func BenchmarkRegexFold(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		for _, ci := range []bool{false, true} {
			s := regexFoldSet(b, n, Settings{CaseInsensitive: ci})
			last := n - 3 // i%4 == 1: a docs rule, the last under /docs/
			prod := n - 2 // i%4 == 2: a product rule
			cases := []struct{ name, wire, want string }{
				{"hit/docs", fmt.Sprintf("/docs/some/long/page/title-%d", last), fmt.Sprintf("/d%d/some/long/page/title", last)},
				{"hit/wiki", "/wiki44/Main_Page/7", "/w/44/Main_Page/7"},
				{"hit/product", fmt.Sprintf("/fr/Product-%d/12", prod), fmt.Sprintf("/fr/p/%d/12", prod)},
				{"miss/docs", "/docs/some/long/page/title-x", ""},
				{"miss/root", "/nothing/here/at/all", ""},
			}
			if ci {
				cases = append(cases,
					struct{ name, wire, want string }{"hit/docs-upper", fmt.Sprintf("/DOCS/Some/Long/Page/Title-%d", last), fmt.Sprintf("/d%d/Some/Long/Page/Title", last)},
					struct{ name, wire, want string }{"hit/product-upper", fmt.Sprintf("/FR/PRODUCT-%d/12", prod), fmt.Sprintf("/FR/p/%d/12", prod)},
				)
			}
			for _, c := range cases {
				b.Run(fmt.Sprintf("rules=%d/ci=%v/%s", n, ci, c.name), func(b *testing.B) {
					if c.want != "" {
						benchLookup(b, s, "", c.wire, c.want)
						return
					}
					var m Match
					b.ReportAllocs()
					for b.Loop() {
						if s.Lookup("", c.wire, &m) {
							b.Fatalf("%s matched", c.wire)
						}
					}
				})
			}
		}
	}
}

// BenchmarkRegexFoldCompile: building a set of 1,000 and 10,000 regex
// rules (and 1,000 pattern rules) with caseInsensitive off and on.
func BenchmarkRegexFoldCompile(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		rules := append(realisticPatterns(1000), regexRules(n, 100000)...)
		for _, ci := range []bool{false, true} {
			b.Run(fmt.Sprintf("rules=%d/ci=%v", n, ci), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, err := Compile(rules, Settings{CaseInsensitive: ci}); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkRegexFoldOne: one regex rule of each shape of regexRules alone
// in a set, with caseInsensitive off and on, asked for a path it matches
// and one it does not (a few hundred nanoseconds an operation, so that the
// figures hold on a loaded machine where the large sets' do not).
func BenchmarkRegexFoldOne(b *testing.B) {
	shapes := []struct{ name, hit, want, miss string }{
		{"wiki", "/wiki0/Main_Page/7", "/w/0/Main_Page/7", "/wiki1/Main_Page/7"},
		{"docs", "/docs/some/long/page/title-1", "/d1/some/long/page/title", "/docs/some/long/page/title-x"},
		{"product", "/fr/Product-2/12", "/fr/p/2/12", "/fr/Product-3/12"},
		{"archive", "/archive/2020/01/item3.html", "/a/2020/01/3", "/archive/2020/01/item4.html"},
	}
	rules := regexRules(4, 1)
	for i, sh := range shapes {
		for _, ci := range []bool{false, true} {
			s, err := Compile(rules[i:i+1], Settings{CaseInsensitive: ci})
			if err != nil {
				b.Fatal(err)
			}
			b.Run(fmt.Sprintf("%s/ci=%v/hit", sh.name, ci), func(b *testing.B) { benchLookup(b, s, "", sh.hit, sh.want) })
			b.Run(fmt.Sprintf("%s/ci=%v/miss", sh.name, ci), func(b *testing.B) {
				var m Match
				b.ReportAllocs()
				for b.Loop() {
					if s.Lookup("", sh.miss, &m) {
						b.Fatalf("%s matched", sh.miss)
					}
				}
			})
		}
	}
}
