package redirects

import (
	"fmt"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

func TestCanonicalSource(t *testing.T) {
	for _, c := range []struct{ in, want, err string }{
		{in: "/café", want: "/café"},
		{in: "/caf%C3%A9", want: "/café"},
		{in: "/caf%c3%a9", want: "/café"},
		{in: "/%E2%9C%93", want: "/✓"},
		{in: "/p+q", want: "/p+q"},
		{in: "/p%2Bq", want: "/p+q"},
		{in: "/a%2Fb", want: "/a/b"},
		{in: "/a:b@c!d*e(f),g&h=i~j", want: "/a:b@c!d*e(f),g&h=i~j"},
		{in: "/%3A%40%21", want: "/:@!"},
		{in: "/blog/", want: "/blog/"},
		{in: "/", want: "/"},
		{in: "/a.b/..c/...", want: "/a.b/..c/..."},
		{in: "/a%2", err: "malformed escape at byte 2"},
		{in: "/a%zz", err: "malformed escape at byte 2"},
		{in: "/100%25", err: `holds a '%' once decoded, at byte 4`},
		{in: "/a%20b", err: `(decoded "/a b") holds whitespace or a control character (U+0020) at byte 2`},
		{in: "/a%3Fb", err: `forbidden character '?' at byte 2`},
		{in: "/a%3bb", err: `forbidden character ';'`},
		{in: "/a%00", err: "(U+0000)"},
		{in: "/a%FF", err: "not valid UTF-8"},
		{in: "/a//b", err: `empty segment ("//")`},
		{in: "/a%2F%2Fb", err: `empty segment ("//")`},
		{in: "/a/./b", err: `a "." segment`},
		{in: "/a/%2E%2E/b", err: `a ".." segment`},
		{in: "/a/..", err: `a ".." segment`},
		{in: "/a/.", err: `a "." segment`},
		{in: "a", err: "must start with '/'"},
		{in: "%2Fa", err: "must start with '/'"},
		{in: "/" + strings.Repeat("a", MaxSourceLen-8) + strings.Repeat("%41", 10), err: "bytes long decoded, more than the 2048 allowed"},
		{in: "/" + strings.Repeat("a", 3*MaxSourceLen), err: "more than the 2048 allowed"},
	} {
		got, err := CanonicalSource(c.in)
		switch {
		case c.err == "" && (err != nil || got != c.want):
			t.Errorf("CanonicalSource(%.40q) = %q, %v; want %q", c.in, got, err, c.want)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err) || ErrorCode(err) != EINVALID):
			t.Errorf("CanonicalSource(%.40q) = %q, %v; want an EINVALID error holding %q", c.in, got, err, c.err)
		}
	}
}

// TestValidateStoresCanonicalSource checks that Validate rewrites an escaped
// source to the form it stores, and that ValidateSource tells that form.
func TestValidateStoresCanonicalSource(t *testing.T) {
	r := validRule()
	r.Source = "/caf%C3%A9/%e2%9c%93"
	if err := r.Validate(); err != nil || r.Source != "/café/✓" {
		t.Fatalf("Validate: %v, source %q; want nil, %q", err, r.Source, "/café/✓")
	}
	if err := ValidateSource("/caf%C3%A9"); err == nil || !strings.Contains(err.Error(), `stored (decoded) form "/café"`) {
		t.Errorf("ValidateSource of an escaped source = %v, want an error naming the decoded form", err)
	}
}

