package http

import (
	"context"
	"io"
	"net/http"
	"runtime"
	"strings"
	"testing"

	"redirects"
	"redirects/edge"
)

func TestRouteTable(t *testing.T) {
	seen := map[string]bool{}
	for i := range edgeRoutes {
		rt := &edgeRoutes[i]
		if seen[rt.path] {
			t.Errorf("%s is listed twice", rt.path)
		}
		seen[rt.path] = true
		if got := route(rt.path); got != rt {
			t.Errorf("route(%q) = %+v, want its own entry", rt.path, got)
		}
		if rt.handler == handleNotFound {
			t.Errorf("%s is answered by the not-found handler", rt.path)
		}
	}
	for _, p := range []string{"", "/", "/v1", "/v1/", "/v1/lookup/", "/V1/lookup", "/v1/lookupx", "/v1/export/csv", "/metrics", "/healthz/", "/readyz/", "/ready", "/v1/lookup%2F"} {
		if got := route(p); got != &notFound {
			t.Errorf("route(%q) = %+v, want notFound", p, got)
		}
	}
}

// TestRouteHandlers checks that every route reaches its handler, and that
// each answer is counted under the route's endpoint.
func TestRouteHandlers(t *testing.T) {
	f := newFixture(t, nil)
	lookup := f.handle("GET", "/v1/lookup", f.lookupQuery("/a"), f.secret)
	if lookup.Status != 200 || !strings.Contains(string(lookup.Body), `"destination":"/to-a"`) || header(lookup, "Cache-Control") != ccLookup {
		t.Errorf("/v1/lookup: %d %s", lookup.Status, lookup.Body)
	}
	export := f.handle("GET", "/v1/export", "project="+f.project.ID+"&format=nginx", f.secret)
	if export.Status != 200 || header(export, "Content-Disposition") != contentDisposition["nginx"] {
		t.Errorf("/v1/export: %d %s", export.Status, export.Body)
	}
	for _, method := range []string{"GET", "HEAD", "POST"} {
		health := f.handle(method, "/healthz", "", "")
		if health.Status != 200 || len(health.Body) != 0 || header(health, "Cache-Control") != ccNoStore {
			t.Errorf("%s /healthz: %d %s", method, health.Status, health.Body)
		}
	}
	wantError(t, f.handle("GET", "/nope", "", f.secret), errRoute)
	wantError(t, f.handle("POST", "/v1/lookup/", "", ""), errRoute)

	count := func(ep endpoint, status int) uint64 {
		for i, s := range statuses {
			if s == status {
				return f.edge.Metrics.requestCount(ep, i)
			}
		}
		t.Fatalf("status %d is not counted", status)
		return 0
	}
	if n := count(epLookup, 200); n != 1 {
		t.Errorf("lookup 200s counted: %d, want 1", n)
	}
	if n := count(epExport, 200); n != 1 {
		t.Errorf("export 200s counted: %d, want 1", n)
	}
	if n200, n404 := count(epOther, 200), count(epOther, 404); n200 != 3 || n404 != 2 {
		t.Errorf("other endpoint: %d 200s and %d 404s counted, want 3 and 2", n200, n404)
	}

	f.edge.SetReady(false)
	if health := f.handle("GET", "/healthz", "", ""); health.Status != 503 {
		t.Errorf("/healthz while stopping: %d, want 503", health.Status)
	}
}

