package redirects

// The service layer: every operation a person or a script asks of the
// service, behind small interfaces, one per area. The package service
// implements them once, over a Store and an AccountStore: it authorizes
// the caller (the Principal in the context, see WithPrincipal), validates,
// writes the audit entry (the Actor in the context, see WithActor) and
// runs the store's transaction, once per operation. The front doors
// (the command line, the management API, the dashboard) decode a request,
// call a service and encode its answer; remote.Client implements the same
// interfaces over the management API, so that a command runs the same
// code path with --db and with --api.
//
// Operations the management API does not serve are in interfaces of
// their own that remote.Client does not implement, gathered in
// LocalServices: a command that needs one is known at compile time.

// Services are the operations every front door may call, the management
// API's client included.
type Services struct {
	Orgs     OrgService
	Members  MemberService
	Projects ProjectService
	Rules    RuleService
	Imports  ImportService
	Deploys  DeployService
	Keys     KeyService
	Tokens   TokenService
	Webhooks WebhookService
	Insight  InsightService
	Sessions SessionService
	// Ops makes the operations declared as values (api.Op) that no
	// area's interface names (svcops.go).
	Ops OpService
	// Suggestions turns the miss log into rules (svcsuggest.go).
	Suggestions SuggestionService
	// Checks requests the live version's destinations and keeps where they
	// led (svcchecks.go).
	Checks CheckService
}

// LocalServices are Services and the operations served only where the
// database is: by the command line with --db, and by the management API
// and the dashboard, which run beside it; the API's client does not
// implement them.
type LocalServices struct {
	Services
	Users      UserService
	Issuer     TokenIssuer
	UndoChecks ImportUndoChecker
	Cookies    SessionResolver
}
