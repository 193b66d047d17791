package engine

import (
	"encoding/json"
	"testing"

	"redirects"
)

// FuzzLookupBody feeds the sources and destinations of the root's
// FuzzValidateRule to validation and, whenever it accepts a rule, compiles
// it and checks its lookup body.
func FuzzLookupBody(f *testing.F) {
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
		// most of a short run. The root's rule_test.go covers the limits.
		f.Add(seed[0], seed[1])
	}
	f.Fuzz(func(t *testing.T, source, dest string) {
		for _, mt := range []redirects.MatchType{redirects.Exact, redirects.StartsWith} {
			r := redirects.Rule{ID: 1, Source: source, Destination: dest, StatusCode: 302, MatchType: mt, Priority: redirects.DefaultPriority}
			if r.Validate() != nil {
				return
			}
			if r.Extended() {
				// A source with query conditions ("/a?b") is no path to
				// look up: the pattern engine's tests hold such rules.
				return
			}
			// A valid rule compiles to a lookup body that is valid JSON
			// and gives the destination back unchanged.
			s := Compile([]redirects.Rule{r})
			m, ok := s.Lookup(source)
			if !ok || m.Destination() != dest || m.MatchType() != mt || m.StatusCode() != 302 {
				t.Fatalf("Lookup(%q) = %q %v %d, %v after compiling %+v", source, m.Destination(), m.MatchType(), m.StatusCode(), ok, r)
			}
			var body struct {
				Destination string `json:"destination"`
				StatusCode  int    `json:"statusCode"`
				MatchType   string `json:"matchType"`
			}
			if err := json.Unmarshal(m.JSON(), &body); err != nil || body.Destination != dest || body.StatusCode != 302 || body.MatchType != mt.String() {
				t.Fatalf("body %s decodes to %+v, %v", m.JSON(), body, err)
			}
			if want := modelJSON(dest, 302, mt); string(m.JSON()) != string(want) {
				t.Fatalf("body %s, encoding/json gives %s", m.JSON(), want)
			}
		}
	})
}
