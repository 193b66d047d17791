package manage

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3filter"

	"redirects"
	"redirects/api"
	"redirects/export"
	"redirects/importer"
	"redirects/internal/openapitest"
	"redirects/safety"
	"redirects/service"
)

// manageDocFile is api/manage.openapi.yaml, seen from this package.
const manageDocFile = "../api/manage.openapi.yaml"

// manageDoc validates real exchanges against the document and records
// which documented answers were produced.
type manageDoc struct {
	*openapitest.Doc
	t     *testing.T
	codes map[string]bool
}

func loadManageDoc(t *testing.T) *manageDoc {
	t.Helper()
	d := &manageDoc{Doc: openapitest.Load(t, manageDocFile), t: t, codes: map[string]bool{}}
	if doc := d.Spec; doc.Info.License == nil || doc.Info.License.Name != "Apache 2.0" {
		t.Fatalf("info.license is %+v, want Apache 2.0", doc.Info.License)
	}
	return d
}

// checkCredentials stands for the server's own checks in request
// validation: it asks only that the documented credential is there.
func checkCredentials(_ context.Context, in *openapi3filter.AuthenticationInput) error {
	s := in.SecurityScheme
	r := in.RequestValidationInput.Request
	switch {
	case s.Type == "http" && s.Scheme == "bearer":
		if !strings.HasPrefix(r.Header.Get("Authorization"), "Bearer ") {
			return errors.New("no bearer token")
		}
	case s.Type == "apiKey" && s.In == "cookie":
		if _, err := r.Cookie(s.Name); err != nil {
			return errors.New("no cookie " + s.Name)
		}
	case s.Type == "apiKey" && s.In == "header":
		if r.Header.Get(s.Name) == "" {
			return errors.New("no header " + s.Name)
		}
	default:
		return errors.New("unexpected security scheme " + s.Type)
	}
	return nil
}

// refusedByDocument are the 400 and 415 codes whose request the document
// must refuse too: its body schemas say which fields exist, which are
// required, and which media type is sent.
var refusedByDocument = map[string]bool{"UNKNOWN_FIELD": true, "MISSING_FIELD": true, "UNSUPPORTED_MEDIA_TYPE": true}

// call sends one request as c and validates the exchange against the
// document: the request (when accepted, or refused for what the document
// describes), the status, the headers and the body.
func (d *manageDoc) call(c *client, method, target string, body any, hdr ...string) *resp {
	t := d.t
	t.Helper()
	req := c.request(method, target, body, hdr...)
	vreq := req.Clone(context.Background())
	if req.GetBody != nil {
		b, err := req.GetBody()
		if err != nil {
			t.Fatal(err)
		}
		vreq.Body = b
	}
	r := c.send(req)
	what := r.req

	route, pathParams, err := d.Router.FindRoute(vreq)
	if err != nil {
		t.Fatalf("%s: no operation in the document: %v (answer %d %s)", what, err, r.status, r.body)
	}
	in := &openapi3filter.RequestValidationInput{
		Request: vreq, PathParams: pathParams, Route: route,
		Options: &openapi3filter.Options{AuthenticationFunc: checkCredentials, MultiError: true},
	}
	var code string
	if r.status >= 400 {
		var e api.Error
		if err := json.Unmarshal(r.body, &e); err != nil {
			t.Fatalf("%s: error answer %d without a JSON body: %s", what, r.status, r.body)
		}
		code = e.Code
	}
	reqErr := openapi3filter.ValidateRequest(context.Background(), in)
	switch {
	case r.status < 400 && reqErr != nil:
		t.Fatalf("%s: the server answered %d, but the document refuses the request: %v", what, r.status, reqErr)
	case refusedByDocument[code] && reqErr == nil:
		t.Fatalf("%s: the server answered %d %s, but the document accepts the request", what, r.status, code)
	}

	d.CheckAnswer(t, what, in, openapitest.Answer{Status: r.status, Header: r.header, Body: r.body})
	if r.header.Get("Cache-Control") != "no-store" {
		t.Fatalf("%s: Cache-Control %q, want no-store", what, r.header.Get("Cache-Control"))
	}
	if code != "" {
		d.codes[code] = true
	}
	return r
}

// checkError validates an answer outside the document's operations (a
// 405, the router's 404, a 503) against the Error schema.
func (d *manageDoc) checkError(r *resp, status int, code string) {
	t := d.t
	t.Helper()
	var v any
	if err := json.Unmarshal(r.body, &v); err != nil || r.status != status {
		t.Fatalf("%s: got %d %s, want %d with a JSON error body", r.req, r.status, r.body, status)
	}
	if err := d.Spec.Components.Schemas["Error"].Value.VisitJSON(v); err != nil {
		t.Fatalf("%s: %d %s does not match the Error schema: %v", r.req, r.status, r.body, err)
	}
	if got := v.(map[string]any)["code"]; got != code {
		t.Fatalf("%s: code %v, want %s", r.req, got, code)
	}
	d.codes[code] = true
}

// operations returns every documented operation as "METHOD /path".
func (d *manageDoc) operations() []string {
	var out []string
	for path, item := range d.Spec.Paths.Map() {
		for method := range item.Operations() {
			out = append(out, method+" "+path)
		}
	}
	sort.Strings(out)
	return out
}

// routeList returns the route table as "METHOD /pattern".
func routeList() []string {
	var out []string
	for _, rt := range (&handler{}).routeTable() {
		out = append(out, rt.method+" "+rt.pattern)
	}
	sort.Strings(out)
	return out
}

// TestManageOpenAPIRoutes fails if the route table and the document's
// operations differ: every route is documented, and nothing else is.
func TestManageOpenAPIRoutes(t *testing.T) {
	d := loadManageDoc(t)
	routes, ops := routeList(), d.operations()
	for _, r := range routes {
		if !slices.Contains(ops, r) {
			t.Errorf("route %s is not in %s", r, manageDocFile)
		}
	}
	for _, o := range ops {
		if !slices.Contains(routes, o) {
			t.Errorf("%s documents %s, which no route serves", manageDocFile, o)
		}
	}
}

// pathParam matches a path parameter of a route pattern.
var pathParam = regexp.MustCompile(`\{[a-z]+\}`)

// TestManageOpenAPI drives the real API over HTTP through every documented
// operation, successes and every documented error status, and validates
// each request and answer against api/manage.openapi.yaml. It fails
// listing every documented (operation, status) pair it never produced.
func TestManageOpenAPI(t *testing.T) { runSuite(t, testManageOpenAPI) }

