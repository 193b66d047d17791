package redirects

import (
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// FuzzValidateRule feeds arbitrary sources and destinations to validation
// and, whenever it accepts one, checks the promises the exports and the
// lookup body (engine.FuzzLookupBody) rely on: a value that passes can be written into an nginx or
// HAProxy line or a JSON string without ending or injecting into it, with
// no quoting but of a destination's one '#' (its fragment), which the
// exports quote or escape as each server requires.
func FuzzValidateRule(f *testing.F) {
	for _, seed := range [][2]string{
		{"/old", "/new"},
		{"/a b", "/x y"},
		{"/a?b", "/a?b"},
		{"/a#b", "/a#b"},
		{"/$host", "/$1"},
		{`/a"b`, `/a"b`},
		{"/a'b", "/a'b"},
		{`/a\b`, `/a\b`},
		{"/a;b", "/a;return 200"},
		{"/{a}", "/{a}"},
		{"/a\x00b", "/a\x7fb"},
		{"/a\u00a0b", "/a\u2028b"},
		{"/a\xffb", "/a\xc3"},
		{"old", "new"},
		{"//x", "//evil.example"},
		{"/", "https://example.com/?a=1&b=<2>"},
		{"/ünï", "HTTP://EXAMPLE.COM"},
		{"/x", "http://"},
		{"/x", "ftp://example.com"},
	} {
		// No seeds at the length limits: the fuzzer minimizes every input
		// that finds new coverage, and minimizing 2 KB strings stalls it for
		// most of a short run. rule_test.go covers the limits.
		f.Add(seed[0], seed[1])
	}
	f.Fuzz(func(t *testing.T, source, dest string) {
		if ValidateSource(source) == nil {
			checkAccepted(t, "source", source, `?#"'\;{}$`)
			if source[0] != '/' {
				t.Fatalf("source %q accepted without a leading '/'", source)
			}
			if len(source) > MaxSourceLen {
				t.Fatalf("source of %d bytes accepted", len(source))
			}
		}
		if ValidateDestination(dest) == nil {
			checkAccepted(t, "destination", dest, `"'\;{}$`)
			if strings.Count(dest, "#") > 1 {
				t.Fatalf("destination %q accepted with more than one '#': only a fragment may follow the first", dest)
			}
			lower := strings.ToLower(dest)
			switch {
			case strings.HasPrefix(dest, "//"):
				t.Fatalf("scheme-relative destination %q accepted", dest)
			case dest[0] == '/':
			case strings.HasPrefix(lower, "http://") && len(dest) > len("http://"):
			case strings.HasPrefix(lower, "https://") && len(dest) > len("https://"):
			default:
				t.Fatalf("destination %q accepted: neither a path nor an http(s) URL", dest)
			}
			if len(dest) > MaxDestLen {
				t.Fatalf("destination of %d bytes accepted", len(dest))
			}
		}
	})
}

// checkAccepted fails unless an accepted value is valid UTF-8 free of
// whitespace, control characters and the forbidden ASCII characters.
func checkAccepted(t *testing.T, field, v, forbidden string) {
	t.Helper()
	if !utf8.ValidString(v) {
		t.Fatalf("%s %q accepted but not valid UTF-8", field, v)
	}
	for i := 0; i < len(v); i++ {
		if c := v[i]; c <= 0x20 || c == 0x7f || strings.IndexByte(forbidden, c) >= 0 {
			t.Fatalf("%s %q accepted with byte %#x at %d", field, v, c, i)
		}
	}
	for _, r := range v {
		if unicode.IsSpace(r) || unicode.IsControl(r) {
			t.Fatalf("%s %q accepted with %U", field, v, r)
		}
	}
}
