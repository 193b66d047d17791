package http

import (
	"math/rand/v2"
	"net/url"
	"strings"
	"testing"

	"redirects"
)

func TestParseQuery(t *testing.T) {
	tests := []struct {
		raw                        string
		project, path, format, ver string
		hasVersion                 bool
	}{
		{raw: "project=p&path=/x", project: "p", path: "/x"},
		{raw: "path=/x&project=p", project: "p", path: "/x"},
		{raw: "project=p&path=%2Fa%20b", project: "p", path: "/a b"},
		{raw: "project=p&path=/a+b", project: "p", path: "/a b"},
		{raw: "project=p&path=/caf%C3%A9", project: "p", path: "/café"},
		{raw: "&&project=p&&path=/x&", project: "p", path: "/x"},
		{raw: "project=p&path=/x&utm_source=mail&other=1&other=2", project: "p", path: "/x"},
		{raw: "pr%6Fject=p&path=/x", project: "p", path: "/x"},
		{raw: "project=p&format=nginx&version=7", project: "p", format: "nginx", ver: "7", hasVersion: true},
		{raw: "project=p&version", project: "p", hasVersion: true},
		{raw: "project", project: ""},
		{raw: "", project: ""},
	}
	for _, tt := range tests {
		q := parseQuery(tt.raw)
		if q.bad != nil {
			t.Errorf("parseQuery(%q): unexpected error %s", tt.raw, q.bad.msg)
			continue
		}
		if q.project != tt.project || q.path != tt.path || q.format != tt.format || q.version != tt.ver || q.hasVersion != tt.hasVersion {
			t.Errorf("parseQuery(%q) = project %q path %q format %q version %q (%v), want %q %q %q %q (%v)",
				tt.raw, q.project, q.path, q.format, q.version, q.hasVersion, tt.project, tt.path, tt.format, tt.ver, tt.hasVersion)
		}
	}
}

func TestQueryCheck(t *testing.T) {
	long := "/" + strings.Repeat("a", redirects.MaxSourceLen-1)
	tests := []struct {
		name   string
		raw    string
		lookup bool
		want   *apiError // a fixed answer, or nil with wantMsg
		// wantMsg is the message of an INVALID_QUERY answer.
		wantMsg string
		// wantVersion is the parsed version when the check passes.
		wantVersion int
		wantHuge    string
	}{
		{name: "lookup ok", raw: "project=p&path=/x", lookup: true},
		{name: "export ok", raw: "project=p&format=csv"},
		{name: "missing project", raw: "path=/x", lookup: true, want: errMissingProject},
		{name: "missing project before a bad escape", raw: "path=%zz", lookup: true, want: errMissingProject},
		{name: "missing project before a repeat", raw: "path=/a&path=/b", lookup: true, want: errMissingProject},
		{name: "bad escape in the project", raw: "project=%zz&path=/x", lookup: true, wantMsg: "Malformed query string: bad escape in the project parameter"},
		{name: "bad escape in the path", raw: "project=p&path=/%zz", lookup: true, wantMsg: "Malformed query string: bad escape in the path parameter"},
		{name: "truncated escape", raw: "project=p&path=/%2", lookup: true, wantMsg: "Malformed query string: bad escape in the path parameter"},
		{name: "bad escape in a name", raw: "project=p&%zz=1&path=/x", lookup: true, wantMsg: "Malformed query string: bad escape in a parameter name"},
		{name: "repeated project", raw: "project=p&project=q&path=/x", lookup: true, wantMsg: "Repeated project parameter"},
		{name: "repeated path", raw: "project=p&path=/a&path=/a", lookup: true, wantMsg: "Repeated path parameter"},
		{name: "repeated version", raw: "project=p&path=/a&version=1&version=1", lookup: true, wantMsg: "Repeated version parameter"},
		{name: "repeated escaped name", raw: "project=p&path=/a&p%61th=/b", lookup: true, wantMsg: "Repeated path parameter"},
		{name: "first problem wins", raw: "project=p&path=%zz&project=q", lookup: true, wantMsg: "Malformed query string: bad escape in the path parameter"},
		{name: "query problem before a missing path", raw: "project=p&format=%zz", lookup: true, wantMsg: "Malformed query string: bad escape in the format parameter"},
		{name: "missing path", raw: "project=p", lookup: true, want: errMissingPath},
		{name: "empty path", raw: "project=p&path=", lookup: true, want: errMissingPath},
		{name: "relative path", raw: "project=p&path=a/b", lookup: true, want: errInvalidPath},
		{name: "path at the limit", raw: "project=p&path=" + long, lookup: true},
		{name: "path over the limit", raw: "project=p&path=" + long + "a", lookup: true, want: errInvalidPath},
		// The path is decoded once more before matching, as nginx and
		// HAProxy decode a request path: an escape there must decode.
		{name: "escaped request path", raw: "project=p&path=/caf%25C3%25a9%252F%2B", lookup: true},
		{name: "bad escape in the request path", raw: "project=p&path=/50%25off", lookup: true, want: errPathEscape},
		{name: "truncated escape in the request path", raw: "project=p&path=/a%252", lookup: true, want: errPathEscape},
		{name: "bad escape after the query is ignored", raw: "project=p&path=/a%3Fq=50%25", lookup: true},
		{name: "missing format", raw: "project=p", want: errMissingFormat},
		{name: "unknown format", raw: "project=p&format=xml", want: errInvalidFormat},
		{name: "lookups ignore format", raw: "project=p&path=/x&format=xml", lookup: true},
		{name: "version", raw: "project=p&path=/x&version=3", lookup: true, wantVersion: 3},
		{name: "leading zeros", raw: "project=p&path=/x&version=0003", lookup: true, wantVersion: 3},
		{name: "version zero", raw: "project=p&path=/x&version=0", lookup: true, want: errInvalidVersion},
		{name: "version zeros", raw: "project=p&path=/x&version=000", lookup: true, want: errInvalidVersion},
		{name: "negative version", raw: "project=p&path=/x&version=-1", lookup: true, want: errInvalidVersion},
		{name: "signed version", raw: "project=p&path=/x&version=+1", lookup: true, want: errInvalidVersion},
		{name: "fractional version", raw: "project=p&path=/x&version=1.5", lookup: true, want: errInvalidVersion},
		{name: "word version", raw: "project=p&path=/x&version=latest", lookup: true, want: errInvalidVersion},
		{name: "empty version", raw: "project=p&path=/x&version=", lookup: true, want: errInvalidVersion},
		{name: "bare version", raw: "project=p&path=/x&version", lookup: true, want: errInvalidVersion},
		{name: "huge version", raw: "project=p&path=/x&version=99999999999999999999999", lookup: true, wantHuge: "99999999999999999999999"},
		{name: "huge version with zeros", raw: "project=p&format=csv&version=0099999999999999999999999", wantHuge: "99999999999999999999999"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := parseQuery(tt.raw)
			got := q.check(tt.lookup)
			switch {
			case tt.want != nil:
				if got != tt.want {
					t.Fatalf("check(%q) = %v, want %s", tt.raw, describe(got), tt.want.code)
				}
			case tt.wantMsg != "":
				if got == nil || got.code != "INVALID_QUERY" || got.msg != tt.wantMsg || got.status != 400 {
					t.Fatalf("check(%q) = %v, want 400 INVALID_QUERY %q", tt.raw, describe(got), tt.wantMsg)
				}
			default:
				if got != nil {
					t.Fatalf("check(%q) = %v, want it to pass", tt.raw, describe(got))
				}
				if q.versionN != tt.wantVersion || q.versionHuge != tt.wantHuge {
					t.Fatalf("check(%q): version %d huge %q, want %d %q", tt.raw, q.versionN, q.versionHuge, tt.wantVersion, tt.wantHuge)
				}
			}
		})
	}
}

