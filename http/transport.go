package http

import (
	"context"
	"net/http"
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
	if w.Status != http.StatusNoContent && w.Status != http.StatusNotModified {
		h["Content-Length"] = []string{itoa(len(w.Body))}
	}
	hw.WriteHeader(w.Status)
	hw.Write(w.Body)
	if w.Done != nil {
		w.Done()
	}
}
