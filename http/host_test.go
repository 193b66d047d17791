package http

import (
	"strings"
	"testing"
)

// TestLookupHostParameter: the lookup's host parameter
// (docs/contract.md#hosts) is checked at the parameters step: a repeated,
// badly escaped or malformed host is 400 INVALID_QUERY naming host, after
// the other parameters' escapes and repeats and before the path's checks;
// an empty one is no host; an export ignores it. A lookup with a host is
// answered by the rules without one as before.
func TestLookupHostParameter(t *testing.T) {
	f := newFixture(t, nil)
	q := f.lookupQuery("/a")
	for _, c := range []struct {
		name, raw string
		want      *apiError
	}{
		{"repeated", q + "&host=a.example&host=b.example", errRepeatedHost},
		{"repeated, one empty", q + "&host=&host=b.example", errRepeatedHost},
		{"bad escape", q + "&host=%zz", errHostEscape},
		{"wildcard", q + "&host=*.example.com", errInvalidHost},
		{"underscore", q + "&host=a_b.example", errInvalidHost},
		{"empty label", q + "&host=a..example", errInvalidHost},
		{"IPv6 literal", q + "&host=%5B%3A%3A1%5D", errInvalidHost},
		{"port not a number", q + "&host=a.example:http", errInvalidHost},
		{"label starting with -", q + "&host=-a.example", errInvalidHost},
		{"label ending with -", q + "&host=a-.example", errInvalidHost},
		{"label over 63 bytes", q + "&host=" + strings.Repeat("a", 64) + ".example", errInvalidHost},
		{"name over 253 bytes", q + "&host=" + strings.Repeat("a.", 127) + "aa", errInvalidHost},
		{"host before a missing path", "project=" + f.project.ID + "&host=a_b", errInvalidHost},
		{"another repeat first", q + "&path=/b&host=a_b", errBadQuery("Repeated path parameter")},
	} {
		t.Run(c.name, func(t *testing.T) {
			wantError(t, f.handle("GET", "/v1/lookup", c.raw, f.secret), c.want)
		})
	}
	for _, host := range []string{"", "www.example.com", "WWW.Example.COM.:8443", "b%C3%BCcher.example", "xn--bcher-kva.example", "127.0.0.1:8080", "a-b--c.example", strings.Repeat("a", 63) + ".example"} {
		w := f.handle("GET", "/v1/lookup", q+"&host="+host, f.secret)
		if w.Status != 200 || string(w.Body) != `{"destination":"/to-a","statusCode":301,"matchType":"exact"}` {
			t.Errorf("host %q: %d %s, want the host-less rule's answer", host, w.Status, w.Body)
		}
	}
	// An export has no host parameter: it is ignored, repeated or not.
	if w := f.handle("GET", "/v1/export", "project="+f.project.ID+"&format=csv&host=a_b&host=x", f.secret); w.Status != 200 {
		t.Errorf("an export with host parameters: %d %s, want 200", w.Status, w.Body)
	}
}

// TestValidHostDoesNotAllocate: checking an ASCII host costs no
// allocation, so a lookup with a host allocates no more than one without.
func TestValidHostDoesNotAllocate(t *testing.T) {
	for _, h := range []string{"www.example.com", "WWW.Example.COM.:8443", "a_b.example"} {
		if n := testing.AllocsPerRun(100, func() { validHost(h) }); n != 0 {
			t.Errorf("validHost(%q): %v allocations, want 0", h, n)
		}
	}
}
