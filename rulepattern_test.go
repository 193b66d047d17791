package redirects

import (
	"errors"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"redirects/engine/pattern"
)

// TestValidatePatternRules holds what Validate takes of the four match
// types (docs/contract.md#pattern-rules) and the form it stores: a literal
// source's path decoded, its conditions as written; a pattern or regex
// source as written; the host as its host key.
func TestValidatePatternRules(t *testing.T) {
	for _, tt := range []struct {
		name               string
		rule               Rule
		wantSource, wantHo string
	}{
		{"exact with conditions", Rule{MatchType: Exact, Source: "/index.php?p=123", Destination: "/post-123"}, "/index.php?p=123", ""},
		{"escaped path, conditions as written", Rule{MatchType: Exact, Source: "/caf%C3%A9?q=a%20b&flag&e=", Destination: "/c"}, "/café?q=a%20b&flag&e=", ""},
		{"capturing condition", Rule{MatchType: Exact, Source: "/store?id=:id", Destination: "/items/:id"}, "/store?id=:id", ""},
		{"starts_with with conditions", Rule{MatchType: StartsWith, Source: "/s/?lang=fr", Destination: "/fr/s/", PreservePath: true}, "/s/?lang=fr", ""},
		{"pattern", Rule{MatchType: Pattern, Source: "/:lang/guide/*", Destination: "/:lang/docs/:splat"}, "/:lang/guide/*", ""},
		{"pattern kept as written", Rule{MatchType: Pattern, Source: "/lit%3Acolon/:x(\\d+)/:o?", Destination: "https://example.org/c/:x/:o"}, "/lit%3Acolon/:x(\\d+)/:o?", ""},
		{"pattern with conditions", Rule{MatchType: Pattern, Source: "/s/:q??x=1&id=:id", Destination: "/t/:q/:id"}, "/s/:q??x=1&id=:id", ""},
		{"regex", Rule{MatchType: Regex, Source: `/(dom|d)/(?P<id>\d+)$?p=:p`, Destination: "/dd/$1/${id}/${p}?$$"}, `/(dom|d)/(?P<id>\d+)$?p=:p`, ""},
		{"a port in a destination is no capture", Rule{MatchType: Pattern, Source: "/a/:x", Destination: "https://h:8080/:x"}, "/a/:x", ""},
		{"410 pattern", Rule{MatchType: Pattern, Source: "/gone/*", StatusCode: 410}, "/gone/*", ""},
		{"host key", Rule{MatchType: Exact, Source: "/a", Destination: "/b", Host: "Old.Example.COM.:8443"}, "/a", "old.example.com"},
		{"IDN host, U-label", Rule{MatchType: Exact, Source: "/a", Destination: "/b", Host: "Bücher.example"}, "/a", "xn--bcher-kva.example"},
		{"IDN host, A-label", Rule{MatchType: Exact, Source: "/a", Destination: "/b", Host: "xn--bcher-kva.example"}, "/a", "xn--bcher-kva.example"},
		{"wildcard host", Rule{MatchType: Pattern, Source: "/*", Destination: "https://example.org/:splat", Host: "*.Example.org"}, "/*", "*.example.org"},
		{"literal destination keeps its checks", Rule{MatchType: Exact, Source: "/a", Destination: "/b`c:d", Host: "example.com"}, "/a", "example.com"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := tt.rule
			if r.StatusCode == 0 {
				r.StatusCode = 301
			}
			r.Priority = DefaultPriority
			if err := r.Validate(); err != nil {
				t.Fatalf("Validate(%+v) = %v, want nil", tt.rule, err)
			}
			if r.Source != tt.wantSource || r.Host != tt.wantHo {
				t.Errorf("stored source %q, host %q; want %q, %q", r.Source, r.Host, tt.wantSource, tt.wantHo)
			}
			if _, err := pattern.Compile([]pattern.Rule{r.PatternRule()}, pattern.Settings{}); err != nil {
				t.Errorf("Compile refuses what Validate took: %v", err)
			}
		})
	}
}