func describe(e *apiError) string {
	if e == nil {
		return "no error"
	}
	return e.code + " " + e.msg
}

// TestUnescapeIntoIsQueryUnescape: the unescaping into a buffer is
// url.QueryUnescape (the model) on random values of escapes, broken
// escapes, pluses and bytes, and leaves what the buffer held before, and
// the values unescaped into it before, as they were.
func TestUnescapeIntoIsQueryUnescape(t *testing.T) {
	rng := rand.New(rand.NewPCG(33, 2))
	const alphabet = "%%%+/aZ09fFgG\xc3\xa9 "
	for range 5000 {
		buf := []byte(strings.Repeat("x", rng.IntN(4)))
		held := string(buf)
		var got, want []string
		for range 1 + rng.IntN(4) {
			b := make([]byte, rng.IntN(12))
			for i := range b {
				b[i] = alphabet[rng.IntN(len(alphabet))]
			}
			s := string(b)
			u, err := unescapeInto(&buf, s)
			m, merr := url.QueryUnescape(s)
			if (err != nil) != (merr != nil) || err == nil && u != m {
				t.Fatalf("unescapeInto(%q) = %q, %v; url.QueryUnescape: %q, %v", s, u, err, m, merr)
			}
			if err == nil {
				got, want = append(got, u), append(want, m)
			}
		}
		if string(buf[:len(held)]) != held {
			t.Fatalf("the buffer's first bytes changed: %q, want %q", buf[:len(held)], held)
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("value %d changed to %q, want %q", i, got[i], want[i])
			}
		}
	}
}

// TestParseQueryIntoIsParseQuery: a query parsed with its escapes
// unescaped into a buffer reads as the allocating parse of it, errors
// included.
func TestParseQueryIntoIsParseQuery(t *testing.T) {
	rng := rand.New(rand.NewPCG(33, 3))
	parts := []string{"project=p1", "path=%2Fa%2Fb", "path=/a+b", "path=%zz", "host=ex%41mple.com", "host=%", "format=csv",
		"version=3", "wait=5", "p%61th=/c", "x=%", "&", "path=", "host=a.b"}
	for range 2000 {
		var ps []string
		for range rng.IntN(6) {
			ps = append(ps, parts[rng.IntN(len(parts))])
		}
		raw := strings.Join(ps, "&")
		var buf []byte
		got, want := parseQueryInto(raw, &buf), parseQuery(raw)
		if got.project != want.project || got.path != want.path || got.host != want.host || got.format != want.format ||
			got.version != want.version || got.wait != want.wait || got.hasVersion != want.hasVersion || got.hasWait != want.hasWait ||
			(got.bad == nil) != (want.bad == nil) || got.badParam != want.badParam || (got.hostBad == nil) != (want.hostBad == nil) {
			t.Fatalf("%q: parseQueryInto %+v, parseQuery %+v", raw, got, want)
		}
		if got.bad != nil && string(got.bad.body) != string(want.bad.body) {
			t.Fatalf("%q: error %s, want %s", raw, got.bad.body, want.bad.body)
		}
	}
}
