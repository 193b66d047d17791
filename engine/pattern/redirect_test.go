package pattern_test

import (
	"net/url"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"redirects/engine/pattern"
)

// hostile are path pieces that try to turn a capture into another host: an
// empty segment (a "//"), slashes and backslashes escaped or not, control
// bytes browsers drop, schemes, user info, dot segments.
var hostile = []string{"go", "evil.example", "", "%2F", "%5C", `\`, "%09", "%0D%0A", "http:", "https:", "%3A", ":", "@", "%40", "..", "%2E%2E", " ", "%20", "a"}

// TestNoOpenRedirect: whatever a request holds, a computed destination
// keeps its rule's scheme and host, and a relative one stays a path on the
// same host (it starts with one '/', not "//" or "/\", and a browser reads
// it without scheme or host).
func TestNoOpenRedirect(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		kind := rapid.SampledFrom([]pattern.Kind{pattern.Pattern, pattern.Regex, pattern.Exact}).Draw(t, "kind")
		var src, dest string
		switch kind {
		case pattern.Pattern:
			src = rapid.SampledFrom([]string{"/go/*", "/:a/*", "/go/:a", "/:a", "/go/:a+", "/:a?/:b*", "/*"}).Draw(t, "source")
			names := map[string]string{"/go/*": ":splat", "/:a/*": ":a:splat", "/go/:a": ":a", "/:a": ":a", "/go/:a+": ":a", "/:a?/:b*": ":a:b", "/*": ":splat"}[src]
			dest = rapid.SampledFrom([]string{"/", "https://example.org/", "/x/../"}).Draw(t, "prefix") + names
		case pattern.Regex:
			src = rapid.SampledFrom([]string{`/go/(.*)`, `(.*)`, `/(?P<x>[^/]*)(.*)`}).Draw(t, "source")
			dest = rapid.SampledFrom([]string{"/", "https://example.org/", "/$$"}).Draw(t, "prefix") + map[string]string{`/go/(.*)`: "$1", `(.*)`: "$1", `/(?P<x>[^/]*)(.*)`: "${x}$2"}[src]
		default:
			src, dest = "/go?to=:to", rapid.SampledFrom([]string{"/:to", "https://example.org/:to"}).Draw(t, "dest")
		}
		st := pattern.Settings{CaseInsensitive: rapid.Bool().Draw(t, "ci"), IgnoreTrailingSlash: rapid.Bool().Draw(t, "ignore")}
		set, err := pattern.Compile([]pattern.Rule{{ID: 1, Kind: kind, Source: src, Destination: dest}}, st)
		if err != nil {
			t.Fatalf("Compile(%q → %q): %v", src, dest, err)
		}
		pieces := rapid.SliceOfN(rapid.SampledFrom(hostile), 0, 6).Draw(t, "pieces")
		wire := "/" + strings.Join(pieces, rapid.SampledFrom([]string{"/", ""}).Draw(t, "join"))
		if kind == pattern.Exact {
			wire = "/go?to=" + strings.Join(pieces, rapid.SampledFrom([]string{"/", ""}).Draw(t, "join"))
		}
		var m pattern.Match
		if !set.Lookup("", wire, &m) {
			return
		}
		got := string(m.AppendDestination(nil))
		u, err := url.Parse(got)
		if err != nil {
			t.Fatalf("%q → %q asked for %q gives %q, not a URL: %v", src, dest, wire, got, err)
		}
		if strings.ContainsAny(got, "\\\t\r\n ") {
			t.Fatalf("%q → %q asked for %q gives %q, with a byte a browser would rewrite", src, dest, wire, got)
		}
		if strings.HasPrefix(dest, "https://") {
			if u.Scheme != "https" || u.Host != "example.org" || u.User != nil {
				t.Fatalf("%q → %q asked for %q gives %q: scheme %q host %q", src, dest, wire, got, u.Scheme, u.Host)
			}
			return
		}
		if !strings.HasPrefix(got, "/") || strings.HasPrefix(got, "//") || strings.HasPrefix(got, "/\\") || u.Scheme != "" || u.Host != "" {
			t.Fatalf("%q → %q asked for %q gives %q: an open redirect", src, dest, wire, got)
		}
	})
}