// TestValidatePatternMessages lists the bad input of pattern rules: each is
// an EINVALID naming the field, quoting the value and, where the engine
// finds it, the byte (0-based) where it is wrong.
func TestValidatePatternMessages(t *testing.T) {
	longRegex := "/" + strings.Repeat("a", 1024)
	hugeRegex := "/" + strings.Repeat("[a-z]{1000}", 11)
	for _, tt := range []struct {
		name string
		rule Rule
		want []string
	}{
		{"two placeholders", Rule{MatchType: Pattern, Source: "/:a:b", Destination: "/"}, []string{`source "/:a:b": at byte 3, two placeholders with nothing between them`}},
		{"name missing", Rule{MatchType: Pattern, Source: "/a/:1", Destination: "/"}, []string{`source "/a/:1": at byte 3,`, "placeholder name"}},
		{"unclosed constraint", Rule{MatchType: Pattern, Source: "/v/:x(v6", Destination: "/"}, []string{`source "/v/:x(v6": at byte 5, unclosed constraint`}},
		{"bad constraint", Rule{MatchType: Pattern, Source: "/v/:x(a**)", Destination: "/"}, []string{`source "/v/:x(a**)": at byte 7, invalid regular expression`}},
		{"second splat", Rule{MatchType: Pattern, Source: "/a/*/b/*", Destination: "/"}, []string{`source "/a/*/b/*": at byte 7, a second multi-segment placeholder`}},
		{"splat mid-segment", Rule{MatchType: Pattern, Source: "/a*", Destination: "/"}, []string{`source "/a*": at byte 2,`, "must begin a segment"}},
		{"pattern with a dollar", Rule{MatchType: Pattern, Source: "/a$b", Destination: "/"}, []string{`source "/a$b": at byte 2,`, "percent-encoded"}},
		{"pattern with a quote", Rule{MatchType: Pattern, Source: `/a"b`, Destination: "/"}, []string{`source "/a\"b": at byte 2,`, "not allowed"}},
		{"pattern with NBSP", Rule{MatchType: Pattern, Source: "/a\u00a0b", Destination: "/"}, []string{"source", "(U+00A0) at byte 2"}},
		// The unclosed group is placed at its own '(' (RE2 reports the whole expression).
		{"malformed regex", Rule{MatchType: Regex, Source: `/a(b`, Destination: "/"}, []string{`source "/a(b": at byte 2, invalid regular expression: missing closing )`}},
		{"regex bad repeat", Rule{MatchType: Regex, Source: `/ab**`, Destination: "/"}, []string{`source "/ab**": at byte 3, invalid regular expression: invalid nested repetition operator`}},
		{"oversized regex", Rule{MatchType: Regex, Source: longRegex, Destination: "/"}, []string{"source", "at byte 1024, longer than 1024 bytes"}},
		{"regex compiles too large", Rule{MatchType: Regex, Source: hugeRegex, Destination: "/"}, []string{"source", "at byte 0, the regular expression compiles to", "instructions, more than 10000"}},
		{"undefined placeholder", Rule{MatchType: Pattern, Source: "/a/:x", Destination: "/b/:y"}, []string{`destination "/b/:y": at byte 3, the capture :y is not defined by the source`}},
		{"undefined group", Rule{MatchType: Regex, Source: `/(a)/(b)`, Destination: "/$3"}, []string{`destination "/$3": at byte 1, the capture $3 is not defined by the source`}},
		{"undefined named group", Rule{MatchType: Regex, Source: `/(a)`, Destination: "/${n}"}, []string{`destination "/${n}": at byte 1, the capture ${n} is not defined by the source`}},
		{"undefined query capture", Rule{MatchType: Exact, Source: "/s?id=:id", Destination: "/i/:ident"}, []string{`destination "/i/:ident": at byte 3, the capture :ident is not defined by the source`}},
		{"capture in the host", Rule{MatchType: Pattern, Source: "/go/:site", Destination: "https://:site.example.com/"}, []string{`destination "https://:site.example.com/": at byte 8, a capture may not form the scheme or host`}},
		{"capture in a regex host", Rule{MatchType: Regex, Source: `/go/(\w+)`, Destination: "https://x$1.example.com/"}, []string{"destination", "at byte 9, a capture may not form the scheme or host"}},
		{"scheme-relative pattern destination", Rule{MatchType: Pattern, Source: "/a/*", Destination: "//evil.example/:splat"}, []string{`destination "//evil.example/:splat": at byte 0,`}},
		{"pattern destination with a brace", Rule{MatchType: Pattern, Source: "/a/*", Destination: "/{x}"}, []string{`destination "/{x}": at byte 1,`}},
		{"empty condition", Rule{MatchType: Exact, Source: "/a?x=1&&y", Destination: "/"}, []string{`source "/a?x=1&&y": at byte 7, an empty query condition`}},
		{"nothing after ?", Rule{MatchType: Exact, Source: "/a?", Destination: "/"}, []string{`source "/a?": at byte 2,`}},
		{"condition with a space", Rule{MatchType: StartsWith, Source: "/a?x=a b", Destination: "/"}, []string{`source "/a?x=a b": at byte 6,`, "(U+0020)"}},
		{"condition with a brace", Rule{MatchType: Exact, Source: "/a?x={y}", Destination: "/"}, []string{`source "/a?x={y}": at byte 5, its query conditions hold the forbidden character '{'`}},
		{"malformed escape in a condition", Rule{MatchType: Exact, Source: "/a?x=%zz", Destination: "/"}, []string{`source "/a?x=%zz": at byte 5,`}},
		{"bad path before conditions", Rule{MatchType: Exact, Source: "/a b?x=1", Destination: "/"}, []string{`source "/a b"`, "(U+0020) at byte 2"}},
		{"no path before conditions", Rule{MatchType: Exact, Source: "?x=1", Destination: "/"}, []string{`source "?x=1" must start with '/'`}},
		{"literal destination without capture", Rule{MatchType: Exact, Source: "/a?x=1", Destination: "/$1"}, []string{"destination", `'$'`}},
		{"malformed host", Rule{MatchType: Exact, Source: "/a", Destination: "/b", Host: "exa mple.com"}, []string{`host "exa mple.com" is not a host name`}},
		{"host with a path", Rule{MatchType: Exact, Source: "/a", Destination: "/b", Host: "https://example.com/"}, []string{`host "https://example.com/" is not a host name`}},
		{"host with an empty label", Rule{MatchType: Exact, Source: "/a", Destination: "/b", Host: "a..b"}, []string{`host "a..b" is not a host name`}},
		{"wildcard inside a host", Rule{MatchType: Exact, Source: "/a", Destination: "/b", Host: "a.*.b"}, []string{`host "a.*.b" is not a host name`}},
		{"bare wildcard host", Rule{MatchType: Exact, Source: "/a", Destination: "/b", Host: "*"}, []string{`host "*" is not a host name`}},
		{"host too long", Rule{MatchType: Exact, Source: "/a", Destination: "/b", Host: strings.Repeat("a.", 127) + "com"}, []string{"host", "is not a host name"}},
		{"host label starting with -", Rule{MatchType: Exact, Source: "/a", Destination: "/b", Host: "*.-a.example"}, []string{`host "*.-a.example" is not a host name`}},
		{"host label ending with -", Rule{MatchType: Exact, Source: "/a", Destination: "/b", Host: "a-.example"}, []string{`host "a-.example" is not a host name`}},
		{"host label over 63 bytes", Rule{MatchType: Exact, Source: "/a", Destination: "/b", Host: strings.Repeat("b", 64) + ".example"}, []string{"host", "is not a host name"}},
		{"preservePath on a pattern", Rule{MatchType: Pattern, Source: "/a/*", Destination: "/b/:splat", PreservePath: true}, []string{"preservePath applies to starts_with rules only", "splat"}},
		{"pattern 410 with destination", Rule{MatchType: Pattern, Source: "/a/*", Destination: "/b", StatusCode: 410}, []string{"destination must be empty for statusCode 410"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := tt.rule
			if r.StatusCode == 0 {
				r.StatusCode = 301
			}
			r.Priority = DefaultPriority
			before := r
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
			if r.Host != before.Host && r.Host != "" {
				t.Errorf("a refused rule's host became %q", r.Host)
			}
		})
	}
}

