package redirects

import (
	"strings"
	"testing"
)

// validRule returns a rule that passes Validate, for tests to spoil one
// field at a time.
func validRule() Rule {
	return Rule{Source: "/old", Destination: "/new", StatusCode: 301, MatchType: Exact, Priority: DefaultPriority}
}

func TestValidateAccepts(t *testing.T) {
	for _, tt := range []struct{ source, dest string }{
		{"/", "/"},
		{"/old/page", "/new/page?x=1&y=2"},
		{"/a-b_c.d~e%C3%a9f", "https://example.com/path?q=<1>&r=2"},
		{"/ünïcödé/страница", "http://example.org"},
		{"/" + strings.Repeat("a", MaxSourceLen-1), "/" + strings.Repeat("b", MaxDestLen-1)},
		{"/x", "HTTPS://EXAMPLE.COM/"},
		{"/a:b@c!d*e(f)g+h,i=j[k]l", "/a?b=c?d"},
	} {
		r := validRule()
		r.Source, r.Destination = tt.source, tt.dest
		if err := r.Validate(); err != nil {
			t.Errorf("Validate(source %q, destination %q) = %v, want nil", quoteShort(tt.source), quoteShort(tt.dest), err)
		}
	}
}

func TestValidateMessages(t *testing.T) {
	long := "/" + strings.Repeat("a", MaxSourceLen) // 2049 bytes
	tests := []struct {
		name  string
		spoil func(*Rule)
		// want lists substrings the message must hold: the field, and the
		// offending character or value.
		want []string
	}{
		{"empty source", func(r *Rule) { r.Source = "" }, []string{"source is empty"}},
		{"source without slash", func(r *Rule) { r.Source = "old" }, []string{`source "old" must start with '/'`}},
		{"source over 2048 bytes", func(r *Rule) { r.Source = long }, []string{"source is 2049 bytes long, more than the 2048 allowed"}},
		{"source with space", func(r *Rule) { r.Source = "/a b" }, []string{`source "/a b"`, "whitespace or a control character (U+0020) at byte 2"}},
		{"source with tab", func(r *Rule) { r.Source = "/a\tb" }, []string{"source", "(U+0009) at byte 2"}},
		{"source with newline", func(r *Rule) { r.Source = "/a\nb" }, []string{"source", "(U+000A)"}},
		{"source with DEL", func(r *Rule) { r.Source = "/a\x7f" }, []string{"source", "(U+007F)"}},
		{"source with NBSP", func(r *Rule) { r.Source = "/a\u00a0b" }, []string{"source", "(U+00A0)"}},
		{"source with line separator", func(r *Rule) { r.Source = "/a\u2028b" }, []string{"source", "(U+2028)"}},
		{"source with invalid UTF-8", func(r *Rule) { r.Source = "/a\xffb" }, []string{"source", "not valid UTF-8"}},
		// A '?' starts query conditions (docs/contract.md#query-conditions):
		// only a decoded one is refused now.
		{"source with ?", func(r *Rule) { r.Source = "/a%3Fb" }, []string{"source", `forbidden character '?' at byte 2`}},
		{"source with #", func(r *Rule) { r.Source = "/a#b" }, []string{"source", `'#'`}},
		{"source with double quote", func(r *Rule) { r.Source = `/a"b` }, []string{"source", `'"'`}},
		{"source with single quote", func(r *Rule) { r.Source = "/a'b" }, []string{"source", `'\''`}},
		{"source with backslash", func(r *Rule) { r.Source = `/a\b` }, []string{"source", `'\\'`}},
		{"source with semicolon", func(r *Rule) { r.Source = "/a;b" }, []string{"source", `';'`}},
		{"source with brace", func(r *Rule) { r.Source = "/a{b" }, []string{"source", `'{'`}},
		{"source with closing brace", func(r *Rule) { r.Source = "/a}b" }, []string{"source", `'}'`}},
		{"source with dollar", func(r *Rule) { r.Source = "/$host" }, []string{"source", `'$' at byte 1`}},
		{"empty destination", func(r *Rule) { r.Destination = "" }, []string{"destination is empty"}},
		{"relative destination", func(r *Rule) { r.Destination = "new" }, []string{`destination "new" must be a path starting with '/' or an http:// or https:// URL`}},
		{"scheme-relative destination", func(r *Rule) { r.Destination = "//evil.example/" }, []string{"destination", "must not start with '//'"}},
		{"bare scheme", func(r *Rule) { r.Destination = "https://" }, []string{"destination", "must be a path"}},
		{"other scheme", func(r *Rule) { r.Destination = "javascript:alert(1)" }, []string{"destination", "must be a path"}},
		{"destination over 2048 bytes", func(r *Rule) { r.Destination = "/" + strings.Repeat("b", MaxDestLen) }, []string{"destination is 2049 bytes long, more than the 2048 allowed"}},
		{"destination with space", func(r *Rule) { r.Destination = "/a b" }, []string{"destination", "(U+0020) at byte 2"}},
		{"destination with two #", func(r *Rule) { r.Destination = "/a#b#c" }, []string{"destination", `second '#'`}},
		{"destination with quote", func(r *Rule) { r.Destination = `/a"b` }, []string{"destination", `'"'`}},
		{"destination with semicolon", func(r *Rule) { r.Destination = "/a;return 200" }, []string{"destination", `';'`}},
		{"destination with dollar", func(r *Rule) { r.Destination = "/$1" }, []string{"destination", `'$'`}},
		{"destination with CR", func(r *Rule) { r.Destination = "/a\rSet-Cookie:x" }, []string{"destination", "(U+000D)"}},
		{"status 304", func(r *Rule) { r.StatusCode = 304 }, []string{"statusCode 304 is not one of 301, 302, 303, 307, 308, 410"}},
		{"status 0", func(r *Rule) { r.StatusCode = 0 }, []string{"statusCode 0"}},
		{"bad match type", func(r *Rule) { r.MatchType = 7 }, []string{"matchType 7 is not one of exact, starts_with, pattern, regex"}},
		{"negative priority", func(r *Rule) { r.Priority = -1 }, []string{"priority -1 is outside 0..1000000"}},
		{"priority too high", func(r *Rule) { r.Priority = MaxPriority + 1 }, []string{"priority 1000001 is outside 0..1000000"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := validRule()
			tt.spoil(&r)
			err := r.Validate()
			if err == nil {
				t.Fatalf("Validate accepted %+v", r)
			}
			if code := ErrorCode(err); code != EINVALID {
				t.Errorf("error code %q, want %q", code, EINVALID)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("message %q does not hold %q", err.Error(), w)
				}
			}
		})
	}
}

