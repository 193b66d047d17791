// Package manage is the management API: JSON under /manage/v1/ for the
// organizations, members, management tokens, projects, draft rules,
// deployments, API keys, usage and audit log of the service. It is served
// on a listener of its own (redirects serve --manage-addr), never on the
// edge's.
//
// The routes are listed once, in routes.go; each resource has a file of
// small handlers; every route authenticates (auth.go) and then authorizes
// with one call (authz.go) to redirects.Authorize; errors reach the wire
// through one mapping (errors.go). The handlers call the same domain
// methods as the command line, so the two never disagree.
package manage

import (
	"log/slog"
	"net/http"
	"time"

	"redirects"
	"redirects/export"
	"redirects/service"
	"redirects/suggest"
)

// Config configures the management API.
type Config struct {
	// Store keeps organizations, projects, rules, keys and deployments.
	Store redirects.Store
	// SitemapAllowPrivate lets the sitemaps of suggestions be fetched
	// from loopback, private and link-local addresses, as
	// serve --webhook-allow-private lets webhooks.
	SitemapAllowPrivate bool
	// Accounts keeps users, memberships, tokens, sessions and the audit
	// log.
	Accounts redirects.AccountStore
	// Clock gives the time of sessions, token creation and login limits;
	// nil is the system clock.
	Clock redirects.Clock
	// Logger logs failures that are not the caller's; nil discards them.
	Logger *slog.Logger
	// Secure marks the session cookie Secure and adds
	// Strict-Transport-Security: set it when the listener serves TLS.
	Secure bool
	// MaxBodyBytes caps a JSON request body; 0 is DefaultMaxBodyBytes.
	MaxBodyBytes int64
	// MaxImportBytes caps the CSV body of an import; 0 is
	// DefaultMaxImportBytes.
	MaxImportBytes int64
	// SessionTTL is how long a login lasts; 0 is DefaultSessionTTL.
	SessionTTL time.Duration
	// LoginLimits caps failed logins; the zero value is
	// DefaultLoginLimits.
	LoginLimits service.LoginLimits
	// Builder renders a deployment's exports; nil is export.Build, the
	// builder the command line deploys with.
	Builder redirects.Builder
	// Logins counts failed sign-ins; nil makes one from LoginLimits. Give
	// the dashboard's the same one, so both doors share the limits.
	Logins *service.Logins
	// Services are the service layer the routes call; the zero value is
	// service.New over Store, Accounts, Clock, Builder, Logins,
	// SessionTTL and Checker.
	Services redirects.LocalServices
	// Checker requests destinations for POST .../destination-checks;
	// nil answers it with an internal error.
	Checker redirects.DestinationChecker
}

// Defaults of Config.
const (
	DefaultMaxBodyBytes = 1 << 20
	DefaultSessionTTL   = service.DefaultSessionTTL
)

// handler holds what every route needs.
type handler struct {
	// svc is the service layer: every route decodes, calls it and
	// encodes.
	svc      redirects.LocalServices
	store    redirects.Store
	accounts redirects.AccountStore
	clock    redirects.Clock
	logger   *slog.Logger
	secure   bool
	maxBody  int64
	// maxImport caps an import body.
	maxImport int64
	builder   redirects.Builder
}

// Handler returns the management API. It panics if cfg.Store or
// cfg.Accounts is nil: that is a wiring mistake.
func Handler(cfg Config) http.Handler {
	h := &handler{
		store:     cfg.Store,
		accounts:  cfg.Accounts,
		clock:     cfg.Clock,
		logger:    cfg.Logger,
		secure:    cfg.Secure,
		maxBody:   cfg.MaxBodyBytes,
		maxImport: cfg.MaxImportBytes,
		builder:   cfg.Builder,
	}
	if h.store == nil {
		panic("manage: Config.Store is nil")
	}
	if h.accounts == nil {
		panic("manage: Config.Accounts is nil")
	}
	if h.clock == nil {
		h.clock = redirects.SystemClock{}
	}
	h.svc = cfg.Services
	if h.svc == (redirects.LocalServices{}) {
		logins := cfg.Logins
		if logins == nil {
			logins = service.NewLogins(cfg.LoginLimits, h.clock)
		}
		h.svc = service.New(service.Deps{Store: h.store, Accounts: h.accounts, Clock: h.clock, Builder: h.builder,
			Logins: logins, SessionTTL: cfg.SessionTTL, Sitemaps: &suggest.Fetcher{AllowPrivate: cfg.SitemapAllowPrivate},
			Checker: cfg.Checker}).Local()
	}
	if h.logger == nil {
		h.logger = slog.New(slog.DiscardHandler)
	}
	if h.maxBody <= 0 {
		h.maxBody = DefaultMaxBodyBytes
	}
	if h.maxImport <= 0 {
		h.maxImport = DefaultMaxImportBytes
	}
	if h.builder == nil {
		h.builder = export.Stream
	}
	return h.routes()
}
