package ui

import (
	"net/http"
)

// route is one page or form of the dashboard.
type route struct {
	method, pattern string
	// public routes need no signed-in user.
	public  bool
	handler func(http.ResponseWriter, *http.Request) error
	// maxBody caps a POST's body; 0 is bodyLimit's default. stream
	// leaves the form unparsed for the handler to read part by part.
	maxBody int64
	stream  bool
}

// routeTable lists every route of the dashboard, once. The API's routes,
// under /manage/v1/, are manage's.
func (h *handler) routeTable() []route {
	return []route{
		{method: "GET", pattern: "/static/{name}", public: true, handler: serveStatic},
		{method: "GET", pattern: "/favicon.ico", public: true, handler: serveFavicon},
		{method: "GET", pattern: "/login", public: true, handler: h.loginPage},
		{method: "POST", pattern: "/login", public: true, handler: h.loginSubmit},
		{method: "POST", pattern: "/logout", handler: h.logout},
		{method: "GET", pattern: passwordPath, handler: h.passwordPage},
		{method: "POST", pattern: passwordPath, handler: h.passwordChange},

		{method: "GET", pattern: "/{$}", handler: h.home},
		{method: "GET", pattern: "/operator/orgs", handler: h.orgsPage},
		{method: "POST", pattern: "/operator/orgs", handler: h.orgCreate},
		{method: "GET", pattern: "/operator/orgs/{org}/edit", handler: h.orgEditPage},
		{method: "POST", pattern: "/operator/orgs/{org}/edit", handler: h.orgUpdate},

		{method: "GET", pattern: "/orgs/{org}", handler: h.orgPage},
		{method: "POST", pattern: "/orgs/{org}/projects", handler: h.projectCreate},
		{method: "GET", pattern: "/orgs/{org}/members", handler: h.membersPage},
		{method: "POST", pattern: "/orgs/{org}/members", handler: h.memberAdd},
		{method: "POST", pattern: "/orgs/{org}/members/{user}/role", handler: h.memberRole},
		{method: "GET", pattern: "/orgs/{org}/members/{user}/remove", handler: h.memberRemovePage},
		{method: "POST", pattern: "/orgs/{org}/members/{user}/remove", handler: h.memberRemove},
		{method: "GET", pattern: "/orgs/{org}/tokens", handler: h.tokensPage},
		{method: "POST", pattern: "/orgs/{org}/tokens", handler: h.tokenCreate},
		{method: "GET", pattern: "/orgs/{org}/tokens/{id}/revoke", handler: h.tokenRevokePage},
		{method: "POST", pattern: "/orgs/{org}/tokens/{id}/revoke", handler: h.tokenRevoke},
		{method: "GET", pattern: "/orgs/{org}/webhooks", handler: h.webhooksPage},
		{method: "POST", pattern: "/orgs/{org}/webhooks", handler: h.webhookCreate},
		{method: "GET", pattern: "/orgs/{org}/webhooks/{id}", handler: h.webhookPage},
		{method: "POST", pattern: "/orgs/{org}/webhooks/{id}/{action}", handler: h.webhookAction},
		{method: "POST", pattern: "/orgs/{org}/webhooks/{id}/deliveries/{delivery}/redeliver", handler: h.webhookRedeliver},
		{method: "GET", pattern: "/orgs/{org}/usage", handler: h.usagePage},
		{method: "GET", pattern: "/orgs/{org}/audit", handler: h.auditPage},
		{method: "GET", pattern: "/orgs/{org}/audit.csv", handler: h.auditCSV},

		{method: "GET", pattern: "/projects/{project}", handler: h.projectPage},
		{method: "GET", pattern: "/projects/{project}/rules", handler: h.rulesPage},
		{method: "POST", pattern: "/projects/{project}/rules", handler: h.ruleCreate},
		{method: "GET", pattern: "/projects/{project}/rules/{id}/edit", handler: h.ruleEditPage},
		{method: "POST", pattern: "/projects/{project}/rules/{id}/edit", handler: h.ruleUpdate},
		{method: "GET", pattern: "/projects/{project}/rules/{id}/delete", handler: h.ruleDeletePage},
		{method: "POST", pattern: "/projects/{project}/rules/{id}/delete", handler: h.ruleDelete},
		{method: "GET", pattern: "/projects/{project}/rules.csv", handler: h.rulesCSV},
		{method: "GET", pattern: "/projects/{project}/rules/delete", handler: h.ruleBulkDeletePage},
		{method: "POST", pattern: "/projects/{project}/rules/delete", handler: h.ruleBulkDelete},

		{method: "GET", pattern: "/projects/{project}/chains", handler: h.chainsPage},
		{method: "POST", pattern: "/projects/{project}/chains", handler: h.chainsFlatten},

		{method: "GET", pattern: "/projects/{project}/import", handler: h.importPage},
		{method: "POST", pattern: "/projects/{project}/import", handler: h.importCheck, maxBody: maxImportForm, stream: true},
		{method: "POST", pattern: "/projects/{project}/import/apply", handler: h.importApply},
		{method: "POST", pattern: "/projects/{project}/import/settings", handler: h.importSettings},
		{method: "POST", pattern: "/projects/{project}/import/undo", handler: h.importUndo},
		{method: "GET", pattern: "/projects/{project}/import/export", handler: h.importExport},
		{method: "GET", pattern: "/projects/{project}/import/export/file", handler: h.importExportFile},

		{method: "GET", pattern: "/projects/{project}/deploy", handler: h.deployPage},
		{method: "POST", pattern: "/projects/{project}/deploy", handler: h.deploy},
		{method: "GET", pattern: "/projects/{project}/history", handler: h.historyPage},
		{method: "GET", pattern: "/projects/{project}/history/{version}/rollback", handler: h.rollbackPage},
		{method: "POST", pattern: "/projects/{project}/history/{version}/rollback", handler: h.rollback},
		{method: "POST", pattern: "/projects/{project}/history/{version}/promote", handler: h.promote},
		{method: "POST", pattern: "/projects/{project}/history/{version}/discard", handler: h.discard},
		{method: "POST", pattern: "/projects/{project}/history/servers/forget", handler: h.forgetServers},
		{method: "GET", pattern: "/projects/{project}/destinations", handler: h.destinationsPage},
		{method: "POST", pattern: "/projects/{project}/destinations", handler: h.destinationsCheck},
		{method: "GET", pattern: "/projects/{project}/versions/{version}/exports/{format}", handler: h.exportFile},
		{method: "GET", pattern: "/projects/{project}/test", handler: h.testPage},
		{method: "GET", pattern: "/projects/{project}/misses", handler: h.missesPage},
		{method: "POST", pattern: "/projects/{project}/misses/rule", handler: h.missRule},
		{method: "POST", pattern: "/projects/{project}/misses/forget", handler: h.missForget},
		{method: "POST", pattern: "/projects/{project}/suggestions", handler: h.suggestionsCompute},
		{method: "POST", pattern: "/projects/{project}/suggestions/accept", handler: h.suggestionAccept},
		{method: "POST", pattern: "/projects/{project}/suggestions/dismiss", handler: h.suggestionDismiss},
		{method: "GET", pattern: "/projects/{project}/settings", handler: h.settingsPage},
		{method: "POST", pattern: "/projects/{project}/settings/tests", handler: h.settingsTests},
		{method: "POST", pattern: "/projects/{project}/settings/shrink-limit", handler: h.settingsShrinkLimit},
		{method: "POST", pattern: "/projects/{project}/settings/hosts", handler: h.settingsHosts},
		{method: "POST", pattern: "/projects/{project}/settings/matching", handler: h.settingsMatching},

		{method: "GET", pattern: "/projects/{project}/keys", handler: h.keysPage},
		{method: "POST", pattern: "/projects/{project}/keys", handler: h.keyCreate},
		{method: "GET", pattern: "/projects/{project}/keys/{id}/revoke", handler: h.keyRevokePage},
		{method: "POST", pattern: "/projects/{project}/keys/{id}/revoke", handler: h.keyRevoke},
	}
}

