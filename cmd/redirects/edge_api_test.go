package main_test

import (
	"net"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"
)

var (
	minuteReset = strconv.FormatInt(time.Date(2026, 3, 10, 12, 31, 0, 0, time.UTC).Unix(), 10)
	monthReset  = strconv.FormatInt(time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC).Unix(), 10)
)

// deployed sets up an org (extra flags for its limits), a project with a
// few rules deployed as version 1, and a live key.
func deployed(t *testing.T, c *cli, orgFlags ...string) (org, project, key string) {
	t.Helper()
	org = c.ok(append([]string{"org", "create", "--name", "Acme", "--tier", "pro"}, orgFlags...)...)
	project = c.ok("project", "create", "--org", org, "--name", "www")
	c.ok("rule", "add", "--project", project, "--source", "/old", "--destination", "/new")
	c.ok("rule", "add", "--project", project, "--source", "/blog", "--destination", "https://blog.example.com/?a=1&b=2", "--match", "starts_with", "--status", "302")
	c.ok("deploy", "--project", project)
	key = c.ok("key", "create", "--project", project)
	return org, project, key
}

func lookupURL(project, path string, extra ...string) string {
	q := "/v1/lookup?project=" + url.QueryEscape(project) + "&path=" + url.QueryEscape(path)
	for _, e := range extra {
		q += "&" + e
	}
	return q
}

func TestEdgeLookup(t *testing.T) { eachEngine(t, testEdgeLookup) }

func testEdgeLookup(t *testing.T, c *cli) {
	_, p, key := deployed(t, c)
	e := startEdge(t, c, atClockStart)

	r := e.get(lookupURL(p, "/old"), key)
	if r.status != 200 || r.body != `{"destination":"/new","statusCode":301,"matchType":"exact"}` {
		t.Fatalf("exact hit: %d %s", r.status, r.body)
	}
	wantHeaders(t, r, map[string]string{
		"Content-Type": "application/json", "Cache-Control": "public, max-age=300", "Vary": "X-API-Key",
		"X-RateLimit-Limit": "1000", "X-RateLimit-Remaining": "999", "X-RateLimit-Reset": minuteReset,
		"X-Quota-Limit": "1000000", "X-Quota-Remaining": "999999", "X-Quota-Reset": monthReset,
		"Retry-After": "", "Content-Length": strconv.Itoa(len(r.body)),
	})

	r = e.get(lookupURL(p, "/blog/2020/post?x=1"), key)
	if r.status != 200 || r.body != `{"destination":"https://blog.example.com/?a=1&b=2","statusCode":302,"matchType":"starts_with"}` {
		t.Fatalf("prefix hit: %d %s", r.status, r.body)
	}

	r = e.get(lookupURL(p, "/nothing"), key)
	if r.status != 204 || r.body != "" {
		t.Fatalf("miss: %d %q", r.status, r.body)
	}
	wantHeaders(t, r, map[string]string{
		"Content-Type": "", "Cache-Control": "public, max-age=300", "Vary": "X-API-Key",
		"X-RateLimit-Remaining": "997", "X-Quota-Remaining": "999997", "X-Quota-Reset": monthReset,
	})

	// Versions: v2 adds a rule, v1 stays queryable.
	c.ok("rule", "add", "--project", p, "--source", "/nothing", "--destination", "/found")
	c.ok("deploy", "--project", p)
	within(t, propagation, "deploy of v2", func() bool { return e.get(lookupURL(p, "/nothing"), key).status == 200 })
	if r := e.get(lookupURL(p, "/nothing", "version=1"), key); r.status != 204 {
		t.Fatalf("version=1 miss: %d %s", r.status, r.body)
	}
	if r := e.get(lookupURL(p, "/nothing", "version=2"), key); r.status != 200 {
		t.Fatalf("version=2 hit: %d %s", r.status, r.body)
	}
	wantError(t, e.get(lookupURL(p, "/old", "version=9"), key), 404, "NOT_FOUND", "Deployment not found for version 9")
}

func TestEdgeErrors(t *testing.T) { eachEngine(t, testEdgeErrors) }

