package pattern

import (
	"fmt"
	"regexp"
	"regexp/syntax"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// compileREByString is compileRE as it was for every expression: the
// anchored parse, printed by syntax.Regexp.String and compiled again. It
// is the model the expression-as-written path is held to.
func compileREByString(re *syntax.Regexp) *regexp.Regexp {
	anchored := &syntax.Regexp{Op: syntax.OpConcat, Flags: re.Flags, Sub: []*syntax.Regexp{
		{Op: syntax.OpBeginText}, re, {Op: syntax.OpEndText},
	}}
	return regexp.MustCompile(anchored.String())
}

// reTokens are the pieces random expressions are made of: literals,
// classes, groups, repetitions, alternations, anchors, flags, escapes.
var reTokens = []string{"a", "B", "/", "-", ".", "\\.", "[^/]", "[a-z]", "[^?#]", "\\d", "\\w", "(", ")", "(?:", "(?P<n>",
	"(?i)", "(?i:", "(?s)", "*", "+", "?", "*?", "+?", "{1,3}", "|", "^", "$", "\\b", "K", "\u212a", "é", "\\x{41}", "[[:alpha:]]", "\\Q", "\\E", "\\Qa.b"}

// TestCompileREAsWritten: an expression compiled as written (inside a
// group that captures nothing, anchored) is the expression that the
// printed parse compiled to: the same program once parsed, simplified and compiled, the
// same groups, and the same answers on sample paths.
func TestCompileREAsWritten(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var b strings.Builder
		for _, i := range rapid.SliceOfN(rapid.IntRange(0, len(reTokens)-1), 1, 12).Draw(t, "tokens") {
			b.WriteString(reTokens[i])
		}
		expr := b.String()
		re, err := parseRE2("source", expr, 0)
		if err != nil {
			t.Skip("not an expression")
		}
		got, want := compileRE(expr, re, false), compileREByString(re)
		g, err := syntax.Parse(got.String(), syntax.Perl)
		if err != nil {
			t.Fatalf("%q: %v", got.String(), err)
		}
		w, _ := syntax.Parse(want.String(), syntax.Perl)
		gp, err := syntax.Compile(g.Simplify())
		if err != nil {
			t.Fatalf("%q: %v", got.String(), err)
		}
		wp, _ := syntax.Compile(w.Simplify())
		// The same program, or (the printed parse merges some
		// alternations, as a/|a(?i)/ into a[/]) the same answers on many
		// more paths.
		samples := 8
		if gp.String() != wp.String() {
			samples = 300
		}
		if got.NumSubexp() != want.NumSubexp() || strings.Join(got.SubexpNames(), ",") != strings.Join(want.SubexpNames(), ",") {
			t.Fatalf("expression %q: groups %q, printed %q", expr, got.SubexpNames(), want.SubexpNames())
		}
		paths := []string{"", "a", "/a/b", "B-é", "kK\u212a", "/x.y", "a\nb", "12/ab", "a.b", "\\Q", "(x"}
		for range samples {
			paths = append(paths, rapid.StringMatching(`[aAbB/\-.kK0-9é\n]{0,8}`).Draw(t, "path"))
		}
		for _, p := range paths {
			if got.MatchString(p) != want.MatchString(p) || strings.Join(got.FindStringSubmatch(p), "\x00") != strings.Join(want.FindStringSubmatch(p), "\x00") {
				t.Fatalf("expression %q on %q: as written %q, printed %q", expr, p, got.FindStringSubmatch(p), want.FindStringSubmatch(p))
			}
		}
	})
}

// TestCompileREFoldsAsBefore: with case folding the printed path stays,
// and the expression, lower-cased, runs on the path lower-cased.
func TestCompileREFoldsAsBefore(t *testing.T) {
	re, _ := parseRE2("source", "/a[^/]+K", 0)
	got := compileRE("/a[^/]+K", re, true)
	for p, want := range map[string]bool{"/a/K": false, "/AxK": true, "/axk": true, "/ax\u212a": false} {
		if got.MatchString(asciiLower(p)) != want {
			t.Errorf("%q: %v, want %v", p, !want, want)
		}
	}
}

// foldASCIIModel is the contract's reading of caseInsensitive for an
// expression, as compileRE applied it before it lower-cased expressions:
// every ASCII letter the expression matches also matches its other case
// (a literal letter becomes the class of both), and what RE2 folds itself
// ((?i)) stays as written. Compiled (anchored, printed), it runs on the
// path as written: the model lowered expressions are held to.
func foldASCIIModel(re *syntax.Regexp) *regexp.Regexp {
	var fold func(re *syntax.Regexp) *syntax.Regexp
	fold = func(re *syntax.Regexp) *syntax.Regexp {
		c := *re
		c.Sub = make([]*syntax.Regexp, len(re.Sub))
		for i, s := range re.Sub {
			c.Sub[i] = fold(s)
		}
		switch {
		case c.Op == syntax.OpLiteral && c.Flags&syntax.FoldCase == 0:
			var parts []*syntax.Regexp
			for _, r := range c.Rune {
				cls := []rune{r, r}
				if o, ok := otherCaseASCII(r); ok {
					cls = append(cls, o, o)
				}
				parts = append(parts, &syntax.Regexp{Op: syntax.OpCharClass, Rune: cls})
			}
			return &syntax.Regexp{Op: syntax.OpConcat, Sub: parts}
		case c.Op == syntax.OpCharClass:
			// Rune by rune over the letters, as a brute force would.
			rs := append([]rune(nil), c.Rune...)
			for i := 0; i+1 < len(c.Rune); i += 2 {
				for r := max(c.Rune[i], 'A'); r <= min(c.Rune[i+1], 'z'); r++ {
					if o, ok := otherCaseASCII(r); ok {
						rs = append(rs, o, o)
					}
				}
			}
			c.Rune = rs
		}
		return &c
	}
	return compileREByString(fold(re))
}

