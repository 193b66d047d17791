package redirects

import (
	"strings"
	"unicode"
)

// One path form holds across the lookup API and the nginx and HAProxy
// exports (docs/contract.md#matching): the decoded form, percent-decoding
// applied once, which is what nginx's $uri and HAProxy's path,url_dec hold.
// Sources are stored in it (CanonicalSource), and a requested path is put in
// it before matching (DecodePath).

// CanonicalSource returns source in the form it is stored and matched in:
// each %XX escape decoded once ('+' stays a plus). It refuses, with an
// EINVALID error naming the problem, a source that does not start with '/',
// holds a malformed escape, or whose decoded form is longer than
// MaxSourceLen bytes, is not valid UTF-8, holds whitespace, a control
// character, one of ? # " ' \ ; { } $ % (a '%' once decoded could not be
// told from an escape), or an empty, "." or ".." segment ("//", "/./",
// "/../"), which nginx merges or resolves in a request path so that such a
// source could never match there. CanonicalSource of its own result returns
// it unchanged.
func CanonicalSource(source string) (string, error) {
	if source == "" {
		return "", Errorf(EINVALID, "source is empty")
	}
	if source[0] != '/' {
		return "", Errorf(EINVALID, "source %s must start with '/'", quoteShort(source))
	}
	// An escape takes three bytes for one: anything longer cannot decode
	// to MaxSourceLen bytes, and is refused before any work.
	if len(source) > 3*MaxSourceLen {
		return "", Errorf(EINVALID, "source is %d bytes long, more than the %d allowed", len(source), MaxSourceLen)
	}
	d, err := percentDecode("source", source)
	if err != nil {
		return "", err
	}
	// name is the source as an error names it, built only for an error:
	// quoting every source of a million-rule import costs a tenth of its
	// reading.
	name := func() string {
		n := quoteShort(source)
		if d != source {
			n += " (decoded " + quoteShort(d) + ")"
		}
		return n
	}
	if len(d) > MaxSourceLen {
		if d == source {
			return "", Errorf(EINVALID, "source is %d bytes long, more than the %d allowed", len(d), MaxSourceLen)
		}
		return "", Errorf(EINVALID, "source %s is %d bytes long decoded, more than the %d allowed", name(), len(d), MaxSourceLen)
	}
	if asciiClean(d, "%"+forbiddenSource) {
		return checkSegments(d, name)
	}
	if i := InvalidUTF8At(d); i >= 0 {
		return "", Errorf(EINVALID, "source %s is not valid UTF-8 at byte %d", name(), i)
	}
	for i, c := range d {
		switch {
		case unicode.IsSpace(c) || unicode.IsControl(c):
			return "", Errorf(EINVALID, "source %s holds whitespace or a control character (%U) at byte %d", name(), c, i)
		case c == '%':
			return "", Errorf(EINVALID, "source %s holds a '%%' once decoded, at byte %d: sources are stored decoded, and a literal '%%' would read as an escape", name(), i)
		case c < 0x80 && containsByte(forbiddenSource, byte(c)):
			return "", Errorf(EINVALID, "source %s holds the forbidden character %q at byte %d", name(), c, i)
		}
	}
	return checkSegments(d, name)
}

// checkSegments returns the decoded source d, or refuses it for a segment
// nginx merges or resolves; name names the source in the error.
func checkSegments(d string, name func() string) (string, error) {
	// Segments: d[0] is '/', so the first is the one after it. A trailing
	// empty segment is a source ending in '/', which is fine.
	rest := d[1:]
	for rest != "" {
		seg, after, more := strings.Cut(rest, "/")
		switch {
		case seg == "" && more:
			return "", Errorf(EINVALID, "source %s holds an empty segment (\"//\"), which nginx merges in request paths, so it would never match there", name())
		case seg == "." || seg == "..":
			return "", Errorf(EINVALID, "source %s holds a %q segment, which nginx resolves in request paths, so it would never match there", name(), seg)
		}
		rest = after
	}
	return d, nil
}

// DecodePath returns the form of a requested path that sources are matched
// against (docs/contract.md#matching): path cut at its first '?' or '#',
// then percent-decoded once. Cutting comes first, so an encoded %3F or %23
// is part of the path, as in nginx and HAProxy. '+' stays a plus. Errors:
// EINVALID for a '%' not followed by two hexadecimal digits.
func DecodePath(path string) (string, error) {
	if i := strings.IndexByte(path, '?'); i >= 0 {
		path = path[:i]
	}
	if i := strings.IndexByte(path, '#'); i >= 0 {
		path = path[:i]
	}
	return percentDecode("path", path)
}

// percentDecode decodes each %XX of s once. A string without '%' is
// returned as it is, without allocating.
func percentDecode(field, s string) (string, error) {
	n := strings.IndexByte(s, '%')
	if n < 0 {
		return s, nil
	}
	b := make([]byte, n, len(s))
	copy(b, s[:n])
	for i := n; i < len(s); i++ {
		c := s[i]
		if c != '%' {
			b = append(b, c)
			continue
		}
		if i+2 >= len(s) || !isHex(s[i+1]) || !isHex(s[i+2]) {
			return "", Errorf(EINVALID, "%s %s holds a malformed escape at byte %d: '%%' must be followed by two hexadecimal digits", field, quoteShort(s), i)
		}
		b = append(b, unhex(s[i+1])<<4|unhex(s[i+2]))
		i += 2
	}
	return string(b), nil
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c >= 'a':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}

// requestEscaped marks the ASCII bytes that browsers percent-encode in a
// request path (Chromium's set, seen on its request lines: WHATWG's path set
// with | and ^), and '%', so that a source stored as written before sources
// were decoded comes out as the request whose decoding gives it.
var requestEscaped = func() (t [128]bool) {
	for i := range 0x21 {
		t[i] = true
	}
	for _, c := range "\"<>\\^`{|}%" {
		t[c] = true
	}
	t[0x7f] = true
	return t
}()

// AppendRequestPath appends the decoded path p in the form browsers send
// it on a request line: UTF-8 bytes outside ASCII and " < > \ ^ ` { | } %
// (and any whitespace or control byte) as %XX in upper-case hex, every
// other byte as it is. DecodePath of the result gives p back. HTTP allows
// no raw non-ASCII byte on a request line (HAProxy answers 400), and the
// haproxy export's ACLs compare the path as sent, so both it and verify use
// this form.
func AppendRequestPath(b []byte, p string) []byte {
	const hex = "0123456789ABCDEF"
	for i := 0; i < len(p); i++ {
		c := p[i]
		if c >= 0x80 || requestEscaped[c] {
			b = append(b, '%', hex[c>>4], hex[c&15])
			continue
		}
		b = append(b, c)
	}
	return b
}

// RequestPath returns AppendRequestPath(nil, p) as a string.
func RequestPath(p string) string {
	return string(AppendRequestPath(make([]byte, 0, len(p)+16), p))
}
