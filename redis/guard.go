package redis

import (
	"errors"
	"net"
	"strconv"
)

// Bounds of a reply the limiter accepts. Its own replies are a few small
// integers; the largest are SCAN's (DeleteKeys) and the handshake's.
const (
	maxBulk  = 1 << 20 // bytes of one string
	maxCount = 1 << 16 // elements of one array, set or map
	maxDepth = 8       // arrays within arrays
	maxLine  = 1 << 16 // bytes of one simple string, error or length line
)

// errMalformed closes a connection whose server sent a reply outside the
// bounds above.
var errMalformed = errors.New("redis: malformed or oversized reply; connection closed")

// guardedConn checks every reply that comes in against the bounds above
// before the client's parser sees it. rueidis allocates what a length
// prefix announces and recurses into nested arrays as deep as they go: a
// reply such as "$9223372036854775807" from a broken or hostile server
// would panic the process from the client's reading goroutine, where
// nothing can recover. The guard fails the connection instead; the client
// fails the commands in flight and dials again.
type guardedConn struct {
	net.Conn
	resp respScanner
}

func (c *guardedConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 && !c.resp.scan(p[:n]) {
		c.Conn.Close()
		return 0, errMalformed
	}
	return n, err
}

// respScanner follows the framing of a stream of RESP2/RESP3 replies, byte
// by byte, without keeping them: it knows whether it is in a line, how
// much of a string is left, and how many elements each open array still
// awaits.
type respScanner struct {
	line  []byte
	skip  int64   // bytes of a string (and its CRLF) still to pass
	stack []frame // open aggregates, innermost last
	bad   bool
}

type frame struct {
	left int64
	attr bool // an attribute map: it precedes a value, and is not one
}

// scan reports whether b continues a well-framed stream within bounds.
func (s *respScanner) scan(b []byte) bool {
	for len(b) > 0 && !s.bad {
		if s.skip > 0 {
			n := min(int64(len(b)), s.skip)
			s.skip -= n
			b = b[n:]
			if s.skip == 0 {
				s.done()
			}
			continue
		}
		i := 0
		for i < len(b) && b[i] != '\n' {
			i++
		}
		if len(s.line)+i > maxLine {
			s.bad = true
			break
		}
		if i == len(b) {
			s.line = append(s.line, b...)
			break
		}
		s.line = append(s.line, b[:i+1]...)
		b = b[i+1:]
		s.header(s.line)
		s.line = s.line[:0]
	}
	return !s.bad
}

// header reads one complete line, "\r\n" included.
func (s *respScanner) header(line []byte) {
	if len(line) < 3 || line[len(line)-2] != '\r' {
		s.bad = true
		return
	}
	typ, body := line[0], line[1:len(line)-2]
	switch typ {
	case '+', '-', ':', '_', ',', '#', '(':
		s.done()
		return
	}
	n, err := strconv.ParseInt(string(body), 10, 64)
	if err != nil || n < -1 {
		s.bad = true
		return
	}
	switch typ {
	case '$', '!', '=':
		switch {
		case n == -1 && typ == '$':
			s.done()
		case n < 0 || n > maxBulk:
			s.bad = true
		default:
			s.skip = n + 2
		}
	case '*', '~', '>', '%', '|':
		switch {
		case n == -1 && typ == '*':
			s.done()
		case n < 0 || n > maxCount:
			s.bad = true
		case len(s.stack) >= maxDepth:
			s.bad = true
		case n == 0 && typ != '|':
			s.done()
		case n == 0:
			// An empty attribute: the value follows.
		default:
			if typ == '%' || typ == '|' {
				n *= 2
			}
			s.stack = append(s.stack, frame{left: n, attr: typ == '|'})
		}
	default:
		s.bad = true
	}
}

// done counts one complete value in the innermost open aggregate, closing
// those it completes.
func (s *respScanner) done() {
	for len(s.stack) > 0 {
		top := &s.stack[len(s.stack)-1]
		top.left--
		if top.left > 0 {
			return
		}
		attr := top.attr
		s.stack = s.stack[:len(s.stack)-1]
		if attr {
			return
		}
	}
}
