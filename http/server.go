// Package http serves the edge API (/v1/lookup, /v1/export) and the admin
// listener (/metrics): its routes, checks, headers, errors and metrics,
// over net/http or the evhttp engine. What it answers from (the catalog of
// deployments, the counters, the export cache) is package edge's.
package http

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"runtime/debug"
	"sync"
	"time"

	"redirects"
	"redirects/edge"
	"redirects/http/evhttp"
)

// Store is what the edge reads and writes of a store: the catalog's part
// and the export files.
type Store interface {
	edge.CatalogStore
	redirects.ExportSource
}

// Backend is what the edge answers from: the store, and the limiter that
// counts against it.
type Backend struct {
	Store Store
	// Notifier, when the store pushes notices of its events (PostgreSQL's
	// LISTEN/NOTIFY), is what the edge follows them by; nil polls alone.
	Notifier redirects.Notifier
	Limiter  redirects.Limiter
	// Usage is the limiter's monthly usage, which the edge writes with
	// the keys' daily usage; nil when the limiter keeps none.
	Usage redirects.UsageTaker
	// Builder renders again the export files of a version whose files the
	// store pruned (see redirects.FindExport): the deploy's builder. Nil
	// answers such versions 404.
	Builder redirects.Builder
}

// Config configures a Server.
type Config struct {
	Addr      string // edge listener, e.g. ":8080"
	AdminAddr string // admin listener, e.g. "127.0.0.1:8081"; "" for none
	// Pprof serves Go's profiles (net/http/pprof) under /debug/pprof/ on
	// the admin listener, for a CPU profile of the running node. Off by
	// default: a profile shows the rules and keys the node handles.
	Pprof bool
	// Connect opens the backend. If it fails with EUNAVAILABLE (the store
	// cannot be reached), the server starts anyway, answers 503 on the API,
	// /healthz and /readyz, and calls Connect again every ConnectRetry until it
	// succeeds.
	Connect      func(context.Context) (*Backend, error)
	ConnectRetry time.Duration
	Clock        redirects.Clock
	Logger       *slog.Logger
	// RefreshInterval is how often the store's events are polled: 200 ms by
	// default, 1 s when the store pushes notices (redirects.Notifier), where
	// the poll only covers a lost notice connection.
	RefreshInterval time.Duration
	// FlushInterval is how often counted usage is written to the store.
	FlushInterval time.Duration
	// Metrics, if set, is where the server counts; else it makes its own.
	Metrics *Metrics
	// Engine carries the edge listener: "evhttp" (the default: an epoll
	// loop that reads and writes once per request and allocates nothing)
	// or "net/http".
	Engine string
	// Loops is the number of evhttp event loops (evhttp.Config.Loops): 0
	// for one per P.
	Loops int
}

// Server runs the edge and admin listeners and keeps the catalog current.
type Server struct {
	cfg     Config
	edge    *Edge
	backend *Backend      // set once connected
	catalog *edge.Catalog // set once connected
	metrics *Metrics

	edgeLn, adminLn   net.Listener
	edgeSrv, adminSrv *http.Server
	edgeEv            *evhttp.Server

	cancel context.CancelFunc
	wg     sync.WaitGroup
	// repeats keeps failures that repeat every second during an outage
	// to one log line per cause per repeatInterval.
	repeats *repeatLog
}

// Timeouts and limits of the edge listener: a slow or hostile client gets
// cut off rather than holding a connection.
const (
	readHeaderTimeout = 5 * time.Second
	readTimeout       = 10 * time.Second
	writeTimeout      = 30 * time.Second
	idleTimeout       = 120 * time.Second
	maxHeaderBytes    = 16 << 10
)

