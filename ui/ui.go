// Package ui is the dashboard: server-rendered HTML pages on the management
// listener, next to the management API (package manage). It signs people in
// with the API's sessions (the same cookie, store and login limits), asks
// redirects.Authorize before every read and change, and calls the same
// store methods as the API, so the two never disagree.
//
// The routes are listed once, in routes.go; each page group has a file of
// small handlers; templates and static assets are embedded in the binary.
// Every page carries a strict Content-Security-Policy (no inline script),
// every form the session's CSRF token, and every change answers with a
// redirect to a page that says what happened (post/redirect/get).
package ui

import (
	"crypto/rand"
	"log/slog"
	"net/http"
	"time"

	"redirects"
	"redirects/export"
	"redirects/service"
	"redirects/suggest"
)

// Config configures the dashboard.
type Config struct {
	// Store keeps organizations, projects, rules, keys and deployments.
	Store redirects.Store
	// SitemapAllowPrivate lets the sitemaps of suggestions be fetched
	// from loopback, private and link-local addresses, as
	// serve --webhook-allow-private lets webhooks.
	SitemapAllowPrivate bool
	// Accounts keeps users, sessions and the audit log.
	Accounts redirects.AccountStore
	// Clock gives the time of sessions; nil is the system clock.
	Clock redirects.Clock
	// Logger logs failures that are not the user's; nil discards them.
	Logger *slog.Logger
	// Secure marks cookies Secure: set it when the listener serves TLS.
	Secure bool
	// SessionTTL is how long a sign-in lasts; 0 is
	// service.DefaultSessionTTL.
	SessionTTL time.Duration
	// Logins counts failed sign-ins; give the API's, so both doors share
	// the limits. Nil makes one with the default limits.
	Logins *service.Logins
	// Builder renders a deployment's exports; nil is export.Build.
	Builder redirects.Builder
	// LoginKey signs the sign-in form's token. Management nodes behind
	// one address share it, so a form served by one can be posted to
	// another; empty makes a random key for this process.
	LoginKey []byte
	// Services are the service layer the pages call; the zero value is
	// service.New over Store, Accounts, Clock, Builder, Logins and
	// SessionTTL.
	Services redirects.LocalServices
	// Checker requests destinations for the Destinations page's Check now
	// when Services is the zero value; nil answers it with an error.
	Checker redirects.DestinationChecker
}

// handler holds what every page needs.
type handler struct {
	// svc is the service layer: every page decodes, calls it and
	// renders.
	svc      redirects.LocalServices
	store    redirects.Store
	accounts redirects.AccountStore
	clock    redirects.Clock
	logger   *slog.Logger
	secure   bool
	builder  redirects.Builder
	// uploads keeps the import files checked and waiting for an Apply.
	uploads *uploads
	// loginKey signs the sign-in form's token (loginToken).
	loginKey []byte
}

// Handler returns the dashboard. It panics if cfg.Store or cfg.Accounts is
// nil: that is a wiring mistake.
func Handler(cfg Config) http.Handler {
	h := &handler{store: cfg.Store, accounts: cfg.Accounts, clock: cfg.Clock, logger: cfg.Logger,
		secure: cfg.Secure, builder: cfg.Builder, uploads: &uploads{},
		loginKey: cfg.LoginKey}
	if h.store == nil {
		panic("ui: Config.Store is nil")
	}
	if h.accounts == nil {
		panic("ui: Config.Accounts is nil")
	}
	if h.clock == nil {
		h.clock = redirects.SystemClock{}
	}
	if h.logger == nil {
		h.logger = slog.New(slog.DiscardHandler)
	}
	if h.builder == nil {
		h.builder = export.Stream
	}
	h.svc = cfg.Services
	if h.svc == (redirects.LocalServices{}) {
		logins := cfg.Logins
		if logins == nil {
			logins = service.NewLogins(service.LoginLimits{}, h.clock)
		}
		h.svc = service.New(service.Deps{Store: h.store, Accounts: h.accounts, Clock: h.clock, Builder: h.builder,
			Logins: logins, SessionTTL: cfg.SessionTTL, Sitemaps: &suggest.Fetcher{AllowPrivate: cfg.SitemapAllowPrivate},
			Checker: cfg.Checker}).Local()
	}
	if len(h.loginKey) == 0 {
		h.loginKey = make([]byte, 32)
		rand.Read(h.loginKey)
	}
	return h.routes()
}
