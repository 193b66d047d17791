package main

import (
	"cmp"
	"context"
	"crypto/rand"
	"crypto/tls"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"redirects"
	"redirects/destcheck"
	"redirects/manage"
	"redirects/service"
	suggestion "redirects/suggest"
	"redirects/ui"
)

// manageOptions are the flags of the management listener, which serve and
// quickstart take.
type manageOptions struct {
	addr, cert, key *string
	// lenient starts the edge without the management listener, with a
	// warning, when the listener cannot start (quickstart on a busy port).
	lenient bool
	// bound is the address the listener took, once it listens.
	bound string
	// tls is the listener's TLS configuration, set by check.
	tls *tls.Config
}

// check refuses TLS flags that cannot work and loads the certificate, before
// anything else starts (and before the database is opened), so a mistake in
// them is the first thing a command reports.
func (o *manageOptions) check() error {
	if o == nil || *o.addr == "" {
		return nil
	}
	if (*o.cert == "") != (*o.key == "") {
		return usagef("--tls-cert and --tls-key go together")
	}
	if *o.cert != "" {
		pair, err := tls.LoadX509KeyPair(*o.cert, *o.key)
		if err != nil {
			return redirects.Errorf(redirects.EINVALID, "--tls-cert %s and --tls-key %s: %v", *o.cert, *o.key, err)
		}
		o.tls = &tls.Config{MinVersion: tls.VersionTLS12, Certificates: []tls.Certificate{pair}}
	}
	return nil
}

// manageFlags adds --manage-addr, --tls-cert and --tls-key to fs.
func (c *cmd) manageFlags(fs *flag.FlagSet, defAddr string) *manageOptions {
	fs.StringVar(&c.cfg.manageAddr, "manage-addr", cmp.Or(c.cfg.manageAddr, defAddr), "management API address (or REDIRECTS_MANAGE_ADDR); empty for none")
	fs.StringVar(&c.cfg.tlsCert, "tls-cert", c.cfg.tlsCert, "PEM certificate: the management API serves TLS, with Secure cookies (or REDIRECTS_TLS_CERT)")
	fs.StringVar(&c.cfg.tlsKey, "tls-key", c.cfg.tlsKey, "PEM private key of --tls-cert (or REDIRECTS_TLS_KEY)")
	return &manageOptions{addr: &c.cfg.manageAddr, cert: &c.cfg.tlsCert, key: &c.cfg.tlsKey}
}

// managementServer is the running management listener.
type managementServer struct {
	srv *http.Server
	// handler is manage.Unavailable until the store opens, then the API.
	handler atomic.Pointer[http.Handler]
	// store is set once it opens.
	mu    sync.Mutex
	store redirects.Store
	// cancel stops the retries of a store that could not be reached.
	cancel  context.CancelFunc
	retries sync.WaitGroup
	done    chan error
	// cancelRequests ends the context of every request still running
	// when stop's grace runs out, so that an import (which reads with its
	// request's context) stops with the server instead of holding it.
	cancelRequests context.CancelFunc
	// checks runs the destination checks started through the API and the
	// dashboard; stop ends them (each failed, the results before it kept)
	// before the store closes.
	checks *service.Background
}

// manageRetry is how often a management listener started without its
// database tries again, as the edge does.
const manageRetry = time.Second

