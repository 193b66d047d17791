// Package evhttp is a minimal HTTP/1.1 server for small GET requests on Linux epoll, built to answer
// as cheaply as nginx: per request it makes one read and one write system call (plus a share of
// epoll_wait) and allocates nothing.
//
// Each event loop is one goroutine with its own epoll instance; the first loop also accepts from the
// one listening socket and deals the connections to the loops in turn. A connection stays on its
// loop for life, and no loop shares state with another but the connection counts. With fewer
// loops than Ps (SpareP), a loop keeps its P through waits of up to a millisecond, so that under
// load it goes from one batch of events to the next without the scheduler's hand-offs.
// On a readable event a loop reads once, parses and answers every complete request in the buffer
// (pipelining), and writes all the responses with one write. Requests are parsed in place: the
// Request's strings are views into the connection's read buffer, and headers are kept in a fixed
// array. Buffers come from a per-loop pool and go back to it as soon as a connection has nothing
// buffered, so an idle keep-alive connection holds no buffer at all.
//
// Handlers that must block (a database read) return a slow function, which the engine runs on its
// own goroutine; the connection pauses meanwhile and the loop resumes it when the function returns.
//
// What the server does not do: read request bodies (a request with one is answered, then the
// connection is closed), chunked responses, TLS, HTTP/2, absolute-form targets ("GET http://h/p"),
// or Expect: 100-continue. It does enforce what RFC 9112 requires of a server reading requests,
// as net/http does: exactly one valid Host header in HTTP/1.1 (400 otherwise), no conflicting
// Content-Length (400), and 501 for a transfer coding other than "chunked".
package evhttp

import (
	"errors"
	"runtime"
	"sync"
	"time"
)

// Handler answers a request. If it cannot answer without blocking (it needs to read a database), it
// returns a non-nil slow function: the engine then runs slow(resp) on its own goroutine, with the same
// *Response (headers already set are kept), and writes the response when slow returns; meanwhile the
// connection reads no further requests (responses stay in request order). Handlers that return nil
// have answered in resp.
//
// The Request's strings are not valid inside slow: the handler copies what it needs before returning
// it. Strings already passed to resp.Set do stay valid, because the connection's read buffer is kept
// untouched until the response has been written. A panic in the handler or in slow is recovered and
// answered with 500 and the connection is closed.
type Handler func(req *Request, resp *Response) (slow func(resp *Response))

// Config configures a Server. Zero durations and sizes take the defaults shown.
type Config struct {
	Addr    string // "host:port"; port 0 picks a free port (all loops share it); empty host: all addresses
	Handler Handler
	// Loops is the number of event loops; 0 = runtime.GOMAXPROCS(0). With fewer loops than Ps
	// (see SpareP) each loop keeps its P through waits of up to a millisecond, which on a
	// loaded machine costs less CPU per request than handing the P back to the runtime at every
	// wait; with as many loops as Ps they hand it back, so that the rest of the program runs.
	Loops int
	// ReadHeaderTimeout closes a connection whose request headers are not complete this long after
	// the accept, for the first request (a connection that sends nothing is closed then), or after
	// the first byte of a later request arrived (default 5s).
	ReadHeaderTimeout time.Duration
	// WriteTimeout closes a connection whose pending output is not drained this long after it
	// stopped fitting into the socket (default 30s). It bounds the time to send one batch of
	// responses, a large export file included.
	WriteTimeout time.Duration
	// IdleTimeout closes a keep-alive connection that has been answered and has not started a new
	// request this long after its last response (default 120s).
	IdleTimeout time.Duration
	// MaxHeaderBytes bounds the request line and headers; a larger head is answered 431 and the
	// connection closed (default 16 KiB). More than 64 header lines also get 431.
	MaxHeaderBytes int
	// MaxConns bounds the open connections: past it a new connection is closed at once (and a
	// line is logged when that begins and when it ends). The default leaves a tenth of the
	// descriptor limit (RLIMIT_NOFILE, at least 64) to the rest of the program: database
	// connections, files.
	MaxConns int
	// MaxConnsPerAddr bounds the open connections from one client IP address, past which its new
	// connections are closed at once (default MaxConns/2, so that one client cannot take all;
	// negative: no such bound, for a server behind a proxy that has many connections).
	MaxConnsPerAddr int
	// ErrorLog, if set, receives the errors the server handles by itself: recovered handler panics,
	// failures to accept and connections closed at once for the limits above, each logged when the
	// state changes rather than every time. It is called from the event loops and must not block.
	ErrorLog func(error)
}

