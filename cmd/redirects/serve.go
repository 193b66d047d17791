package main

import (
	"cmp"
	"context"
	"log/slog"
	"runtime"
	"time"

	"redirects"
	edgehttp "redirects/http"
	"redirects/http/evhttp"
	"redirects/inmem"
	"redirects/redis"
	"redirects/webhook"
)

// serveCommands is "serve": the edge API.
var serveCommands = []command{
	{
		name:     "serve",
		needsDB:  true,
		synopsis: []string{"[--addr HOST:PORT] [--admin-addr HOST:PORT] [--redis URL] [--log-level LEVEL] [--log-format text|json] [--engine evhttp|net/http] [--manage-addr HOST:PORT [--tls-cert FILE --tls-key FILE]] [--webhook-allow-private] [--pprof] [--check-destinations-every DURATION] [--check-allow-private]"},
		summary:  "serve the edge API (and /metrics on the admin address)",
		about:    "The database must exist: create it with a command that writes first.",
		example:  "redirects serve --addr 127.0.0.1:8080",
		readOnly: true,
		run:      (*cmd).serve,
	},
}

// logLevel parses --log-level.
func logLevel(s string) (slog.Level, error) {
	var l slog.Level
	if err := l.UnmarshalText([]byte(s)); err != nil {
		return 0, redirects.Errorf(redirects.EINVALID, "log level %q is not one of debug, info, warn, error", s)
	}
	return l, nil
}

func (c *cmd) serve(ctx context.Context, args []string) error {
	fs := c.flags("serve")
	cf := &c.cfg
	fs.StringVar(&cf.addr, "addr", cmp.Or(cf.addr, ":8080"), "edge API address (or REDIRECTS_ADDR)")
	fs.StringVar(&cf.adminAddr, "admin-addr", cmp.Or(cf.adminAddr, "127.0.0.1:8081"), "admin address for /metrics (or REDIRECTS_ADMIN_ADDR); empty for none")
	fs.StringVar(&cf.redis, "redis", cf.redis, "Redis URL for limits shared across nodes (or REDIRECTS_REDIS)")
	fs.StringVar(&cf.logLevel, "log-level", cmp.Or(cf.logLevel, "info"), "debug logs every request (or REDIRECTS_LOG_LEVEL)")
	fs.StringVar(&cf.logFormat, "log-format", cmp.Or(cf.logFormat, "text"), "log lines as text (key=value) or json (or REDIRECTS_LOG_FORMAT)")
	fs.StringVar(&cf.engine, "engine", cmp.Or(cf.engine, "evhttp"), "HTTP engine of the edge listener: evhttp or net/http (or REDIRECTS_ENGINE)")
	fs.BoolVar(&cf.webhookAllowPrivate, "webhook-allow-private", false, "let webhooks and the sitemaps of suggestions reach loopback, private and link-local addresses (on-premise use)")
	fs.DurationVar(&cf.checkEvery, "check-destinations-every", 0, "check every project's live destinations this often, one node of the cluster at a time (0: never; see redirects check)")
	fs.BoolVar(&cf.checkAllowPrivate, "check-allow-private", false, "let destination checks reach loopback, private and link-local addresses")
	fs.BoolVar(&cf.pprof, "pprof", false, "serve Go's profiles under /debug/pprof/ on the admin address (a CPU profile of the running node)")
	c.manage = c.manageFlags(fs, "")
	if _, err := parse(fs, args); err != nil {
		return err
	}
	if cf.pprof && cf.adminAddr == "" {
		return usagef("--pprof serves on the admin address: give --admin-addr, not an empty one")
	}
	if err := c.manage.check(); err != nil {
		return err
	}
	return c.runServer(ctx, cf.addr, cf.adminAddr, cf.redis, cf.logLevel, cf.logFormat, cf.engine, nil)
}