// TestReadyz checks /readyz through a node's life: not ready before the
// store is loaded, ready once it is, not ready again from the start of a
// shutdown; and /healthz alongside it, which answers on the same condition
// without a body.
func TestReadyz(t *testing.T) {
	f := newFixture(t, nil)
	e := &Edge{Clock: redirects.SystemClock{}, Logger: f.edge.Logger, Metrics: NewMetrics()}
	f.edge = e
	check := func(stage string, status int, body string) {
		t.Helper()
		for _, method := range []string{"GET", "HEAD"} {
			w := f.handle(method, "/readyz", "", "")
			if w.Status != status || string(w.Body) != body || header(w, "Cache-Control") != ccNoStore || header(w, "Content-Type") != ctText {
				t.Errorf("%s: %s /readyz: %d %q %v, want %d %q", stage, method, w.Status, w.Body, w.Headers[:w.N], status, body)
			}
		}
		if h := f.handle("GET", "/healthz", "", ""); h.Status != status || len(h.Body) != 0 {
			t.Errorf("%s: /healthz: %d %q, want %d and no body", stage, h.Status, h.Body, status)
		}
	}
	check("before the store is loaded", 503, "not ready: the store has not been loaded yet\n")
	e.setLive(&live{catalog: f.catalog, limiter: f.limiter, exports: edge.NewExportCache(f.db, 1<<20)})
	check("loaded", 200, "ready\n")
	e.SetReady(false)
	check("shutting down", 503, "not ready: shutting down\n")
	if n := e.Metrics.requestCount(epOther, 0); n != 3 {
		t.Errorf("other 200s counted: %d, want 3 (the loaded stage's probes)", n)
	}
}

// TestEngines drives the routes of both listeners over real connections on
// 127.0.0.1, once per engine of the edge listener: both must answer alike.
func TestEngines(t *testing.T) {
	for _, engine := range []string{"evhttp", "net/http"} {
		t.Run(engine, func(t *testing.T) {
			if engine == "evhttp" && runtime.GOOS != "linux" {
				t.Skip("evhttp needs Linux epoll")
			}
			f := newFixture(t, nil)
			s := f.open(engine)
			edge, admin := "http://"+s.Addr(), "http://"+s.AdminAddr()
			get := func(method, url, key, ifNoneMatch string) (*http.Response, string) {
				t.Helper()
				req, err := http.NewRequest(method, url, nil)
				f.ok(err)
				if key != "" {
					req.Header.Set("X-API-Key", key)
				}
				if ifNoneMatch != "" {
					req.Header.Set("If-None-Match", ifNoneMatch)
				}
				resp, err := http.DefaultClient.Do(req)
				f.ok(err)
				defer resp.Body.Close()
				body, err := io.ReadAll(resp.Body)
				f.ok(err)
				return resp, string(body)
			}
			check := func(name string, resp *http.Response, body string, status int, bodyHas string, headers map[string]string) {
				t.Helper()
				if resp.StatusCode != status || !strings.Contains(body, bodyHas) {
					t.Errorf("%s: %d %q, want %d with %q", name, resp.StatusCode, body, status, bodyHas)
				}
				for k, v := range headers {
					if got := resp.Header.Get(k); got != v {
						t.Errorf("%s: %s = %q, want %q", name, k, got, v)
					}
				}
			}

			resp, body := get("GET", edge+"/v1/lookup?"+f.lookupQuery("/a"), f.secret, "")
			check("lookup hit", resp, body, 200, `"destination":"/to-a"`, map[string]string{"Cache-Control": ccLookup, "Content-Type": ctJSON, "Vary": varyKey, "X-Quota-Limit": "unlimited"})
			resp, body = get("GET", edge+"/v1/lookup?"+f.lookupQuery("/zzz"), f.secret, "")
			check("lookup miss", resp, body, 204, "", map[string]string{"Cache-Control": ccLookup})
			resp, body = get("GET", edge+"/v1/lookup?"+f.lookupQuery("/b")+"&version=1", f.secret, "")
			check("old version (slow path)", resp, body, 204, "", nil)
			resp, body = get("GET", edge+"/v1/export?project="+f.project.ID+"&format=csv", f.secret, "")
			check("export", resp, body, 200, "/to-b", map[string]string{"Content-Type": ctCSV, "Content-Disposition": contentDisposition["csv"]})
			etag := resp.Header.Get("ETag")
			resp, body = get("GET", edge+"/v1/export?project="+f.project.ID+"&format=csv", f.secret, etag)
			check("export not modified", resp, body, 304, "", map[string]string{"ETag": etag})
			if body != "" || etag == "" {
				t.Errorf("304: body %q, ETag %q", body, etag)
			}
			resp, body = get("POST", edge+"/v1/lookup", "", "")
			check("method", resp, body, 405, `"METHOD_NOT_ALLOWED"`, map[string]string{"Allow": "GET"})
			resp, body = get("GET", edge+"/v1/lookup?"+f.lookupQuery("/a"), "", "")
			check("missing key", resp, body, 401, `"MISSING_API_KEY"`, nil)
			resp, body = get("GET", edge+"/healthz", "", "")
			check("edge health", resp, body, 200, "", map[string]string{"Cache-Control": ccNoStore})
			resp, body = get("GET", edge+"/nope", "", "")
			check("unknown route", resp, body, 404, string(errRoute.body), map[string]string{"Content-Type": ctJSON})
			resp, body = get("GET", edge+"/metrics", "", "")
			check("admin route on the edge", resp, body, 404, string(errRoute.body), nil)

			resp, body = get("GET", admin+"/metrics", "", "")
			check("metrics", resp, body, 200, `redirects_deployment_version{project="`+f.project.ID+`"} 2`, nil)
			if !strings.Contains(body, `redirects_requests_total{endpoint="lookup",status="200"} 1`) ||
				!strings.Contains(body, `redirects_requests_total{endpoint="other",status="404"} 2`) {
				t.Errorf("metrics do not count the edge's answers:\n%s", body)
			}
			resp, body = get("GET", admin+"/healthz", "", "")
			check("admin health", resp, body, 200, "", map[string]string{"Cache-Control": ccNoStore})
			for _, base := range []string{edge, admin} {
				resp, body = get("GET", base+"/readyz", "", "")
				check("readiness", resp, body, 200, "ready\n", map[string]string{"Cache-Control": ccNoStore, "Content-Type": ctText})
			}
			resp, body = get("GET", admin+"/v1/lookup?"+f.lookupQuery("/a"), f.secret, "")
			check("edge route on the admin listener", resp, body, 404, "", nil)
			resp, body = get("POST", admin+"/metrics", "", "")
			check("admin method", resp, body, 405, "", nil)
		})
	}
}

