package pattern_test

import (
	"regexp"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"redirects"
	"redirects/engine/pattern"
	"redirects/internal/rulemodel"
)

// foldExprTokens are the pieces of random regex sources for case folding:
// ASCII letters of both cases in literals, ranges and negated classes,
// RE2's own (?i), the letters whose Unicode folding reaches outside ASCII
// (k with the Kelvin sign U+212A, s with the long s U+017F) and those two
// themselves, classes by name, and what does not care about case.
var foldExprTokens = []string{"a", "B", "k", "K", "s", "S", "/", "-", ".", `\.`, "é", `\x{212A}`, `\x{17F}`, "\u212a", "\u017f",
	"[a-z]", "[A-Z]", "[^a]", "[^/]", "[k-s]", "[A-Za-z_]", "[[:upper:]]", `\pL`, `\w`, `\d`, `\b`,
	"(", ")", "(?:", "(?P<n>", "(?i)", "(?i:k)", "(?i:S)", "*", "+", "?", "|", "$"}

// foldWords are the pieces of the paths asked: ASCII letters in both
// cases, the Kelvin sign and the long s, other letters outside ASCII and
// a byte that starts no character.
var foldWords = []string{"a", "A", "b", "B", "k", "K", "s", "S", "\u212a", "\u017f", "é", "É", "/", "-", ".", "_", "7", "\xff", "aBk", "Ks"}

// TestRegexLookupFoldsASCIIOnly: projects of random regex rules, in both
// settings, looked up on random paths in every mix of case answer as the
// brute-force model of docs/contract.md does (each ASCII letter an
// expression matches also matching its other case, on the path as
// written): which rule, and its groups inserted in the destination. 'k'
// and 's' never match the Kelvin sign and the long s under
// caseInsensitive, nor these 'k' and 's', unless the expression asks RE2
// to fold them itself ((?i)).
func TestRegexLookupFoldsASCIIOnly(t *testing.T) {
	hits := map[bool]int{}
	rapid.Check(t, func(t *rapid.T) {
		st := redirects.Settings{CaseInsensitive: rapid.Bool().Draw(t, "ci"), IgnoreTrailingSlash: rapid.Bool().Draw(t, "ignore")}
		var rules []rulemodel.PatternRule
		for i := rapid.IntRange(1, 5).Draw(t, "rules"); i > 0; i-- {
			var b strings.Builder
			b.WriteString("/")
			for _, k := range rapid.SliceOfN(rapid.IntRange(0, len(foldExprTokens)-1), 1, 8).Draw(t, "tokens") {
				b.WriteString(foldExprTokens[k])
			}
			src := b.String()
			re, err := regexp.Compile(src)
			if err != nil || pattern.Check(pattern.Rule{Kind: pattern.Regex, Source: src, Destination: "/to"}) != nil {
				continue
			}
			dest := "/to"
			for g := 1; g <= min(re.NumSubexp(), 9); g++ {
				dest += "/$" + string(rune('0'+g))
			}
			rules = append(rules, rulemodel.PatternRule{ID: int64(len(rules) + 1), Kind: "regex", Source: src, Destination: dest,
				Priority: rapid.IntRange(0, 2).Draw(t, "priority"), CreatedAt: t0})
		}
		set, err := pattern.Compile(toEngine(rules), pattern.Settings(st))
		if err != nil {
			t.Fatalf("Compile refused a checked rule: %v", err)
		}
		var m pattern.Match
		for k := rapid.IntRange(1, 20).Draw(t, "lookups"); k > 0; k-- {
			p := "/" + strings.Join(rapid.SliceOfN(rapid.SampledFrom(foldWords), 0, 8).Draw(t, "words"), "")
			if len(rules) > 0 && rapid.Bool().Draw(t, "fromRule") {
				// A path a rule's expression matches as written.
				p = rapid.StringMatching(rapid.SampledFrom(rules).Draw(t, "rule").Source).Draw(t, "matching")
				if !strings.HasPrefix(p, "/") {
					p = "/" + p
				}
			}
			switch rapid.IntRange(0, 3).Draw(t, "case") {
			case 0:
				p = strings.ToUpper(p) // ſ becomes S, é É
			case 1:
				p = strings.ToLower(p) // K (Kelvin) becomes k
			}
			wire := rulemodel.Escape(p, rapid.Bool().Draw(t, "escapeAll"))
			want, wantOK := rulemodel.LookupPatterns(rules, rulemodel.Of(st), "", wire)
			ok := set.Lookup("", wire, &m)
			if ok != wantOK {
				t.Fatalf("settings %+v, path %q: found=%v, the model found=%v (%+v)", st, wire, ok, wantOK, want)
			}
			hits[ok]++
			if !ok {
				continue
			}
			if got := string(m.AppendDestination(nil)); m.Rule() != want.Rule || got != want.Destination {
				t.Fatalf("settings %+v, path %q: rule %d %+v answering %q; the model: rule %d %+v answering %q",
					st, wire, m.Rule(), rules[m.Rule()], got, want.Rule, rules[want.Rule], want.Destination)
			}
		}
	})
	t.Logf("lookups found / not found: %d / %d", hits[true], hits[false])
	if hits[true] == 0 {
		t.Error("no lookup found a rule: the generators stopped exercising matches")
	}
}

// TestRegexFoldLeavesUnicodeAlone: under caseInsensitive an expression's
// 'k' and 's' match 'K' and 'S' but not the Kelvin sign or the long s,
// the Kelvin sign written in an expression matches itself alone, and RE2's
// own (?i) folds as RE2 does.
func TestRegexFoldLeavesUnicodeAlone(t *testing.T) {
	set, err := pattern.Compile([]pattern.Rule{
		{ID: 1, Kind: pattern.Regex, Source: `/k/(s+)`, Destination: "/1/$1"},
		{ID: 2, Kind: pattern.Regex, Source: `/kelvin/\x{212A}`, Destination: "/2"},
		{ID: 3, Kind: pattern.Regex, Source: `/i/(?i:k)`, Destination: "/3"},
		{ID: 4, Kind: pattern.Regex, Source: `/c/[a-z]+`, Destination: "/4"},
		// A pattern's constraints run on the capture lower-cased too, and
		// the capture keeps the request's case.
		{ID: 5, Kind: pattern.Pattern, Source: `/p/:id([A-Z]+)/:n(k)`, Destination: "/5/:id/:n"},
	}, pattern.Settings{CaseInsensitive: true})
	if err != nil {
		t.Fatal(err)
	}
	var m pattern.Match
	for wire, want := range map[string]string{
		"/k/sS": "/1/sS", "/K/SS": "/1/SS", "/%E2%84%AA/ss": "", "/k/%C5%BF": "", "/k/s%C5%BF": "",
		"/kelvin/%E2%84%AA": "/2", "/KELVIN/%E2%84%AA": "/2", "/kelvin/k": "", "/kelvin/K": "",
		"/i/k": "/3", "/i/K": "/3", "/i/%E2%84%AA": "/3",
		"/c/AbZ": "/4", "/c/%E2%84%AA": "", "/c/%C5%BF": "",
		"/P/ABC/k": "/5/ABC/k", "/p/abC/K": "/5/abC/K", "/p/abc/%E2%84%AA": "", "/p/a1/k": "",
	} {
		ok := set.Lookup("", wire, &m)
		if got := ""; ok {
			got = string(m.AppendDestination(nil))
			if got != want {
				t.Errorf("%s: %q, want %q", wire, got, want)
			}
		} else if want != "" {
			t.Errorf("%s: no answer, want %q", wire, want)
		}
	}
}
