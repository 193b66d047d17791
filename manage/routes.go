package manage

import (
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"redirects"
	"redirects/api"
)

// route is one route of the management API.
type route struct {
	method  string
	pattern string
	// public routes need no caller: signing in.
	public bool
	// oneTime routes serve a session whose password is a one-time
	// password (User.MustChangePassword): reading and ending the session,
	// and changing the password. Every other route refuses it.
	oneTime bool
	// anyPath routes take any text in their "path" query parameter: the
	// lookup, which answers any path as the edge does.
	anyPath bool
	handler func(http.ResponseWriter, *http.Request) error
}

// routeTable lists every route of the listener, once: those below, then
// the routes declared as api.Ops. The patterns are net/http.ServeMux's;
// {org}, {project}, {id} and {user} are path values.
func (h *handler) routeTable() []route {
	const v1 = "/manage/v1"
	rs := []route{
		{method: "POST", pattern: v1 + "/session", public: true, handler: h.login},
		{method: "GET", pattern: v1 + "/session", oneTime: true, handler: h.whoami},
		{method: "DELETE", pattern: v1 + "/session", oneTime: true, handler: h.logout},
		{method: "POST", pattern: v1 + "/session/password", oneTime: true, handler: h.changePassword},

		{method: "GET", pattern: v1 + "/orgs", handler: h.orgList},
		{method: "POST", pattern: v1 + "/orgs", handler: h.orgCreate},
		{method: "GET", pattern: v1 + "/orgs/{org}", handler: h.orgGet},
		{method: "PATCH", pattern: v1 + "/orgs/{org}", handler: h.orgUpdate},
		{method: "DELETE", pattern: v1 + "/orgs/{org}", handler: h.orgDelete},

		{method: "GET", pattern: v1 + "/orgs/{org}/members", handler: h.memberList},
		{method: "POST", pattern: v1 + "/orgs/{org}/members", handler: h.memberAdd},
		{method: "PATCH", pattern: v1 + "/orgs/{org}/members/{user}", handler: h.memberUpdate},
		{method: "DELETE", pattern: v1 + "/orgs/{org}/members/{user}", handler: h.memberRemove},

		{method: "GET", pattern: v1 + "/orgs/{org}/tokens", handler: h.tokenList},
		{method: "POST", pattern: v1 + "/orgs/{org}/tokens", handler: h.tokenCreate},
		{method: "DELETE", pattern: v1 + "/orgs/{org}/tokens/{id}", handler: h.tokenRevoke},

		{method: "GET", pattern: v1 + "/orgs/{org}/projects", handler: h.projectList},
		{method: "POST", pattern: v1 + "/orgs/{org}/projects", handler: h.projectCreate},
		{method: "GET", pattern: v1 + "/projects/{project}", handler: h.projectGet},
		{method: "PATCH", pattern: v1 + "/projects/{project}", handler: h.projectUpdate},
		{method: "DELETE", pattern: v1 + "/projects/{project}", handler: h.projectDelete},

		{method: "GET", pattern: v1 + "/projects/{project}/rules", handler: h.ruleList},
		{method: "POST", pattern: v1 + "/projects/{project}/rules", handler: h.ruleCreate},
		{method: "DELETE", pattern: v1 + "/projects/{project}/rules", handler: h.ruleDeleteMatching},
		{method: "GET", pattern: v1 + "/projects/{project}/rules/{id}", handler: h.ruleGet},
		{method: "PATCH", pattern: v1 + "/projects/{project}/rules/{id}", handler: h.ruleUpdate},
		{method: "DELETE", pattern: v1 + "/projects/{project}/rules/{id}", handler: h.ruleDelete},
		{method: "GET", pattern: v1 + "/projects/{project}/rules.csv", handler: h.rulesCSV},
		{method: "POST", pattern: v1 + "/projects/{project}/imports", handler: h.ruleImport},
		{method: "POST", pattern: v1 + "/projects/{project}/imports/{id}/undo", handler: h.importUndo},
		{method: "GET", pattern: v1 + "/projects/{project}/rules-export", handler: h.rulesExport},
		{method: "GET", pattern: v1 + "/projects/{project}/chains", handler: h.chains},
		{method: "POST", pattern: v1 + "/projects/{project}/chains/flatten", handler: h.chainsFlatten},

		{method: "GET", pattern: v1 + "/projects/{project}/deployments", handler: h.deploymentList},
		{method: "POST", pattern: v1 + "/projects/{project}/deployments", handler: h.deploymentCreate},
		{method: "POST", pattern: v1 + "/projects/{project}/deployments/{version}/promote", handler: h.deploymentPromote},
		{method: "DELETE", pattern: v1 + "/projects/{project}/deployments/{version}", handler: h.deploymentDiscard},
		{method: "GET", pattern: v1 + "/projects/{project}/deploy-check", handler: h.deployCheck},
		{method: "GET", pattern: v1 + "/projects/{project}/deployments/{version}/rules.csv", handler: h.versionRulesCSV},
		{method: "GET", pattern: v1 + "/projects/{project}/deployments/{version}/exports/{format}", handler: h.versionExport},
		{method: "GET", pattern: v1 + "/projects/{project}/tests", handler: h.testsGet},
		{method: "PUT", pattern: v1 + "/projects/{project}/tests", handler: h.testsPut},
		{method: "DELETE", pattern: v1 + "/projects/{project}/tests", handler: h.testsDelete},
		{method: "GET", pattern: v1 + "/projects/{project}/diff", handler: h.diff},
		{method: "GET", pattern: v1 + "/projects/{project}/lookup", anyPath: true, handler: h.lookup},
		{method: "GET", pattern: v1 + "/projects/{project}/misses", handler: h.misses},
		{method: "DELETE", pattern: v1 + "/projects/{project}/misses", handler: h.missDelete},
		{method: "POST", pattern: v1 + "/projects/{project}/misses/rule", handler: h.missRule},
		{method: "DELETE", pattern: v1 + "/projects/{project}/agents", handler: h.agentDelete},
		{method: "POST", pattern: v1 + "/projects/{project}/destination-checks", handler: h.destinationCheckStart},
		{method: "GET", pattern: v1 + "/projects/{project}/destination-checks/{id}", handler: h.destinationCheckGet},

		{method: "GET", pattern: v1 + "/projects/{project}/keys", handler: h.keyList},
		{method: "POST", pattern: v1 + "/projects/{project}/keys", handler: h.keyCreate},
		{method: "DELETE", pattern: v1 + "/projects/{project}/keys/{id}", handler: h.keyRevoke},
		{method: "POST", pattern: v1 + "/projects/{project}/revoke-key", handler: h.keyRevokeBody},

		{method: "GET", pattern: v1 + "/orgs/{org}/usage", handler: h.usage},
		{method: "GET", pattern: v1 + "/orgs/{org}/audit", handler: h.audit},

		{method: "GET", pattern: v1 + "/orgs/{org}/webhooks", handler: h.webhookList},
		{method: "POST", pattern: v1 + "/orgs/{org}/webhooks", handler: h.webhookCreate},
		{method: "PATCH", pattern: v1 + "/orgs/{org}/webhooks/{id}", handler: h.webhookUpdate},
		{method: "DELETE", pattern: v1 + "/orgs/{org}/webhooks/{id}", handler: h.webhookDelete},
		{method: "POST", pattern: v1 + "/orgs/{org}/webhooks/{id}/test", handler: h.webhookTest},
		{method: "POST", pattern: v1 + "/orgs/{org}/webhooks/{id}/secret", handler: h.webhookRotate},
		{method: "GET", pattern: v1 + "/orgs/{org}/webhooks/{id}/deliveries", handler: h.webhookDeliveries},
		{method: "POST", pattern: v1 + "/orgs/{org}/webhooks/{id}/deliveries/{delivery}/redeliver", handler: h.webhookRedeliver},
	}
	for _, op := range api.Ops() {
		rs = append(rs, h.opRoute(op))
	}
	return rs
}