// TestRuleKeys holds docs/contract.md#keys: one rule per match type, host
// and source key; conditions part of the key, pattern sources as written.
func TestRuleKeys(t *testing.T) {
	ignore := Settings{CaseInsensitive: true, IgnoreTrailingSlash: true}
	rules := []Rule{
		{ID: 1, MatchType: Exact, Source: "/a"},
		{ID: 2, MatchType: Exact, Source: "/a", Host: "example.com"}, // another host: no clash
		{ID: 3, MatchType: Exact, Source: "/a?x=1"},                  // conditions: another key
		{ID: 4, MatchType: Exact, Source: "/A/?x=1"},                 // clashes with 3 under ignore
		{ID: 5, MatchType: Pattern, Source: "/a"},                    // another match type
		{ID: 6, MatchType: Pattern, Source: "/A"},                    // a pattern is its own key
		{ID: 7, MatchType: Exact, Source: "/A", Host: "example.com"}, // clashes with 2 under ignore
		{ID: 8, MatchType: Exact, Source: "/a?X=1"},                  // conditions compare as written
	}
	if c := Clashes(rules, Settings{}, 0); len(c) != 0 {
		t.Fatalf("default settings: clashes %v, want none", c)
	}
	var got []string
	for _, c := range Clashes(rules, ignore, 0) {
		got = append(got, c.A.Source+"|"+c.B.Source+"|"+c.B.Host)
	}
	want := []string{"/a?x=1|/A/?x=1|", "/a|/A|example.com"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("clashes %q, want %q", got, want)
	}
	msg := ClashError(ignore, Clashes(rules, ignore, 0)).Error()
	if !strings.Contains(msg, `rule 2 "/a" and rule 7 "/A" (host example.com)`) {
		t.Errorf("ClashError %q does not name the host", msg)
	}
	if k := ignore.SourceKey(Regex, "/A/"); k != "/A/" {
		t.Errorf("a regex source's key is %q, want it as written", k)
	}
}

