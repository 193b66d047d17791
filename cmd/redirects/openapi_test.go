package main_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"

	"redirects/internal/coding"
	"redirects/internal/openapitest"
)

// openAPIFile is api/openapi.yaml, seen from this package's directory.
const openAPIFile = "../../api/openapi.yaml"

// notExercised lists the documented answers that TestOpenAPI cannot
// produce from outside a healthy server: they need a failing store.
var notExercised = map[string]string{
	"GET /v1/lookup 500": "needs the store to fail while loading an older deployment",
	"GET /v1/lookup 503": "needs the store to be unreachable with nothing cached",
	"GET /v1/export 500": "needs the store to fail while loading an export",
	"GET /healthz 503":   "needs a node whose store is not loaded yet or that is shutting down (TestReadyzWithoutStore)",
	"GET /readyz 503":    "needs a node whose store is not loaded yet or that is shutting down (TestReadyzWithoutStore)",
}

// codesNotExercised lists the Error codes of those same answers.
var codesNotExercised = map[string]bool{"INTERNAL_ERROR": true, "SERVICE_UNAVAILABLE": true}

// apiDoc validates real exchanges against the OpenAPI document and records
// what was exercised.
type apiDoc struct {
	*openapitest.Doc
	t       *testing.T
	codes   map[string]bool // Error codes answered
	formats map[string]bool // export formats answered with 200
	methods map[string]bool // methods answered with 405
}

func loadAPIDoc(t *testing.T) *apiDoc {
	t.Helper()
	return &apiDoc{Doc: openapitest.Load(t, openAPIFile), t: t, codes: map[string]bool{},
		formats: map[string]bool{}, methods: map[string]bool{}}
}

// authenticate stands for the server's own key check in request
// validation: it only asks that the documented header is there.
func authenticate(_ context.Context, in *openapi3filter.AuthenticationInput) error {
	s := in.SecurityScheme
	if s.Type != "apiKey" || s.In != "header" {
		return errors.New("unexpected security scheme " + s.Type + " in " + s.In)
	}
	if in.RequestValidationInput.Request.Header.Get(s.Name) == "" {
		return errors.New("no " + s.Name + " header")
	}
	return nil
}

// paramErrors are the 400 codes whose request the document's parameter
// schemas must refuse too. (INVALID_QUERY is about the query string's
// syntax, which the document cannot describe.)
var paramErrors = map[string]bool{
	"MISSING_PROJECT": true, "MISSING_PATH": true, "INVALID_PATH": true,
	"MISSING_FORMAT": true, "INVALID_FORMAT": true, "INVALID_VERSION": true,
}