// routes returns the listener's handler: every route of routeTable, a 405
// with Allow for a known path and another method, a 404 for anything else,
// and the headers every answer carries. The 405s are a mux of their own,
// of the paths without methods, asked when no route answered: in one mux,
// a path without a method beside a method's path with a wildcard where
// the first has a fixed segment (".../rules/count" beside "GET
// .../rules/{id}") is a conflict net/http refuses.
func (h *handler) routes() http.Handler {
	mux := http.NewServeMux()
	notAllowed := http.NewServeMux()
	allow := map[string][]string{}
	var paths []string
	for _, rt := range h.routeTable() {
		f := textChecked(rt.handler, rt.anyPath)
		if !rt.public {
			f = h.authenticate(f, rt.oneTime)
		}
		mux.HandleFunc(rt.method+" "+rt.pattern, h.serve(f))
		if _, ok := allow[rt.pattern]; !ok {
			paths = append(paths, rt.pattern)
		}
		allow[rt.pattern] = append(allow[rt.pattern], rt.method)
		if rt.method == "GET" {
			allow[rt.pattern] = append(allow[rt.pattern], "HEAD")
		}
	}
	for _, p := range paths {
		methods := allow[p]
		slices.Sort(methods)
		e := newError(http.StatusMethodNotAllowed, codeMethod, "%s takes %s", p, strings.Join(methods, ", "))
		e.allow = strings.Join(methods, ", ")
		notAllowed.HandleFunc(p, h.serve(func(http.ResponseWriter, *http.Request) error { return e }))
	}
	mux.HandleFunc("/", h.serve(func(w http.ResponseWriter, r *http.Request) error {
		if f, p := notAllowed.Handler(r); p != "" {
			f.ServeHTTP(w, r)
			return nil
		}
		return newError(http.StatusNotFound, "NOT_FOUND", "no route %s; the management API is under /manage/v1/", r.URL.Path)
	}))
	return h.headers(mux)
}