func testEdgeErrors(t *testing.T, c *cli) {
	org, p, key := deployed(t, c)
	e := startEdge(t, c, atClockStart)
	empty := c.ok("project", "create", "--org", org, "--name", "empty")
	emptyKey := c.ok("key", "create", "--project", empty)
	revoked := c.ok("key", "create", "--project", p)
	c.ok("key", "revoke", "--project", p, revoked)
	time.Sleep(500 * time.Millisecond) // well within the 1 s propagation

	for _, m := range []string{"POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS"} {
		for _, path := range []string{lookupURL(p, "/old"), "/v1/export?project=" + p + "&format=csv"} {
			r := e.do(m, path, key, nil)
			if r.status != 405 || r.header.Get("Allow") != "GET" {
				t.Fatalf("%s %s: %d Allow=%q, want 405 with Allow: GET", m, path, r.status, r.header.Get("Allow"))
			}
			if m != "HEAD" {
				wantError(t, r, 405, "METHOD_NOT_ALLOWED", "Method Not Allowed")
			}
		}
	}
	wantError(t, e.get(lookupURL(p, "/old"), ""), 401, "MISSING_API_KEY", "Unauthorized")
	wantError(t, e.do("GET", lookupURL(p, "/old"), "", map[string]string{"X-API-Key": ""}), 401, "MISSING_API_KEY", "Unauthorized")
	for _, bad := range []string{"nonsense", "redir_live_short", key + "x", "redir_live_" + strings.Repeat("A", 32), revoked} {
		r := e.get(lookupURL(p, "/old"), bad)
		wantError(t, r, 401, "INVALID_API_KEY", "Unauthorized")
		wantHeaders(t, r, map[string]string{"X-RateLimit-Limit": "", "X-Quota-Limit": ""})
	}
	r := e.get("/v1/lookup?path=/old", key)
	wantError(t, r, 400, "MISSING_PROJECT", "Missing project parameter")
	wantHeaders(t, r, map[string]string{"X-RateLimit-Limit": "1000", "X-Quota-Limit": "1000000", "X-RateLimit-Reset": minuteReset})
	wantError(t, e.get("/v1/lookup?project="+p, key), 400, "MISSING_PATH", "Missing path parameter")
	wantError(t, e.get(lookupURL(p, "old"), key), 400, "INVALID_PATH", "Invalid path parameter: it must start with / and be at most 2048 bytes")
	wantError(t, e.get(lookupURL(p, "/"+strings.Repeat("a", 3000)), key), 400, "INVALID_PATH", "Invalid path parameter: it must start with / and be at most 2048 bytes")
	for _, v := range []string{"0", "-1", "abc", "1.5", ""} {
		wantError(t, e.get(lookupURL(p, "/old", "version="+v), key), 400, "INVALID_VERSION", "Invalid version parameter: it must be a positive whole number")
	}
	wantError(t, e.get("/v1/export?format=csv", key), 400, "MISSING_PROJECT", "Missing project parameter")
	r = e.get("/v1/export?project="+p, key)
	wantError(t, r, 400, "MISSING_FORMAT", "Missing format parameter")
	wantHeaders(t, r, map[string]string{"X-RateLimit-Limit": "1000", "X-Quota-Limit": ""})
	wantError(t, e.get("/v1/export?project="+p+"&format=apache", key), 400, "INVALID_FORMAT",
		"Invalid format. Accepted formats: csv, nginx, nginx-map-exact, nginx-map-prefix, haproxy, haproxy-map-exact, haproxy-map-prefix")
	wantError(t, e.get(lookupURL("prj_doesnotexist00", "/old"), key), 404, "NOT_FOUND", "Project not found")
	wantError(t, e.get(lookupURL(empty, "/old"), key), 404, "NOT_FOUND", "Project not found") // another project's key
	wantError(t, e.get(lookupURL(empty, "/old"), emptyKey), 404, "NOT_FOUND", "No deployments available. Deploy the project first.")
	wantError(t, e.get("/v1/export?project="+empty+"&format=csv", emptyKey), 404, "NOT_FOUND", "No exports available. Deploy the project first.")
	wantError(t, e.get("/v1/export?project="+p+"&format=csv&version=7", key), 404, "NOT_FOUND", "Export not found for version 7")
	wantError(t, e.get("/v2/lookup", key), 404, "NOT_FOUND", "Not Found")
	wantError(t, e.get("/", ""), 404, "NOT_FOUND", "Not Found")
	// Order: an invalid key is refused before bad parameters are looked at.
	wantError(t, e.get("/v1/lookup", "nonsense"), 401, "INVALID_API_KEY", "Unauthorized")

	// Bad requests get a clear 4xx, never a 5xx.
	wantError(t, e.get(lookupURL(p, "/old")+"&project="+p, key), 400, "INVALID_QUERY", "Repeated project parameter")
	wantError(t, e.get("/v1/lookup?project="+p+"&path=%zz", key), 400, "INVALID_QUERY", "Malformed query string: bad escape in the path parameter")
	if r := e.get(lookupURL(p, "/\xff\xfe"), key); r.status != 204 {
		t.Fatalf("non-UTF-8 path: %d %s, want 204", r.status, r.body)
	}
	if r := e.get(lookupURL(p, "/old", "junk="+strings.Repeat("x", 12000)), key); r.status != 200 {
		t.Fatalf("long query string: %d %s", r.status, r.body)
	}
	huge := e.do("GET", lookupURL(p, "/old"), key, map[string]string{"X-Junk": strings.Repeat("x", 40000)})
	if huge.status != 431 {
		t.Fatalf("huge header: %d, want 431", huge.status)
	}

	// A request the engine cannot read at all (a header line without a
	// colon) gets the engine's own answer, as docs/api.md documents.
	bad := e.raw("GET " + lookupURL(p, "/old") + " HTTP/1.1\r\nHost: x\r\nX-API-Key " + key + "\r\n\r\n")
	switch c.engine {
	case "evhttp":
		wantError(t, huge, 431, "HEADERS_TOO_LARGE", "Request Header Fields Too Large")
		wantError(t, bad, 400, "BAD_REQUEST", "Bad Request")
	case "net/http":
		// Go's server answers these in plain text.
		if huge.body != "431 Request Header Fields Too Large" {
			t.Fatalf("huge header on net/http: %q, want Go's own 431 answer", huge.body)
		}
		if bad.status != 400 || !strings.HasPrefix(bad.body, "400 Bad Request") {
			t.Fatalf("header line without a colon on net/http: %d %q, want Go's own 400 answer", bad.status, bad.body)
		}
	}
}