// startManage starts the management API on its own listener when
// --manage-addr is set, with a store of its own (the edge's may be
// reconnecting in the background). A store that cannot be reached yet is
// tried again every second, the API answering 503 meanwhile, as the edge
// does. It returns nil when there is no listener.
func (c *cmd) startManage(ctx context.Context, o *manageOptions, logger *slog.Logger) (*managementServer, error) {
	if o == nil || *o.addr == "" {
		return nil, nil
	}
	if o.tls == nil {
		if err := o.check(); err != nil {
			return nil, err
		}
	}
	tlsConfig := o.tls
	url := c.cfg.databaseURL()
	m := &managementServer{done: make(chan error, 1), checks: service.NewBackground()}
	// The API and the dashboard share one login counter, so switching
	// doors gains a guesser nothing.
	logins := service.NewLogins(service.LoginLimits{}, c.m.Clock)
	// The sign-in form's key: shared by the management nodes behind one
	// address when REDIRECTS_LOGIN_KEY is set, else one per process (a
	// store that reconnects keeps it).
	loginKey := []byte(c.cfg.loginKey)
	if len(loginKey) == 0 {
		loginKey = make([]byte, 32)
		rand.Read(loginKey)
	}
	api := func(s Database) http.Handler {
		mux := http.NewServeMux()
		// One service layer for both doors, with the destination checker
		// this process was started with (--check-allow-private) and the
		// sitemaps' fetcher (--webhook-allow-private).
		svc := service.New(service.Deps{Store: s, Accounts: s, Clock: c.m.Clock, Builder: builder, Logins: logins,
			Checker: destcheck.New(c.cfg.checkAllowPrivate), Background: m.checks, Sitemaps: &suggestion.Fetcher{AllowPrivate: c.cfg.webhookAllowPrivate}}).Local()
		mux.Handle("/manage/", manage.Handler(manage.Config{Store: s, Accounts: s, Clock: c.m.Clock, Logger: logger, Secure: tlsConfig != nil, Builder: builder, Logins: logins, Services: svc}))
		mux.Handle("/", ui.Handler(ui.Config{Store: s, Accounts: s, Clock: c.m.Clock, Logger: logger, Secure: tlsConfig != nil, Builder: builder, Logins: logins, LoginKey: loginKey, Services: svc}))
		return mux
	}
	s, err := OpenStore(ctx, url, c.m.Clock)
	switch {
	case err == nil:
		m.store = s
		h := api(s)
		m.handler.Store(&h)
	case redirects.ErrorCode(err) == redirects.EUNAVAILABLE:
		logger.Warn("management API: the store cannot be reached: answering 503 until it can", "error", err)
		h := manage.Unavailable()
		m.handler.Store(&h)
	default:
		return nil, fmt.Errorf("management API: %w", err)
	}
	ln, err := net.Listen("tcp", *o.addr)
	if err != nil {
		if m.store != nil {
			m.store.Close()
		}
		return nil, redirects.Errorf(redirects.EINVALID, "management API: cannot listen on %s: %v", *o.addr, err)
	}
	if tlsConfig != nil {
		ln = tls.NewListener(ln, tlsConfig)
	}
	retryCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	m.cancel = cancel
	if m.store == nil {
		m.retries.Add(1)
		go func() {
			defer m.retries.Done()
			t := time.NewTicker(manageRetry)
			defer t.Stop()
			for {
				select {
				case <-retryCtx.Done():
					return
				case <-t.C:
				}
				s, err := OpenStore(retryCtx, url, c.m.Clock)
				if err != nil {
					continue
				}
				m.mu.Lock()
				m.store = s
				m.mu.Unlock()
				h := api(s)
				m.handler.Store(&h)
				logger.Info("management API: the store answers")
				return
			}
		}()
	}
	reqCtx, cancelRequests := context.WithCancel(context.Background())
	m.cancelRequests = cancelRequests
	m.srv = &http.Server{
		Handler:     http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { (*m.handler.Load()).ServeHTTP(w, r) }),
		BaseContext: func(net.Listener) context.Context { return reqCtx },
		// Timeouts bound what a slow or idle client holds: the API's
		// bodies are small, and an import is read within ReadTimeout.
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       60 * time.Second,
		WriteTimeout:      120 * time.Second,
		IdleTimeout:       120 * time.Second,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(logger.Handler(), slog.LevelWarn),
	}
	go func() {
		if err := m.srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			m.done <- err
		}
		close(m.done)
	}()
	o.bound = ln.Addr().String()
	scheme := "http"
	if tlsConfig != nil {
		scheme = "https"
	}
	logger.Info("management API serving", "addr", o.bound, "scheme", scheme)
	return m, nil
}

// stop finishes the management API's requests and closes its store.
func (m *managementServer) stop(ctx context.Context) error {
	if m == nil {
		return nil
	}
	m.cancel()
	m.retries.Wait()
	// Requests finish within the grace; those still running when it ends
	// see their context cancelled and stop (imports read with it).
	stopRequests := context.AfterFunc(ctx, m.cancelRequests)
	defer stopRequests()
	defer m.cancelRequests()
	err := m.srv.Shutdown(ctx)
	if serveErr := <-m.done; err == nil {
		err = serveErr
	}
	m.checks.Stop()
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.store != nil {
		if cerr := m.store.Close(); err == nil {
			err = cerr
		}
	}
	return err
}
