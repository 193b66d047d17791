package main_test

import (
	"io"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestEdgeExport(t *testing.T) { eachEngine(t, testEdgeExport) }

func testEdgeExport(t *testing.T, c *cli) {
	_, p, key := deployed(t, c)
	e := startEdge(t, c, atClockStart)
	for _, f := range []struct{ format, ext, ctype string }{
		{"csv", "csv", "text/csv; charset=utf-8"},
		{"nginx", "conf", "text/plain; charset=utf-8"},
		{"nginx-map-exact", "map", "text/plain; charset=utf-8"},
		{"nginx-map-prefix", "map", "text/plain; charset=utf-8"},
		{"haproxy", "cfg", "text/plain; charset=utf-8"},
		{"haproxy-map-exact", "map", "text/plain; charset=utf-8"},
		{"haproxy-map-prefix", "map", "text/plain; charset=utf-8"},
	} {
		target := "/v1/export?project=" + p + "&format=" + f.format
		r := e.get(target, key)
		if r.status != 200 {
			t.Fatalf("export %s: %d %s", f.format, r.status, r.body)
		}
		if want := c.exec("", "export", "--project", p, "--format", f.format).stdout; r.body != want {
			t.Fatalf("export %s over HTTP differs from the CLI's bytes", f.format)
		}
		wantHeaders(t, r, map[string]string{
			"Content-Type": f.ctype, "Content-Disposition": `attachment; filename="redirects.` + f.ext + `"`,
			"Cache-Control": "public, max-age=60", "Vary": "X-API-Key, Accept-Encoding", "ETag": "*",
			"X-RateLimit-Limit": "1000", "X-RateLimit-Remaining": "*", "X-RateLimit-Reset": minuteReset,
			"X-Quota-Limit": "", "X-Quota-Remaining": "", "X-Quota-Reset": "",
		})
		etag := r.header.Get("ETag")
		if !strings.HasPrefix(etag, `"`) || !strings.HasSuffix(etag, `"`) || len(etag) < 10 {
			t.Fatalf("ETag %q is not a strong entity tag", etag)
		}
		nm := e.do("GET", target, key, map[string]string{"If-None-Match": `"other", ` + etag})
		if nm.status != 304 || nm.body != "" || nm.header.Get("ETag") != etag {
			t.Fatalf("If-None-Match with the ETag: %d %q ETag %q, want 304", nm.status, nm.body, nm.header.Get("ETag"))
		}
		if r := e.do("GET", target, key, map[string]string{"If-None-Match": `"stale"`}); r.status != 200 {
			t.Fatalf("If-None-Match with another tag: %d, want 200", r.status)
		}
	}
	c.ok("rule", "add", "--project", p, "--source", "/v2", "--destination", "/two")
	c.ok("deploy", "--project", p)
	within(t, propagation, "export of v2", func() bool {
		return strings.Contains(e.get("/v1/export?project="+p+"&format=csv", key).body, "/v2")
	})
	if r := e.get("/v1/export?project="+p+"&format=csv&version=1", key); r.status != 200 || strings.Contains(r.body, "/v2") {
		t.Fatalf("export version=1: %d %s", r.status, r.body)
	}
}

func TestEdgeLimits(t *testing.T) { eachEngine(t, testEdgeLimits) }

func testEdgeLimits(t *testing.T, c *cli) {
	_, p, key := deployed(t, c, "--rate-limit", "5", "--monthly-quota", "7")
	test := c.ok("key", "create", "--project", p, "--test")
	e := startEdge(t, c, atClockStart)
	for i := 1; i <= 5; i++ {
		r := e.get(lookupURL(p, "/old"), key)
		if r.status != 200 {
			t.Fatalf("request %d within the limit: %d %s", i, r.status, r.body)
		}
		wantHeaders(t, r, map[string]string{"X-RateLimit-Limit": "5", "X-RateLimit-Remaining": strconv.Itoa(5 - i),
			"X-Quota-Limit": "7", "X-Quota-Remaining": strconv.Itoa(7 - i)})
	}
	r := e.get(lookupURL(p, "/old"), key)
	wantError(t, r, 429, "RATE_LIMIT_EXCEEDED", "Too Many Requests")
	ra, err := strconv.Atoi(r.header.Get("Retry-After"))
	if err != nil || ra < 1 || ra > 60 {
		t.Fatalf("Retry-After %q, want whole seconds to the next minute", r.header.Get("Retry-After"))
	}
	wantHeaders(t, r, map[string]string{"X-RateLimit-Remaining": "0", "X-Quota-Remaining": "2"})
	// Exports share the minute window.
	wantError(t, e.get("/v1/export?project="+p+"&format=csv", key), 429, "RATE_LIMIT_EXCEEDED", "Too Many Requests")
	// Test keys have their own window (the org's limit of 5 is below 100) and no quota.
	for i := 1; i <= 5; i++ {
		r := e.get(lookupURL(p, "/old"), test)
		if r.status != 200 {
			t.Fatalf("test key request %d: %d %s", i, r.status, r.body)
		}
		wantHeaders(t, r, map[string]string{"X-RateLimit-Limit": "5", "X-RateLimit-Remaining": strconv.Itoa(5 - i), "X-Quota-Remaining": "2"})
	}
	wantError(t, e.get(lookupURL(p, "/old"), test), 429, "RATE_LIMIT_EXCEEDED", "Too Many Requests")
}

func TestEdgeQuotaAndUnlimited(t *testing.T) { eachEngine(t, testEdgeQuotaAndUnlimited) }

func testEdgeQuotaAndUnlimited(t *testing.T, c *cli) {
	org, p, key := deployed(t, c, "--monthly-quota", "3")
	e := startEdge(t, c, atClockStart)
	for i := 0; i < 3; i++ {
		if r := e.get(lookupURL(p, "/nothing"), key); r.status != 204 {
			t.Fatalf("lookup %d within quota: %d", i, r.status)
		}
	}
	r := e.get(lookupURL(p, "/old"), key)
	wantError(t, r, 429, "QUOTA_EXCEEDED", "Monthly API Quota Exceeded")
	ra, _ := strconv.Atoi(r.header.Get("Retry-After"))
	if want := int(time.Date(2026, 4, 1, 0, 0, 0, 0, time.UTC).Sub(time.Date(2026, 3, 10, 12, 30, 2, 0, time.UTC)).Seconds()); ra < want-30 || ra > want {
		t.Fatalf("Retry-After %d, want about %d (to the end of March)", ra, want)
	}
	wantHeaders(t, r, map[string]string{"X-Quota-Remaining": "0", "X-RateLimit-Remaining": "996"})
	if r := e.get("/v1/export?project="+p+"&format=csv", key); r.status != 200 {
		t.Fatalf("export refused for quota: %d", r.status)
	}
	// Usage survives a graceful restart.
	e.stop()
	e = startEdge(t, c, atClockStart)
	wantError(t, e.get(lookupURL(p, "/old"), key), 429, "QUOTA_EXCEEDED", "Monthly API Quota Exceeded")

	c.ok("org", "update", org, "--tier", "enterprise", "--monthly-quota", "default")
	within(t, propagation, "the move to enterprise", func() bool { return e.get(lookupURL(p, "/old"), key).status == 200 })
	r = e.get(lookupURL(p, "/old"), key)
	wantHeaders(t, r, map[string]string{"X-RateLimit-Limit": "unlimited", "X-RateLimit-Remaining": "unlimited",
		"X-Quota-Limit": "unlimited", "X-Quota-Remaining": "unlimited", "X-RateLimit-Reset": "*", "X-Quota-Reset": monthReset})
}

func TestEdgePropagation(t *testing.T) { eachEngine(t, testEdgePropagation) }

func testEdgePropagation(t *testing.T, c *cli) {
	_, p, key := deployed(t, c)
	e := startEdge(t, c)
	c.ok("rule", "add", "--project", p, "--source", "/fresh", "--destination", "/new-rule")
	c.ok("deploy", "--project", p)
	took := within(t, propagation, "a deploy", func() bool { return e.get(lookupURL(p, "/fresh"), key).status == 200 })
	t.Logf("deploy visible after %v", took)
	c.ok("key", "revoke", "--project", p, key)
	took = within(t, propagation, "a revocation", func() bool { return e.get(lookupURL(p, "/fresh"), key).status == 401 })
	t.Logf("revocation visible after %v", took)
	fresh := c.ok("key", "create", "--project", p)
	within(t, propagation, "a new key", func() bool { return e.get(lookupURL(p, "/fresh"), fresh).status == 200 })

	r, err := client.Get(e.admin + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Body.Close()
	buf := new(strings.Builder)
	if _, err := io.Copy(buf, r.Body); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`redirects_requests_total{endpoint="lookup",status="200"}`,
		`redirects_requests_total{endpoint="lookup",status="401"}`,
		`redirects_request_duration_seconds_bucket{endpoint="lookup",le="+Inf"}`,
		`redirects_limiter_decisions_total{decision="allowed"}`,
		`redirects_deployment_version{project="` + p + `"} 2`,
	} {
		if !strings.Contains(buf.String(), want) {
			t.Fatalf("/metrics lacks %s:\n%s", want, buf.String())
		}
	}
}

func TestEdgeDebugLogNeverHoldsAKey(t *testing.T) { eachEngine(t, testEdgeDebugLogNeverHoldsAKey) }

func testEdgeDebugLogNeverHoldsAKey(t *testing.T, c *cli) {
	_, p, key := deployed(t, c)
	e := startEdge(t, c, withEnv("REDIRECTS_LOG_LEVEL", "debug"))
	e.get(lookupURL(p, "/old"), key)
	e.get(lookupURL(p, "/old"), "redir_live_"+strings.Repeat("Z", 32))
	within(t, 2*time.Second, "the request log lines", func() bool {
		l := e.logText()
		return strings.Contains(l, "status=200") && strings.Contains(l, "status=401")
	})
	logs := e.logText()
	if strings.Contains(logs, key) || strings.Contains(logs, strings.Repeat("Z", 32)) {
		t.Fatalf("a full API key reached the log:\n%s", logs)
	}
	if !strings.Contains(logs, "key=redir_live_..."+key[len(key)-4:]) || !strings.Contains(logs, "status=200") || !strings.Contains(logs, "status=401") {
		t.Fatalf("the request log lines lack the shortened key or the statuses:\n%s", logs)
	}
}
