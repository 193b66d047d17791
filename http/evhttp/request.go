package evhttp

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"time"
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
	// Proto is the version as sent: "HTTP/1.1", "HTTP/1.0", or a later minor version of HTTP/1
	// ("HTTP/1.2"), which is handled as HTTP/1.1 (RFC 9110 section 6.2).
	Proto string
	// RemoteAddr is the peer's "ip:port", formatted once when the connection is accepted
	// (one small allocation per connection, none per request). It stays valid after the call.
	RemoteAddr string
	// Loop is the index of the event loop that read the request, from 0 to
	// the number of loops less one: a handler may keep per-loop state
	// (counters on cache lines of their own) under it.
	Loop int
	// Local is the handler's own state for the loop: nil when the loop
	// starts, then whatever the handler last stored in it, carried from
	// one request of the loop to the next (the engine never reads or
	// clears it). Only the loop's goroutine sees it: a slow function must
	// not keep it.
	Local any
	// Woke is the time of the loop's wake-up in which the handler is
	// called: the one the request's bytes arrived in or, for a pipelined
	// request left waiting (behind a slow function, or output the client
	// had not taken), a later one. The clock is read once per wake-up,
	// not per request, so a handler may take it as the request's start
	// rather than read the clock again (under load one wake-up serves
	// many requests, and the later ones' answers then count the time the
	// earlier ones took). Two loops' times are not ordered: one loop may
	// answer with a time earlier than another's last. It holds a
	// monotonic reading; zero off the loops.
	Woke time.Time

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

