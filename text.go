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

// CheckText refuses text a user gives that no store can keep as it is: a
// NUL byte (PostgreSQL refuses it) or bytes that are not valid UTF-8
// (which would be stored as U+FFFD, not as given). The EINVALID error
// names field and the offset of the first bad byte. The management API,
// the dashboard's forms and the command line's flags check their input
// with it (the API through its JSON bodies' escapes too), before anything
// is changed.
func CheckText(field, s string) error {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == 0:
			return Errorf(EINVALID, "%s holds a NUL byte at byte %d", field, i)
		case r == utf8.RuneError && n == 1:
			return Errorf(EINVALID, "%s is not valid UTF-8: byte %d is 0x%02X", field, i, s[i])
		}
		i += n
	}
	return nil
}
