package pattern

import "testing"

// TestInspect: the literal prefix, what a rule covers and a sample request
// it matches, for each kind; a constraint or regex gets a sample it
// accepts, and a refused rule an *Error.
func TestInspect(t *testing.T) {
	for _, tc := range []struct {
		r                       Rule
		prefix, covers          string
		samplePath, sampleQuery string
	}{
		{Rule{Kind: Pattern, Source: "/:lang/guide/*", Destination: "/:lang/docs/:splat"}, "/", "", "/lang/guide/splat", ""},
		{Rule{Kind: Pattern, Source: "/docs/*", Destination: "/d/:splat"}, "/docs", "/docs/", "/docs/splat", ""},
		{Rule{Kind: Pattern, Source: "/*", Destination: "/:splat", Host: "*.example.com"}, "", "/", "/splat", ""},
		{Rule{Kind: Pattern, Source: `/v:version(\d+)/:p?`, Destination: "/:version"}, "/v", "", "/v0/p", ""},
		{Rule{Kind: Pattern, Source: "/s/:q?x=1&id=:id&flag&e=", Destination: "/:q/:id"}, "/s/", "", "/s/q", "x=1&id=id&flag&e="},
		{Rule{Kind: Regex, Source: `/a/(\d+)/(?P<slug>[a-z-]+)$?p=1`, Destination: "/$1/${slug}"}, "/a/", "", "/a/0/a", "p=1"},
		{Rule{Kind: StartsWith, Source: "/shop/?ref=x", Destination: "/s", Host: "a.example"}, "/shop/", "", "/shop/", "ref=x"},
		{Rule{Kind: StartsWith, Source: "/shop/", Destination: "/s", Host: "a.example"}, "/shop/", "/shop/", "/shop/", ""},
		{Rule{Kind: Exact, Source: "/p%3Fq", Destination: "/s", Host: "a.example"}, "/p%3Fq", "", "/p%3Fq", ""},
	} {
		info, err := Inspect(tc.r, Settings{})
		if err != nil {
			t.Errorf("Inspect(%+v): %v", tc.r, err)
			continue
		}
		if info.Prefix != tc.prefix || info.Covers != tc.covers || info.SamplePath != tc.samplePath || info.SampleQuery != tc.sampleQuery {
			t.Errorf("Inspect(%s) = %+v; want prefix %q, covers %q, sample %q ? %q", tc.r.Source, info, tc.prefix, tc.covers, tc.samplePath, tc.sampleQuery)
		}
	}
	if _, err := Inspect(Rule{Kind: Regex, Source: "/a(", Destination: "/b"}, Settings{}); err == nil {
		t.Error("Inspect took a malformed regex")
	} else if e, ok := err.(*Error); !ok || e.Field != "source" {
		t.Errorf("Inspect of a malformed regex: %v, want an *Error of the source", err)
	}
	if got := EscapePath("/a b/ü?#%"); got != "/a%20b/%C3%BC%3F%23%25" {
		t.Errorf("EscapePath = %q", got)
	}
}
