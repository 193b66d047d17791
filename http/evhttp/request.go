package evhttp

import (
	"bytes"
	"encoding/binary"
	"unsafe"
)

// maxRequestHeaders bounds the header lines a request may carry; a request with more is answered 431,
// like one whose head is larger than Config.MaxHeaderBytes. The views live in a fixed array so that
// parsing allocates nothing.
const maxRequestHeaders = 64

// header is one name/value pair. In a Request both are views into the connection's read buffer.
type header struct {
	name, value string
}

// Request is one parsed request. Its strings are views into the connection's read buffer:
// they are valid only during the Handler call, and a handler that keeps any must copy it
// (strings.Clone). In particular they must not be used inside a slow function.
type Request struct {
	Method   string
	Path     string // the target up to '?' (not decoded); "*" for "OPTIONS *"
	RawQuery string // after '?', without it ("" if none)
	Proto    string // "HTTP/1.1" or "HTTP/1.0"
	// RemoteAddr is the peer's "ip:port", formatted once when the connection is accepted
	// (one small allocation per connection, none per request). It stays valid after the call.
	RemoteAddr string

	hdr  [maxRequestHeaders]header
	nhdr int

	// close is set when the connection must close after the response: HTTP/1.0 without
	// "Connection: keep-alive", "Connection: close", or a request body this server does not read.
	close bool
	// keepAlive10 is set for an HTTP/1.0 request asking for keep-alive: the response must say
	// "Connection: keep-alive" or the client will not reuse the connection.
	keepAlive10 bool
	// hasBody is set when the request announces a body (Content-Length > 0 or Transfer-Encoding).
	hasBody bool
}

// Header returns the first value of the named header (ASCII case-insensitive name match), or "".
func (r *Request) Header(name string) string {
	for i := 0; i < r.nhdr; i++ {
		if equalFoldASCII(r.hdr[i].name, name) {
			return r.hdr[i].value
		}
	}
	return ""
}

// HasHeader reports whether the header is present at all (even with an empty value).
func (r *Request) HasHeader(name string) bool {
	for i := 0; i < r.nhdr; i++ {
		if equalFoldASCII(r.hdr[i].name, name) {
			return true
		}
	}
	return false
}

// NumHeaders returns the number of header lines of the request.
func (r *Request) NumHeaders() int { return r.nhdr }

// HeaderAt returns the i-th header line (0 <= i < NumHeaders()) as sent, name not canonicalised.
// Like all request strings, both are views valid only during the Handler call.
func (r *Request) HeaderAt(i int) (name, value string) {
	h := &r.hdr[i]
	return h.name, h.value
}

// reset clears the request for the next parse. Only the used header slots are cleared, which keeps
// the per-request cost independent of maxRequestHeaders; stale views are harmless because the
// strings point into buffers this package owns.
func (r *Request) reset() {
	clear(r.hdr[:r.nhdr])
	r.nhdr = 0
	r.Method, r.Path, r.RawQuery, r.Proto = "", "", "", ""
	r.close, r.keepAlive10, r.hasBody = false, false, false
}

// Status codes produced by the parser itself.
const (
	codeBadRequest       = 400
	codeHeadersTooLarge  = 431
	codeInternalError    = 500
	maxLeadingEmptyLines = 8
)