// blockingLimiter is a redirects.BlockingLimiter over a real limiter: its
// TryTake decides nothing while the test sets blocking.
type blockingLimiter struct {
	redirects.Limiter
	blocking bool
}

func (l *blockingLimiter) TryTake(u redirects.Usage) (redirects.Decision, bool) {
	if l.blocking {
		return redirects.Decision{}, false
	}
	return l.Take(context.Background(), u), true
}

var _ redirects.BlockingLimiter = (*blockingLimiter)(nil)

// TestBlockingLimiter checks that while the limiter may block, the limited
// routes answer wholly on the slow path (nothing counted before it runs),
// and the others do not.
func TestBlockingLimiter(t *testing.T) {
	f := newFixture(t, nil)
	bl := &blockingLimiter{Limiter: f.limiter, blocking: true}
	f.edge.setLive(&live{catalog: f.catalog, limiter: bl, exports: edge.NewExportCache(f.db, 1<<20)})
	for _, tt := range []struct {
		path, query string
		slow        bool
	}{
		{"/v1/lookup", f.lookupQuery("/a"), true},
		{"/v1/export", "project=" + f.project.ID + "&format=csv", true},
		{"/healthz", "", false},
		{"/nope", "", false},
	} {
		allowed := f.edge.Metrics.limitCount(redirects.NotRefused)
		w := new(Resp)
		slow := f.edge.Handle(&Req{Method: "GET", Path: tt.path, RawQuery: tt.query, APIKey: f.secret}, w)
		if (slow != nil) != tt.slow {
			t.Errorf("%s: slow path %v, want %v", tt.path, slow != nil, tt.slow)
		}
		if slow == nil {
			continue
		}
		if w.Status != 0 || f.edge.Metrics.limitCount(redirects.NotRefused) != allowed {
			t.Errorf("%s: answered or counted before the slow path ran", tt.path)
		}
		slow(w)
		if w.Status != 200 {
			t.Errorf("%s: %d %s after the slow path", tt.path, w.Status, w.Body)
		}
	}
	// A limiter that has stopped blocking answers a lookup on the spot.
	bl.blocking = false
	w := new(Resp)
	if slow := f.edge.Handle(&Req{Method: "GET", Path: "/v1/lookup", RawQuery: f.lookupQuery("/a"), APIKey: f.secret}, w); slow != nil || w.Status != 200 {
		t.Errorf("non-blocking limiter: slow path %v, status %d", slow != nil, w.Status)
	}
}
