package redirects

import (
	"testing"
	"unicode"

	"pgregory.net/rapid"
)

// TestASCIICleanAsCharChecks holds asciiClean, the fast pass of the
// validation of sources and destinations, to the checks of each character
// it stands for: when it says clean, none of them refuses a character.
func TestASCIICleanAsCharChecks(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		s := rapid.StringOf(rapid.SampledFrom([]rune("/aZ09-._~%?#\"'\\;{}$<>| \t\n\x00\x1f\x7f\u0085\u00a0é\u2028"))).Draw(t, "s")
		forbidden := rapid.SampledFrom([]string{"", forbiddenSource, "%" + forbiddenSource, "<>", "é"}).Draw(t, "forbidden")
		model := InvalidUTF8At(s) < 0
		for _, c := range s {
			if unicode.IsSpace(c) || unicode.IsControl(c) || c >= 0x80 || containsByte(forbidden, byte(c)) {
				model = false
			}
		}
		if got := asciiClean(s, forbidden); got != model {
			t.Fatalf("asciiClean(%q, %q) = %v, the checks of each character say %v", s, forbidden, got, model)
		}
	})
}