// parseRequest parses one request head at the start of buf into r. It returns the head's length n > 0
// and code 0 on success; n == 0 and code 0 when more bytes are needed; code 400 or 431 when the request
// must be refused (the connection is then closed). limit is the most bytes the head (request line,
// headers and the empty line) may take. r's strings are views into buf.
func parseRequest(buf []byte, r *Request, limit int) (n, code int) {
	r.reset()
	pos := 0
	// RFC 9112 section 2.2: a server should ignore at least one empty line before the request line
	// (some clients send an extra CRLF after a body).
	for skipped := 0; pos < len(buf) && skipped < maxLeadingEmptyLines; skipped++ {
		if buf[pos] == '\n' {
			pos++
		} else if buf[pos] == '\r' && pos+1 < len(buf) && buf[pos+1] == '\n' {
			pos += 2
		} else {
			break
		}
	}
	nl := bytes.IndexByte(buf[pos:], '\n')
	if nl < 0 {
		if len(buf) >= limit {
			return 0, codeHeadersTooLarge
		}
		// Refuse early what cannot become a request line (a TLS handshake, binary junk) instead of
		// waiting for a line end or the header timeout.
		if !plausibleRequestLine(buf[pos:]) {
			return 0, codeBadRequest
		}
		return 0, 0
	}
	end := pos + nl
	if end >= limit {
		return 0, codeHeadersTooLarge
	}
	if !r.parseRequestLine(trimCR(buf[pos:end])) {
		return 0, codeBadRequest
	}
	pos = end + 1
	for {
		nl := bytes.IndexByte(buf[pos:], '\n')
		if nl < 0 {
			if len(buf) >= limit {
				return 0, codeHeadersTooLarge
			}
			return 0, 0
		}
		end := pos + nl
		if end >= limit {
			return 0, codeHeadersTooLarge
		}
		line := trimCR(buf[pos:end])
		pos = end + 1
		if len(line) == 0 {
			break
		}
		// Obsolete line folding (a line starting with whitespace) may be refused (RFC 9112 5.2).
		colon := bytes.IndexByte(line, ':')
		if colon <= 0 || !isToken(line[:colon]) {
			return 0, codeBadRequest
		}
		value := trimOWS(line[colon+1:])
		if !noCTL(value, true) {
			return 0, codeBadRequest
		}
		if r.nhdr == len(r.hdr) {
			return 0, codeHeadersTooLarge
		}
		name := bstr(line[:colon])
		v := bstr(value)
		r.hdr[r.nhdr] = header{name, v}
		r.nhdr++
		switch len(name) {
		case len("connection"):
			if equalFoldASCII(name, "connection") {
				r.connectionTokens(v)
			}
		case len("content-length"):
			if equalFoldASCII(name, "content-length") {
				zero, ok := parseContentLength(v)
				if !ok {
					return 0, codeBadRequest
				}
				if !zero {
					r.hasBody = true
				}
			}
		case len("transfer-encoding"):
			if equalFoldASCII(name, "transfer-encoding") {
				r.hasBody = true
			}
		}
	}
	if r.Proto == "HTTP/1.0" && !r.keepAlive10 {
		r.close = true
	}
	if r.close {
		r.keepAlive10 = false
	}
	if r.hasBody {
		// The body is not read (the edge only serves GET): answer, then close so that the body is
		// never mistaken for the next request.
		r.close = true
		r.keepAlive10 = false
	}
	return pos, 0
}

// parseRequestLine parses "METHOD SP target SP HTTP/1.x" (the line end already removed).
func (r *Request) parseRequestLine(line []byte) bool {
	sp := bytes.IndexByte(line, ' ')
	if sp <= 0 || !isToken(line[:sp]) {
		return false
	}
	method := line[:sp]
	rest := line[sp+1:]
	sp = bytes.IndexByte(rest, ' ')
	if sp <= 0 {
		return false
	}
	target, proto := rest[:sp], rest[sp+1:]
	switch string(proto) { // no allocation: the compiler compares in place
	case "HTTP/1.1":
		r.Proto = "HTTP/1.1"
	case "HTTP/1.0":
		r.Proto = "HTTP/1.0"
	default:
		// HTTP/2's preface ("PRI * HTTP/2.0"), HTTP/0.9, lower-case or extra spaces.
		return false
	}
	// Origin form ("/path?query") or asterisk form only: absolute form ("http://host/path", sent to
	// proxies) is refused because an edge that is not a proxy has no use for it.
	if target[0] != '/' && !(len(target) == 1 && target[0] == '*') {
		return false
	}
	if !noCTL(target, false) {
		return false
	}
	r.Method = bstr(method)
	if q := bytes.IndexByte(target, '?'); q >= 0 {
		r.Path = bstr(target[:q])
		r.RawQuery = bstr(target[q+1:])
	} else {
		r.Path = bstr(target)
	}
	return true
}