// headCheck gathers, while the header lines are parsed, what the checks at the end of the head need:
// the framing headers (Host, Content-Length, Transfer-Encoding) may each appear more than once, and
// the answer must not depend on their order.
type headCheck struct {
	hosts   int
	host    string
	lengths int
	length  string // the first Content-Length value
	badLen  bool   // a Content-Length value that is not a number, or differs from the first
	body    bool   // the Content-Length is not zero
	codings int
	chunked bool // the (last) Transfer-Encoding value is "chunked"
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
// the per-request cost independent of maxRequestHeaders.
func (r *Request) reset() {
	clear(r.hdr[:r.nhdr])
	r.nhdr = 0
	r.Method, r.Path, r.RawQuery, r.Proto = "", "", "", ""
	r.close, r.keepAlive10, r.hasBody = false, false, false
}

// Status codes the engine answers by itself.
const (
	codeBadRequest      = 400
	codeHeadersTooLarge = 431
	codeInternalError   = 500
	codeNotImplemented  = 501
)

// maxLeadingEmptyLines is how many empty lines before a request line are skipped.
const maxLeadingEmptyLines = 8

// parseRequest parses one request head at the start of buf into r. It returns the head's length n > 0
// and code 0 on success; n == 0 and code 0 when more bytes are needed; code 400, 431 or 501 when the
// request must be refused (the connection is then closed). limit is the most bytes the head (request
// line, headers and the empty line) may take. r's strings are views into buf.
//
// It makes one pass over the bytes: each byte is looked at once, either by a token-table loop
// (method, header names) or eight at a time (target, header values), which finds the end and rejects
// control characters together. Junk is therefore refused as soon as it arrives, before any line end
// (a TLS handshake fails on its first byte).
//
// The result depends on the first limit bytes only, and a prefix of buf yields either "more bytes
// needed" or the result for the whole of buf: the answer to a byte stream does not depend on how
// TCP split it into reads.
//
// The checks of RFC 9112 that need the whole head run at its end, in the order net/http runs them:
// several Host headers (400), a transfer coding other than one "chunked" in HTTP/1.1 (501), a bad or
// conflicting Content-Length (400), then a missing (HTTP/1.1) or malformed Host (400).
func parseRequest(buf []byte, r *Request, limit int) (n, code int) {
	r.reset()
	if len(buf) > limit {
		buf = buf[:limit]
	}
	var hc headCheck
	i := 0
	// RFC 9112 section 2.2: a server should ignore at least one empty line before the request line
	// (some clients send an extra CRLF after a body).
	for skipped := 0; i < len(buf) && skipped < maxLeadingEmptyLines; skipped++ {
		if buf[i] == '\n' {
			i++
		} else if buf[i] == '\r' && i+1 == len(buf) {
			return incomplete(buf, limit) // a CR whose LF has not arrived yet
		} else if buf[i] == '\r' && buf[i+1] == '\n' {
			i += 2
		} else {
			break
		}
	}

	// Method: a token, then one space.
	start := i
	for i < len(buf) && tchar[buf[i]] {
		i++
	}
	if i == len(buf) {
		return incomplete(buf, limit)
	}
	if i == start || buf[i] != ' ' {
		return 0, codeBadRequest
	}
	method := buf[start:i]
	i++

	// Target: up to the next space, no control characters. Origin form ("/path?query") or asterisk
	// form only: absolute form ("http://host/path", sent to proxies) is refused, an edge that is not
	// a proxy has no use for it.
	start = i
	if i < len(buf) && buf[i] != '/' && buf[i] != '*' {
		return 0, codeBadRequest
	}
	k := targetEnd(buf[i:])
	if k < 0 {
		return incomplete(buf, limit)
	}
	i += k
	if buf[i] != ' ' || k == 0 {
		return 0, codeBadRequest // a line end (HTTP/0.9), a control character or a second space
	}
	target := buf[start:i]
	if target[0] == '*' && k != 1 {
		return 0, codeBadRequest
	}
	i++

	// Version, then the line end. A later HTTP/1 minor version is handled as HTTP/1.1 (RFC 9110
	// section 6.2); HTTP/2's preface ("PRI * HTTP/2.0"), lower case and other versions are refused.
	if len(buf)-i < len("HTTP/1.1") {
		if !bytes.HasPrefix([]byte("HTTP/1."), buf[i:min(len(buf), i+7)]) {
			return 0, codeBadRequest
		}
		return incomplete(buf, limit)
	}
	switch v := buf[i : i+8]; string(v) { // no allocation: the compiler compares in place
	case "HTTP/1.1":
		r.Proto = "HTTP/1.1"
	case "HTTP/1.0":
		r.Proto = "HTTP/1.0"
	default:
		if string(v[:7]) != "HTTP/1." || v[7] < '0' || v[7] > '9' {
			return 0, codeBadRequest
		}
		r.Proto = bstr(v)
	}
	if i, code = lineEnd(buf, i+8); i == 0 {
		return ended(buf, limit, code)
	}
	path := target
	if q := bytes.IndexByte(target, '?'); q >= 0 {
		path = target[:q]
		r.RawQuery = bstr(target[q+1:])
	}
	if !validEscapes(path) {
		return 0, codeBadRequest // as net/http, whose URL parser refuses "%zz" in a path
	}
	r.Method = bstr(method)
	r.Path = bstr(path)

	// Header lines up to the empty line.
	for {
		if i >= len(buf) {
			return incomplete(buf, limit)
		}
		if c := buf[i]; c == '\r' || c == '\n' {
			if i, code = lineEnd(buf, i); i == 0 {
				return ended(buf, limit, code)
			}
			break
		}
		// Name: a token right before the colon. This also refuses whitespace before the colon
		// (RFC 9112 section 5.1) and obsolete line folding, a line starting with whitespace (5.2).
		start = i
		for i < len(buf) && tchar[buf[i]] {
			i++
		}
		if i == len(buf) {
			return incomplete(buf, limit)
		}
		if i == start || buf[i] != ':' {
			return 0, codeBadRequest
		}
		name := buf[start:i]
		i++
		for i < len(buf) && (buf[i] == ' ' || buf[i] == '\t') {
			i++
		}
		start = i
		k := ctlIndex(buf[i:])
		if k < 0 {
			return incomplete(buf, limit)
		}
		i += k
		value := buf[start:i]
		for len(value) > 0 && (value[len(value)-1] == ' ' || value[len(value)-1] == '\t') {
			value = value[:len(value)-1]
		}
		if i, code = lineEnd(buf, i); i == 0 {
			return ended(buf, limit, code) // a control character in the value, or a lone CR
		}
		if r.nhdr == len(r.hdr) {
			return 0, codeHeadersTooLarge
		}
		v := bstr(value)
		r.hdr[r.nhdr] = header{bstr(name), v}
		r.nhdr++
		switch len(name) {
		case len("host"):
			if equalFoldBytes(name, "host") {
				hc.hosts++
				hc.host = v
			}
		case len("connection"):
			if equalFoldBytes(name, "connection") {
				r.connectionTokens(v)
			}
		case len("content-length"):
			if equalFoldBytes(name, "content-length") {
				hc.lengths++
				if hc.lengths == 1 {
					hc.length = v
					zero, ok := parseContentLength(v)
					hc.badLen = !ok
					hc.body = !zero
				} else if v != hc.length {
					hc.badLen = true
				}
			}
		case len("transfer-encoding"):
			if equalFoldBytes(name, "transfer-encoding") {
				hc.codings++
				hc.chunked = equalFoldASCII(v, "chunked")
			}
		}
	}
	if code := hc.check(r.Proto != "HTTP/1.0"); code != 0 {
		return 0, code
	}
	r.hasBody = hc.body || hc.codings > 0
	if r.Proto == "HTTP/1.0" && !r.keepAlive10 {
		r.close = true
	}
	if r.hasBody {
		// The body is not read (the edge only serves GET): answer, then close so that the body is
		// never mistaken for the next request.
		r.close = true
	}
	if r.close {
		r.keepAlive10 = false
	}
	return i, 0
}

// check runs the checks at the end of a head (see parseRequest); http11 is set for HTTP/1.1 and later.
func (hc *headCheck) check(http11 bool) int {
	switch {
	case hc.hosts > 1:
		return codeBadRequest
	case http11 && hc.codings > 0 && (hc.codings > 1 || !hc.chunked):
		// HTTP/1.0 has no transfer codings: there the header only means that a body follows,
		// which is never read.
		return codeNotImplemented
	case hc.badLen:
		return codeBadRequest
	case http11 && hc.hosts == 0:
		return codeBadRequest
	case hc.hosts == 1 && !validHost(hc.host):
		return codeBadRequest
	}
	return 0
}

// validHost reports whether a Host value has only the bytes a host name, an IP literal and a port
// can have: the lenient check of net/http (golang.org/x/net/http/httpguts.ValidHostHeader).
func validHost(h string) bool {
	for i := 0; i < len(h); i++ {
		if !hostByte[h[i]] {
			return false
		}
	}
	return true
}

// hostByte marks the bytes validHost accepts: RFC 3986's unreserved, sub-delims and pct-encoded
// characters, and ':', '[' and ']' for ports and IPv6 literals.
var hostByte = func() (t [256]bool) {
	for c := '0'; c <= '9'; c++ {
		t[c] = true
	}
	for c := 'a'; c <= 'z'; c++ {
		t[c] = true
		t[c-'a'+'A'] = true
	}
	for _, c := range "!$%&'()*+,-.:;=[]_~" {
		t[c] = true
	}
	return t
}()

// validEscapes reports whether every '%' in a path starts a percent-encoded byte ("%2F").
func validEscapes(p []byte) bool {
	for {
		i := bytes.IndexByte(p, '%')
		if i < 0 {
			return true
		}
		if i+2 >= len(p) || !isHex(p[i+1]) || !isHex(p[i+2]) {
			return false
		}
		p = p[i+3:]
	}
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// incomplete is parseRequest's answer when buf ends inside the head: wait for more, unless the head
// is already too large.
func incomplete(buf []byte, limit int) (int, int) {
	if len(buf) >= limit {
		return 0, codeHeadersTooLarge
	}
	return 0, 0
}

// ended is parseRequest's answer when lineEnd found no line end: code 0 means that buf ended first.
func ended(buf []byte, limit, code int) (int, int) {
	if code == 0 {
		return incomplete(buf, limit)
	}
	return 0, code
}

// lineEnd expects a line end ("\r\n" or a bare "\n") at buf[i] and returns the index after it. It
// returns 0 with code 0 when buf ends first, or 0 with code 400 when something else is there.
func lineEnd(buf []byte, i int) (next, code int) {
	switch {
	case i >= len(buf):
		return 0, 0
	case buf[i] == '\n':
		return i + 1, 0
	case buf[i] != '\r':
		return 0, codeBadRequest
	case i+1 >= len(buf):
		return 0, 0
	case buf[i+1] == '\n':
		return i + 2, 0
	}
	return 0, codeBadRequest
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

const (
	lsb = 0x0101010101010101
	msb = 0x8080808080808080
)

// trimOWSString removes optional whitespace (SP and HTAB) around s.
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

// equalFoldBytes is equalFoldASCII for a byte slice and a string.
func equalFoldBytes(a []byte, b string) bool {
	return equalFoldASCII(bstr(a), b)
}

// ctlIndex returns the index of the first control character in b other than horizontal tab (a byte
// below 0x20, or 0x7f), or -1. In a header value that is normally the line's CR or LF. It tests eight
// bytes at a time: the subtraction trick flags bytes below 0x20 and bytes equal to 0x7f, and the
// lowest flagged byte is always a true match (a borrow only propagates upwards).
func ctlIndex(b []byte) int {
	i := 0
	for i+8 <= len(b) {
		x := binary.LittleEndian.Uint64(b[i:])
		below := (x - lsb*0x20) &^ x & msb
		y := x ^ (lsb * 0x7f)
		del := (y - lsb) &^ y & msb
		if m := below | del; m != 0 {
			j := i + bits.TrailingZeros64(m)>>3
			if b[j] != '\t' {
				return j
			}
			i = j + 1
			continue
		}
		i += 8
	}
	for ; i < len(b); i++ {
		if c := b[i]; c < 0x20 && c != '\t' || c == 0x7f {
			return i
		}
	}
	return -1
}

// targetEnd returns the index of the first byte in b that cannot be part of a request target (a
// space, which ends it, or a control character including tab), or -1. Like ctlIndex it tests eight
// bytes at a time. Bytes from 0x80 up pass: raw UTF-8 is common in the wild.
func targetEnd(b []byte) int {
	i := 0
	for ; i+8 <= len(b); i += 8 {
		x := binary.LittleEndian.Uint64(b[i:])
		below := (x - lsb*0x21) &^ x & msb
		y := x ^ (lsb * 0x7f)
		del := (y - lsb) &^ y & msb
		if m := below | del; m != 0 {
			return i + bits.TrailingZeros64(m)>>3
		}
	}
	for ; i < len(b); i++ {
		if c := b[i]; c <= 0x20 || c == 0x7f {
			return i
		}
	}
	return -1
}

// bstr returns a string viewing b's bytes without copying them. The caller guarantees that the bytes
// do not change while the string is in use (see Request).
func bstr(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}
