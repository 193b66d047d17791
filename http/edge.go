package http

import (
	"context"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"redirects"
	"redirects/edge"
)

// Edge answers the edge API: the routes of edgeRoutes (routes.go). Handle
// holds the logic; ServeHTTP (net/http, transport.go) and serveEv (the evhttp
// engine, ev.go) carry it.
type Edge struct {
	Clock   redirects.Clock
	Logger  *slog.Logger
	Metrics *Metrics

	live     atomic.Pointer[live]
	stopping atomic.Bool
	times    headerTimes
	// limitTime is the latest request time the limiters were given.
	limitTime latestTime

	// quit is closed by SetReady(false): export long-polls answer at once.
	quitMu sync.Mutex
	quit   chan struct{}
	// waiting counts the export long-polls being held, up to maxWaiting.
	waiting atomic.Int64
	// downloads counts the large export downloads being written.
	downloads downloads
	// MaxDownloads and MaxKeyDownloads cap them, per node and per key;
	// 0 is the package's default of each.
	MaxDownloads, MaxKeyDownloads int
}

// live is what the edge answers from once the store has been loaded.
type live struct {
	catalog *edge.Catalog
	limiter redirects.Limiter
	// exports caches export files read from the store.
	exports *edge.ExportCache
}

func (e *Edge) setLive(l *live) { e.live.Store(l) }

// SetReady(false) makes /healthz and /readyz answer 503 while the server
// shuts down.
func (e *Edge) SetReady(ready bool) {
	e.stopping.Store(!ready)
	e.quitMu.Lock()
	defer e.quitMu.Unlock()
	switch {
	case !ready && e.quit == nil:
		e.quit = closedChan
	case !ready && e.quit != closedChan:
		close(e.quit)
		e.quit = closedChan
	case ready && e.quit == closedChan:
		e.quit = nil
	}
}

// quitting returns a channel that is closed once the edge stops.
func (e *Edge) quitting() <-chan struct{} {
	e.quitMu.Lock()
	defer e.quitMu.Unlock()
	if e.quit == nil {
		e.quit = make(chan struct{})
	}
	return e.quit
}

var closedChan = func() chan struct{} { c := make(chan struct{}); close(c); return c }()

// Handle answers q in w: it finds q's route and runs its handler. When the
// answer needs the store (an older version not compiled yet, an export file
// not cached), Handle returns a function that finishes the answer and may
// block; the caller runs it where blocking is harmless. Everything Handle
// counts (limits, metrics) is counted once.
func (e *Edge) Handle(q *Req, w *Resp) func(*Resp) {
	rt := route(q.Path)
	// The event loops give the time they woke up for the request
	// (evhttp.Request.Woke): one reading of the clock serves every request
	// of a wake-up.
	start := q.start
	if start.IsZero() {
		start = time.Now()
		q.start = start
	}
	var slow func(*Resp)
	switch rt.handler {
	case handleLookup:
		slow = e.serveLookup(q, w)
	case handleExport:
		slow = e.serveExport(q, w)
	case handleHealth:
		slow = e.serveHealth(q, w)
	case handleReady:
		slow = e.serveReady(q, w)
	default:
		slow = e.serveNotFound(q, w)
	}
	if slow == nil && q.waitLimiter {
		// A limiter that would wait on the network (Redis) must not hold
		// up an event loop: the whole answer moves to the slow path, where
		// Handle runs again on copies of q's views. Nothing was written or
		// counted yet.
		held := Req{Method: http.MethodGet, Path: strings.Clone(q.Path), RawQuery: strings.Clone(q.RawQuery),
			APIKey: strings.Clone(q.APIKey), IfNoneMatch: strings.Clone(q.IfNoneMatch),
			AcceptEncoding: strings.Clone(q.AcceptEncoding), RemoteAddr: strings.Clone(q.RemoteAddr),
			AppliedVersion: strings.Clone(q.AppliedVersion), Agent: strings.Clone(q.Agent), UserAgent: strings.Clone(q.UserAgent),
			Ctx: context.Background(), offLoop: true, start: q.start}
		return func(w *Resp) {
			if slow := e.Handle(&held, w); slow != nil {
				slow(w)
			}
		}
	}
	if slow == nil {
		e.done(q, w, rt.endpoint, start)
		return nil
	}
	// The slow part runs after q's views may be gone: keep copies.
	method, path, key, remote := strings.Clone(q.Method), strings.Clone(q.Path), strings.Clone(q.APIKey), strings.Clone(q.RemoteAddr)
	return func(w *Resp) {
		slow(w)
		e.done(&Req{Method: method, Path: path, APIKey: key, RemoteAddr: remote, Ctx: context.Background()}, w, rt.endpoint, start)
	}
}

// serveHealth answers /healthz: 200 while the edge answers from a loaded
// store, 503 before that and while the server shuts down.
func (e *Edge) serveHealth(q *Req, w *Resp) func(*Resp) {
	w.Status = http.StatusOK
	if e.stopping.Load() || e.live.Load() == nil {
		w.Status = http.StatusServiceUnavailable
	}
	w.Set("Cache-Control", ccNoStore)
	return nil
}

// Bodies of /readyz's answers: a prober's log shows why a node is out.
var (
	readyBody    = []byte("ready\n")
	loadingBody  = []byte("not ready: the store has not been loaded yet\n")
	stoppingBody = []byte("not ready: shutting down\n")
)

// serveReady answers /readyz, the readiness probe: 200 once the catalog of
// deployments is loaded, so that every lookup can be answered; 503 before
// that (the store is being read, or cannot be reached yet) and from the
// moment the server starts shutting down, so that a load balancer or an
// orchestrator sends no new request to a node that is leaving. It answers
// on the same condition as /healthz, which keeps its answers for the load
// balancers configured with it, and adds a one-line reason as its body.
// Neither is a liveness probe: both answer 503 while a node that is alive
// waits for its store (docs/operations.md).
func (e *Edge) serveReady(q *Req, w *Resp) func(*Resp) {
	switch {
	case e.stopping.Load():
		w.Status, w.Body = http.StatusServiceUnavailable, stoppingBody
	case e.live.Load() == nil:
		w.Status, w.Body = http.StatusServiceUnavailable, loadingBody
	default:
		w.Status, w.Body = http.StatusOK, readyBody
	}
	w.Set("Content-Type", ctText)
	w.Set("Cache-Control", ccNoStore)
	return nil
}

// serveNotFound answers a path that no route lists.
func (e *Edge) serveNotFound(q *Req, w *Resp) func(*Resp) {
	e.writeError(w, errRoute)
	return nil
}

// done records an answer in the metrics and, at debug level, the log.
func (e *Edge) done(q *Req, w *Resp, ep endpoint, start time.Time) {
	e.Metrics.observe(q.Shard, ep, w.Status, time.Since(start))
	if e.Logger.Enabled(context.Background(), slog.LevelDebug) {
		e.Logger.Debug("request", "method", q.Method, "path", q.Path, "status", w.Status,
			"key", redactKey(q.APIKey), "duration", time.Since(start), "remote", q.RemoteAddr)
	}
}

// redactKey keeps a key's prefix and last four characters for logs.
func redactKey(k string) string {
	if len(k) <= 15 {
		if k == "" {
			return ""
		}
		return "(malformed)"
	}
	return k[:11] + "..." + k[len(k)-4:]
}