// call sends one request to the edge and validates the exchange against
// the document: the request (for answers that accepted or refused its
// parameters), the status, the headers and the body.
func (a *apiDoc) call(e *edge, method, target, key string, hdr map[string]string) reply {
	t := a.t
	t.Helper()
	r := e.do(method, target, key, hdr)
	what := method + " " + target

	// The document lists the 405 answer under GET (OpenAPI attaches
	// answers to operations), so other methods are routed as GET.
	req, err := http.NewRequest(http.MethodGet, e.base+target, nil)
	if err != nil {
		t.Fatal(err)
	}
	if key != "" {
		req.Header.Set("X-API-Key", key)
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	route, pathParams, err := a.Router.FindRoute(req)
	if err != nil {
		t.Fatalf("%s: no route in the document: %v", what, err)
	}
	if method != http.MethodGet && r.status != http.StatusMethodNotAllowed {
		t.Fatalf("%s: %d %s, want 405", what, r.status, r.body)
	}
	in := &openapi3filter.RequestValidationInput{
		Request: req, PathParams: pathParams, Route: route,
		Options: &openapi3filter.Options{AuthenticationFunc: authenticate, MultiError: true},
	}

	var code string
	if r.header.Get("Content-Type") == "application/json" && r.status >= 400 {
		var body struct{ Code string }
		if err := json.Unmarshal([]byte(r.body), &body); err == nil {
			code = body.Code
		}
	}

	// The request: accepted ones must be valid, refused parameters invalid.
	if method == http.MethodGet {
		reqErr := openapi3filter.ValidateRequest(context.Background(), in)
		switch {
		case r.status < 400 && reqErr != nil:
			t.Fatalf("%s: the server answered %d, but the document refuses the request: %v", what, r.status, reqErr)
		case r.status == 400 && paramErrors[code] && reqErr == nil:
			t.Fatalf("%s: the server answered 400 %s, but the document accepts the request", what, code)
		}
	}

	// The answer, with the library and what it leaves out.
	ans := openapitest.Answer{Status: r.status, Header: r.header, Body: []byte(r.body), NoBody: method == http.MethodHead}
	if ce := r.header.Get("Content-Encoding"); ce != "" {
		b, err := coding.Decode(ce, []byte(r.body))
		if err != nil {
			t.Fatalf("%s: a body in Content-Encoding %s that does not decode: %v", what, ce, err)
		}
		ans.Decoded = b
	}
	a.CheckAnswer(t, what, in, ans)
	if r.status >= 400 && method != http.MethodHead && code == "" {
		t.Fatalf("%s: error answer %d without a JSON code: %s", what, r.status, r.body)
	}

	if code != "" {
		a.codes[code] = true
	}
	if r.status == http.StatusMethodNotAllowed {
		a.methods[method] = true
	}
	if route.Path == "/v1/export" && r.status == http.StatusOK {
		format := req.URL.Query().Get("format")
		want := "text/plain; charset=utf-8"
		if format == "csv" {
			want = "text/csv; charset=utf-8"
		}
		if ct := r.header.Get("Content-Type"); ct != want {
			t.Fatalf("%s: Content-Type %q, want %q", what, ct, want)
		}
		a.formats[format] = true
	}
	return r
}

// checkError validates an answer outside the document's paths against its
// Error schema.
func (a *apiDoc) checkError(r reply, status int) {
	t := a.t
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(r.body), &v); err != nil || r.status != status {
		t.Fatalf("got %d %s, want %d with a JSON error body", r.status, r.body, status)
	}
	if err := a.Spec.Components.Schemas["Error"].Value.VisitJSON(v); err != nil {
		t.Fatalf("%d %s does not match the Error schema: %v", r.status, r.body, err)
	}
	if r.header.Get("Content-Type") != "application/json" || r.header.Get("Cache-Control") != "no-store" {
		t.Fatalf("%d: Content-Type %q Cache-Control %q, want application/json and no-store",
			r.status, r.header.Get("Content-Type"), r.header.Get("Cache-Control"))
	}
}

// enumStrings returns a schema's enum as strings.
func enumStrings(t *testing.T, s *openapi3.SchemaRef) []string {
	t.Helper()
	var out []string
	for _, v := range s.Value.Enum {
		out = append(out, v.(string))
	}
	if len(out) == 0 {
		t.Fatal("empty enum in the document")
	}
	return out
}

// TestOpenAPIDocument checks the document's shape against the spec, so the
// document cannot lose what the spec requires.
func TestOpenAPIDocument(t *testing.T) {
	a := loadAPIDoc(t)
	doc := a.Spec
	s := doc.Components.SecuritySchemes["ApiKeyAuth"]
	if s == nil || s.Value.Type != "apiKey" || s.Value.In != "header" || s.Value.Name != "X-API-Key" {
		t.Fatalf("security scheme ApiKeyAuth: %+v, want apiKey in header X-API-Key", s)
	}
	if len(doc.Security) != 1 {
		t.Fatalf("document security %v, want ApiKeyAuth on every operation", doc.Security)
	}
	want := map[string][]string{
		"/v1/lookup": {"200", "204", "400", "401", "404", "405", "429", "500", "503"},
		"/v1/export": {"200", "304", "400", "401", "404", "405", "429", "500"},
		"/healthz":   {"200", "503"},
		"/readyz":    {"200", "503"},
	}
	params := map[string][]string{"/v1/lookup": {"project", "path", "version"}, "/v1/export": {"project", "format", "version"}}
	if n := doc.Paths.Len(); n != len(want) {
		t.Fatalf("%d paths, want %d", n, len(want))
	}
	for path, statuses := range want {
		item := doc.Paths.Value(path)
		if item == nil || len(item.Operations()) != 1 || item.Get == nil {
			t.Fatalf("%s: want exactly one operation, GET", path)
		}
		var got []string
		for st := range item.Get.Responses.Map() {
			got = append(got, st)
		}
		sort.Strings(got)
		if strings.Join(got, " ") != strings.Join(statuses, " ") {
			t.Fatalf("%s statuses %v, want %v", path, got, statuses)
		}
		for _, name := range params[path] {
			if item.Get.Parameters.GetByInAndName("query", name) == nil {
				t.Fatalf("%s: no query parameter %s", path, name)
			}
		}
	}
	formats := enumStrings(t, doc.Components.Schemas["Format"])
	if strings.Join(formats, ", ") != "csv, nginx, nginx-map-exact, nginx-map-prefix, haproxy, haproxy-map-exact, haproxy-map-prefix" {
		t.Fatalf("format enum %v", formats)
	}
	codes := enumStrings(t, doc.Components.Schemas["Error"].Value.Properties["code"])
	if len(codes) != 15 {
		t.Fatalf("Error code enum has %d values, want 15: %v", len(codes), codes)
	}
	for _, name := range []string{"LookupResult", "Error"} {
		if s := doc.Components.Schemas[name].Value; s.AdditionalProperties.Has == nil || *s.AdditionalProperties.Has ||
			len(s.Required) != len(s.Properties) {
			t.Fatalf("%s: want additionalProperties false and every property required", name)
		}
	}
}