func TestRuleFilterHostAndMatchTypes(t *testing.T) {
	for _, m := range MatchTypes {
		f := RuleFilter{MatchType: &m}
		if err := f.Validate(); err != nil {
			t.Errorf("filter on %s: %v", m, err)
		}
	}
	bad := MatchType(4)
	f := RuleFilter{MatchType: &bad}
	if err := f.Validate(); err == nil || !strings.Contains(err.Error(), "matchType 4 is not one of exact, starts_with, pattern, regex") {
		t.Errorf("filter on match type 4: %v", err)
	}
	h := "Bücher.Example."
	f = RuleFilter{Host: &h}
	if err := f.Validate(); err != nil || *f.Host != "xn--bcher-kva.example" {
		t.Fatalf("host filter: %v, host %q", err, *f.Host)
	}
	if !f.Match(&Rule{Host: "xn--bcher-kva.example"}) || f.Match(&Rule{}) {
		t.Error("host filter keeps the wrong rules")
	}
	none := ""
	f = RuleFilter{Host: &none}
	if err := f.Validate(); err != nil || !f.Match(&Rule{}) || f.Match(&Rule{Host: "example.com"}) {
		t.Errorf("host-less filter: %v", err)
	}
	badHost := "a b"
	f = RuleFilter{Host: &badHost}
	if err := f.Validate(); ErrorCode(err) != EINVALID || !strings.Contains(err.Error(), `host "a b"`) {
		t.Errorf("malformed host filter: %v", err)
	}
}