// serve adapts a handler that returns an error to net/http: the error is
// answered through errorFor.
func (h *handler) serve(f func(http.ResponseWriter, *http.Request) error) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if err := f(w, r); err != nil {
			h.fail(w, r, err)
		}
	}
}

// textChecked runs next once checkRequestText passed r. routes puts it
// inside authenticate, so a caller who is not signed in is answered 401
// whatever the request holds. anyPath leaves the "path" query parameter
// to next (the lookup's).
func textChecked(next func(http.ResponseWriter, *http.Request) error, anyPath bool) func(http.ResponseWriter, *http.Request) error {
	return func(w http.ResponseWriter, r *http.Request) error {
		if err := checkRequestText(r, anyPath); err != nil {
			return err
		}
		return next(w, r)
	}
}

// checkRequestText refuses a request whose path or query parameters hold
// a NUL byte or invalid UTF-8 once decoded (redirects.CheckText), naming
// which: an ID or filter so written cannot name anything, and PostgreSQL
// refused it where SQLite answered 404 (or, forgetting a miss, 204).
// anyPath leaves the "path" parameter to the route: the lookup answers
// any path as the edge does.
func checkRequestText(r *http.Request, anyPath bool) error {
	if err := redirects.CheckText("the request path", r.URL.Path); err != nil {
		return err
	}
	for name, vs := range r.URL.Query() {
		if anyPath && name == "path" {
			continue
		}
		for _, v := range vs {
			if err := redirects.CheckText("the query parameter "+strconv.Quote(name), v); err != nil {
				return err
			}
		}
	}
	return nil
}

// headers sets what every answer carries: nothing is cached (answers hold
// account data and CSRF tokens), nothing is sniffed, framed or run as a
// page, and, over TLS, browsers keep to TLS.
func (h *handler) headers(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hd := w.Header()
		hd.Set("Cache-Control", "no-store")
		hd.Set("X-Content-Type-Options", "nosniff")
		hd.Set("X-Frame-Options", "DENY")
		hd.Set("Referrer-Policy", "no-referrer")
		hd.Set("Content-Security-Policy", "default-src 'none'; frame-ancestors 'none'")
		hd.Set("Cross-Origin-Resource-Policy", "same-origin")
		if h.secure {
			hd.Set("Strict-Transport-Security", "max-age=31536000")
		}
		if !h.logger.Enabled(r.Context(), slog.LevelDebug) {
			next.ServeHTTP(w, r)
			return
		}
		sw := &statusWriter{ResponseWriter: w, status: http.StatusOK}
		next.ServeHTTP(sw, r)
		h.logger.Debug("management API request", "method", r.Method, "path", r.URL.Path, "status", sw.status, "remote", remoteIP(r))
	})
}

// statusWriter remembers the status of an answer, for the debug log.
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(status int) {
	w.status = status
	w.ResponseWriter.WriteHeader(status)
}