// Open binds the listeners, connects the backend and loads the catalog, and
// starts serving. It returns once lookups can be answered, or once it knows
// the store cannot be reached yet (then it keeps trying in the background).
func Open(ctx context.Context, cfg Config) (*Server, error) {
	if cfg.FlushInterval <= 0 {
		cfg.FlushInterval = time.Second
	}
	if cfg.ConnectRetry <= 0 {
		cfg.ConnectRetry = time.Second
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Metrics == nil {
		cfg.Metrics = NewMetrics()
	}
	s := &Server{cfg: cfg, metrics: cfg.Metrics}
	s.repeats = newRepeatLog(cfg.Logger, repeatInterval, s.now)
	s.edge = &Edge{Clock: cfg.Clock, Logger: cfg.Logger, Metrics: s.metrics}
	runCtx, cancel := context.WithCancel(context.Background())
	s.cancel = cancel
	err := s.connect(ctx, runCtx)
	if err != nil && redirects.ErrorCode(err) != redirects.EUNAVAILABLE {
		cancel()
		return nil, err
	}
	if err != nil {
		cfg.Logger.Error("the store cannot be reached: answering 503 until it can", "err", err)
		s.wg.Add(1)
		go s.reconnect(runCtx)
	}
	switch cfg.Engine {
	case "", "evhttp":
		s.edgeEv, err = evhttp.Listen(evhttp.Config{
			Addr:              cfg.Addr,
			Handler:           s.edge.serveEv,
			Loops:             cfg.Loops,
			ReadHeaderTimeout: readHeaderTimeout,
			WriteTimeout:      writeTimeout,
			IdleTimeout:       idleTimeout,
			MaxHeaderBytes:    maxHeaderBytes,
			ErrorLog:          func(err error) { cfg.Logger.Warn("edge listener", "err", err) },
		})
		if err == nil {
			s.metrics.engine = s.edgeEv.Stats
		}
	case "net/http":
		if s.edgeLn, err = net.Listen("tcp", cfg.Addr); err == nil {
			s.edgeSrv = &http.Server{
				Handler:           s.edge,
				ConnContext:       connContext,
				ReadHeaderTimeout: readHeaderTimeout,
				ReadTimeout:       readTimeout,
				WriteTimeout:      writeTimeout,
				IdleTimeout:       idleTimeout,
				MaxHeaderBytes:    maxHeaderBytes,
				ErrorLog:          slog.NewLogLogger(cfg.Logger.Handler(), slog.LevelWarn),
			}
			s.serve(s.edgeSrv, s.edgeLn)
		}
	default:
		err = redirects.Errorf(redirects.EINVALID, "engine %q is not one of evhttp, net/http", cfg.Engine)
	}
	if err != nil {
		s.stopBackground()
		return nil, err
	}
	if cfg.AdminAddr != "" {
		if s.adminLn, err = net.Listen("tcp", cfg.AdminAddr); err != nil {
			s.closeEdge(context.Background())
			s.stopBackground()
			return nil, err
		}
	}
	if s.adminLn != nil {
		s.adminSrv = &http.Server{Handler: s.adminMux(), ReadHeaderTimeout: readHeaderTimeout, IdleTimeout: idleTimeout}
		s.serve(s.adminSrv, s.adminLn)
	}
	return s, nil
}

// connect opens the backend, loads the catalog, starts following the store
// and makes the edge answer from it.
func (s *Server) connect(ctx, runCtx context.Context) error {
	b, err := s.cfg.Connect(ctx)
	if err != nil {
		return err
	}
	catalog, err := edge.LoadCatalog(ctx, b.Store, 16)
	if err != nil {
		return err
	}
	// Loading compiled every project's rules: the garbage of reading and
	// compiling them (about as much again as the catalog on a million
	// rules) goes back to the system now, not when the collector's
	// scavenger gets to it, so it does not add to what the node holds
	// later (BENCHMARKS.md, "Resilience against hostile clients").
	debug.FreeOSMemory()
	notifier := b.Notifier
	interval := s.cfg.RefreshInterval
	if interval <= 0 {
		interval = 200 * time.Millisecond
		if notifier != nil {
			interval = time.Second
		}
	}
	s.backend, s.catalog = b, catalog
	kick := make(chan struct{}, 1)
	if notifier != nil {
		s.wg.Add(1)
		go s.listen(runCtx, notifier, kick)
	}
	exports := edge.NewExportCache(b.Store, 256<<20)
	exports.Builder = b.Builder
	catalog.OnForget(exports.Forget)
	s.wg.Add(1)
	go s.follow(runCtx, catalog, b, interval, kick)
	s.edge.setLive(&live{catalog: catalog, limiter: b.Limiter, exports: exports})
	return nil
}

// reconnect retries connect until it succeeds or the server closes.
func (s *Server) reconnect(ctx context.Context) {
	defer s.wg.Done()
	t := time.NewTicker(s.cfg.ConnectRetry)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
			err := s.connect(cctx, ctx)
			cancel()
			if err == nil {
				s.cfg.Logger.Info("connected to the store: answering lookups")
				return
			}
		}
	}
}

func (s *Server) stopBackground() {
	s.cancel()
	s.wg.Wait()
}