func TestRuleUpdateHost(t *testing.T) {
	h := "example.com"
	u := RuleUpdate{Host: &h}
	if u.Empty() {
		t.Fatal("an update of the host is empty")
	}
	r := Rule{Host: "old.example"}
	u.Apply(&r)
	if r.Host != h {
		t.Errorf("host %q after the update, want %q", r.Host, h)
	}
}

// Pieces random sources, destinations and hosts are made of: valid syntax
// of every kind and the bytes each kind refuses, so that both sides of
// validation are drawn often.
var (
	sourceGood = []string{"a", "docs", "Docs", "é", ".html", "/", "/", "/", ":lang", ":id", `:n(\d+)`, ":v(v6|v7)", "*", ":p+", ":o?", ":r*",
		"?x=1", "?id=:q", "&y", "&e=", "%3A", "%2F", "%C3%A9", "(a)", ".*", "[a-z]", "(?P<g>x)", "$?k=:q"}
	sourceBad = []string{"%zz", "(", ")", "$", "{", "}", `\d`, "|", "+", "(?i)", " ", "\u00a0", `"`, ";", "#", "//", "..", ":", "?", "=", "&", "%"}
	destGood  = []string{"/", "/n/", "https://example.org", "https://ex.com:8080/", ":lang", ":id", ":splat", ":q", ":n",
		"$1", "${g}", "${q}", "$$", "?a=1", "#f", "x", "%20"}
	destBad    = []string{"http://", ":zz", "$2", "$", "#", "`", "//", "/\\", "{", " "}
	hostPieces = []string{"", "", "", "", "", "", "example.com", "Example.COM.", "*.example.com", "bücher.example", "xn--bcher-kva.example", "a.example.com:8443",
		"*", "a b", "a..b", "-", "a.*.b", "https://x/", "*.*.x"}
)

var genValidatable = rapid.Custom(func(t *rapid.T) Rule {
	join := func(pieces []string, label string, min, max int) string {
		var b strings.Builder
		for _, p := range rapid.SliceOfN(rapid.SampledFrom(pieces), min, max).Draw(t, label) {
			b.WriteString(p)
		}
		return b.String()
	}
	sourcePieces, destPieces := sourceGood, destGood
	if rapid.Bool().Draw(t, "hostile") {
		sourcePieces = append(append([]string(nil), sourceGood...), sourceBad...)
		destPieces = append(append([]string(nil), destGood...), destBad...)
	}
	src := join(sourcePieces, "source", 1, 6)
	if rapid.IntRange(0, 5).Draw(t, "leadingSlash") > 0 {
		src = "/" + src
	}
	r := Rule{
		MatchType:     MatchType(rapid.SampledFrom([]int{0, 1, 2, 2, 3, 3, 0, 1, 2, 3, 0, 1, 2, 2, 3, 3, 0, 1, 2, 3, 4}).Draw(t, "matchType")),
		Source:        src,
		Destination:   rapid.SampledFrom([]string{"/", "/n/", "https://example.org/", ""}).Draw(t, "destStart") + join(destPieces, "destination", 0, 5),
		Host:          rapid.SampledFrom(hostPieces).Draw(t, "host"),
		StatusCode:    rapid.SampledFrom([]int{301, 302, 301, 410, 308, 301, 302, 301, 404}).Draw(t, "status"),
		Priority:      rapid.SampledFrom([]int{0, 100, 100, 5, -1}).Draw(t, "priority"),
		PreservePath:  rapid.IntRange(0, 7).Draw(t, "preservePath") == 0,
		PreserveQuery: rapid.Bool().Draw(t, "preserveQuery"),
	}
	if r.StatusCode == 410 && rapid.Bool().Draw(t, "gone") {
		r.Destination, r.PreservePath, r.PreserveQuery = "", false, false
	}
	return r
})