// TestValidateMessageIsShort checks that a long bad value is cut in the
// message, so an error line stays readable.
func TestValidateMessageIsShort(t *testing.T) {
	r := validRule()
	r.Source = "/" + strings.Repeat("a", 1000) + " "
	err := r.Validate()
	if err == nil || len(err.Error()) > 200 || !strings.Contains(err.Error(), "(1002 bytes)") {
		t.Fatalf("message %q should be short and give the length", err)
	}
}

func TestParseMatchType(t *testing.T) {
	for s, want := range map[string]MatchType{"exact": Exact, "starts_with": StartsWith, "pattern": Pattern, "regex": Regex} {
		if got, err := ParseMatchType(s); err != nil || got != want || got.String() != s {
			t.Errorf("ParseMatchType(%q) = %v, %v", s, got, err)
		}
	}
	for _, s := range []string{"", "Exact", "prefix", "startswith"} {
		if _, err := ParseMatchType(s); ErrorCode(err) != EINVALID || !strings.Contains(err.Error(), "matchType") {
			t.Errorf("ParseMatchType(%q) error = %v, want an EINVALID naming matchType", s, err)
		}
	}
}

func TestMatchTypesAreThePatternKinds(t *testing.T) {
	for _, m := range MatchTypes {
		r := Rule{MatchType: m}
		if got := r.PatternRule().Kind.String(); got != m.String() {
			t.Errorf("match type %s is the engine's %s", m, got)
		}
	}
}