// TestEdgeSlowClient holds a connection open with half a request: the
// server must cut it off after its read-header timeout, not hang.
func TestEdgeSlowClient(t *testing.T) { eachEngine(t, testEdgeSlowClient) }

func testEdgeSlowClient(t *testing.T, c *cli) {
	_, p, key := deployed(t, c)
	e := startEdge(t, c)
	conn, err := net.Dial("tcp", strings.TrimPrefix(e.base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.Write([]byte("GET " + lookupURL(p, "/old") + " HTTP/1.1\r\nHost: x\r\nX-API-Key: " + key + "\r\n")); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	conn.SetReadDeadline(time.Now().Add(15 * time.Second))
	buf := make([]byte, 512)
	for {
		n, err := conn.Read(buf)
		if err != nil {
			break // closed by the server
		}
		if strings.Contains(string(buf[:n]), " 200 ") {
			t.Fatalf("a request without its final CRLF was answered: %q", buf[:n])
		}
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Fatalf("the slow connection was held for %v, want it cut after the 5 s read-header timeout", took)
	}
	// The server still answers others.
	if r := e.get(lookupURL(p, "/old"), key); r.status != 200 {
		t.Fatalf("after the slow client: %d", r.status)
	}
}

// TestEdgeParameterOrder checks the order among parameter errors of docs/contract.md#order-of-checks
// and the edges of version numbers.
func TestEdgeParameterOrder(t *testing.T) { eachEngine(t, testEdgeParameterOrder) }

func testEdgeParameterOrder(t *testing.T, c *cli) {
	org, p, key := deployed(t, c)
	other := c.ok("project", "create", "--org", org, "--name", "other")
	e := startEdge(t, c, atClockStart)
	// A missing project is reported before a malformed or repeated parameter.
	wantError(t, e.get("/v1/lookup?path=%zz", key), 400, "MISSING_PROJECT", "Missing project parameter")
	wantError(t, e.get("/v1/lookup?path=/a&path=/b", key), 400, "MISSING_PROJECT", "Missing project parameter")
	wantError(t, e.get("/v1/lookup?project=%zz&path=/a", key), 400, "INVALID_QUERY", "Malformed query string: bad escape in the project parameter")
	// A version too large to exist is a valid number that is not found,
	// after the project check.
	wantError(t, e.get(lookupURL(p, "/old", "version=99999999999999999999"), key), 404, "NOT_FOUND", "Deployment not found for version 99999999999999999999")
	wantError(t, e.get("/v1/export?project="+p+"&format=csv&version=099999999999999999999", key), 404, "NOT_FOUND", "Export not found for version 99999999999999999999")
	wantError(t, e.get(lookupURL(other, "/old", "version=99999999999999999999"), key), 404, "NOT_FOUND", "Project not found")
	wantError(t, e.get(lookupURL(p, "/old", "version=000"), key), 400, "INVALID_VERSION", "Invalid version parameter: it must be a positive whole number")
}
