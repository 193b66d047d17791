package evhttp

import (
	"encoding/binary"
	"io"
	"net/http"
	"strconv"
)

// maxResponseHeaders is the capacity of a Response's header array.
const maxResponseHeaders = 16

// Response is filled by the handler. The engine writes the status line, the headers in the order set,
// then "Date" (cached, refreshed each second) and "Content-Length" (len(Body)), except that 204, 304
// and 1xx get no Content-Length and no body, then the body. A HEAD request gets the headers only, with
// the Content-Length of the body. The engine adds "Connection: close" when it closes the connection
// after the response and "Connection: keep-alive" to an HTTP/1.0 client that asked for it; handlers
// must not set Date, Content-Length, Connection or Transfer-Encoding themselves.
type Response struct {
	// Status is the status code; 0 means 200, and codes outside 100-999 are answered as 500.
	Status int
	// Body is referenced, not copied: the handler must not modify it afterwards (stored export
	// files, pre-rendered bodies). Bodies up to copyBodyMax bytes are copied into the connection's
	// output buffer; larger ones are written straight from this slice.
	Body []byte
	// Close closes the connection after this response.
	Close bool
	// Scratch is the connection's buffer for a handler to render a body
	// into (Body = Scratch[:n]); it keeps its memory from one request to
	// the next, so rendered bodies allocate nothing once it has grown.
	// Reset leaves it; a body from it larger than copyBodyMax, which is
	// written from the slice after the handler returns, takes it along
	// (the next request starts a new one).
	Scratch []byte
	// Done, if set, is called once the body has been written (a copied
	// body: once it is queued) or the connection closed: the handler's
	// hook to free what it held for the download.
	Done func()
	// Stream, if set, is the body in place of Body: StreamLen bytes (the Content-Length) read from
	// it in pieces of streamPiece bytes as the client takes them, so a large body is never held
	// whole (a compact export's identity, decompressed as it is sent). A read error or a stream
	// shorter than StreamLen closes the connection where it stands: the client sees a body shorter
	// than its Content-Length. A HEAD request's answer reads nothing of it.
	Stream    io.Reader
	StreamLen int64

	hdr  [maxResponseHeaders]header
	nhdr int
}

// Set appends a header (no deduplication). It panics past 16 headers: that is a programming error
// which the engine's recovery turns into a 500 for the request, rather than a silently missing
// header. Control characters in name or value (CR, LF) are written as spaces, so a value taken from
// a request or a rule cannot split the response.
func (r *Response) Set(name, value string) {
	if r.nhdr == len(r.hdr) {
		panic("evhttp: more than 16 response headers")
	}
	r.hdr[r.nhdr] = header{name, value}
	r.nhdr++
}

// Reset clears the response for reuse: status 0, no body, no headers, Close false.
func (r *Response) Reset() {
	clear(r.hdr[:r.nhdr])
	r.nhdr = 0
	r.Status = 0
	r.Body = nil
	r.Close = false
	r.Done = nil
	r.Stream, r.StreamLen = nil, 0
}

// bodyLen is the Content-Length of r's body.
func (r *Response) bodyLen() int64 {
	if r.Stream != nil {
		return r.StreamLen
	}
	return int64(len(r.Body))
}

// copyBodyMax is the largest body copied into the output buffer; larger bodies are written from the
// handler's slice (writev), which costs an iovec but saves copying export files of many MiB.
const copyBodyMax = 8 << 10

// statusLines holds the pre-rendered status lines "HTTP/1.1 200 OK\r\n" for codes 100-599.
var statusLines = func() (t [600][]byte) {
	for code := 100; code < 600; code++ {
		t[code] = []byte("HTTP/1.1 " + strconv.Itoa(code) + " " + http.StatusText(code) + "\r\n")
	}
	return t
}()

// bodyAllowed reports whether a response with this status carries Content-Length and a body.
func bodyAllowed(status int) bool {
	return status >= 200 && status != 204 && status != 304
}

// appendHead appends the status line and headers of resp, ending with the empty line. date is the
// cached "Date: ...\r\n" line. keepAlive10 and closing select the Connection header.
func appendHead(out []byte, resp *Response, date []byte, keepAlive10, closing bool) []byte {
	status := resp.Status
	if status < 600 {
		out = append(out, statusLines[status]...)
	} else {
		// A code without a reason phrase: the phrase is optional (RFC 9112 section 4).
		out = append(out, "HTTP/1.1 "...)
		out = strconv.AppendInt(out, int64(status), 10)
		out = append(out, " \r\n"...)
	}
	for i := 0; i < resp.nhdr; i++ {
		h := &resp.hdr[i]
		out = appendClean(out, h.name)
		out = append(out, ": "...)
		out = appendClean(out, h.value)
		out = append(out, "\r\n"...)
	}
	out = append(out, date...)
	if bodyAllowed(status) {
		out = append(out, "Content-Length: "...)
		out = strconv.AppendInt(out, resp.bodyLen(), 10)
		out = append(out, "\r\n"...)
	}
	if closing {
		out = append(out, "Connection: close\r\n"...)
	} else if keepAlive10 {
		out = append(out, "Connection: keep-alive\r\n"...)
	}
	return append(out, "\r\n"...)
}

// appendClean appends s, with control characters other than tab replaced by spaces. The check runs
// eight bytes at a time over the appended copy, so clean values (all of them in practice) cost one
// pass.
func appendClean(out []byte, s string) []byte {
	start := len(out)
	out = append(out, s...)
	b := out[start:]
	for len(b) >= 8 {
		x := binary.LittleEndian.Uint64(b)
		if (x-lsb*0x20)&^x&msb != 0 {
			break
		}
		b = b[8:]
	}
	for i, c := range b {
		if c < 0x20 && c != '\t' {
			b[i] = ' '
		}
	}
	return out
}
