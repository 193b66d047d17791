package pattern

import (
	"errors"
	"net/url"
	"strings"
	"testing"
)

// FuzzCompile holds the parser to its contract on any input: it never
// panics; a refusal names a field and a position within the value; an
// accepted rule, asked for any path, answers a destination that keeps its
// scheme and host, or a path that starts with one '/'.
func FuzzCompile(f *testing.F) {
	for _, s := range [][3]string{
		{"/:lang/guide/*", "/:lang/docs/:splat", "/en/guide/a/b"},
		{"/v/:version(v6|v7)/x", "https://ex.com/:version", "/v/v6/x"},
		{"/o/:a?/end??x=:x&y", "/:x/:a", "/o/end?x=%2F%2Fe&y"},
		{"/docs/:p+", "/:p", "/docs//evil"},
		{"/(who|what)\\.html$?p=1", "/$1?$$", "/who.html?p=1"},
		{"/a(b", "/", "/a"},
		{"/:x((((", "/", "/"},
		{"/%3A/%2A/%28", "/", "/:/*/("},
		{"/:a:b", "/", "/xy"},
		{"^/old/\\Qa.php", "/new", "/old/a.php"},
		{"/docs/:p(\\Qa.b)", "/d/:p", "/docs/a.b"},
	} {
		f.Add(s[0], s[1], s[2], uint8(Pattern), "")
		f.Add(s[0], s[1], s[2], uint8(Regex), "*.example.com")
	}
	f.Fuzz(func(t *testing.T, src, dest, path string, kind uint8, host string) {
		k := Kind(kind % 4)
		set, err := Compile([]Rule{{ID: 1, Kind: k, Source: src, Destination: dest, Host: host}}, Settings{CaseInsensitive: kind&4 != 0, IgnoreTrailingSlash: kind&8 != 0})
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("Compile(%q, %q): %v is not a field error", src, dest, err)
			}
			value := map[string]string{"source": src, "destination": dest, "host": host, "matchType": ""}[e.Field]
			if e.Pos < 0 || e.Pos > len(value) {
				t.Fatalf("Compile(%q, %q): %v: position outside the %s (%d bytes)", src, dest, err, e.Field, len(value))
			}
			return
		}
		var m Match
		if !set.Lookup("a.example.com", path, &m) {
			return
		}
		got := string(m.AppendDestination(nil))
		if got == "" {
			return
		}
		lower := strings.ToLower(dest)
		if strings.HasPrefix(lower, "http://") || strings.HasPrefix(lower, "https://") {
			du, err1 := url.Parse(strings.ReplaceAll(dest, "%", "%25"))
			gu, err2 := url.Parse(got)
			if err1 == nil && err2 == nil && (du.Host != gu.Host || du.Scheme != gu.Scheme) {
				t.Fatalf("%q → %q asked for %q: %q changes the host", src, dest, path, got)
			}
			return
		}
		if !strings.HasPrefix(got, "/") || strings.HasPrefix(got, "//") || strings.HasPrefix(got, "/\\") {
			t.Fatalf("%q → %q asked for %q: %q is an open redirect", src, dest, path, got)
		}
	})
}
