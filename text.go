package redirects

import (
	"strings"
	"unicode/utf8"
)

// CleanText returns s with every NUL byte and every run of bytes that is
// not valid UTF-8 replaced by U+FFFD. It is for bytes from third parties
// (a webhook receiver's answer, an error text quoting it) that are kept
// for people to read: PostgreSQL refuses NUL in text (SQLSTATE 22021) and
// both stores keep text as UTF-8, so such bytes would make the write that
// holds them fail. Input from users is refused instead (with an error
// naming the field), never cleaned.
func CleanText(s string) string {
	if strings.IndexByte(s, 0) < 0 && utf8.ValidString(s) {
		return s
	}
	return strings.ReplaceAll(strings.ToValidUTF8(s, "\ufffd"), "\x00", "\ufffd")
}