func otherCaseASCII(r rune) (rune, bool) {
	switch {
	case 'a' <= r && r <= 'z':
		return r - 32, true
	case 'A' <= r && r <= 'Z':
		return r + 32, true
	}
	return r, false
}

func asciiLower(s string) string { return string(appendFold(nil, []byte(s))) }

// foldTokens are the pieces of random expressions for case folding:
// letters of both cases in literals, ranges and negated classes, RE2's own
// (?i) in its forms, the letters whose Unicode folding reaches outside
// ASCII (k with the Kelvin sign U+212A, s with the long s U+017F) and those
// two themselves, classes by name, and what does not care about case.
var foldTokens = []string{"a", "B", "k", "K", "s", "S", "z", "Z", "/", "-", ".", "_", `\.`, "é", "É", `\x{212A}`, `\x{17F}`, "\u212a", "\u017f",
	"[a-z]", "[A-Z]", "[^a]", "[^K]", "[k-s]", "[K-S]", `[@-\x{60}]`, "[^/]", "[A-Za-z_]", "[[:upper:]]", "[[:^lower:]]", `\pL`, `\p{Lu}`, `\PL`, `\w`, `\W`, `\d`, `\b`, `\B`,
	"(", ")", "(?:", "(?P<n>", "(?i)", "(?i:", "(?-i)", "(?i:k)", "(?i:s)", "(?i:[a-k])", "*", "+", "?", "*?", "{1,3}", "|", "^", "$", `\Qa.B\E`, `\QK`}

// foldPath draws a path of ASCII letters in both cases, the Kelvin sign,
// the long s, other letters outside ASCII, a byte of no character and the
// rest.
func foldPath(t *rapid.T, label string) string {
	parts := rapid.SliceOfN(rapid.SampledFrom([]string{"a", "A", "b", "B", "k", "K", "s", "S", "z", "Z", "\u212a", "\u017f", "é", "É", "/", "-", ".", "_", "@", "`", "0", "7", "\xff", "aBk", "/Ks"}), 0, 10).Draw(t, label)
	return strings.Join(parts, "")
}

// TestCompileRELowerMatchesFolded: under caseInsensitive an expression
// compiled lower-cased and run on the path lower-cased finds what the
// model (each ASCII letter also matching its other case, on the path as
// written) finds: the same match or none, each group at the same offsets.
// So 'k' matches 'K' but never the Kelvin sign, 's' never the long s, and
// (?i)k matches all three, as RE2 folds it.
func TestCompileRELowerMatchesFolded(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var b strings.Builder
		for _, i := range rapid.SliceOfN(rapid.IntRange(0, len(foldTokens)-1), 1, 10).Draw(t, "tokens") {
			b.WriteString(foldTokens[i])
		}
		expr := b.String()
		re, err := parseRE2("source", expr, 0)
		if err != nil {
			t.Skip("not an expression")
		}
		got, want := compileRE(expr, re, true), foldASCIIModel(re)
		if got.NumSubexp() != want.NumSubexp() || strings.Join(got.SubexpNames(), ",") != strings.Join(want.SubexpNames(), ",") {
			t.Fatalf("expression %q: groups %q, the model's %q", expr, got.SubexpNames(), want.SubexpNames())
		}
		for k := rapid.IntRange(1, 20).Draw(t, "paths"); k > 0; k-- {
			p := foldPath(t, "path")
			if rapid.IntRange(0, 3).Draw(t, "sample") == 0 {
				// A path the model matches, in other case.
				if s := want.String(); s != "" {
					p = rapid.StringMatching(s).Draw(t, "matching")
					if rapid.Bool().Draw(t, "upper") {
						p = strings.ToUpper(p)
					}
				}
			}
			g, w := got.FindSubmatchIndex([]byte(asciiLower(p))), want.FindSubmatchIndex([]byte(p))
			if fmt.Sprint(g) != fmt.Sprint(w) {
				t.Fatalf("expression %q (lower-cased %s, model %s) on %q: groups at %v, the model's at %v", expr, got, want, p, g, w)
			}
		}
	})
}

// TestUnclosedQuoteCompiles: a \Q that no \E closes quotes the rest of the
// expression. Such a regex or constraint is valid and compiles (in both
// settings), and matches the quoted text literally.
func TestUnclosedQuoteCompiles(t *testing.T) {
	rules := []Rule{
		{Kind: Regex, Source: `^/old/\Qa.php`, Destination: "/new"},
		{Kind: Regex, Source: `/q/\Q(x`, Destination: "/new"},
		{Kind: Pattern, Source: `/docs/:p(\Qa.b)`, Destination: "/d/:p"},
		{Kind: Regex, Source: `/e/\Qk\E(\d+)`, Destination: "/e/$1"},
	}
	for _, r := range rules {
		if err := Check(r); err != nil {
			t.Errorf("%s: %v", r.Source, err)
		}
	}
	for _, st := range []Settings{{}, {CaseInsensitive: true}} {
		if _, err := Compile(rules, st); err != nil {
			t.Fatalf("settings %+v: %v", st, err)
		}
	}
	for _, fold := range []bool{false, true} {
		re, err := parseRE2("source", `/old/\Qa.php`, 0)
		if err != nil {
			t.Fatal(err)
		}
		got := compileRE(`/old/\Qa.php`, re, fold)
		if !got.MatchString("/old/a.php") || got.MatchString("/old/aXphp") || got.MatchString("/old/a.php/x") {
			t.Errorf("fold %v: %s does not match /old/a.php alone", fold, got)
		}
	}
}
