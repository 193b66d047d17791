package engine

import (
	"bytes"
	"encoding/json"
	"testing"

	"pgregory.net/rapid"
)

// jsonPieces are the parts AppendJSONString's strings are drawn from: the
// bytes it escapes (quote, backslash, every control byte), the runes
// encoding/json escapes for JavaScript (U+2028, U+2029), those it leaves
// alone with HTML escaping off ('<', '>', '&'), U+FFFD itself, invalid
// UTF-8 (lone continuation and lead bytes, a cut sequence, an encoded
// surrogate, an overlong form), and any other text.
var jsonPieces = rapid.OneOf(
	rapid.SampledFrom([]string{`"`, `\`, "\x00", "\b", "\f", "\n", "\r", "\t", "\x1f", "\x7f", "\u2028", "\u2029", "<", ">", "&", "\ufffd",
		"\x80", "\xff", "\xc3", "\xe2\x80", "\xed\xa0\x80", "\xc0\xaf", "é", "€", "😀"}),
	rapid.Map(rapid.Byte(), func(b byte) string { return string([]byte{b}) }),
	rapid.String(),
)

// TestAppendJSONStringAsEncodingJSON: AppendJSONString between quotes is
// what encoding/json writes for the string with HTML escaping off, byte
// for byte, for any bytes, valid UTF-8 or not, and it appends to what b
// holds.
func TestAppendJSONStringAsEncodingJSON(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var s string
		for _, p := range rapid.SliceOfN(jsonPieces, 0, 12).Draw(t, "pieces") {
			s += p
		}
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(s); err != nil {
			t.Fatal(err)
		}
		prefix := []byte("head:")
		got := append(AppendJSONString(append(prefix, '"'), s), '"', '\n')
		if !bytes.HasPrefix(got, []byte("head:")) || !bytes.Equal(got[len("head:"):], want.Bytes()) {
			t.Fatalf("AppendJSONString(%q) = %s, encoding/json: %s", s, got, want.Bytes())
		}
	})
}