// TestValidateProperty: what Validate accepts the engine compiles under
// every setting, Validate of an accepted rule accepts it again unchanged
// (the stored form is a fixed point), and what it refuses is an EINVALID
// naming a field.
func TestValidateProperty(t *testing.T) {
	fields := []string{"source", "destination", "host", "matchType", "statusCode", "priority", "preservePath", "preserveQuery"}
	accepted := 0
	rapid.Check(t, func(t *rapid.T) {
		r := genValidatable.Draw(t, "rule")
		err := r.Validate()
		if err != nil {
			if ErrorCode(err) != EINVALID {
				t.Fatalf("Validate(%+v) = %v, not EINVALID", r, err)
			}
			named := false
			for _, f := range fields {
				named = named || strings.HasPrefix(err.Error(), f+" ") || strings.HasPrefix(err.Error(), f+":") ||
					strings.Contains(err.Error(), " "+f+" ")
			}
			if !named {
				t.Fatalf("Validate(%+v) = %q names no field", r, err)
			}
			return
		}
		accepted++
		for _, st := range []pattern.Settings{{}, {CaseInsensitive: true}, {IgnoreTrailingSlash: true}, {CaseInsensitive: true, IgnoreTrailingSlash: true}} {
			if _, err := pattern.Compile([]pattern.Rule{r.PatternRule()}, st); err != nil {
				var pe *pattern.Error
				t.Fatalf("Validate accepted %+v, Compile under %+v refuses it: %v (a field error: %v)", r, st, err, errors.As(err, &pe))
			}
		}
		again := r
		if err := again.Validate(); err != nil || !again.Equal(&r) {
			t.Fatalf("Validate is not idempotent: %+v, then %+v, %v", r, again, err)
		}
	})
	if accepted == 0 {
		t.Error("no random rule was accepted: the generator tests nothing")
	}
	t.Logf("%d random rules accepted", accepted)
}

// FuzzValidatePatternRule holds validation of every match type on any
// input: what it accepts the engine compiles, validating it again changes
// nothing, and no accepted source, destination or host holds whitespace, a
// control character, a quote, ';' or a '#' beyond a destination's one
// fragment: what would end or inject into an exported line.
func FuzzValidatePatternRule(f *testing.F) {
	for _, s := range []struct {
		kind            uint8
		src, dest, host string
	}{
		{2, "/:lang/guide/*", "/:lang/docs/:splat", ""},
		{3, `/(dom|d)/(?P<id>\d+)$?p=:p`, "/dd/$1/${id}?$$", "*.example.com"},
		{0, "/store?id=:id", "/items/:id", "Bücher.example"},
		{1, "/a%20b?x=%zz", "/b", "a b"},
		{2, "/:a:b", "https://:a.example/", "example.com:80"},
		{3, "/a(b", "/$3", "*"},
		{2, "/a\u00a0b", "/x\u2028y", "x..y"},
		{0, "/a?b c", "/a`b", ""},
	} {
		f.Add(s.kind, s.src, s.dest, s.host)
	}
	f.Fuzz(func(t *testing.T, kind uint8, src, dest, host string) {
		r := Rule{MatchType: MatchType(kind % 4), Source: src, Destination: dest, Host: host, StatusCode: 301, Priority: DefaultPriority}
		if r.Validate() != nil {
			return
		}
		if _, err := pattern.Compile([]pattern.Rule{r.PatternRule()}, pattern.Settings{CaseInsensitive: kind&4 != 0, IgnoreTrailingSlash: kind&8 != 0}); err != nil {
			t.Fatalf("Validate accepted %+v, Compile refuses it: %v", r, err)
		}
		again := r
		if err := again.Validate(); err != nil || !again.Equal(&r) {
			t.Fatalf("Validate of %+v again: %+v, %v", r, again, err)
		}
		checkAccepted(t, "source", r.Source, "\"';#")
		checkAccepted(t, "host", r.Host, "\"';#/?\\")
		checkAccepted(t, "destination", r.Destination, "\"';\\")
		if strings.Count(r.Destination, "#") > 1 {
			t.Fatalf("destination %q accepted with a second '#'", r.Destination)
		}
	})
}