// TestOpenAPI runs the real server, produces every kind of answer, and
// validates each one against api/openapi.yaml.
func TestOpenAPI(t *testing.T) { eachEngine(t, testOpenAPI) }

func testOpenAPI(t *testing.T, c *cli) {
	a := loadAPIDoc(t)
	org, p, key := deployed(t, c)
	testKey := c.ok("key", "create", "--project", p, "--test")
	revoked := c.ok("key", "create", "--project", p)
	c.ok("key", "revoke", "--project", p, revoked)
	empty := c.ok("project", "create", "--org", org, "--name", "empty")
	emptyKey := c.ok("key", "create", "--project", empty)
	_, pRate, keyRate := deployed(t, c, "--rate-limit", "2")
	testRate := c.ok("key", "create", "--project", pRate, "--test")
	_, pQuota, keyQuota := deployed(t, c, "--monthly-quota", "1")
	orgEnt, pEnt, keyEnt := deployed(t, c)
	c.ok("org", "update", orgEnt, "--tier", "enterprise")
	e := startEdge(t, c, atClockStart)

	get := func(target, key string) reply {
		t.Helper()
		return a.call(e, http.MethodGet, target, key, nil)
	}
	export := func(project, format string, extra ...string) string {
		q := "/v1/export?project=" + url.QueryEscape(project) + "&format=" + url.QueryEscape(format)
		for _, x := range extra {
			q += "&" + x
		}
		return q
	}
	wantStatus := func(r reply, status int, code string) {
		t.Helper()
		if r.status != status || !strings.Contains(r.body, `"code":"`+code+`"`) {
			t.Fatalf("got %d %s, want %d %s", r.status, r.body, status, code)
		}
	}

	// Lookup 200 and 204: exact, prefix, a version, a test key, unlimited.
	for _, k := range []string{key, testKey} {
		if r := get(lookupURL(p, "/old"), k); r.status != 200 || !strings.Contains(r.body, `"matchType":"exact"`) {
			t.Fatalf("exact lookup: %d %s", r.status, r.body)
		}
	}
	if r := get(lookupURL(p, "/blog/2020/post?x=1", "version=1"), key); r.status != 200 || !strings.Contains(r.body, `"statusCode":302`) {
		t.Fatalf("prefix lookup: %d %s", r.status, r.body)
	}
	if r := get(lookupURL(p, "/nothing"), key); r.status != 204 {
		t.Fatalf("miss: %d %s", r.status, r.body)
	}
	r := get(lookupURL(pEnt, "/old"), keyEnt)
	wantHeaders(t, r, map[string]string{"X-RateLimit-Limit": "unlimited", "X-RateLimit-Remaining": "unlimited",
		"X-Quota-Limit": "unlimited", "X-Quota-Remaining": "unlimited"})
	if r := get(lookupURL(pEnt, "/none"), keyEnt); r.status != 204 {
		t.Fatalf("enterprise miss: %d", r.status)
	}

	// Export 200 in every format, 304, and an older version.
	for _, f := range enumStrings(t, a.Spec.Components.Schemas["Format"]) {
		for _, k := range []string{key, keyEnt} {
			pr := p
			if k == keyEnt {
				pr = pEnt
			}
			r := get(export(pr, f), k)
			if r.status != 200 {
				t.Fatalf("export %s: %d %s", f, r.status, r.body)
			}
			nm := a.call(e, http.MethodGet, export(pr, f), k, map[string]string{"If-None-Match": r.header.Get("ETag")})
			if nm.status != 304 {
				t.Fatalf("export %s with its ETag: %d, want 304", f, nm.status)
			}
			// Compressed, as asked: its own ETag, and 304 with it.
			for _, ae := range []string{"gzip", "zstd"} {
				h := map[string]string{"Accept-Encoding": ae}
				r := a.call(e, http.MethodGet, export(pr, f), k, h)
				if r.status != 200 || r.header.Get("Content-Encoding") != ae || !strings.HasSuffix(r.header.Get("ETag"), "-"+ae+`"`) {
					t.Fatalf("export %s, Accept-Encoding %s: %d, Content-Encoding %q, ETag %q", f, ae, r.status, r.header.Get("Content-Encoding"), r.header.Get("ETag"))
				}
				h["If-None-Match"] = r.header.Get("ETag")
				if nm := a.call(e, http.MethodGet, export(pr, f), k, h); nm.status != 304 {
					t.Fatalf("export %s, Accept-Encoding %s, with its ETag: %d, want 304", f, ae, nm.status)
				}
			}
		}
	}
	if r := get(export(p, "csv", "version=1"), testKey); r.status != 200 {
		t.Fatalf("export version=1 with a test key: %d %s", r.status, r.body)
	}

	// 400, every code, on both endpoints.
	for _, x := range []struct{ target, code string }{
		{"/v1/lookup?path=/old", "MISSING_PROJECT"},
		{"/v1/lookup?project=&path=/old", "MISSING_PROJECT"},
		{"/v1/lookup?project=" + p, "MISSING_PATH"},
		{"/v1/lookup?project=" + p + "&path=", "MISSING_PATH"},
		{lookupURL(p, "old"), "INVALID_PATH"},
		{lookupURL(p, "/"+strings.Repeat("a", 3000)), "INVALID_PATH"},
		{lookupURL(p, "/old", "version=0"), "INVALID_VERSION"},
		{lookupURL(p, "/old", "version=-1"), "INVALID_VERSION"},
		{lookupURL(p, "/old", "version=abc"), "INVALID_VERSION"},
		{lookupURL(p, "/old", "version=1.5"), "INVALID_VERSION"},
		{lookupURL(p, "/old", "version="), "INVALID_VERSION"},
		{lookupURL(p, "/old", "project="+p), "INVALID_QUERY"},
		{"/v1/lookup?project=" + p + "&path=%zz", "INVALID_QUERY"},
		{"/v1/export?format=csv", "MISSING_PROJECT"},
		{"/v1/export?project=" + p, "MISSING_FORMAT"},
		{export(p, ""), "MISSING_FORMAT"},
		{export(p, "apache"), "INVALID_FORMAT"},
		{export(p, "CSV"), "INVALID_FORMAT"},
		{export(p, "csv", "version=0"), "INVALID_VERSION"},
		{export(p, "csv", "version=x"), "INVALID_VERSION"},
		{export(p, "csv", "format=nginx"), "INVALID_QUERY"},
	} {
		wantStatus(get(x.target, key), 400, x.code)
	}
	wantStatus(get(lookupURL(p, "old"), testKey), 400, "INVALID_PATH")

	// 401, both codes, both endpoints.
	for _, target := range []string{lookupURL(p, "/old"), export(p, "csv"), "/v1/lookup"} {
		wantStatus(get(target, ""), 401, "MISSING_API_KEY")
		wantStatus(a.call(e, http.MethodGet, target, "", map[string]string{"X-API-Key": ""}), 401, "MISSING_API_KEY")
		for _, bad := range []string{"nonsense", "redir_live_" + strings.Repeat("A", 32), "redir_test_" + strings.Repeat("b", 32), revoked} {
			wantStatus(get(target, bad), 401, "INVALID_API_KEY")
		}
	}

	// 404, every kind, both endpoints.
	for _, x := range []struct{ target, key, msg string }{
		{lookupURL("prj_doesnotexist00", "/old"), key, "Project not found"},
		{lookupURL(empty, "/old"), key, "Project not found"},
		{lookupURL(empty, "/old"), emptyKey, "No deployments available. Deploy the project first."},
		{lookupURL(empty, "/old", "version=2"), emptyKey, "Deployment not found for version 2"},
		{lookupURL(p, "/old", "version=9"), key, "Deployment not found for version 9"},
		{export("prj_doesnotexist00", "csv"), key, "Project not found"},
		{export(empty, "csv"), key, "Project not found"},
		{export(empty, "nginx"), emptyKey, "No exports available. Deploy the project first."},
		{export(empty, "nginx", "version=3"), emptyKey, "Export not found for version 3"},
		{export(p, "haproxy", "version=7"), key, "Export not found for version 7"},
	} {
		r := get(x.target, x.key)
		wantStatus(r, 404, "NOT_FOUND")
		if !strings.Contains(r.body, `"error":"`+x.msg+`"`) {
			t.Fatalf("%s: %s, want the message %q", x.target, r.body, x.msg)
		}
	}

	// 405 for every other method, with and without a key.
	for _, m := range []string{"POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS", "TRACE"} {
		for _, target := range []string{lookupURL(p, "/old"), export(p, "csv")} {
			for _, k := range []string{key, ""} {
				r := a.call(e, m, target, k, nil)
				wantHeaders(t, r, map[string]string{"Allow": "GET", "X-RateLimit-Limit": ""})
			}
		}
	}

	// 429: the rate limit (live key, then export, then the test window).
	for i := 0; i < 2; i++ {
		if r := get(lookupURL(pRate, "/old"), keyRate); r.status != 200 {
			t.Fatalf("lookup %d within a limit of 2: %d %s", i+1, r.status, r.body)
		}
	}
	r = get(lookupURL(pRate, "/old"), keyRate)
	wantStatus(r, 429, "RATE_LIMIT_EXCEEDED")
	wantHeaders(t, r, map[string]string{"X-RateLimit-Limit": "2", "X-RateLimit-Remaining": "0"})
	wantStatus(get(export(pRate, "csv"), keyRate), 429, "RATE_LIMIT_EXCEEDED")
	wantStatus(get(lookupURL(pRate, "old"), keyRate), 429, "RATE_LIMIT_EXCEEDED") // limits come before parameters
	for i := 0; i < 2; i++ {
		if r := get(export(pRate, "nginx"), testRate); r.status != 200 {
			t.Fatalf("test key export %d: %d %s", i+1, r.status, r.body)
		}
	}
	wantStatus(get(lookupURL(pRate, "/old"), testRate), 429, "RATE_LIMIT_EXCEEDED")

	// 429: the monthly quota; exports are not refused for it.
	if r := get(lookupURL(pQuota, "/nothing"), keyQuota); r.status != 204 {
		t.Fatalf("lookup within a quota of 1: %d %s", r.status, r.body)
	}
	r = get(lookupURL(pQuota, "/old"), keyQuota)
	wantStatus(r, 429, "QUOTA_EXCEEDED")
	wantHeaders(t, r, map[string]string{"X-Quota-Limit": "1", "X-Quota-Remaining": "0"})
	wantStatus(get(lookupURL(pQuota, ""), keyQuota), 429, "QUOTA_EXCEEDED")
	if r := get(export(pQuota, "csv"), keyQuota); r.status != 200 {
		t.Fatalf("export past the quota: %d %s", r.status, r.body)
	}

	// The probes, with no key.
	for _, probe := range []string{"/healthz", "/readyz"} {
		if r := get(probe, ""); r.status != 200 {
			t.Fatalf("GET %s: %d %s", probe, r.status, r.body)
		}
	}

	// Paths outside the document still answer with the Error body.
	a.checkError(e.get("/v2/lookup", key), 404)
	a.checkError(e.get("/", ""), 404)

	// Coverage: every documented answer, code, format and method was seen.
	var missing []string
	for _, k := range a.Unseen() {
		if notExercised[k] == "" {
			missing = append(missing, k)
		}
	}
	for k := range notExercised {
		if a.Seen[k] {
			t.Errorf("%s is listed as not exercised but was: drop it from notExercised", k)
		}
	}
	for k := range a.Seen {
		if !strings.HasPrefix(k, "GET ") {
			t.Errorf("answer %s seen outside the document", k)
		}
	}
	for _, code := range enumStrings(t, a.Spec.Components.Schemas["Error"].Value.Properties["code"]) {
		if !a.codes[code] && !codesNotExercised[code] {
			missing = append(missing, "code "+code)
		}
	}
	for _, f := range enumStrings(t, a.Spec.Components.Schemas["Format"]) {
		if !a.formats[f] {
			missing = append(missing, "format "+f)
		}
	}
	if len(a.methods) != 7 {
		missing = append(missing, "405 for every method other than GET")
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Fatalf("documented but never exercised: %s", strings.Join(missing, ", "))
	}
}