// connectionTokens applies the tokens of a Connection header ("close", "keep-alive", others ignored).
func (r *Request) connectionTokens(v string) {
	for len(v) > 0 {
		i := 0
		for i < len(v) && v[i] != ',' {
			i++
		}
		tok := trimOWSString(v[:i])
		if equalFoldASCII(tok, "close") {
			r.close = true
		} else if equalFoldASCII(tok, "keep-alive") {
			r.keepAlive10 = r.Proto == "HTTP/1.0"
		}
		if i == len(v) {
			break
		}
		v = v[i+1:]
	}
}

// parseContentLength reports whether v is a valid Content-Length and whether it is zero.
func parseContentLength(v string) (zero, ok bool) {
	if len(v) == 0 || len(v) > 18 {
		return false, false
	}
	zero = true
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c < '0' || c > '9' {
			return false, false
		}
		if c != '0' {
			zero = false
		}
	}
	return zero, true
}

// plausibleRequestLine reports whether b may still be the beginning of a request line: a method made
// of token characters, then a space and a target starting with '/' or '*'.
func plausibleRequestLine(b []byte) bool {
	i := 0
	for i < len(b) && tchar[b[i]] {
		i++
	}
	if i == len(b) {
		return i < 32 // no method is this long
	}
	if i == 0 || b[i] != ' ' {
		return false
	}
	i++
	return i == len(b) || b[i] == '/' || b[i] == '*'
}

// tchar marks the token characters of RFC 9110 section 5.6.2 (methods and header names).
var tchar = func() (t [256]bool) {
	for c := '0'; c <= '9'; c++ {
		t[c] = true
	}
	for c := 'a'; c <= 'z'; c++ {
		t[c] = true
		t[c-'a'+'A'] = true
	}
	for _, c := range "!#$%&'*+-.^_`|~" {
		t[c] = true
	}
	return t
}()

func isToken(b []byte) bool {
	for _, c := range b {
		if !tchar[c] {
			return false
		}
	}
	return true
}

const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

// noCTL reports whether b holds no control character (bytes below 0x20 and 0x7f), except horizontal
// tab when allowTab. It checks eight bytes at a time: header values are most of a request's bytes.
func noCTL(b []byte, allowTab bool) bool {
	for len(b) >= 8 {
		x := binary.LittleEndian.Uint64(b)
		below := (x - lsb*0x20) &^ x & msb // some byte < 0x20 (exact when none is)
		y := x ^ (lsb * 0x7f)
		del := (y - lsb) &^ y & msb // some byte == 0x7f
		if below|del != 0 {
			break // let the byte loop decide (a tab is fine in a value)
		}
		b = b[8:]
	}
	for _, c := range b {
		if c < 0x20 && !(allowTab && c == '\t') || c == 0x7f {
			return false
		}
	}
	return true
}

func trimCR(b []byte) []byte {
	if len(b) > 0 && b[len(b)-1] == '\r' {
		return b[:len(b)-1]
	}
	return b
}

// trimOWS removes optional whitespace (SP and HTAB) around a header value.
func trimOWS(b []byte) []byte {
	for len(b) > 0 && (b[0] == ' ' || b[0] == '\t') {
		b = b[1:]
	}
	for len(b) > 0 && (b[len(b)-1] == ' ' || b[len(b)-1] == '\t') {
		b = b[:len(b)-1]
	}
	return b
}

func trimOWSString(s string) string {
	for len(s) > 0 && (s[0] == ' ' || s[0] == '\t') {
		s = s[1:]
	}
	for len(s) > 0 && (s[len(s)-1] == ' ' || s[len(s)-1] == '\t') {
		s = s[:len(s)-1]
	}
	return s
}

// equalFoldASCII reports whether a and b are equal under ASCII case folding.
func equalFoldASCII(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if x == y {
			continue
		}
		x |= 0x20
		if x != y|0x20 || x < 'a' || x > 'z' {
			return false
		}
	}
	return true
}

// bstr returns a string viewing b's bytes without copying them. The caller guarantees that the bytes
// do not change while the string is in use (see Request).
func bstr(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}
