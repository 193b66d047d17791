package pattern

import (
	"strings"
	"testing"
)

// TestPatternHitDoesNotAllocate: a hit of a pattern with placeholders, a
// splat, a constraint, a host and a query condition, its destination
// rendered into a buffer, allocates nothing once the Match has grown; so
// does a hit of a rule with exceptHosts, or past one that excepts the host.
func TestPatternHitDoesNotAllocate(t *testing.T) {
	for _, st := range []Settings{{}, {CaseInsensitive: true, IgnoreTrailingSlash: true}} {
		s, err := Compile([]Rule{
			{ID: 1, Kind: Pattern, Source: "/:lang/guide/*", Destination: "/:lang/docs/:splat"},
			{ID: 2, Kind: Pattern, Host: "*.example.com", Source: "/v/:version(v6|v7)/:page.html?ref=:ref", Destination: "https://example.com/:version/:page?from=:ref"},
			{ID: 3, Kind: Exact, Source: "/index.php?p=123", Destination: "/post"},
			{ID: 4, Kind: StartsWith, Source: "/old/", Destination: "/new/"},
			{ID: 5, Kind: Exact, Source: "/", ExceptHosts: []string{"example.com", "*.example.org"}, Destination: "https://example.com/"},
			{ID: 6, Kind: StartsWith, Source: "/x/", ExceptHosts: []string{"a.example.net"}, Destination: "/y/"},
			{ID: 7, Kind: StartsWith, Source: "/x", Destination: "/z/"},
		}, st)
		if err != nil {
			t.Fatal(err)
		}
		var m Match
		buf := make([]byte, 0, 256)
		for _, c := range []struct{ host, wire, want string }{
			{"", "/en/guide/a/b%20c?x=1", "/en/docs/a/b%20c"},
			{"docs.Example.com:443", "/v/v7/intro.html?ref=home", "https://example.com/v7/intro?from=home"},
			{"", "/index.php?p=123", "/post"},
			{"", "/old/x", "/new/"},
			{"www.example.com", "/", "https://example.com/"},
			{"a.example.net", "/x/z", "/z/"},
			{"b.example.net", "/x/z", "/y/"},
		} {
			if !s.Lookup(c.host, c.wire, &m) || string(m.AppendDestination(buf[:0])) != c.want {
				t.Fatalf("%+v: no hit or %q", c, m.AppendDestination(nil))
			}
			if n := testing.AllocsPerRun(100, func() {
				s.Lookup(c.host, c.wire, &m)
				buf = m.AppendDestination(buf[:0])
			}); n != 0 {
				t.Errorf("settings %+v, %+v: %v allocations per lookup, want 0", st, c, n)
			}
		}
	}
}

// TestPathologicalPatternEnds: a segment of many placeholders asked for a
// long segment that almost matches everywhere is searched with every
// failure remembered, so it ends (in O(placeholders × length²) steps; the
// benchmark measures it) instead of trying every split.
func TestPathologicalPatternEnds(t *testing.T) {
	s, err := Compile([]Rule{{ID: 1, Kind: Pattern, Source: "/:a-:b-:c-:d-:e-:f-:g-:h(x)/end", Destination: "/:h"}}, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	var m Match
	path := "/" + strings.Repeat("-", 2000) + "/end"
	if s.Lookup("", path, &m) {
		t.Fatalf("%s... matched", path[:20])
	}
	if !s.Lookup("", "/"+strings.Repeat("-", 1000)+"x/end", &m) || string(m.AppendDestination(nil)) != "/x" {
		t.Fatalf("no match, or %q", m.AppendDestination(nil))
	}
}
