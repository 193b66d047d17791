package redirects

import (
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// TestRequestPath: a decoded path comes out as browsers send it, ASCII
// only with '%' in upper-case escapes, characters browsers leave alone
// left alone, and decoding it gives the path back.
func TestRequestPath(t *testing.T) {
	for in, want := range map[string]string{
		"/café":           "/caf%C3%A9",
		"/日本/":            "/%E6%97%A5%E6%9C%AC/",
		"/a|b^c`d<e>f":    "/a%7Cb%5Ec%60d%3Ce%3Ef",
		"/[x]!$&'()*+,;=": "/[x]!$&'()*+,;=",
		"/a:b@c~d-e_f.g":  "/a:b@c~d-e_f.g",
		"/50%":            "/50%25",
		"/a b":            "/a%20b",
	} {
		if got := RequestPath(in); got != want {
			t.Errorf("RequestPath(%q) = %q, want %q", in, got, want)
		}
	}
	rapid.Check(t, func(t *rapid.T) {
		parts := rapid.SliceOfN(rapid.SampledFrom([]string{"a", "B", "é", "✓", "+", ":", "@", "!", "[", "]", "<", "|", "^", "`", "/", "%", " ", "~", "\x7f", "\"", "{"}), 1, 12).Draw(t, "parts")
		p := "/" + strings.Join(parts, "")
		got := RequestPath(p)
		for i := 0; i < len(got); i++ {
			c := got[i]
			if c >= 0x80 || c <= 0x20 || c == 0x7f || strings.IndexByte("\"<>\\^`{|}", c) >= 0 {
				t.Fatalf("RequestPath(%q) = %q holds %q raw", p, got, c)
			}
			if c == '%' && (i+2 >= len(got) || !strings.ContainsRune("0123456789ABCDEF", rune(got[i+1])) || !strings.ContainsRune("0123456789ABCDEF", rune(got[i+2]))) {
				t.Fatalf("RequestPath(%q) = %q: a '%%' that is not an upper-case escape at %d", p, got, i)
			}
		}
		back, err := DecodePath(strings.ReplaceAll(got, "?", "%3F"))
		if err != nil || back != p {
			t.Fatalf("DecodePath(RequestPath(%q) = %q) = %q, %v", p, got, back, err)
		}
	})
}