var spare struct {
	once  sync.Once
	loops int
}

// SpareP leaves one P to the rest of the program beside one event loop per P: the first call
// raises GOMAXPROCS by one and returns the value it had, the number of loops to ask for
// (Config.Loops); later calls return the same number and change nothing. The loops then keep
// their Ps through short waits (see Config.Loops), and the goroutines of slow functions, the
// network I/O of the rest of the program and the garbage collector have the spare one. Setting
// GOMAXPROCS also ends the runtime's own updates of it (when a container's CPU limit changes).
func SpareP() int {
	spare.once.Do(func() {
		spare.loops = runtime.GOMAXPROCS(0)
		runtime.GOMAXPROCS(spare.loops + 1)
	})
	return spare.loops
}

// Stats are a server's counters, for metrics.
type Stats struct {
	Conns            int64  // connections open now
	Accepted         uint64 // connections accepted and served
	Shed             uint64 // connections closed at once: MaxConns was reached
	ShedPerAddr      uint64 // connections closed at once: MaxConnsPerAddr was reached
	OutOfDescriptors uint64 // accepts that failed for lack of descriptors (EMFILE, ENFILE, ENOBUFS, ENOMEM)
	AcceptPaused     bool   // accepting waits for descriptors to be freed
	MaxConns         int    // the limits in force
	MaxConnsPerAddr  int    // 0: none
}

// Defaults of Config.
const (
	DefaultReadHeaderTimeout = 5 * time.Second
	DefaultWriteTimeout      = 30 * time.Second
	DefaultIdleTimeout       = 120 * time.Second
	DefaultMaxHeaderBytes    = 16 << 10
)

// setConnLimits sets the connection limits' defaults from the soft limit on open descriptors.
func (cfg *Config) setConnLimits(nofile int) {
	if cfg.MaxConns <= 0 {
		cfg.MaxConns = max(nofile-max(64, nofile/10), 1)
		if nofile <= 0 {
			cfg.MaxConns = 1 << 20
		}
	}
	if cfg.MaxConnsPerAddr == 0 {
		cfg.MaxConnsPerAddr = max(cfg.MaxConns/2, 1)
	} else if cfg.MaxConnsPerAddr < 0 {
		cfg.MaxConnsPerAddr = 0
	}
}

// ErrNoHandler is returned by Listen when Config.Handler is nil.
var ErrNoHandler = errors.New("evhttp: Config.Handler is nil")

func (cfg *Config) setDefaults() {
	if cfg.ReadHeaderTimeout <= 0 {
		cfg.ReadHeaderTimeout = DefaultReadHeaderTimeout
	}
	if cfg.WriteTimeout <= 0 {
		cfg.WriteTimeout = DefaultWriteTimeout
	}
	if cfg.IdleTimeout <= 0 {
		cfg.IdleTimeout = DefaultIdleTimeout
	}
	if cfg.MaxHeaderBytes <= 0 {
		cfg.MaxHeaderBytes = DefaultMaxHeaderBytes
	}
}

// Bodies of the answers the engine produces by itself.
var (
	bodyBadRequest      = []byte(`{"error":"Bad Request","code":"BAD_REQUEST"}`)
	bodyHeadersTooLarge = []byte(`{"error":"Request Header Fields Too Large","code":"HEADERS_TOO_LARGE"}`)
	bodyInternalError   = []byte(`{"error":"Internal Server Error","code":"INTERNAL_ERROR"}`)
	bodyNotImplemented  = []byte(`{"error":"Not Implemented","code":"NOT_IMPLEMENTED"}`)
)

// setError makes resp the engine's own JSON answer for status 400, 431, 500 or 501.
func setError(resp *Response, status int) {
	// The answer replaced (a handler's or slow function's that panicked)
	// may hold something its Done frees, such as a download slot.
	if d := resp.Done; d != nil {
		resp.Done = nil
		d()
	}
	resp.Reset()
	resp.Status = status
	switch status {
	case codeBadRequest:
		resp.Body = bodyBadRequest
	case codeHeadersTooLarge:
		resp.Body = bodyHeadersTooLarge
	case codeNotImplemented:
		resp.Body = bodyNotImplemented
	default:
		resp.Status = codeInternalError
		resp.Body = bodyInternalError
	}
	resp.Set("Content-Type", "application/json")
	resp.Set("Cache-Control", "no-store")
	resp.Close = true
}
