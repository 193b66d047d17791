package importer

import (
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
)

// TestRestExcludingModel holds restExcluding against its definition on
// every short string over the characters the expressions name (and some
// they do not): the result matches x exactly when no excluded expression
// matches prefix+x as a whole.
func TestRestExcludingModel(t *testing.T) {
	cases := []struct {
		prefix   string
		excluded []string
		alphabet string
	}{
		{"/docs/", []string{`/docs/next(?s:.*)`, `/docs/\d+\.\d+\.\d+(?s:.*)`, `/docs/\d+\.\d+\.x(?s:.*)`}, "next1.x/a\n"},
		{"/", []string{`/play(?:/(?s:.*))?`}, "play/x"},
		{"/", []string{`/a/?`, `/ab(?:/(?s:.*))?`, `(?s:.*\n.*)`}, "ab/c\n"},
		{"/x", []string{`/x[a-c]+z`, `/xq`}, "abczq/"},
		{"", []string{`[^/]+/k`}, "ab/k"},
	}
	for _, c := range cases {
		out, why := restExcluding(c.prefix, c.excluded)
		if why != "" {
			t.Fatalf("restExcluding(%q, %q): %s", c.prefix, c.excluded, why)
		}
		got := regexp.MustCompile(`^(?:` + out + `)$`)
		var ex []*regexp.Regexp
		for _, e := range c.excluded {
			ex = append(ex, regexp.MustCompile(`^(?:`+e+`)$`))
		}
		alpha := []rune(c.alphabet)
		var walk func(x string, n int)
		walk = func(x string, n int) {
			want := true
			for _, e := range ex {
				if e.MatchString(c.prefix + x) {
					want = false
				}
			}
			if got.MatchString(x) != want {
				t.Fatalf("restExcluding(%q, %q) = %q: %q matches %v, want %v", c.prefix, c.excluded, out, x, !want, want)
			}
			if n == 0 {
				return
			}
			for _, r := range alpha {
				walk(x+string(r), n-1)
			}
		}
		walk("", 6)
		if strings.ContainsAny(out, " \t\n\"';#`") {
			t.Errorf("restExcluding(%q, %q) = %q: holds a byte a regex rule refuses", c.prefix, c.excluded, out)
		}
	}
}

// TestRestExcludingRefuses names what it cannot write.
func TestRestExcludingRefuses(t *testing.T) {
	for _, c := range []struct {
		excluded []string
		why      string
	}{
		{[]string{`/a(bc)*`}, "a loop through more than one character"},
		{[]string{`^/a`}, "tests a position"},
		{[]string{`(?i)/a`}, "ignores case"},
		{[]string{`/(?s:.*)`}, "every path"},
	} {
		if _, why := restExcluding("/", c.excluded); !strings.Contains(why, c.why) {
			t.Errorf("restExcluding(/, %q): %q, want it to say %q", c.excluded, why, c.why)
		}
	}
}

// TestRestExcludingBounded: expressions whose automaton would be large
// are refused quickly, naming the cap.
func TestRestExcludingBounded(t *testing.T) {
	for _, c := range []struct{ ex, why string }{
		{`/\pL(?s:.*)`, "ranges of characters"},
		{`/[a-z]{300}`, "more than 256 states"},
	} {
		if _, why := restExcluding("/", []string{c.ex}); !strings.Contains(why, c.why) {
			t.Errorf("restExcluding(/, %q): %q, want it to say %q", c.ex, why, c.why)
		}
	}
}

// TestRestExcludingRandom holds restExcluding against its definition for
// random excluded expressions over a small alphabet (literals, classes,
// optional and repeated characters, alternations, a tail of anything),
// on every string of up to five characters; expressions it refuses must
// say why.
func TestRestExcludingRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 36))
	atoms := []string{"a", "b", "/", "[ab]", "[^a]", ".", `\.`}
	gen := func() string {
		var b strings.Builder
		for range 1 + rng.IntN(4) {
			a := atoms[rng.IntN(len(atoms))]
			switch rng.IntN(6) {
			case 0:
				a += "?"
			case 1:
				a += "*"
			case 2:
				a += "+"
			case 3:
				a = "(?:" + a + "|" + atoms[rng.IntN(len(atoms))] + ")"
			}
			b.WriteString(a)
		}
		if rng.IntN(2) == 0 {
			b.WriteString("(?s:.*)")
		}
		return b.String()
	}
	alpha := []rune("ab/.c")
	compared := 0
	for range 300 {
		prefix := []string{"", "/", "/a"}[rng.IntN(3)]
		var excluded []string
		for range 1 + rng.IntN(3) {
			excluded = append(excluded, gen())
		}
		out, why := restExcluding(prefix, excluded)
		if why != "" {
			continue
		}
		compared++
		got := regexp.MustCompile(`^(?:` + out + `)$`)
		var ex []*regexp.Regexp
		for _, e := range excluded {
			ex = append(ex, regexp.MustCompile(`^(?:`+e+`)$`))
		}
		var walk func(x string, n int)
		walk = func(x string, n int) {
			want := true
			for _, e := range ex {
				want = want && !e.MatchString(prefix+x)
			}
			if got.MatchString(x) != want {
				t.Fatalf("restExcluding(%q, %q) = %q: %q matches %v, want %v", prefix, excluded, out, x, !want, want)
			}
			if n > 0 {
				for _, r := range alpha {
					walk(x+string(r), n-1)
				}
			}
		}
		walk("", 5)
	}
	if compared < 100 {
		t.Errorf("only %d of 300 random cases written out", compared)
	}
}