// routes returns the dashboard's handler: every route of routeTable, a
// page for anything else, and the headers every answer carries.
func (h *handler) routes() http.Handler {
	mux := http.NewServeMux()
	for _, rt := range h.routeTable() {
		f := rt.handler
		if !rt.public {
			f = h.authenticate(f)
		}
		f = limitBody(rt.bodyLimit(), rt.stream, f)
		mux.HandleFunc(rt.method+" "+rt.pattern, h.serve(f))
	}
	mux.HandleFunc("/", h.serve(limitBody(maxForm, false, h.authenticate(func(http.ResponseWriter, *http.Request) error {
		return errNotFound("page")
	}))))
	return headers(compress(mux), h.secure)
}

// serveFavicon answers /favicon.ico, which browsers ask for on their own
// whatever the page links, with the dashboard's icon (an SVG, which they
// take under that name too), cached for a day.
func serveFavicon(w http.ResponseWriter, r *http.Request) error {
	a := assets[assetNames["favicon.svg"]]
	w.Header().Set("Content-Type", a.contentType)
	w.Header().Set("Cache-Control", "public, max-age=86400")
	w.Write(a.body)
	return nil
}

// serve adapts a handler that returns an error: the error becomes a page.
func (h *handler) serve(f func(http.ResponseWriter, *http.Request) error) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if err := f(w, r); err != nil {
			h.fail(w, r, err)
		}
	}
}

// contentSecurityPolicy allows the dashboard's own stylesheet and script
// and nothing else: no inline script or style, no frames, no other origin.
const contentSecurityPolicy = "default-src 'none'; style-src 'self'; script-src 'self'; img-src 'self' data:; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

// headers sets what every answer carries. Pages are not cached (they hold
// account data and CSRF tokens); static assets set their own caching. Over
// TLS (secure), every answer, the sign-in page and static files included,
// tells browsers to keep to TLS, as the API's answers do.
func headers(next http.Handler, secure bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hd := w.Header()
		if secure {
			hd.Set("Strict-Transport-Security", "max-age=31536000")
		}
		hd.Set("Content-Security-Policy", contentSecurityPolicy)
		hd.Set("X-Frame-Options", "DENY")
		hd.Set("X-Content-Type-Options", "nosniff")
		hd.Set("Referrer-Policy", "same-origin")
		hd.Set("Cache-Control", "no-store")
		next.ServeHTTP(w, r)
	})
}