func testManageOpenAPI(t *testing.T, open newStoreFunc) {
	d := loadManageDoc(t)
	e := newEnv(t, open, false, func(c *Config) {
		c.MaxBodyBytes = 4096
		// A small import cap, so the 413 of an import is produced without
		// sending 200 MB.
		c.MaxImportBytes = 8192
		c.LoginLimits = service.LoginLimits{PerAccount: 3, PerAddress: 1000, Window: time.Hour}
	})
	a := e.newOrg("Alpha")
	ctx := e.ctx
	// admin operates the service and owns A: it may do everything.
	adminUser, adminPW := e.user("admin@example.com", true)
	if err := e.store.SetMember(ctx, &redirects.Membership{OrgID: a.org.ID, UserID: adminUser.ID, Role: redirects.RoleOwner}); err != nil {
		t.Fatal(err)
	}
	admin := e.session(adminUser)
	viewerToken := a.tokens[redirects.RoleViewer]
	cliToken, _ := e.token(a.org.ID, redirects.RoleViewer, "cli", 0)

	// A's endpoint and a delivery of it, for the webhook routes.
	hook := redirects.NewWebhookEndpoint(a.org.ID, "https://hooks.example.com/in", nil, nil)
	if err := e.store.(redirects.WebhookStore).CreateWebhook(ctx, hook); err != nil {
		t.Fatal(err)
	}
	hookDelivery, err := e.store.(redirects.WebhookStore).SendWebhookTest(ctx, hook.ID)
	if err != nil {
		t.Fatal(err)
	}

	// A's objects, for filling paths.
	fill := func(pattern string) string {
		return pathParam.ReplaceAllStringFunc(pattern, func(p string) string {
			switch p {
			case "{org}":
				return a.org.ID
			case "{project}":
				return a.project.ID
			case "{version}":
				return "1"
			case "{user}":
				return a.users[redirects.RoleViewer].ID
			case "{delivery}":
				return hookDelivery
			}
			switch {
			case strings.Contains(pattern, "/imports/"):
				return "1"
			case strings.Contains(pattern, "/webhooks/"):
				return hook.ID
			case strings.Contains(pattern, "/rules/"):
				return fmt.Sprint(a.rule.ID)
			case strings.Contains(pattern, "/keys/"):
				return a.key.ID
			default:
				return cliToken.ID
			}
		})
	}
	missing := func(pattern string) string {
		return pathParam.ReplaceAllStringFunc(pattern, func(p string) string {
			return map[string]string{"{org}": "org_missing00000000", "{project}": "prj_missing00000000",
				"{id}": "999999", "{user}": "usr_missing00000000", "{delivery}": "whd_missing00000000",
				"{version}": "999999"}[p]
		})
	}
	// query gives routes that need one a valid query.
	query := func(pattern string) string {
		switch {
		case strings.HasSuffix(pattern, "/lookup"):
			return "?path=/old"
		case strings.HasSuffix(pattern, "/imports"):
			return "?mode=append"
		case strings.HasSuffix(pattern, "/rules-export"):
			return "?to=csv"
		case strings.HasSuffix(pattern, "/diff"):
			return "?from=1&to=draft"
		case strings.HasSuffix(pattern, "/misses"):
			return "?path=/gone"
		}
		return ""
	}
	// validBody is a body each writing route accepts.
	validBody := func(method, pattern string) any {
		switch method + " " + pattern {
		case "POST /manage/v1/orgs":
			return map[string]any{"name": "Gamma", "tier": "free"}
		case "PATCH /manage/v1/orgs/{org}":
			return map[string]any{"tier": "enterprise"}
		case "DELETE /manage/v1/orgs/{org}":
			return map[string]any{"confirm": a.org.Name}
		case "POST /manage/v1/orgs/{org}/members":
			return map[string]any{"email": a.users[redirects.RoleViewer].Email, "role": "viewer"}
		case "PATCH /manage/v1/orgs/{org}/members/{user}":
			return map[string]any{"role": "editor"}
		case "POST /manage/v1/orgs/{org}/tokens":
			return map[string]any{"role": "viewer"}
		case "POST /manage/v1/orgs/{org}/projects", "PATCH /manage/v1/projects/{project}":
			return map[string]any{"name": "renamed"}
		case "DELETE /manage/v1/projects/{project}":
			return map[string]any{"confirm": a.project.Name}
		case "POST /manage/v1/projects/{project}/rules":
			return map[string]any{"source": "/fresh", "destination": "/x"}
		case "POST /manage/v1/projects/{project}/misses/rule":
			return map[string]any{"path": "/fresh-miss", "destination": "/x"}
		case "PATCH /manage/v1/projects/{project}/rules/{id}":
			return map[string]any{"destination": "/y"}
		case "POST /manage/v1/projects/{project}/deployments":
			return map[string]any{"message": "m"}
		case "POST /manage/v1/projects/{project}/keys":
			return map[string]any{"name": "k"}
		case "POST /manage/v1/projects/{project}/revoke-key":
			return map[string]any{"key": a.key.ID}
		case "POST /manage/v1/projects/{project}/imports":
			return csvBody("source,destination,statusCode,matchType\r\n/i,/j,301,exact\r\n")
		case "PUT /manage/v1/projects/{project}/tests":
			return csvBody("path,status,destination\n/old,301,/new\n")
		case "POST /manage/v1/orgs/{org}/webhooks":
			return map[string]any{"url": "https://hooks.example.com/new"}
		case "PATCH /manage/v1/orgs/{org}/webhooks/{id}":
			return map[string]any{"paused": false}
		}
		return nil
	}
	// jsonBody reports whether the operation takes a JSON body.
	jsonBody := func(method, path string) bool {
		op := d.Spec.Paths.Find(path).GetOperation(method)
		return op.RequestBody != nil && op.RequestBody.Value.Content.Get("application/json") != nil
	}
	const login = "POST /manage/v1/session"

	// Every route: without credentials, 401; at missing objects, 404; with
	// the cookie and no CSRF token, 403; as a viewer token, 403 where the
	// route needs more; and, with a body, 400, 413 (past both caps, the
	// bodies' and the uploads') and 415.
	for _, rt := range (&handler{}).routeTable() {
		key := rt.method + " " + rt.pattern
		target := fill(rt.pattern) + query(rt.pattern)
		if !rt.public {
			d.call(e.anon(), rt.method, target, nil).want(t, 401, codeUnauthenticated)
		}
		if strings.Contains(rt.pattern, "{") {
			d.call(a.sessions[redirects.RoleOwner], rt.method, missing(rt.pattern)+query(rt.pattern), validBody(rt.method, rt.pattern)).want(t, 404, "NOT_FOUND")
		}
		if !rt.public && !safeMethod(rt.method) {
			c := e.session(a.users[redirects.RoleViewer])
			c.noCSRF = true
			d.call(c, rt.method, target, validBody(rt.method, rt.pattern)).want(t, 403, codeCSRF)
			if rt.pattern != "/manage/v1/session" {
				d.call(viewerToken, rt.method, target, validBody(rt.method, rt.pattern)).want(t, 403, "FORBIDDEN")
			}
		}
		if jsonBody(rt.method, rt.pattern) {
			c := admin
			if key == login {
				c = e.anon()
			}
			d.call(c, rt.method, target, `{"bogus": 1}`).want(t, 400, codeUnknownField)
			d.call(c, rt.method, target, `{"name": "`+strings.Repeat("n", 10000)+`"}`).want(t, 413, codeBodyTooLarge)
			d.call(c, rt.method, target, "name=x", "Content-Type", "text/plain").want(t, 415, codeUnsupportedMedia)
		}
	}

	obase := "/manage/v1/orgs/" + a.org.ID
	pbase := "/manage/v1/projects/" + a.project.ID

	// Session.
	d.call(e.anon(), "POST", "/manage/v1/session", map[string]any{"email": adminUser.Email}).want(t, 400, codeMissingField)
	d.call(e.anon(), "POST", "/manage/v1/session", map[string]any{"email": adminUser.Email, "password": adminPW}).want(t, 200)
	for range 3 {
		d.call(e.anon(), "POST", "/manage/v1/session", map[string]any{"email": adminUser.Email, "password": "wrong"}).want(t, 401, codeUnauthenticated)
	}
	r := d.call(e.anon(), "POST", "/manage/v1/session", map[string]any{"email": adminUser.Email, "password": adminPW}).want(t, 429, codeLoginLimit)
	if r.header.Get("Retry-After") == "" {
		t.Fatalf("429 without Retry-After")
	}
	d.call(admin, "GET", "/manage/v1/session", nil).want(t, 200)
	// A password change: the current password, a new one that meets the
	// rules; every session ends and the answer is a new one.
	changer, changerPW := e.user("changer@example.com", false)
	if err := e.store.RequirePasswordChange(e.ctx, changer.ID); err != nil {
		t.Fatal(err)
	}
	cs := e.session(changer)
	var before api.Session
	d.call(cs, "GET", "/manage/v1/session", nil).want(t, 200).decode(t, &before)
	if !before.MustChangePassword {
		t.Fatalf("a one-time password's session: mustChangePassword false")
	}
	// Until then every other operation refuses the session.
	d.checkError(cs.do("GET", "/manage/v1/orgs", nil), 403, codePasswordChange)
	pwPath := "/manage/v1/session/password"
	d.call(cs, "POST", pwPath, map[string]any{"currentPassword": changerPW}).want(t, 400, codeMissingField)
	d.call(cs, "POST", pwPath, map[string]any{"currentPassword": "wrong", "newPassword": "a new password, long enough"}).want(t, 401, codeUnauthenticated)
	d.call(cs, "POST", pwPath, map[string]any{"currentPassword": changerPW, "newPassword": "short"}).want(t, 400, "INVALID_INPUT")
	var after api.Session
	d.call(cs, "POST", pwPath, map[string]any{"currentPassword": changerPW, "newPassword": "a new password, long enough"}).want(t, 200).decode(t, &after)
	if after.MustChangePassword || after.CSRFToken == "" || after.CSRFToken == before.CSRFToken {
		t.Fatalf("after the change: %+v", after)
	}
	d.call(cs, "GET", "/manage/v1/session", nil).want(t, 401, codeUnauthenticated)
	if u, _ := e.store.FindUserByID(e.ctx, changer.ID); u.MustChangePassword || !redirects.VerifyPassword(u.PasswordHash, "a new password, long enough") {
		t.Fatalf("the stored user after the change: must change %v", u.MustChangePassword)
	}
	// Wrong current passwords count as failed sign-ins: past the
	// account's 3, even the right one is refused.
	guesser, guesserPW := e.user("guesser@example.com", false)
	gs := e.session(guesser)
	for range 3 {
		d.call(gs, "POST", pwPath, map[string]any{"currentPassword": "wrong", "newPassword": "a new password, long enough"}).want(t, 401, codeUnauthenticated)
	}
	if r := d.call(gs, "POST", pwPath, map[string]any{"currentPassword": guesserPW, "newPassword": "a new password, long enough"}).want(t, 429, codeLoginLimit); r.header.Get("Retry-After") == "" {
		t.Fatalf("429 without Retry-After")
	}
	d.call(viewerToken, "GET", "/manage/v1/session", nil).want(t, 404, "NOT_FOUND")
	d.call(viewerToken, "DELETE", "/manage/v1/session", nil).want(t, 404, "NOT_FOUND")
	ended := e.session(adminUser)
	d.call(ended, "DELETE", "/manage/v1/session", nil).want(t, 204)
	d.call(ended, "GET", "/manage/v1/session", nil).want(t, 401, codeUnauthenticated)
	// Tokens that expired or were revoked are refused like unknown ones.
	_, expiring := e.token(a.org.ID, redirects.RoleOwner, "short", time.Hour)
	revoked, revokedSecret := e.token(a.org.ID, redirects.RoleOwner, "revoked", 0)
	d.call(e.withToken(expiring), "GET", "/manage/v1/orgs", nil).want(t, 200)
	if _, err := e.store.RevokeToken(ctx, a.org.ID, revoked.ID); err != nil {
		t.Fatal(err)
	}
	d.call(e.withToken(revokedSecret), "GET", "/manage/v1/orgs", nil).want(t, 401, codeUnauthenticated)

	// Organizations.
	d.call(admin, "GET", "/manage/v1/orgs", nil).want(t, 200)
	d.call(admin, "POST", "/manage/v1/orgs", map[string]any{"name": "Gamma", "tier": "gold"}).want(t, 400, "INVALID_INPUT")
	var gamma orgJSON
	d.call(admin, "POST", "/manage/v1/orgs", map[string]any{"name": "Gamma", "tier": "free", "rateLimit": 5, "monthlyQuota": "unlimited"}).want(t, 201).decode(t, &gamma)
	d.call(admin, "GET", obase, nil).want(t, 200)
	if r := admin.do("HEAD", obase, nil).want(t, 200); len(r.body) != 0 || r.header.Get("Content-Type") == "" {
		t.Fatalf("HEAD %s: body %q, Content-Type %q; want the GET's headers and no body", obase, r.body, r.header.Get("Content-Type"))
	}
	d.call(admin, "PATCH", "/manage/v1/orgs/"+gamma.ID, map[string]any{}).want(t, 400, "INVALID_INPUT")
	d.call(admin, "PATCH", "/manage/v1/orgs/"+gamma.ID, map[string]any{"name": "Gamma2", "rateLimit": "default"}).want(t, 200)
	d.call(admin, "DELETE", "/manage/v1/orgs/"+gamma.ID, map[string]any{"confirm": "Gamma"}).want(t, 400, codeConfirm)
	d.call(admin, "DELETE", "/manage/v1/orgs/"+gamma.ID, `{`).want(t, 400, codeInvalidJSON)
	d.call(admin, "DELETE", "/manage/v1/orgs/"+gamma.ID, map[string]any{"confirm": "Gamma2"}).want(t, 204)

	// Members.
	d.call(admin, "GET", obase+"/members", nil).want(t, 200)
	newcomer, _ := e.user("newcomer@example.com", false)
	d.call(admin, "POST", obase+"/members", map[string]any{"email": newcomer.Email}).want(t, 400, codeMissingField)
	d.call(admin, "POST", obase+"/members", map[string]any{"email": "nobody@example.com", "role": "viewer"}).want(t, 404, "NOT_FOUND")
	d.call(admin, "POST", obase+"/members", map[string]any{"email": newcomer.Email, "role": "viewer"}).want(t, 201)
	// By user ID instead of email: the same user; not both; an unknown ID
	// is not found.
	var byID struct{ UserID, Role string }
	d.call(admin, "POST", obase+"/members", map[string]any{"userId": newcomer.ID, "role": "viewer"}).want(t, 201).decode(t, &byID)
	if byID.UserID != newcomer.ID || byID.Role != "viewer" {
		t.Fatalf("member add by userId answered %+v, want %s as viewer", byID, newcomer.ID)
	}
	d.call(admin, "POST", obase+"/members", map[string]any{"userId": newcomer.ID, "email": newcomer.Email, "role": "viewer"}).want(t, 400, "INVALID_INPUT")
	d.call(admin, "POST", obase+"/members", map[string]any{"userId": "usr_nobody0000000000", "role": "viewer"}).want(t, 404, "NOT_FOUND")
	d.call(admin, "PATCH", obase+"/members/"+newcomer.ID, map[string]any{"role": "boss"}).want(t, 400, "INVALID_INPUT")
	d.call(admin, "PATCH", obase+"/members/"+newcomer.Email, map[string]any{"role": "editor"}).want(t, 200)
	d.call(admin, "DELETE", obase+"/members/"+newcomer.ID, nil).want(t, 204)

	// Management tokens.
	d.call(admin, "GET", obase+"/tokens", nil).want(t, 200)
	d.call(admin, "POST", obase+"/tokens", map[string]any{"role": "viewer", "expiresIn": "soon"}).want(t, 400, "INVALID_INPUT")
	var tok api.Token
	d.call(admin, "POST", obase+"/tokens", map[string]any{"role": "editor", "label": "CI", "expiresIn": "30d"}).want(t, 201).decode(t, &tok)
	d.call(admin, "DELETE", obase+"/tokens/"+tok.ID, nil).want(t, 204)
	d.call(admin, "DELETE", obase+"/tokens/tok_missing0000000000", nil).want(t, 404, "NOT_FOUND")

	// Projects.
	d.call(admin, "GET", obase+"/projects", nil).want(t, 200)
	d.call(admin, "POST", obase+"/projects", map[string]any{"name": ""}).want(t, 400, "INVALID_INPUT")
	var prj projectJSON
	d.call(admin, "POST", obase+"/projects", map[string]any{"name": "scratch"}).want(t, 201).decode(t, &prj)
	d.call(admin, "GET", "/manage/v1/projects/"+prj.ID, nil).want(t, 200) // never deployed: nulls
	d.call(admin, "GET", pbase, nil).want(t, 200)
	d.call(admin, "PATCH", "/manage/v1/projects/"+prj.ID, map[string]any{}).want(t, 400, codeMissingField)
	d.call(admin, "PATCH", "/manage/v1/projects/"+prj.ID, map[string]any{"name": "scratch2"}).want(t, 200)
	// A key of the project with usage: the usage stays, under the key's
	// ID alone, when the project goes (see Usage below).
	goneKey, _ := redirects.NewKey(prj.ID, "gone", false, e.clock.Now())
	if err := e.store.CreateKey(ctx, goneKey); err != nil {
		t.Fatal(err)
	}
	if err := e.store.AddKeyUsage(ctx, []redirects.DailyUsage{{KeyID: goneKey.ID, Day: "2026-03-02", Count: 1}}); err != nil {
		t.Fatal(err)
	}
	d.call(admin, "DELETE", "/manage/v1/projects/"+prj.ID, nil).want(t, 400, codeConfirm)
	d.call(admin, "DELETE", "/manage/v1/projects/"+prj.ID, map[string]any{"confirm": "scratch2"}).want(t, 204)
	// Export retention: set at creation and changed, within 1..10000; a
	// refused value changes nothing, not even a name sent beside it.
	var kept projectJSON
	d.call(admin, "POST", obase+"/projects", map[string]any{"name": "kept", "keepExports": 0}).want(t, 400, "INVALID_INPUT")
	d.call(admin, "POST", obase+"/projects", map[string]any{"name": "kept", "keepExports": 5}).want(t, 201).decode(t, &kept)
	if kept.KeepExports != 5 {
		t.Fatalf("created with keepExports 5: %+v", kept)
	}
	kpath := "/manage/v1/projects/" + kept.ID
	d.call(admin, "PATCH", kpath, map[string]any{"name": "kept2", "keepExports": 10001}).want(t, 400, "INVALID_INPUT")
	d.call(admin, "GET", kpath, nil).want(t, 200).decode(t, &kept)
	if kept.Name != "kept" || kept.KeepExports != 5 {
		t.Fatalf("a refused change changed the project: %+v", kept)
	}
	d.call(admin, "PATCH", kpath, map[string]any{"keepExports": 3}).want(t, 200).decode(t, &kept)
	if kept.Name != "kept" || kept.KeepExports != 3 {
		t.Fatalf("after keepExports 3: %+v", kept)
	}
	// Hosts: set at creation and replaced, stored lower-case; a bad one is
	// refused and changes nothing.
	var hosted projectJSON
	d.call(admin, "POST", obase+"/projects", map[string]any{"name": "hosted", "hosts": []string{"https://shop.example.com/"}}).want(t, 400, "INVALID_INPUT")
	d.call(admin, "POST", obase+"/projects", map[string]any{"name": "hosted", "hosts": []string{"Shop.Example.com"}}).want(t, 201).decode(t, &hosted)
	if len(hosted.Hosts) != 1 || hosted.Hosts[0] != "shop.example.com" {
		t.Fatalf("created with hosts [Shop.Example.com]: %+v", hosted)
	}
	d.call(admin, "PATCH", kpath, map[string]any{"hosts": []string{"www.example.com", "bad host"}}).want(t, 400, "INVALID_INPUT")
	d.call(admin, "PATCH", kpath, map[string]any{"hosts": []string{"www.example.com"}}).want(t, 200).decode(t, &kept)
	if len(kept.Hosts) != 1 || kept.Hosts[0] != "www.example.com" {
		t.Fatalf("after hosts [www.example.com]: %+v", kept)
	}
	// The shrink limit: PATCH only, 0..100.
	d.call(admin, "POST", obase+"/projects", map[string]any{"name": "shrunk", "shrinkLimit": 5}).want(t, 400, codeUnknownField)
	d.call(admin, "PATCH", kpath, map[string]any{"shrinkLimit": 101}).want(t, 400, "INVALID_INPUT")
	d.call(admin, "PATCH", kpath, map[string]any{"shrinkLimit": 50}).want(t, 200)
	var keptDetail projectDetailJSON
	d.call(admin, "GET", kpath, nil).want(t, 200).decode(t, &keptDetail)
	if keptDetail.ShrinkLimit != 50 || len(keptDetail.Hosts) != 1 {
		t.Fatalf("after shrinkLimit 50: %+v", keptDetail)
	}
	// Matching settings: PATCH only; a change under which rules would
	// clash is 409 and changes nothing, a name sent beside it neither.
	d.call(admin, "POST", obase+"/projects", map[string]any{"name": "cased", "caseSensitive": false}).want(t, 400, codeUnknownField)
	d.call(admin, "POST", kpath+"/rules", map[string]any{"source": "/Case", "destination": "/x"}).want(t, 201)
	d.call(admin, "POST", kpath+"/rules", map[string]any{"source": "/case", "destination": "/y"}).want(t, 201)
	d.call(admin, "PATCH", kpath, map[string]any{"trailingSlash": "strip"}).want(t, 400, "INVALID_INPUT")
	d.call(admin, "PATCH", kpath, map[string]any{"caseSensitive": false, "name": "kept3"}).want(t, 409, "CONFLICT")
	d.call(admin, "PATCH", kpath, map[string]any{"trailingSlash": "ignore"}).want(t, 200).decode(t, &keptDetail)
	if keptDetail.Name != "kept" || !keptDetail.CaseSensitive || keptDetail.TrailingSlash != "ignore" {
		t.Fatalf("after a refused caseSensitive false and trailingSlash ignore: %+v", keptDetail)
	}
	d.call(admin, "DELETE", kpath+"/rules?q=ase&confirm=true", nil).want(t, 200)

	// Rules.
	d.call(admin, "GET", pbase+"/rules?limit=1&sort=-source&match=exact&status=301", nil).want(t, 200)
	d.call(admin, "GET", pbase+"/rules?limit=many", nil).want(t, 400, codeInvalidQuery)
	d.call(admin, "GET", pbase+"/rules?after=garbage", nil).want(t, 400, "INVALID_INPUT")
	var rule api.Rule
	d.call(admin, "POST", pbase+"/rules", map[string]any{"source": "/a", "destination": "/b", "statusCode": 302, "matchType": "starts_with", "priority": 5}).want(t, 201).decode(t, &rule)
	d.call(admin, "POST", pbase+"/rules", map[string]any{"source": "/a", "destination": "/c", "matchType": "starts_with"}).want(t, 409, "CONFLICT")
	d.call(admin, "POST", pbase+"/rules", map[string]any{"source": "no-slash", "destination": "/c"}).want(t, 400, "INVALID_INPUT")
	// Every status and both options, a fragment, a 410 without a
	// destination; a PATCH that does not name the options keeps them.
	var opt api.Rule
	d.call(admin, "POST", pbase+"/rules", map[string]any{"source": "/opt/", "destination": "/kept/#top", "statusCode": 308, "matchType": "starts_with",
		"preservePath": true, "preserveQuery": true}).want(t, 201).decode(t, &opt)
	d.call(admin, "PATCH", pbase+"/rules/"+strconv.FormatInt(opt.ID, 10), map[string]any{"statusCode": 307}).want(t, 200).decode(t, &opt)
	if opt.StatusCode != 307 || !opt.PreservePath || !opt.PreserveQuery || opt.Destination != "/kept/#top" {
		t.Fatalf("after a PATCH of the status: %+v", opt)
	}
	var see, gone410 api.Rule
	d.call(admin, "POST", pbase+"/rules", map[string]any{"source": "/see", "destination": "/other", "statusCode": 303, "preserveQuery": true}).want(t, 201).decode(t, &see)
	d.call(admin, "POST", pbase+"/rules", map[string]any{"source": "/gone", "statusCode": 410}).want(t, 201).decode(t, &gone410)
	d.call(admin, "POST", pbase+"/rules", map[string]any{"source": "/gone2", "statusCode": 410, "destination": "/x"}).want(t, 400, "INVALID_INPUT")
	d.call(admin, "POST", pbase+"/rules", map[string]any{"source": "/gone2"}).want(t, 400, codeMissingField)
	d.call(admin, "GET", pbase+"/rules?status=410", nil).want(t, 200)
	// Pattern and regex rules, a host: answered, listed and filtered as
	// the document says.
	var pat, re api.Rule
	d.call(admin, "POST", pbase+"/rules", map[string]any{"source": "/:lang/docs/*", "destination": "/:lang/guide/:splat", "matchType": "pattern",
		"host": "Old.Example.com"}).want(t, 201).decode(t, &pat)
	d.call(admin, "POST", pbase+"/rules", map[string]any{"source": `^/p/(\d+)$`, "destination": "/posts/$1", "matchType": "regex"}).want(t, 201).decode(t, &re)
	d.call(admin, "POST", pbase+"/rules", map[string]any{"source": "/:a:b", "destination": "/x", "matchType": "pattern"}).want(t, 400, "INVALID_INPUT")
	d.call(admin, "PATCH", pbase+"/rules/"+strconv.FormatInt(pat.ID, 10), map[string]any{"host": "*.example.org"}).want(t, 200)
	d.call(admin, "GET", pbase+"/rules?matchType=pattern&host=*.example.org", nil).want(t, 200)
	d.call(admin, "GET", pbase+"/rules?match=regex&host=", nil).want(t, 200)
	d.call(admin, "GET", pbase+"/rules?host=a..b", nil).want(t, 400, codeInvalidQuery)
	d.call(admin, "GET", pbase+"/hits", nil).want(t, 200)
	for _, id := range []int64{opt.ID, see.ID, gone410.ID, pat.ID, re.ID} {
		d.call(admin, "DELETE", pbase+"/rules/"+strconv.FormatInt(id, 10), nil).want(t, 204)
	}
	rpath := pbase + "/rules/" + strconv.FormatInt(rule.ID, 10)
	d.call(admin, "GET", rpath, nil).want(t, 200)
	d.call(admin, "PATCH", rpath, map[string]any{"destination": "/d"}, "If-Match", `"1"`).want(t, 200)
	d.call(admin, "PATCH", rpath, map[string]any{"destination": "/e"}, "If-Match", `"1"`).want(t, 409, "REVISION_CONFLICT")
	d.call(admin, "PATCH", rpath, map[string]any{"destination": "/e"}, "If-Match", "soon").want(t, 400, "INVALID_REVISION")
	d.call(admin, "DELETE", rpath, map[string]any{"revision": 1}).want(t, 409, "REVISION_CONFLICT")
	d.call(admin, "DELETE", rpath, map[string]any{"revision": 2}, "If-Match", `"3"`).want(t, 400, "INVALID_REVISION")
	d.call(admin, "DELETE", rpath, nil, "If-Match", `"2"`).want(t, 204)
	d.call(admin, "DELETE", pbase+"/rules?q=/zzz*", nil).want(t, 400, codeConfirmRequired)
	d.call(admin, "DELETE", pbase+"/rules?q=/zzz*&confirm=true", nil).want(t, 200)
	r = d.call(admin, "GET", pbase+"/rules.csv", nil).want(t, 200)
	if !strings.HasPrefix(string(r.body), "source,destination,statusCode,matchType,priority,id\r\n") {
		t.Fatalf("rules.csv starts %q", r.body)
	}
	// Imports, into the project "kept" (never deployed, so the diffs of
	// A's project below stay as they are): every mode, a dry run, a full
	// URL on a declared host, and every refusal, each with its report.
	const imph = "source,destination,statusCode,matchType\r\n"
	var rep api.ImportReport
	d.call(admin, "POST", kpath+"/imports?mode=append&dry_run=true", csvBody(imph+"/i1,/j,301,exact\r\n")).want(t, 200).decode(t, &rep)
	if !rep.DryRun || rep.Mode != "append" || rep.Added != 1 {
		t.Fatalf("dry-run append = %+v", rep)
	}
	d.call(admin, "POST", kpath+"/imports", csvBody(imph+"/i1,/j,301,exact\r\nhttps://www.example.com/i2,/j,302,exact\r\n")).want(t, 200).decode(t, &rep)
	if rep.DryRun || rep.Mode != "append" || rep.Added != 2 {
		t.Fatalf("append = %+v", rep)
	}
	d.call(admin, "POST", kpath+"/imports?mode=upsert", csvBody(imph+"/i1,/k,301,exact\r\n/i2,/j,302,exact\r\n/i3,/j,301,exact\r\n")).want(t, 200).decode(t, &rep)
	if rep.Added != 1 || rep.Updated != 1 || rep.Unchanged != 1 {
		t.Fatalf("upsert = %+v", rep)
	}
	d.call(admin, "POST", kpath+"/imports?mode=replace&dry_run=false", csvBody(imph+"/i1,/k,301,exact\r\n/i4,/j,301,exact\r\n")).want(t, 200).decode(t, &rep)
	if rep.Added != 1 || rep.Unchanged != 1 || rep.Removed != 2 {
		t.Fatalf("replace = %+v", rep)
	}
	d.call(admin, "POST", kpath+"/imports?mode=append", csvBody(imph+"/i4,/x,301,exact\r\n")).want(t, 409, "CONFLICT").decode(t, &rep)
	if rep.ErrorCount != 1 || len(rep.Errors) != 1 || rep.Errors[0].Line != 2 {
		t.Fatalf("append of a rule the draft has = %+v", rep)
	}
	d.call(admin, "POST", kpath+"/imports?mode=append", csvBody(imph+"/ok,/j,301,exact\r\nno-slash,/j,301,exact\r\n/x,/y,304,exact\r\n")).
		want(t, 422, codeInvalidImport).decode(t, &rep)
	if rep.ErrorCount != 2 || len(rep.Errors) != 2 || rep.Errors[0].Line != 3 || rep.Added != 0 {
		t.Fatalf("import of a file with bad lines = %+v", rep)
	}
	d.call(admin, "POST", kpath+"/imports?mode=merge", csvBody(imph+"/m,/j,301,exact\r\n")).want(t, 400, codeInvalidMode)
	d.call(admin, "POST", kpath+"/imports?dry_run=maybe", csvBody(imph+"/m,/j,301,exact\r\n")).want(t, 400, codeInvalidQuery)
	d.call(admin, "POST", kpath+"/imports?mode=append", `{"source": "/m", "destination": "/j"}`).want(t, 415, codeUnsupportedMedia)
	d.call(admin, "POST", kpath+"/imports?mode=append", csvBody(imph+strings.Repeat("/big,/b,301,exact\r\n", 1000))).want(t, 413, codeBodyTooLarge)
	if r := d.call(admin, "GET", kpath+"/rules.csv", nil).want(t, 200); strings.Count(string(r.body), "\r\n") != 3 {
		t.Fatalf("after the refused imports the draft is %q, want the 2 rules of the replace", r.body)
	}
	// Imports with ?from=: the report of every line and, applied, the
	// undo; the refusals of a file that is not one; the draft as another
	// platform's file.
	var mrep api.MigrationReport
	d.call(admin, "POST", kpath+"/imports?from=auto&mode=upsert&dry_run=true", csvBody(imph+"/i1,/k,301,exact\r\n")).want(t, 200).decode(t, &mrep)
	if mrep.Migration == nil || mrep.Migration.Format != "csv" || mrep.Migration.Detected == "" || mrep.UndoID != 0 {
		t.Fatalf("dry run with from=auto = %+v", mrep)
	}
	d.call(admin, "POST", kpath+"/imports?from=netlify&dry_run=true", csvBody("https://old.example.org/* /:splat 301!\n")).want(t, 200).decode(t, &mrep)
	if hs := mrep.Migration.SuggestHosts; hs == nil || !slices.Equal(hs.Hosts, []string{"old.example.org"}) || hs.Declare[len(hs.Declare)-1] != "old.example.org" {
		t.Fatalf("dry run of a domain line: hostSuggestion %+v", hs)
	}
	d.call(admin, "POST", kpath+"/imports?from=csv&mode=append&filename=more.csv", csvBody(imph+"/i5,/k,301,exact\r\n")).want(t, 200).decode(t, &mrep)
	if mrep.UndoID == 0 || mrep.Migration.AsIs != 1 {
		t.Fatalf("applied import with from=csv = %+v", mrep)
	}
	undo := fmt.Sprintf("%s/imports/%d/undo", kpath, mrep.UndoID)
	d.call(admin, "POST", undo, nil).want(t, 200)
	d.call(admin, "POST", undo, nil).want(t, 404, "NOT_FOUND")
	d.call(admin, "POST", kpath+"/imports?from=csv", csvBody(imph+"/i6,/k,301,exact\r\n")).want(t, 200).decode(t, &mrep)
	d.call(admin, "POST", kpath+"/rules", map[string]any{"source": "/after-import", "destination": "/x"}).want(t, 201)
	d.call(admin, "POST", fmt.Sprintf("%s/imports/%d/undo", kpath, mrep.UndoID), nil).want(t, 409, "CONFLICT")
	d.call(admin, "POST", kpath+"/imports?from=csv", csvBody(imph+"/b1,/k,999,exact\r\nno-slash,/k,301,exact\r\n")).want(t, 422, codeInvalidImport).decode(t, &rep)
	if rep.ErrorCount != 2 || rep.Errors[0].Line != 2 || rep.Errors[1].Line != 3 {
		t.Fatalf("from=csv of a file with bad lines = %+v", rep)
	}
	d.call(admin, "POST", kpath+"/imports?from=auto", "\x00\x01binary", "Content-Type", "application/octet-stream").want(t, 422, codeInvalidImport)
	d.call(admin, "POST", kpath+"/imports?from=nope", csvBody(imph)).want(t, 400, codeInvalidQuery)
	d.call(admin, "POST", kpath+"/imports?from=csv&placeholder=lang", csvBody(imph)).want(t, 400, codeInvalidQuery)
	d.call(admin, "POST", kpath+"/imports?placeholder=lang=en", csvBody(imph)).want(t, 400, codeInvalidQuery)
	if r := d.call(admin, "GET", kpath+"/rules-export?to=csv", nil).want(t, 200); r.header.Get("Redirects-Unexpressed") != "0" ||
		!strings.HasPrefix(string(r.body), "source,destination") {
		t.Fatalf("rules-export?to=csv: %v %q", r.header, r.body)
	}
	for _, wr := range importer.Writers() {
		d.call(admin, "GET", kpath+"/rules-export?to="+wr.Name, nil).want(t, 200)
		d.call(admin, "GET", kpath+"/rules-export?to="+wr.Name, nil, "Accept", "application/json").want(t, 200)
	}
	d.call(admin, "GET", kpath+"/rules-export?to=nope", nil).want(t, 400, codeInvalidQuery)
	// Chains: what flattening would change, the change, and its undo.
	d.call(admin, "POST", kpath+"/rules", map[string]any{"source": "/ch1", "destination": "/ch2"}).want(t, 201)
	d.call(admin, "POST", kpath+"/rules", map[string]any{"source": "/ch2", "destination": "https://elsewhere.example/ch"}).want(t, 201)
	var fr api.FlattenReport
	d.call(admin, "GET", kpath+"/chains?host=www.example.com", nil).want(t, 200).decode(t, &fr)
	if len(fr.Fixes) != 1 || fr.Fixes[0].Destination != "https://elsewhere.example/ch" || fr.Written {
		t.Fatalf("GET .../chains = %+v", fr)
	}
	d.call(admin, "GET", kpath+"/chains?host=", nil).want(t, 400, codeInvalidQuery)
	d.call(admin, "POST", kpath+"/chains/flatten?host=", nil).want(t, 400, codeInvalidQuery)
	d.call(admin, "POST", kpath+"/chains/flatten", nil).want(t, 200).decode(t, &fr)
	if len(fr.Fixes) != 1 || !fr.Written || fr.UndoID == 0 {
		t.Fatalf("POST .../chains/flatten = %+v", fr)
	}
	d.call(admin, "POST", fmt.Sprintf("%s/imports/%d/undo", kpath, fr.UndoID), nil).want(t, 200)

	// Deployments, diff and lookup.
	d.call(admin, "GET", pbase+"/deployments", nil).want(t, 200)
	d.call(admin, "POST", pbase+"/deployments", map[string]any{"fromVersion": 0}).want(t, 400, "INVALID_INPUT")
	d.call(admin, "POST", pbase+"/deployments", map[string]any{"fromVersion": 99}).want(t, 404, "NOT_FOUND")
	d.call(admin, "POST", pbase+"/deployments", nil).want(t, 201)
	d.call(admin, "POST", pbase+"/deployments", map[string]any{"message": "rollback", "fromVersion": 1}).want(t, 201)
	// Staged deploys (docs/contract.md#staged-deploys): version 4 staged,
	// promoted, then version 3 promoted back; version 5 staged and
	// discarded. The live version is 3 again at the end.
	var staged, promoted deploymentJSON
	d.call(admin, "POST", pbase+"/deployments", map[string]any{"message": "try first", "stage": true}).want(t, 201).decode(t, &staged)
	if staged.Version != 4 || !staged.Staged || staged.Live || staged.PromotedAt != nil {
		t.Fatalf("staged deploy = %+v, want version 4 staged, not live", staged)
	}
	d.call(admin, "DELETE", pbase+"/deployments/3", nil).want(t, 409, "CONFLICT")
	d.call(admin, "POST", pbase+"/deployments/4/promote", nil).want(t, 200).decode(t, &promoted)
	if promoted.Version != 4 || promoted.Staged || !promoted.Live || promoted.PromotedAt == nil {
		t.Fatalf("promote = %+v, want version 4 live", promoted)
	}
	d.call(admin, "POST", pbase+"/deployments/3/promote", nil).want(t, 200).decode(t, &promoted)
	d.call(admin, "DELETE", pbase+"/deployments/4", nil).want(t, 409, "CONFLICT")
	d.call(admin, "POST", pbase+"/deployments", map[string]any{"stage": true}).want(t, 201).decode(t, &staged)
	d.call(admin, "DELETE", fmt.Sprintf("%s/deployments/%d", pbase, staged.Version), nil).want(t, 204)
	d.call(admin, "POST", fmt.Sprintf("%s/deployments/%d/promote", pbase, staged.Version), nil).want(t, 404, "NOT_FOUND")
	d.call(admin, "DELETE", pbase+"/deployments/x", nil).want(t, 404, "NOT_FOUND")
	var listed struct{ Deployments []deploymentJSON }
	d.call(admin, "GET", pbase+"/deployments", nil).want(t, 200).decode(t, &listed)
	if n := len(listed.Deployments); n != 4 || !listed.Deployments[2].Live || listed.Deployments[3].Live || listed.Deployments[3].Staged {
		t.Fatalf("deployments after staging = %+v, want 1..4 with 3 live", listed.Deployments)
	}
	// A project that requires staged deploys refuses a plain one.
	var pj projectJSON
	d.call(admin, "PATCH", pbase, map[string]any{"requireStage": true}).want(t, 200).decode(t, &pj)
	if !pj.RequireStage {
		t.Fatalf("PATCH requireStage = %+v", pj)
	}
	if r := d.call(admin, "POST", pbase+"/deployments", map[string]any{"message": "plain"}).want(t, 409, "CONFLICT"); !strings.Contains(string(r.body), "stage") {
		t.Fatalf("plain deploy of a project that requires staging: %s", r.body)
	}
	d.call(admin, "PATCH", pbase, map[string]any{"requireStage": false}).want(t, 200)
	// The draft moves on from the live version (3, version 1 again): two
	// starts_with rules added, /old sent elsewhere.
	d.call(admin, "POST", pbase+"/rules", map[string]any{"source": "/blog/", "destination": "/news/", "matchType": "starts_with", "priority": 50}).want(t, 201)
	d.call(admin, "POST", pbase+"/rules", map[string]any{"source": "/blog/2026/", "destination": "/archive/", "statusCode": 302, "matchType": "starts_with"}).want(t, 201)
	d.call(admin, "PATCH", fmt.Sprintf("%s/rules/%d", pbase, a.rule.ID), map[string]any{"destination": "/newer"}).want(t, 200)
	var diff diffAnswer
	d.call(admin, "GET", pbase+"/diff", nil).want(t, 200).decode(t, &diff)
	if diff.From != "version 3 (live)" || diff.To != "the draft" || diff.FromVersion != float64(3) || diff.ToVersion != "draft" ||
		len(diff.Added) != 2 || len(diff.Removed) != 0 || len(diff.Changed) != 1 || diff.Changed[0].Fields[0] != "destination" ||
		diff.PathsChanged < 3 || len(diff.Impact) != diff.PathsChanged {
		t.Fatalf("diff live -> draft = %+v", diff)
	}
	d.call(admin, "GET", pbase+"/diff?from=draft&to=1&maxPaths=-1", nil).want(t, 200).decode(t, &diff)
	if len(diff.Removed) != 2 || len(diff.Added) != 0 || diff.FromVersion != "draft" || diff.ToVersion != float64(1) {
		t.Fatalf("diff draft -> 1 = %+v", diff)
	}
	d.call(admin, "GET", pbase+"/diff?from=1&to=draft&maxPaths=1", nil).want(t, 200).decode(t, &diff)
	if len(diff.Impact) != 1 || diff.PathsChanged < 3 {
		t.Fatalf("diff with maxPaths=1 = %+v", diff)
	}
	d.call(admin, "GET", kpath+"/diff", nil).want(t, 200).decode(t, &diff)
	if diff.From != "nothing deployed" || diff.FromVersion != nil {
		t.Fatalf("diff of a project with nothing deployed = %+v", diff)
	}
	for _, q := range []string{"from=0", "to=latest", "maxPaths=0", "maxPaths=-2", "maxPaths=x", "from=1&from=2"} {
		d.call(admin, "GET", pbase+"/diff?"+q, nil).want(t, 400, codeInvalidQuery)
	}
	d.call(admin, "GET", pbase+"/diff?from=99", nil).want(t, 404, "NOT_FOUND")
	d.call(admin, "GET", pbase+"/lookup?path=/old", nil).want(t, 200)
	d.call(admin, "GET", pbase+"/lookup?path=/nothing&version=draft", nil).want(t, 200)
	d.call(admin, "GET", pbase+"/lookup?path=/old&version=99", nil).want(t, 404, "NOT_FOUND")
	d.call(admin, "GET", pbase+"/lookup", nil).want(t, 400, codeInvalidQuery)
	// The explanation: both starts_with rules match; the lower priority
	// answers, the other lost, and says why.
	var lk struct {
		Version     any
		Answer      *struct{ Destination string }
		Explanation safety.Explanation
	}
	d.call(admin, "GET", pbase+"/lookup?path=/blog/2026/x&version=draft", nil).want(t, 200).decode(t, &lk)
	ex := lk.Explanation
	if lk.Version != "draft" || lk.Answer == nil || lk.Answer.Destination != "/news/" || ex.Answer == nil || ex.Answer.Source != "/blog/" ||
		len(ex.Candidates) != 2 || !ex.Candidates[0].Answers || ex.Candidates[1].Answers || ex.Candidates[1].Reason == "" {
		t.Fatalf("lookup of /blog/2026/x in the draft = %+v", lk)
	}
	d.call(admin, "GET", pbase+"/lookup?path=/old&version=live", nil).want(t, 200).decode(t, &lk)
	if lk.Version != float64(3) || lk.Answer == nil || lk.Answer.Destination != "/new" || len(lk.Explanation.Candidates) != 1 {
		t.Fatalf("lookup of /old in the live version = %+v", lk)
	}
	d.call(admin, "GET", pbase+"/lookup?path=/blog/x&version=latest", nil).want(t, 400, codeInvalidQuery)
	d.call(admin, "GET", kpath+"/lookup?path=/old&version=live", nil).want(t, 404, "NOT_FOUND")

	// Pattern and regex counts of a deployment, and the host of misses and
	// hits, as the document describes them.
	var kp projectJSON
	d.call(admin, "POST", obase+"/projects", map[string]any{"name": "kinds"}).want(t, 201).decode(t, &kp)
	kinds := "/manage/v1/projects/" + kp.ID
	d.call(admin, "POST", kinds+"/rules", map[string]any{"source": "/:lang/docs/*", "destination": "/:lang/guide/:splat", "matchType": "pattern"}).want(t, 201)
	d.call(admin, "POST", kinds+"/rules", map[string]any{"source": `^/p/(\d+)$`, "destination": "/posts/$1", "matchType": "regex"}).want(t, 201)
	d.call(admin, "POST", kinds+"/rules", map[string]any{"source": "/moved", "destination": "/shop", "host": "shop.example.com"}).want(t, 201)
	var kd struct {
		PatternRules, RegexRules, PrefixRules int
	}
	d.call(admin, "POST", kinds+"/deployments", nil).want(t, 201).decode(t, &kd)
	if kd.PatternRules != 1 || kd.RegexRules != 1 || kd.PrefixRules != 0 {
		t.Fatalf("deployment of pattern and regex rules = %+v, want 1 pattern, 1 regex, 0 prefix", kd)
	}
	d.call(admin, "GET", kinds+"/deployments", nil).want(t, 200)
	now := time.Now()
	if err := e.store.AddMisses(ctx, []redirects.Miss{{ProjectID: kp.ID, Host: "shop.example.com", Path: "/gone", Count: 2, FirstSeen: now, LastSeen: now}}); err != nil {
		t.Fatal(err)
	}
	if err := e.store.AddHits(ctx, []redirects.RuleHits{{ProjectID: kp.ID, MatchType: redirects.Exact, Host: "shop.example.com", Source: "/moved", Hits: 3, LastHit: now}}); err != nil {
		t.Fatal(err)
	}
	if r := d.call(admin, "GET", kinds+"/misses", nil).want(t, 200); !strings.Contains(string(r.body), `"host":"shop.example.com"`) {
		t.Fatalf("misses of a host: %s", r.body)
	}
	if r := d.call(admin, "GET", kinds+"/hits", nil).want(t, 200); !strings.Contains(string(r.body), `"host":"shop.example.com"`) {
		t.Fatalf("hits of a host-scoped rule: %s", r.body)
	}
	d.call(admin, "POST", kinds+"/misses/rule", map[string]any{"path": "/gone", "destination": "/x", "host": "Shop.Example.com"}).want(t, 201)
	d.call(admin, "POST", kinds+"/misses/rule", map[string]any{"path": "/gone2", "destination": "/x", "host": "not a host"}).want(t, 400, "INVALID_INPUT")

	// The deploy gate, on a project of its own: the stored test file, the
	// check, a deploy a loop blocks and the same deploy forced.
	var gp projectJSON
	d.call(admin, "POST", obase+"/projects", map[string]any{"name": "gated"}).want(t, 201).decode(t, &gp)
	gpath := "/manage/v1/projects/" + gp.ID
	d.call(admin, "GET", gpath+"/tests", nil).want(t, 404, "NOT_FOUND")
	tests := "path,status,destination\n/g1,301,/g2\n/g3,301,/x\n"
	var put struct{ Cases int }
	d.call(admin, "PUT", gpath+"/tests", csvBody(tests)).want(t, 200).decode(t, &put)
	if put.Cases != 2 {
		t.Fatalf("stored %d cases, want 2", put.Cases)
	}
	d.call(admin, "PUT", gpath+"/tests", csvBody("path,status,destination\n/g1,304,/g2\n")).want(t, 400, "INVALID_INPUT")
	d.call(admin, "PUT", gpath+"/tests", csvBody("")).want(t, 400, "INVALID_INPUT")
	d.call(admin, "PUT", gpath+"/tests", `{"path": "/g1"}`).want(t, 415, codeUnsupportedMedia)
	d.call(admin, "PUT", gpath+"/tests", csvBody("path,status,destination\n"+strings.Repeat("/a,none,\n", redirects.MaxTestsLen/9+1))).want(t, 413, codeBodyTooLarge)
	if r := d.call(admin, "GET", gpath+"/tests", nil).want(t, 200); string(r.body) != tests {
		t.Fatalf("the stored test file is %q, want %q", r.body, tests)
	}
	d.call(admin, "POST", gpath+"/rules", map[string]any{"source": "/g1", "destination": "/g2"}).want(t, 201)
	d.call(admin, "POST", gpath+"/rules", map[string]any{"source": "/g2", "destination": "/g1"}).want(t, 201)
	var gate safety.GateResult
	d.call(admin, "GET", gpath+"/deploy-check", nil).want(t, 200).decode(t, &gate)
	if gate.Target != "the draft" || gate.Errors == 0 || gate.Cases != 2 || len(gate.FailingCases) != 1 || len(gate.Blocked) != 1 {
		t.Fatalf("deploy-check of a draft with a loop = %+v", gate)
	}
	d.call(admin, "GET", gpath+"/deploy-check?fromVersion=0", nil).want(t, 400, codeInvalidQuery)
	d.call(admin, "GET", gpath+"/deploy-check?fromVersion=9", nil).want(t, 404, "NOT_FOUND")
	var blocked struct {
		Code string
		Gate safety.GateResult
	}
	d.call(admin, "POST", gpath+"/deployments", map[string]any{"message": "loop"}).want(t, 409, codeDeployBlocked).decode(t, &blocked)
	if len(blocked.Gate.Blocked) != 1 || blocked.Gate.Findings[0].Kind != safety.KindLoop {
		t.Fatalf("blocked deploy = %+v", blocked)
	}
	var forced deploymentJSON
	d.call(admin, "POST", gpath+"/deployments", map[string]any{"message": "loop", "force": true, "reason": "the loop goes tonight"}).want(t, 201).decode(t, &forced)
	d.call(admin, "GET", fmt.Sprintf("%s/deploy-check?fromVersion=%d", gpath, forced.Version), nil).want(t, 200).decode(t, &gate)
	if gate.Target != fmt.Sprintf("version %d", forced.Version) || gate.Errors == 0 {
		t.Fatalf("deploy-check of version %d = %+v", forced.Version, gate)
	}
	// The version's rules, whole, as the draft CSV: they import back.
	vr := d.call(admin, "GET", fmt.Sprintf("%s/deployments/%d/rules.csv", gpath, forced.Version), nil).want(t, 200)
	if got := vr.header.Get("Redirects-Version"); got != strconv.Itoa(forced.Version) {
		t.Fatalf("version rules.csv Redirects-Version %q", got)
	}
	if vrules, _, err := export.ReadCSV(bytes.NewReader(vr.body)); err != nil || len(vrules) != forced.ExactRules+forced.PrefixRules {
		t.Fatalf("version rules.csv: %v, %d rules, want %d:\n%s", err, len(vrules), forced.ExactRules+forced.PrefixRules, vr.body)
	}
	d.call(admin, "GET", gpath+"/deployments/0/rules.csv", nil).want(t, 404, "NOT_FOUND")
	d.call(admin, "GET", gpath+"/deployments/x/rules.csv", nil).want(t, 404, "NOT_FOUND")
	// A version's export files, the bytes the store keeps for the edge;
	// once the retention prunes them, rendered again into the same bytes.
	stored := map[string][]byte{}
	for _, f := range redirects.Formats {
		_, want, err := e.store.FindExport(ctx, gp.ID, forced.Version, f)
		if err != nil {
			t.Fatal(err)
		}
		r := d.call(admin, "GET", fmt.Sprintf("%s/deployments/%d/exports/%s", gpath, forced.Version, f), nil).want(t, 200)
		ct := "text/plain; charset=utf-8"
		if f == "csv" {
			ct = "text/csv; charset=utf-8"
		}
		if !bytes.Equal(r.body, want.Body) || r.header.Get("Content-Type") != ct || r.header.Get("ETag") != want.ETag ||
			r.header.Get("Redirects-Version") != strconv.Itoa(forced.Version) {
			t.Fatalf("export %s of version %d: %s %q %q, %d bytes; the store keeps %d bytes, ETag %q", f, forced.Version,
				r.header.Get("Content-Type"), r.header.Get("ETag"), r.header.Get("Redirects-Version"), len(r.body), len(want.Body), want.ETag)
		}
		stored[f] = want.Body
	}
	if _, err := e.store.SetExportRetention(ctx, gp.ID, 1); err != nil {
		t.Fatal(err)
	}
	d.call(admin, "POST", gpath+"/deployments", map[string]any{"message": "prunes", "force": true, "reason": "retention"}).want(t, 201)
	if _, _, err := e.store.FindExport(ctx, gp.ID, forced.Version, "nginx"); !redirects.IsExportsPruned(err) {
		t.Fatalf("version %d's exports after a deploy that keeps 1: %v, want pruned", forced.Version, err)
	}
	for _, f := range []string{"nginx", "csv"} {
		r := d.call(admin, "GET", fmt.Sprintf("%s/deployments/%d/exports/%s", gpath, forced.Version, f), nil).want(t, 200)
		if !bytes.Equal(r.body, stored[f]) {
			t.Fatalf("the pruned export %s of version %d rendered again:\n%s\nwant:\n%s", f, forced.Version, r.body, stored[f])
		}
	}
	d.call(admin, "GET", gpath+"/deployments/0/exports/csv", nil).want(t, 404, "NOT_FOUND")
	d.call(admin, "GET", gpath+"/deployments/x/exports/csv", nil).want(t, 404, "NOT_FOUND")
	d.call(admin, "GET", gpath+"/deployments/999/exports/csv", nil).want(t, 404, "NOT_FOUND")
	d.call(admin, "GET", fmt.Sprintf("%s/deployments/%d/exports/json", gpath, forced.Version), nil).want(t, 404, "NOT_FOUND")
	d.call(admin, "DELETE", gpath+"/tests", nil).want(t, 204)
	d.call(admin, "GET", gpath+"/tests", nil).want(t, 404, "NOT_FOUND")

	// Hits and misses as edge nodes count and flush them.
	hitAt := time.Date(2026, 3, 2, 10, 0, 0, 0, time.UTC)
	if err := e.store.AddHits(ctx, []redirects.RuleHits{{ProjectID: a.project.ID, MatchType: redirects.Exact, Source: "/old", Hits: 9, LastHit: hitAt}}); err != nil {
		t.Fatal(err)
	}
	if err := e.store.AddMisses(ctx, []redirects.Miss{
		{ProjectID: a.project.ID, Path: "/gone", Count: 5, FirstSeen: hitAt, LastSeen: hitAt},
		{ProjectID: a.project.ID, Path: "/lost", Count: 3, FirstSeen: hitAt, LastSeen: hitAt},
	}); err != nil {
		t.Fatal(err)
	}
	// Which servers have which version, as edge nodes flush the sync
	// agents' reports: an agent on an older version than the live one is
	// behind.
	var agentsAns struct {
		LiveVersion int
		Agents      []struct {
			Agent, Format, SeenAt string
			AppliedVersion        int
			Behind                bool
		}
	}
	d.call(admin, "GET", pbase+"/agents", nil).want(t, 200).decode(t, &agentsAns)
	if agentsAns.LiveVersion < 2 || agentsAns.Agents == nil || len(agentsAns.Agents) != 0 {
		t.Fatalf("agents before any report = %+v, want the live version (at least 2) and an empty list", agentsAns)
	}
	live := agentsAns.LiveVersion
	if err := e.store.(redirects.AgentStore).RecordAgents(ctx, []redirects.AgentReport{
		{ProjectID: a.project.ID, Agent: "web-1 /etc/nginx/redirects.conf", Format: "nginx", AppliedVersion: live, SeenAt: hitAt},
		{ProjectID: a.project.ID, Agent: "web-2 /etc/nginx/redirects.conf", Format: "nginx", AppliedVersion: live - 1, SeenAt: hitAt},
	}); err != nil {
		t.Fatal(err)
	}
	d.call(admin, "GET", pbase+"/agents", nil).want(t, 200).decode(t, &agentsAns)
	if got := fmt.Sprint(agentsAns.Agents); agentsAns.LiveVersion != live ||
		got != fmt.Sprintf("[{web-1 /etc/nginx/redirects.conf nginx 2026-03-02T10:00:00Z %d false} {web-2 /etc/nginx/redirects.conf nginx 2026-03-02T10:00:00Z %d true}]", live, live-1) {
		t.Fatalf("agents = %d %s", agentsAns.LiveVersion, got)
	}
	// An editor forgets an agent; a bad filter forgets nothing.
	var deleted struct{ Deleted int }
	d.call(admin, "DELETE", pbase+"/agents?format=gif", nil).want(t, 400)
	d.call(admin, "DELETE", pbase+"/agents?agent="+url.QueryEscape("web-2 /etc/nginx/redirects.conf"), nil).want(t, 200).decode(t, &deleted)
	d.call(admin, "GET", pbase+"/agents", nil).want(t, 200).decode(t, &agentsAns)
	if deleted.Deleted != 1 || len(agentsAns.Agents) != 1 || agentsAns.Agents[0].Agent != "web-1 /etc/nginx/redirects.conf" {
		t.Fatalf("after deleting web-2: deleted %d, agents %+v; want 1 deleted and web-1 left", deleted.Deleted, agentsAns.Agents)
	}
	// Suggestions from two misses and a sitemap: computed, listed, one
	// accepted and one dismissed, each once (a second time is 409).
	if err := e.store.AddMisses(ctx, []redirects.Miss{
		{ProjectID: a.project.ID, Path: "/suggest-me-one", Count: 4, FirstSeen: hitAt, LastSeen: hitAt},
		{ProjectID: a.project.ID, Path: "/suggest-me-two", Count: 2, FirstSeen: hitAt, LastSeen: hitAt},
	}); err != nil {
		t.Fatal(err)
	}
	var sugg api.Suggestions
	d.call(admin, "POST", pbase+"/suggestions", map[string]any{"sitemap": []string{"https://elsewhere.example/pages/suggest-me-one", "https://elsewhere.example/pages/suggest-me-two"}}).want(t, 200).decode(t, &sugg)
	byPath := map[string]string{}
	for _, g := range sugg.Suggestions {
		byPath[g.Path] = g.ID
	}
	if byPath["/suggest-me-one"] == "" || byPath["/suggest-me-two"] == "" {
		t.Fatalf("POST .../suggestions = %+v; want one for each miss", sugg)
	}
	d.call(admin, "GET", pbase+"/suggestions", nil).want(t, 200)
	d.call(admin, "POST", pbase+"/suggestions/accept", map[string]any{"id": byPath["/suggest-me-one"]}).want(t, 200)
	d.call(admin, "POST", pbase+"/suggestions/accept", map[string]any{"id": byPath["/suggest-me-one"]}).want(t, 409)
	d.call(admin, "POST", pbase+"/suggestions/dismiss", map[string]any{"id": byPath["/suggest-me-two"]}).want(t, 200)
	d.call(admin, "POST", pbase+"/suggestions/dismiss", map[string]any{"id": byPath["/suggest-me-two"]}).want(t, 409)
	if err := e.store.DeleteMiss(ctx, a.project.ID, "/suggest-me-two"); err != nil {
		t.Fatal(err)
	}
	// Destination checks: none before the first; a bad base URL is a 400
	// and checks nothing; a check answers every destination, and the list
	// then holds them.
	var checksAns struct {
		Checks []struct{ Destination, Outcome string }
		Broken int
	}
	d.call(admin, "GET", pbase+"/destination-checks", nil).want(t, 200).decode(t, &checksAns)
	if checksAns.Checks == nil || len(checksAns.Checks) != 0 {
		t.Fatalf("destination checks before any = %+v, want an empty list", checksAns)
	}
	d.call(admin, "POST", pbase+"/destination-checks", map[string]any{"baseUrl": "ftp://www.example.com"}).want(t, 400, "INVALID_INPUT")
	var reportAns struct {
		Checks      []struct{ Destination string }
		Skipped     int
		NewlyBroken []string
	}
	d.call(admin, "POST", pbase+"/destination-checks?wait=true", map[string]any{"baseUrl": "https://www.example.com"}).want(t, 200).decode(t, &reportAns)
	d.call(admin, "GET", pbase+"/destination-checks", nil).want(t, 200).decode(t, &checksAns)
	if len(reportAns.Checks) == 0 || len(checksAns.Checks) != len(reportAns.Checks) || reportAns.NewlyBroken == nil {
		t.Fatalf("a check = %+v, then the list %+v; want every destination in both", reportAns, checksAns)
	}
	d.call(admin, "POST", pbase+"/destination-checks?wait=maybe", nil).want(t, 400, "INVALID_QUERY")
	// Without ?wait, a check is started and answered 202 with its
	// Location, which shows it running or done.
	var jobAns struct {
		ID, State string
		Total     int
		Report    *struct {
			Checks []struct{ Destination string }
		}
	}
	started := d.call(admin, "POST", pbase+"/destination-checks", map[string]any{"baseUrl": "https://www.example.com"}).want(t, 202)
	started.decode(t, &jobAns)
	loc := started.header.Get("Location")
	if jobAns.State != "running" || loc != pbase+"/destination-checks/"+jobAns.ID || jobAns.Total != len(reportAns.Checks) {
		t.Fatalf("POST .../destination-checks = %+v, Location %q; want running, %d destinations, at %s/destination-checks/%s", jobAns, loc, len(reportAns.Checks), pbase, jobAns.ID)
	}
	for deadline := time.Now().Add(10 * time.Second); jobAns.State == "running" && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		d.call(admin, "GET", loc, nil).want(t, 200).decode(t, &jobAns)
	}
	if jobAns.State != "done" || jobAns.Report == nil || len(jobAns.Report.Checks) != len(reportAns.Checks) {
		t.Fatalf("GET %s = %+v; want done with its report", loc, jobAns)
	}
	d.call(admin, "GET", pbase+"/destination-checks/chk_missing", nil).want(t, 404, "NOT_FOUND")
	// One check runs per project at a time: a second is a 409 naming the
	// one that runs (here one recorded as a node would record it).
	jobs := e.store.(redirects.CheckStore)
	running := &redirects.CheckJob{ID: redirects.NewCheckJobID(), ProjectID: a.project.ID, Owner: "another node",
		LeaseUntil: e.clock.Now().Add(time.Hour), BaseURL: "https://www.example.com", StartedAt: e.clock.Now()}
	if err := jobs.StartCheckJob(ctx, running); err != nil {
		t.Fatal(err)
	}
	if r := d.call(admin, "POST", pbase+"/destination-checks", map[string]any{"baseUrl": "https://www.example.com"}).want(t, 409, "CONFLICT"); !strings.Contains(string(r.body), running.ID) {
		t.Errorf("a second check: %s, want the message to name %s", r.body, running.ID)
	}
	var listAns struct{ Running *struct{ ID, State string } }
	d.call(admin, "GET", pbase+"/destination-checks", nil).want(t, 200).decode(t, &listAns)
	if listAns.Running == nil || listAns.Running.ID != running.ID || listAns.Running.State != "running" {
		t.Fatalf("GET .../destination-checks while a check runs: running = %+v, want %s", listAns.Running, running.ID)
	}
	if _, err := jobs.FinishCheckJob(ctx, running.ID, nil, 0, "ended by the test"); err != nil {
		t.Fatal(err)
	}
	var hitsAns struct {
		StaleSince *string
		Rules      []struct {
			Source  string
			Hits    int64
			LastHit *string
		}
	}
	d.call(admin, "GET", pbase+"/hits", nil).want(t, 200).decode(t, &hitsAns)
	byHit := map[string]int64{}
	for _, r := range hitsAns.Rules {
		byHit[r.Source] = r.Hits
	}
	if byHit["/old"] != 9 || len(hitsAns.Rules) < 2 || hitsAns.StaleSince != nil {
		t.Fatalf("hits = %+v, want /old with 9 among the draft's rules", hitsAns)
	}
	// Stale since a day after the last hit: listed; since the morning of
	// the hit: not.
	staleSources := func(since string) []string {
		d.call(admin, "GET", pbase+"/hits?staleSince="+since, nil).want(t, 200).decode(t, &hitsAns)
		if hitsAns.StaleSince == nil || !strings.HasPrefix(*hitsAns.StaleSince, since) {
			t.Fatalf("staleSince %s answered %v", since, hitsAns.StaleSince)
		}
		var out []string
		for _, r := range hitsAns.Rules {
			out = append(out, r.Source)
		}
		return out
	}
	if got := staleSources("2026-03-03"); !slices.Contains(got, "/old") || len(got) != len(byHit) {
		t.Fatalf("stale since 2026-03-03 = %v, want every rule, /old too (last hit 2026-03-02)", got)
	}
	if got := staleSources("2026-03-02"); slices.Contains(got, "/old") || len(got) != len(byHit)-1 {
		t.Fatalf("stale since 2026-03-02 = %v, want every rule but /old", got)
	}
	d.call(admin, "GET", pbase+"/hits?staleSince=yesterday", nil).want(t, 400, codeInvalidQuery)
	var page struct {
		Rules []struct {
			Source  string
			Hits    int64
			LastHit *string
		}
	}
	d.call(admin, "GET", pbase+"/rules?q=/old", nil).want(t, 200).decode(t, &page)
	if len(page.Rules) != 1 || page.Rules[0].Hits != 9 || page.Rules[0].LastHit == nil || *page.Rules[0].LastHit != "2026-03-02T10:00:00Z" {
		t.Fatalf("rule list with hits = %+v", page)
	}
	var missAns struct {
		Misses []struct {
			Path  string
			Count int64
		}
	}
	d.call(admin, "GET", pbase+"/misses", nil).want(t, 200).decode(t, &missAns)
	if fmt.Sprint(missAns.Misses) != "[{/gone 5} {/lost 3}]" {
		t.Fatalf("misses = %+v", missAns)
	}
	d.call(admin, "GET", pbase+"/misses?limit=1", nil).want(t, 200).decode(t, &missAns)
	if len(missAns.Misses) != 1 {
		t.Fatalf("misses?limit=1 = %+v", missAns)
	}
	for _, q := range []string{"limit=0", "limit=10001", "limit=x"} {
		d.call(admin, "GET", pbase+"/misses?"+q, nil).want(t, 400, codeInvalidQuery)
	}
	d.call(admin, "DELETE", pbase+"/misses", nil).want(t, 400, codeInvalidQuery)
	d.call(admin, "DELETE", pbase+"/misses?path=/never", nil).want(t, 404, "NOT_FOUND")
	// A rule from a miss: a bad destination changes nothing; a good one
	// puts the rule in the draft and forgets the miss; a second is a
	// conflict.
	d.call(admin, "POST", pbase+"/misses/rule", map[string]any{"path": "/gone", "destination": "ftp://x"}).want(t, 400, "INVALID_INPUT")
	d.call(admin, "POST", pbase+"/misses/rule", map[string]any{"destination": "/x"}).want(t, 400)
	d.call(admin, "POST", pbase+"/misses/rule", map[string]any{"path": "/gone", "destination": "/found", "statusCode": 302}).want(t, 201)
	d.call(admin, "POST", pbase+"/misses/rule", map[string]any{"path": "/gone", "destination": "/found"}).want(t, 409)
	var goneRule api.Rule
	d.call(admin, "POST", pbase+"/misses/rule", map[string]any{"path": "/retired", "statusCode": 410}).want(t, 201).decode(t, &goneRule)
	if goneRule.StatusCode != 410 || goneRule.Destination != "" {
		t.Fatalf("a 410 from a miss = %+v", goneRule)
	}
	d.call(admin, "GET", pbase+"/misses", nil).want(t, 200).decode(t, &missAns)
	if fmt.Sprint(missAns.Misses) != "[{/lost 3}]" {
		t.Fatalf("misses after a rule from /gone = %+v", missAns)
	}
	d.call(admin, "DELETE", pbase+"/misses?path=/lost", nil).want(t, 204)
	d.call(admin, "GET", pbase+"/misses", nil).want(t, 200).decode(t, &missAns)
	if len(missAns.Misses) != 0 {
		t.Fatalf("misses after forgetting /lost = %+v", missAns)
	}

	// Usage as edge nodes count and flush it: the month's total, and per
	// key and day.
	if err := e.store.AddUsage(ctx, "2026-03", map[string]int64{a.org.ID: 12}); err != nil {
		t.Fatal(err)
	}
	if err := e.store.AddKeyUsage(ctx, []redirects.DailyUsage{
		{KeyID: a.key.ID, Day: "2026-03-01", Count: 4},
		{KeyID: a.key.ID, Day: "2026-03-13", Count: 7},
	}); err != nil {
		t.Fatal(err)
	}

	// Keys.
	var keys struct{ Keys []api.ListedKey }
	d.call(admin, "GET", pbase+"/keys", nil).want(t, 200).decode(t, &keys)
	for _, k := range keys.Keys {
		if k.ID == a.key.ID && (k.LastUsedAt == nil || *k.LastUsedAt != "2026-03-13") {
			t.Fatalf("key %s lastUsedAt %v, want 2026-03-13", k.ID, k.LastUsedAt)
		}
	}
	d.call(admin, "POST", pbase+"/keys", map[string]any{"name": strings.Repeat("k", 201)}).want(t, 400, "INVALID_INPUT")
	var key api.Key
	d.call(admin, "POST", pbase+"/keys", nil).want(t, 201)
	d.call(admin, "POST", pbase+"/keys", map[string]any{"name": "staging", "test": true}).want(t, 201).decode(t, &key)
	// A key never used carries "lastUsedAt": null, as the document
	// requires (the list is validated against it by call).
	if r := d.call(admin, "GET", pbase+"/keys", nil).want(t, 200); !strings.Contains(string(r.body), `"id":"`+key.ID+`","name":"staging","mode":"test","last4":"`+key.Last4+`","createdAt":"`+key.CreatedAt+`","revokedAt":null,"lastUsedAt":null}`) {
		t.Fatalf("the key list shows the unused key %s without \"lastUsedAt\": null:\n%s", key.ID, r.body)
	}
	d.call(admin, "DELETE", pbase+"/keys/"+key.ID, nil).want(t, 204)
	// By its full secret, in the body: the key, revoked; again, the same
	// revokedAt; a key of no project of this one's, 404; none, 400.
	var byBody, again api.Key
	d.call(admin, "POST", pbase+"/keys", map[string]any{"name": "doomed"}).want(t, 201).decode(t, &key)
	d.call(admin, "POST", pbase+"/revoke-key", map[string]any{"key": key.Secret}).want(t, 200).decode(t, &byBody)
	if byBody.ID != key.ID || byBody.RevokedAt == nil || byBody.Secret != "" {
		t.Fatalf("revoke-key by the secret answered %+v, want key %s revoked, without its secret", byBody, key.ID)
	}
	d.call(admin, "POST", pbase+"/revoke-key", map[string]any{"key": key.Secret}).want(t, 200).decode(t, &again)
	if again.RevokedAt == nil || *again.RevokedAt != *byBody.RevokedAt {
		t.Fatalf("revoke-key again answered %+v, want the first revokedAt %v", again, *byBody.RevokedAt)
	}
	d.call(admin, "POST", pbase+"/revoke-key", map[string]any{"key": "redir_live_" + strings.Repeat("x", 32)}).want(t, 404, "NOT_FOUND")
	d.call(admin, "POST", pbase+"/revoke-key", map[string]any{}).want(t, 400, "INVALID_INPUT")

	// Usage and audit.
	var u usageJSON
	d.call(admin, "GET", obase+"/usage?month=2026-03", nil).want(t, 200).decode(t, &u)
	if u.Total != 12 || len(u.Days) != 14 || u.Days[12] != (dayJSON{Day: "2026-03-13", Count: 7}) || len(u.Keys) < 2 ||
		u.Keys[0].ID != a.key.ID || u.Keys[0].Count != 11 || len(u.Keys[0].Days) != 2 {
		t.Fatalf("usage in March = %+v", u)
	}
	gone := false
	for _, k := range u.Keys {
		gone = gone || k.ID == goneKey.ID && k.ProjectID == "" && k.Count == 1
	}
	if !gone {
		t.Fatalf("usage in March has no key %s of the deleted project: %+v", goneKey.ID, u.Keys)
	}
	d.call(admin, "GET", obase+"/usage", nil).want(t, 200)
	d.call(admin, "GET", obase+"/usage?month=March", nil).want(t, 400, codeInvalidQuery)
	d.call(admin, "GET", obase+"/audit?limit=2&action=rule.*", nil).want(t, 200)
	r = d.call(admin, "GET", obase+"/audit", nil, "Accept", "text/csv").want(t, 200)
	if !strings.HasPrefix(r.header.Get("Content-Type"), "text/csv") {
		t.Fatalf("audit with Accept: text/csv answered %s", r.header.Get("Content-Type"))
	}
	d.call(admin, "GET", obase+"/audit?limit=20000", nil).want(t, 400, "INVALID_INPUT")

	// Webhooks: every answer of the routes, from the owner.
	d.call(admin, "GET", obase+"/webhooks", nil).want(t, 200)
	var made struct {
		ID string `json:"id"`
	}
	d.call(admin, "POST", obase+"/webhooks", map[string]any{"url": "https://hooks.example.com/made", "actions": []string{"rule.*"}}).want(t, 201).decode(t, &made)
	whbase := obase + "/webhooks/" + made.ID
	d.call(admin, "PATCH", whbase, map[string]any{"paused": true}).want(t, 200)
	d.call(admin, "POST", whbase+"/test", nil).want(t, 202)
	d.call(admin, "POST", whbase+"/secret", nil).want(t, 200)
	d.call(admin, "GET", whbase+"/deliveries", nil).want(t, 200)
	d.call(admin, "GET", whbase+"/deliveries?limit=0", nil).want(t, 400, "INVALID_INPUT")
	d.call(admin, "POST", obase+"/webhooks/"+hook.ID+"/deliveries/"+hookDelivery+"/redeliver", nil).want(t, 202)
	d.call(admin, "DELETE", whbase, nil).want(t, 204)
	d.call(admin, "GET", obase+"/audit?since=yesterday", nil).want(t, 400, codeInvalidQuery)
	d.call(admin, "GET", obase+"/audit?project=prj_missing00000000", nil).want(t, 404, "NOT_FOUND")

	// Outside the operations: the 405 and 404 of the router, and the 503
	// of a listener whose store cannot be reached.
	d.checkError(e.anon().do("PUT", "/manage/v1/orgs", nil), 405, codeMethod)
	d.checkError(e.anon().do("GET", "/manage/v2/orgs", nil), 404, "NOT_FOUND")
	un := httptest.NewServer(Unavailable())
	defer un.Close()
	res, err := http.Get(un.URL + "/manage/v1/orgs")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Body)
	res.Body.Close()
	d.checkError(&resp{status: res.StatusCode, header: res.Header, body: b, req: "GET /manage/v1/orgs (unavailable)"}, 503, "SERVICE_UNAVAILABLE")

	// A token past its expiry is refused (every session of the test ends
	// too, so this comes last).
	e.clock.Add(2 * time.Hour)
	d.call(e.withToken(expiring), "GET", "/manage/v1/orgs", nil).want(t, 401, codeUnauthenticated)

	// A store that fails answers 500 and tells nothing.
	e.store.Close()
	d.checkError(a.tokens[redirects.RoleViewer].do("GET", "/manage/v1/orgs", nil), 500, "INTERNAL_ERROR")

	// Every documented answer was produced, and every documented code.
	for _, n := range d.Unseen() {
		t.Errorf("documented but never produced: %s", n)
	}
	for _, c := range d.Spec.Components.Schemas["Error"].Value.Properties["code"].Value.Enum {
		if code := c.(string); !d.codes[code] {
			t.Errorf("error code %s is documented but was never answered", code)
		}
	}
}
