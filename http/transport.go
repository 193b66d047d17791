package http

import (
	"context"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"redirects"
)

// Req is what the edge reads of a request, whatever the transport. Its
// strings may be views into a connection's buffer, valid only until the
// answer is written: anything kept longer is copied.
type Req struct {
	Method      string
	Path        string
	RawQuery    string
	APIKey      string
	IfNoneMatch string
	// AcceptEncoding picks an export's content coding.
	AcceptEncoding string
	// AppliedVersion, Agent and UserAgent are a sync agent's report on an
	// export request (the headers Redirects-Applied-Version,
	// Redirects-Agent and User-Agent); the transports read them only on
	// exports, and the last two only when the first is there.
	AppliedVersion, Agent, UserAgent string
	RemoteAddr                       string
	Ctx                              context.Context
	// Shard is the metrics' shard the request counts in (Metrics.shard): 1
	// + the index of the event loop that read it, 0 for none.
	Shard int
	// memo is the event loop's key memo (keyMemo), nil off the loops.
	memo *keyMemo
	// start is the event loop's wake-up that answers the request
	// (evhttp.Request.Woke) or, where the transport does not say, when
	// Handle began: the start of the request's duration in the metrics,
	// and the limiter's time too (held to never go back: latestTime), when
	// the edge runs on the system clock.
	start time.Time
	// offLoop marks a request already moved off the event loop, so Handle
	// does not move it again.
	offLoop bool
	// waitLimiter is set by the checks when the limiter cannot decide
	// without waiting: Handle then moves the request off the loop.
	waitLimiter bool
}

// maxHeaders bounds the headers of one answer; the edge sets at most 13.
const maxHeaders = 16

// Resp is the edge's answer, whatever the transport: a status, headers in a
// fixed array (no allocation), and a body that is referenced, not copied.
type Resp struct {
	Status  int
	Headers [maxHeaders][2]string
	N       int
	Body    []byte
	// Scratch is a buffer a handler may render a body into (Body =
	// Scratch): the connection's own on the evhttp engine, reused from one
	// request to the next, so a computed answer allocates nothing; nil
	// elsewhere, where appending to it allocates.
	Scratch []byte
	// Done, if set, is called once Body has been written or the client
	// has gone: a large export's download slot is freed by it.
	Done func()
	// Stream, if set, is the body in place of Body: StreamLen bytes read
	// from it as the client takes them (a compact export's identity,
	// decompressed piece by piece; see evhttp.Response.Stream).
	Stream    io.Reader
	StreamLen int64
}

// Set adds a header.
func (r *Resp) Set(name, value string) {
	if r.N < maxHeaders {
		r.Headers[r.N] = [2]string{name, value}
		r.N++
	}
}

// ServeHTTP carries Handle over net/http (the admin listener, and the edge
// when the evhttp engine is not used). The evhttp engine's glue is ev.go.
func (e *Edge) ServeHTTP(hw http.ResponseWriter, r *http.Request) {
	q := Req{Method: r.Method, Path: r.URL.EscapedPath(), RawQuery: r.URL.RawQuery, IfNoneMatch: r.Header.Get("If-None-Match"),
		AcceptEncoding: r.Header.Get("Accept-Encoding"), RemoteAddr: r.RemoteAddr, Ctx: r.Context()}
	if v := r.Header["X-Api-Key"]; len(v) > 0 {
		q.APIKey = v[0]
	}
	if q.Path == exportPath {
		if v := r.Header[redirects.AppliedVersionHeader]; len(v) > 0 {
			q.AppliedVersion, q.Agent, q.UserAgent = v[0], r.Header.Get(redirects.AgentHeader), r.Header.Get("User-Agent")
		}
	}
	if q.Path == exportPath && strings.Contains(q.RawQuery, "wait=") {
		// A long-poll may be held up to MaxWait before its answer is
		// written: the listener's WriteTimeout counts from the request.
		http.NewResponseController(hw).SetWriteDeadline(time.Now().Add(writeTimeout + MaxWait*time.Second))
	}
	var w Resp
	if slow := e.Handle(&q, &w); slow != nil {
		slow(&w)
	}
	h := hw.Header()
	for _, kv := range w.Headers[:w.N] {
		h[kv[0]] = []string{kv[1]}
	}
	n := int64(len(w.Body))
	if w.Stream != nil {
		n = w.StreamLen
	}
	if w.Status != http.StatusNoContent && w.Status != http.StatusNotModified {
		h["Content-Length"] = []string{strconv.FormatInt(n, 10)}
	}
	if n > sendBufferCap {
		capSendBuffer(r.Context())
	}
	hw.WriteHeader(w.Status)
	if w.Stream == nil {
		hw.Write(w.Body)
	} else if r.Method != http.MethodHead && n > 0 {
		// A short or failing stream leaves the body short of its
		// Content-Length: net/http then closes the connection.
		rr := &readErrs{r: w.Stream}
		if written, _ := io.CopyN(hw, rr, n); written < n && rr.err != nil {
			e.Logger.Error("reading a streamed export body", "written", written, "of", n, "err", rr.err)
		}
	}
	if w.Done != nil {
		w.Done()
	}
}

// readErrs is a reader that keeps its reader's error apart from the
// writer's, for a log line that says which side failed.
type readErrs struct {
	r   io.Reader
	err error
}

func (r *readErrs) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	if err != nil {
		r.err = err
	}
	return n, err
}

// sendBufferCap is the SO_SNDBUF of a net/http edge connection once it is
// sent a body larger than that (an export file), as the evhttp engine sets
// its own (sndBufCap): enough for a fast client on a LAN, and a bound on
// what a client that never reads holds of the host's TCP memory. Without
// it Linux grows a connection's send buffer up to net.ipv4.tcp_wmem's
// maximum, 4 MiB by default, and a few thousand such clients took the
// host's TCP memory (issue #24). The body is still written from its one
// copy; the connection's goroutine waits for the client, up to the
// listener's WriteTimeout.
//
// net.TCPConn.SetWriteBuffer sets SO_SNDBUF on every platform: on Linux the
// kernel doubles it for its bookkeeping and stops growing the buffer by
// itself; on macOS and the BSDs it sets the socket's send buffer limit and
// likewise ends its automatic sizing; on Windows it sets Winsock's send
// buffer, which Windows otherwise sizes by itself. Only Linux is measured
// (cmd/redirects' TestNonReadingExportClientsHoldLittleKernelMemory).
const sendBufferCap = 256 << 10

// connKey is the context key of a net/http edge request's connection (see
// connContext).
type connKey struct{}

// edgeConn is a net/http edge connection as its requests see it. Its
// requests are served one after the other (HTTP/1.1, no TLS on the edge),
// so capped needs no lock.
type edgeConn struct {
	conn   net.Conn
	capped bool
}

// connContext is the http.Server.ConnContext of the net/http edge
// listener: it keeps the connection in its requests' context so that
// ServeHTTP can cap its send buffer before writing an export.
func connContext(ctx context.Context, c net.Conn) context.Context {
	return context.WithValue(ctx, connKey{}, &edgeConn{conn: c})
}

// capSendBuffer sets the SO_SNDBUF of the connection of a request served
// through connContext to sendBufferCap, once; elsewhere (the admin
// listener) it does nothing.
func capSendBuffer(ctx context.Context) {
	ec, _ := ctx.Value(connKey{}).(*edgeConn)
	if ec == nil || ec.capped {
		return
	}
	ec.capped = true
	if tc, ok := ec.conn.(*net.TCPConn); ok {
		tc.SetWriteBuffer(sendBufferCap)
	}
}