// runServer serves until ctx ends, then shuts down gracefully. ready, if
// set, runs once the server answers.
func (c *cmd) runServer(ctx context.Context, addr, admin, redisURL, level, logFormat, engine string, ready func(edgeAddr string)) error {
	lvl, err := logLevel(level)
	if err != nil {
		return err
	}
	logger, err := newLogger(c.m.Stderr, lvl, logFormat)
	if err != nil {
		return err
	}
	if (engine == "" || engine == "evhttp") && !evhttp.Supported {
		logger.Warn("the evhttp engine needs Linux epoll (64-bit or ARM): serving with net/http", "os", runtime.GOOS, "arch", runtime.GOARCH)
		engine = "net/http"
	}
	loops := 0
	if engine == "" || engine == "evhttp" {
		// One event loop per P as GOMAXPROCS was (by default the CPUs this
		// process may use), and one P more for everything else, so that the
		// loops keep theirs while they wait (evhttp.SpareP).
		loops = evhttp.SpareP()
	}
	metrics := edgehttp.NewMetrics()
	var closers []func()
	defer func() {
		for _, f := range closers {
			f()
		}
	}()
	connect := func(ctx context.Context) (*edgehttp.Backend, error) {
		s, notices, err := c.database(ctx)
		if err != nil {
			return nil, err
		}
		if d, ok := s.(interface {
			SetLogger(*slog.Logger)
			DroppedHitEntries() int64
		}); ok {
			d.SetLogger(logger)
			metrics.SetDroppedHitEntries(d.DroppedHitEntries)
		}
		if redisURL != "" {
			rl, err := redis.Open(ctx, redisURL, cmp.Or(c.cfg.redisPrefix, "redirects:"), s, logger, c.m.Clock)
			if err != nil {
				return nil, err
			}
			closers = append(closers, rl.Close)
			rl.OnFallback = metrics.SetLimiterFallback
			metrics.SetLimiterFallback(rl.Down())
			metrics.SetSharedLimiterStats(func() edgehttp.SharedLimiterStats {
				s := rl.Stats()
				return edgehttp.SharedLimiterStats{RoundTrips: s.RoundTrips, Waits: s.Waits, Timeouts: s.Timeouts, LocalAdmits: s.LocalAdmits}
			})
			return &edgehttp.Backend{Store: s, Notifier: notices, Limiter: rl, Usage: rl, Builder: builder}, nil
		}
		ll, err := inmem.NewLimiter(ctx, s, c.m.Clock.Now())
		if err != nil {
			return nil, err
		}
		return &edgehttp.Backend{Store: s, Notifier: notices, Limiter: ll, Usage: ll, Builder: builder}, nil
	}
	srv, err := edgehttp.Open(ctx, edgehttp.Config{
		Addr: addr, AdminAddr: admin, Connect: connect, Clock: c.m.Clock, Logger: logger, Metrics: metrics, Engine: engine,
		Loops: loops, Pprof: c.cfg.pprof,
	})
	if err != nil {
		if code := redirects.ErrorCode(err); code != redirects.EINTERNAL {
			return err
		}
		return redirects.Errorf(redirects.EINVALID, "cannot serve: %v", err)
	}
	mgmt, err := c.startManage(ctx, c.manage, logger)
	if err != nil && (c.manage == nil || !c.manage.lenient) {
		closing, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		srv.Close(closing)
		return err
	} else if err != nil {
		logger.Warn("the management API is off", "error", err)
	}
	if loops > 0 {
		logger.Info("serving", "addr", srv.Addr(), "admin", srv.AdminAddr(), "engine", engine,
			"loops", loops, "gomaxprocs", runtime.GOMAXPROCS(0))
	} else {
		logger.Info("serving", "addr", srv.Addr(), "admin", srv.AdminAddr(), "engine", engine)
	}
	stopSender := c.startWebhooks(ctx, logger)
	stopChecks := c.startChecks(ctx, logger)
	if ready != nil {
		ready(srv.Addr())
	}
	if c.m.Ready != nil {
		c.m.Ready(srv.Addr(), srv.AdminAddr())
	}
	<-ctx.Done()
	logger.Info("shutting down: finishing in-flight requests and flushing usage")
	shutdown, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	if err := mgmt.stop(shutdown); err != nil {
		logger.Error("stopping the management API", "error", err)
	}
	stopSender()
	stopChecks()
	if err := srv.Close(shutdown); err != nil {
		return err
	}
	logger.Info("stopped")
	return nil
}

// database opens the database the edge answers from (--db), with the
// notices of its events when it pushes them (else nil).
func (c *cmd) database(ctx context.Context) (Database, redirects.Notifier, error) {
	if _, err := c.open(ctx); err != nil {
		return nil, nil, err
	}
	if c.m.db == nil {
		return nil, nil, errNeedsDB(c.command)
	}
	return c.m.db, c.m.notices, nil
}

// startWebhooks starts sending the webhooks' outbox (package webhook) on
// this node, and returns the function that stops it (a delivery in flight
// finishes; one cut short is sent again after its lease). Every node
// sends: the store's leases keep one delivery to one node at a time.
func (c *cmd) startWebhooks(ctx context.Context, logger *slog.Logger) (stop func()) {
	s, err := c.open(ctx)
	if err != nil || c.m.sendsNoWebhooks {
		return func() {}
	}
	snd := &webhook.Sender{Store: s, Clock: c.m.Clock, AllowPrivate: c.cfg.webhookAllowPrivate, Logger: logger}
	ctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	done := make(chan struct{})
	go func() {
		defer close(done)
		snd.Run(ctx)
	}()
	return func() {
		cancel()
		<-done
	}
}