func (s *Server) serve(srv *http.Server, ln net.Listener) {
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.cfg.Logger.Error("listener stopped", "addr", ln.Addr().String(), "err", err)
		}
	}()
}

// listen keeps a notice connection to the store open, reconnecting after a
// failure, and kicks follow on every notice. After a reconnect it kicks once,
// since notices sent while it was away are lost.
func (s *Server) listen(ctx context.Context, n redirects.Notifier, kick chan struct{}) {
	defer s.wg.Done()
	nudge := func() {
		select {
		case kick <- struct{}{}:
		default:
		}
	}
	for ctx.Err() == nil {
		nudge()
		err := n.Listen(ctx, nudge)
		if ctx.Err() != nil {
			return
		}
		s.repeats.log(slog.LevelWarn, "lost the store's change notices; polling until they return", "err", err)
		select {
		case <-ctx.Done():
			return
		case <-time.After(time.Second):
		}
	}
}

// follow applies store events and flushes usage until ctx ends.
func (s *Server) follow(ctx context.Context, catalog *edge.Catalog, b *Backend, interval time.Duration, kick <-chan struct{}) {
	defer s.wg.Done()
	refresh := time.NewTicker(interval)
	defer refresh.Stop()
	flush := time.NewTicker(s.cfg.FlushInterval)
	defer flush.Stop()
	failing := false
	for {
		select {
		case <-ctx.Done():
			return
		case <-kick:
			s.refresh(ctx, catalog, &failing)
		case <-refresh.C:
			s.refresh(ctx, catalog, &failing)
		case <-flush.C:
			if err := s.flush(ctx, catalog, b); err != nil && ctx.Err() == nil {
				s.repeats.log(slog.LevelError, "cannot write usage to the store; will retry", "err", err)
			}
		}
	}
}

// refresh applies new events, logging when reading them starts or stops
// failing (not on every try).
func (s *Server) refresh(ctx context.Context, catalog *edge.Catalog, failing *bool) {
	for {
		n, err := catalog.Refresh(ctx)
		switch {
		case err != nil && !*failing && ctx.Err() == nil:
			*failing = true
			s.cfg.Logger.Error("cannot read changes from the store; serving what is loaded", "err", err)
		case err == nil && *failing:
			*failing = false
			s.cfg.Logger.Info("reading changes from the store again")
		}
		if n > 0 {
			s.cfg.Logger.Debug("applied changes", "events", n)
		}
		if err != nil || n < edge.RefreshBatch {
			return
		}
	}
}

// Addr returns the edge listener's address.
func (s *Server) Addr() string {
	if s.edgeEv != nil {
		return s.edgeEv.Addr()
	}
	return s.edgeLn.Addr().String()
}

// closeEdge stops the edge listener and waits for in-flight answers.
func (s *Server) closeEdge(ctx context.Context) error {
	if s.edgeEv != nil {
		return s.edgeEv.Shutdown(ctx)
	}
	return s.edgeSrv.Shutdown(ctx)
}

// AdminAddr returns the admin listener's address, or "".
func (s *Server) AdminAddr() string {
	if s.adminLn == nil {
		return ""
	}
	return s.adminLn.Addr().String()
}

// Close stops accepting requests, lets in-flight ones finish (until ctx
// ends), stops following the store and flushes counted usage.
func (s *Server) Close(ctx context.Context) error {
	s.edge.SetReady(false)
	err := s.closeEdge(ctx)
	if s.adminSrv != nil {
		s.adminSrv.Shutdown(ctx)
	}
	s.stopBackground()
	if b := s.backend; b != nil {
		if ferr := s.flush(context.WithoutCancel(ctx), s.catalog, b); ferr != nil {
			err = errors.Join(err, ferr)
		}
	}
	return err
}

// flush writes what the edge counted to the store (edge.Catalog.Flush)
// and counts the flush in the metrics.
func (s *Server) flush(ctx context.Context, catalog *edge.Catalog, b *Backend) error {
	start := time.Now()
	hits, misses := catalog.Written()
	err := catalog.Flush(ctx, b.Usage, s.now())
	nowHits, nowMisses := catalog.Written()
	s.metrics.flushed(time.Since(start), nowHits-hits, nowMisses-misses)
	return err
}

// now reads the server's clock, or the wall's.
func (s *Server) now() time.Time {
	if s.cfg.Clock != nil {
		return s.cfg.Clock.Now()
	}
	return time.Now().UTC()
}