// TestCanonicalSourceProperties holds CanonicalSource to its promises on
// sources drawn from decoded segments written with random escapes: the
// decoded form comes back whatever the escaping (upper or lower hex), and
// canonicalizing twice is canonicalizing once.
func TestCanonicalSourceProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		parts := rapid.SliceOfN(rapid.SampledFrom([]string{"a", "B", "é", "✓", "+", ":", "@", "!", "*", "(", ")", ",", "&", "=", "~", ".", "-", "_", "[", "]", "<", "|", "/", "%", " ", "?", "\x00"}), 1, 12).Draw(t, "parts")
		decoded := "/" + strings.Join(parts, "")
		var enc strings.Builder
		for i := 0; i < len(decoded); i++ {
			c := decoded[i]
			if i > 0 && rapid.Bool().Draw(t, "escape") {
				f := "%%%02X"
				if rapid.Bool().Draw(t, "lower") {
					f = "%%%02x"
				}
				fmt.Fprintf(&enc, f, c)
				continue
			}
			enc.WriteByte(c)
		}
		got, err := CanonicalSource(enc.String())
		want, wantErr := CanonicalSource(decoded)
		if (err == nil) != (wantErr == nil) || got != want {
			t.Fatalf("CanonicalSource(%q) = %q, %v; of its decoded form %q: %q, %v", enc.String(), got, err, decoded, want, wantErr)
		}
		if err != nil {
			if !strings.ContainsAny(decoded, "%? \x00") && !strings.Contains(decoded, "//") && !strings.Contains(decoded, "/.") {
				t.Fatalf("CanonicalSource(%q) refused a plain source: %v", enc.String(), err)
			}
			return
		}
		if got != decoded {
			t.Fatalf("CanonicalSource(%q) = %q, want the decoded %q", enc.String(), got, decoded)
		}
		again, err := CanonicalSource(got)
		if err != nil || again != got {
			t.Fatalf("CanonicalSource(%q) = %q, %v; want it unchanged", got, again, err)
		}
		if p, err := DecodePath(enc.String()); err != nil || p != got {
			t.Fatalf("DecodePath(%q) = %q, %v; want the stored source %q", enc.String(), p, err, got)
		}
	})
}

// FuzzCanonicalSource holds CanonicalSource to idempotence and to the
// promises validation makes the exports, on arbitrary input.
func FuzzCanonicalSource(f *testing.F) {
	for _, s := range []string{"/a", "/caf%C3%A9", "/%2e%2E", "/a%2F%2fb", "/%25", "/%", "/a%3Fb", "/+%2B"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := CanonicalSource(s)
		if err != nil {
			return
		}
		if again, err := CanonicalSource(c); err != nil || again != c {
			t.Fatalf("CanonicalSource(%q) = %q, then %q, %v", s, c, again, err)
		}
		if err := ValidateSource(c); err != nil {
			t.Fatalf("ValidateSource(%q) of a canonical form: %v", c, err)
		}
		checkAccepted(t, "source", c, `?#"'\;{}$%`)
		if strings.Contains(c, "//") || strings.Contains(c+"/", "/./") || strings.Contains(c+"/", "/../") {
			t.Fatalf("CanonicalSource(%q) = %q holds a segment nginx normalizes", s, c)
		}
	})
}

// TestImportBatchCanonicalSources checks that an import finds a repeat
// between two spellings of one source: the batch compares stored forms.
func TestImportBatchCanonicalSources(t *testing.T) {
	rules := []Rule{
		{Source: "/caf%C3%A9", Destination: "/a", StatusCode: 301, MatchType: Exact},
		{Source: "/café", Destination: "/b", StatusCode: 301, MatchType: Exact},
		{Source: "/x%2fy", Destination: "/c", StatusCode: 301, MatchType: StartsWith},
		{Source: "/bad%zz", Destination: "/d", StatusCode: 301, MatchType: Exact},
	}
	b, err := NewImportBatch(rules)
	if err != nil {
		t.Fatal(err)
	}
	if !b.HasRepeats() {
		t.Fatalf("NewImportBatch found no repeat between /caf%%C3%%A9 and /café")
	}
	if b.Rules[0].Source != "/café" || b.Rules[2].Source != "/x/y" || b.Rules[3].Source != "/bad%zz" {
		t.Fatalf("sources after NewImportBatch: %q, %q, %q; want /café, /x/y and the malformed one as given", b.Rules[0].Source, b.Rules[2].Source, b.Rules[3].Source)
	}
	msg := b.Err("prj", nil).Error()
	for _, want := range []string{`rule 2: an exact rule for source "/café" is already rule 1 of this import`, `rule 4: source "/bad%zz" holds a malformed escape at byte 4`} {
		if !strings.Contains(msg, want) {
			t.Errorf("import error %q does not hold %q", msg, want)
		}
	}
}
