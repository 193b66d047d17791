// Package service is the service layer: every operation of the
// redirects.Services interfaces, implemented once over a Store and an
// AccountStore. Each operation authorizes the caller (the
// redirects.Principal in the context), validates its input, and runs the
// store's transaction, which writes the audit entry of the
// redirects.Actor in the context. The command line (with --db), the
// management API and the dashboard call it; none of them reads or writes
// the store for an operation of its own.
package service

import (
	"context"
	"time"

	"redirects"
	"redirects/export"
	"redirects/suggest"
)

// Deps is what the service layer runs on.
type Deps struct {
	// Store keeps organizations, projects, rules, keys and deployments.
	Store redirects.Store
	// Accounts keeps users, memberships, tokens, sessions and the audit
	// log. It may be nil for a caller that uses no account operation (the
	// command line on a store without one).
	Accounts redirects.AccountStore
	// Clock gives the time of new keys, tokens and sessions; nil is the
	// system clock.
	Clock redirects.Clock
	// Builder renders a deployment's exports; nil is export.Build.
	Builder redirects.Builder
	// Logins counts failed sign-ins and bounds password hashing; nil
	// makes one with DefaultLoginLimits. Services that serve doors side
	// by side share one.
	Logins *Logins
	// SessionTTL is how long a sign-in lasts; 0 is DefaultSessionTTL.
	SessionTTL time.Duration
	// Webhooks keeps the webhook endpoints and their outbox, and Agents
	// the sync agents' reports; nil is Store when it keeps them, as
	// sqlite.DB and postgres.DB do (the one place the service asks), else
	// the operations on them fail with EINTERNAL.
	Webhooks redirects.WebhookStore
	Agents   redirects.AgentStore
	// Suggestions keeps suggestions; nil is Store when it keeps them.
	Suggestions redirects.SuggestionStore
	// Sitemaps fetches the sitemaps Suggest is given the URL of; nil is
	// a suggest.Fetcher under the webhooks' address rules.
	Sitemaps *suggest.Fetcher
	// Checker requests destinations for CheckDestinations (nil: checks
	// fail with EINTERNAL), and Checks keeps the results (nil: Store,
	// when it keeps them).
	Checker redirects.DestinationChecker
	Checks  redirects.CheckStore
	// Background runs the checks StartDestinationCheck starts after the
	// request that started them ends; nil is one of this Service's own,
	// never stopped. Services that serve doors side by side share one,
	// which the process stops as it shuts down.
	Background *Background
	// Node names this process as the owner of the checks it runs; ""
	// is a random name.
	Node string
}

// Service implements every interface of redirects.LocalServices.
type Service struct {
	store    redirects.Store
	accounts redirects.AccountStore
	clock    redirects.Clock
	builder  redirects.Builder
	logins   *Logins
	ttl      time.Duration
	webhooks redirects.WebhookStore
	agents   redirects.AgentStore
	// suggestions and sitemaps: see Deps.
	suggestions redirects.SuggestionStore
	sitemaps    *suggest.Fetcher
	checker     redirects.DestinationChecker
	checks      redirects.CheckStore
	background  *Background
	node        string
}

// New returns the service layer over d.
func New(d Deps) *Service {
	s := &Service{store: d.Store, accounts: d.Accounts, clock: d.Clock, builder: d.Builder, logins: d.Logins, ttl: d.SessionTTL,
		webhooks: d.Webhooks, agents: d.Agents, suggestions: d.Suggestions, sitemaps: d.Sitemaps,
		checker: d.Checker, checks: d.Checks, background: d.Background, node: d.Node}
	if s.background == nil {
		s.background = NewBackground()
	}
	if s.node == "" {
		s.node = "node_" + redirects.NewWebhookDeliveryID()[4:]
	}
	if s.suggestions == nil {
		s.suggestions, _ = d.Store.(redirects.SuggestionStore)
	}
	if s.checks == nil {
		s.checks, _ = d.Store.(redirects.CheckStore)
	}
	if s.webhooks == nil {
		s.webhooks, _ = d.Store.(redirects.WebhookStore)
	}
	if s.agents == nil {
		s.agents, _ = d.Store.(redirects.AgentStore)
	}
	if s.clock == nil {
		s.clock = redirects.SystemClock{}
	}
	if s.builder == nil {
		s.builder = export.Build
	}
	if s.logins == nil {
		s.logins = NewLogins(LoginLimits{}, s.clock)
	}
	if s.ttl <= 0 {
		s.ttl = DefaultSessionTTL
	}
	return s
}

// Services returns s as every interface the front doors call.
func (s *Service) Services() redirects.Services {
	return redirects.Services{
		Orgs: s, Members: s, Projects: s, Rules: s, Imports: s, Deploys: s,
		Keys: s, Tokens: s, Webhooks: s, Insight: s, Sessions: s, Ops: s,
		Suggestions: s, Checks: s,
	}
}

// Local returns s as every interface, those only the database serves
// included.
func (s *Service) Local() redirects.LocalServices {
	return redirects.LocalServices{Services: s.Services(), Users: s, Issuer: s, UndoChecks: s, Cookies: s}
}

// authorize decides whether the caller in ctx may do action in
// organization orgID ("" for the whole service), with
// redirects.Authorize, the one place that decides.
func authorize(ctx context.Context, orgID string, action redirects.Action) error {
	return redirects.Authorize(redirects.PrincipalFrom(ctx), orgID, action)
}

// org authorizes action in organization id and returns it. A caller with
// no role in it gets the ENOTFOUND of a missing organization, word for
// word.
func (s *Service) org(ctx context.Context, id string, action redirects.Action) (*redirects.Org, error) {
	if err := authorize(ctx, id, action); err != nil {
		if redirects.ErrorCode(err) == redirects.ENOTFOUND {
			return nil, notFound("organization", id)
		}
		return nil, err
	}
	o, err := s.store.FindOrgByID(ctx, id)
	if redirects.ErrorCode(err) == redirects.ENOTFOUND {
		return nil, notFound("organization", id)
	}
	return o, err
}

// project loads project id and authorizes action in its organization. A
// project of an organization the caller has no role in is answered
// exactly as a missing project.
func (s *Service) project(ctx context.Context, id string, action redirects.Action) (*redirects.Project, error) {
	p, err := s.store.FindProjectByID(ctx, id)
	if redirects.ErrorCode(err) == redirects.ENOTFOUND {
		return nil, notFound("project", id)
	} else if err != nil {
		return nil, err
	}
	if err := authorize(ctx, p.OrgID, action); err != nil {
		if redirects.ErrorCode(err) == redirects.ENOTFOUND {
			return nil, notFound("project", id)
		}
		return nil, err
	}
	return p, nil
}

// notFound is the ENOTFOUND of a missing object, in the words the stores
// use, so that a hidden object cannot be told from a missing one.
func notFound(what, id string) error {
	return redirects.Errorf(redirects.ENOTFOUND, "%s %q not found", what, id)
}
