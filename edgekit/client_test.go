package edgekit_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"redirects"
	"redirects/edgekit"
	"redirects/engine/pattern"
	"redirects/sqlite"
)

// binary is redirects, built once for the tests.
var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "redirects-edgekit-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "redirects")
	build := exec.Command("go", "build", "-o", binary, "../cmd/redirects")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building redirects:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// service is a real `redirects serve` on 127.0.0.1 with one project: an
// exact rule /old -> /new (301) and a starts_with rule /blog/ ->
// https://blog.example.com/ (302).
type service struct {
	t             *testing.T
	db            string
	base, project string
	key           string
	cmd           *exec.Cmd
}

func (s *service) run(args ...string) string {
	s.t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Env = append(os.Environ(), "REDIRECTS_DB="+s.db)
	out, err := cmd.Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		s.t.Fatalf("redirects %s: %v\n%s", strings.Join(args, " "), err, stderr)
	}
	return strings.TrimSpace(string(out))
}

func startService(t *testing.T) *service {
	t.Helper()
	s := &service{t: t, db: "sqlite:" + filepath.Join(t.TempDir(), "redirects.db")}
	org := s.run("org", "create", "--name", "Acme", "--tier", "enterprise")
	s.project = s.run("project", "create", "--org", org, "--name", "www")
	s.run("rule", "add", "--project", s.project, "--source", "/old", "--destination", "/new")
	s.run("rule", "add", "--project", s.project, "--source", "/blog/", "--destination", "https://blog.example.com/", "--status", "302", "--match", "starts_with")
	addHostRule(t, s.db, s.project)
	s.run("deploy", "--project", s.project)
	s.key = s.run("key", "create", "--project", s.project)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	s.base = "http://" + addr
	s.cmd = exec.Command(binary, "serve", "--addr", addr, "--admin-addr", "")
	s.cmd.Env = append(os.Environ(), "REDIRECTS_DB="+s.db)
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		s.cmd.Process.Signal(syscall.SIGCONT)
		s.cmd.Process.Kill()
		s.cmd.Wait()
	})
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get(s.base + "/healthz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return s
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("redirects serve is not healthy after 30 s: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// addHostRule adds, through the store, an exact rule /hosted -> /on-local
// scoped to the host 127.0.0.1, which the test servers listen on: only a
// lookup that sends the request's host gets it.
func addHostRule(t *testing.T, db, project string) {
	t.Helper()
	ctx := context.Background()
	st, err := sqlite.Open(ctx, strings.TrimPrefix(db, "sqlite:"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := st.AddRule(ctx, &redirects.Rule{ProjectID: project, Source: "/hosted", Destination: "/on-local", StatusCode: 301,
		MatchType: redirects.Exact, Priority: 100, Host: "127.0.0.1"}); err != nil {
		t.Fatal(err)
	}
}

// stop stops the service's process (SIGSTOP) and waits until the kernel
// says it is stopped: its socket still accepts connections, and nothing
// answers them.
func (s *service) stop() {
	s.t.Helper()
	if err := s.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		s.t.Fatal(err)
	}
	stat := fmt.Sprintf("/proc/%d/stat", s.cmd.Process.Pid)
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		b, err := os.ReadFile(stat)
		if err != nil {
			s.t.Skipf("cannot read %s to see the process stopped: %v", stat, err)
		}
		// The state follows the command name in parentheses.
		if i := strings.LastIndexByte(string(b), ')'); i > 0 && strings.HasPrefix(string(b[i+1:]), " T") {
			return
		}
	}
	s.t.Fatal("the service did not stop within 10 s of SIGSTOP")
}

// app is an application behind the middleware: it answers 200 "app" and
// counts the requests it got.
func app(t *testing.T, c *edgekit.Client, errs *atomic.Int64) (url string, served *atomic.Int64) {
	served = new(atomic.Int64)
	h := c.Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		served.Add(1)
		w.Write([]byte("app"))
	}), func(r *http.Request, err error) { errs.Add(1) })
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL, served
}

var noFollow = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := noFollow.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode, resp.Header.Get("Location")
}

// TestMiddlewareAgainstTheService holds the middleware against a real
// `redirects serve`: it redirects what a rule answers and passes the rest
// on; with the service stopped (SIGSTOP: connections are accepted and never
// answered) it passes requests on once its timeout is up, answers what it
// has cached, and after failures in a row stops asking; once the service
// runs again, it redirects again.
func TestMiddlewareAgainstTheService(t *testing.T) {
	s := startService(t)
	now := time.Now()
	var clock atomic.Int64
	c := &edgekit.Client{Edge: s.base, Key: s.key, Project: s.project, Timeout: 300 * time.Millisecond,
		FailureThreshold: 2, OpenFor: 10 * time.Second,
		Now: func() time.Time { return now.Add(time.Duration(clock.Load())) }}
	var errs atomic.Int64
	url, served := app(t, c, &errs)

	if code, loc := get(t, url+"/old"); code != 301 || loc != "/new" {
		t.Errorf("/old: %d %q, want 301 /new", code, loc)
	}
	if code, loc := get(t, url+"/blog/post"); code != 302 || loc != "https://blog.example.com/" {
		t.Errorf("/blog/post: %d %q, want 302 https://blog.example.com/", code, loc)
	}
	// The request's host goes with the lookup: a rule scoped to it answers.
	if code, loc := get(t, url+"/hosted"); code != 301 || loc != "/on-local" {
		t.Errorf("/hosted on 127.0.0.1: %d %q, want 301 /on-local", code, loc)
	}
	if code, _ := get(t, url+"/other"); code != 200 || served.Load() != 1 {
		t.Errorf("/other: %d, app served %d; want 200 from the app", code, served.Load())
	}
	if errs.Load() != 0 {
		t.Fatalf("%d lookup errors against a running service", errs.Load())
	}

	// The service stops answering.
	s.stop()
	// Cached answers (max-age=300) are still given.
	if code, loc := get(t, url+"/old"); code != 301 || loc != "/new" {
		t.Errorf("/old from the cache: %d %q, want 301 /new", code, loc)
	}
	// An uncached path: the lookup times out and the request goes on.
	if code, _ := get(t, url+"/uncached-1"); code != 200 {
		t.Errorf("/uncached-1 with the service stopped: %d, want 200 from the app", code)
	}
	_, err := c.Lookup(context.Background(), "/uncached-2")
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("a lookup with the service stopped: %v, want the timeout", err)
	}
	// Two failures in a row: the breaker is open, nothing is asked.
	if _, err := c.Lookup(context.Background(), "/uncached-3"); !errors.Is(err, edgekit.ErrCircuitOpen) {
		t.Errorf("a lookup after two failures: %v, want ErrCircuitOpen", err)
	}
	if code, _ := get(t, url+"/old/x"); code != 200 {
		t.Errorf("/old/x with the breaker open: %d, want 200 from the app", code)
	}

	// The service runs again; once the breaker's time is up, lookups
	// are made again.
	if err := s.cmd.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	if code, _ := get(t, url+"/blog/"); code != 302 {
		// /blog/ is not cached, and the breaker is still open.
		if code != 200 {
			t.Errorf("/blog/ with the breaker open: %d, want 200 (passed on)", code)
		}
	} else {
		t.Error("/blog/ was looked up while the breaker was open")
	}
	clock.Add(int64(11 * time.Second))
	deadline := time.Now().Add(10 * time.Second)
	for {
		code, loc := get(t, url+"/blog/")
		if code == 302 && loc == "https://blog.example.com/" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("/blog/ after the service came back: %d %q, want 302", code, loc)
		}
		clock.Add(int64(11 * time.Second))
		time.Sleep(20 * time.Millisecond)
	}
	// The service is gone (connections refused): requests go on at once.
	s.cmd.Process.Kill()
	s.cmd.Wait()
	var errs2 atomic.Int64
	gone := &edgekit.Client{Edge: s.base, Key: s.key, Project: s.project, Timeout: 300 * time.Millisecond}
	url2, served2 := app(t, gone, &errs2)
	if code, _ := get(t, url2+"/old"); code != 200 || served2.Load() != 1 || errs2.Load() != 1 {
		t.Errorf("/old with the service gone: %d, app served %d, %d errors; want 200 from the app and the error reported", code, served2.Load(), errs2.Load())
	}
	// Other methods are never looked up.
	resp, err := noFollow.Post(url+"/old", "text/plain", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("POST /old: %d, want 200 from the app", resp.StatusCode)
	}
}

// TestCacheHonoursCacheControl holds the cache to the answers' max-age:
// an answer is reused within it and asked again after it.
func TestCacheHonoursCacheControl(t *testing.T) {
	s := startService(t)
	now := time.Now()
	var clock atomic.Int64
	c := &edgekit.Client{Edge: s.base, Key: s.key, Project: s.project, Timeout: time.Second,
		Now: func() time.Time { return now.Add(time.Duration(clock.Load())) }}
	if r, err := c.Lookup(context.Background(), "/old"); err != nil || r == nil || r.Destination != "/new" {
		t.Fatalf("lookup /old: %+v %v", r, err)
	}
	// Change the rule and deploy: the cached answer stands for its
	// max-age (300 s), then the new one is asked for.
	s.run("rule", "delete", "--project", s.project, "--all-matching", "--search", "/old*", "--yes")
	s.run("rule", "add", "--project", s.project, "--source", "/old", "--destination", "/newer")
	s.run("deploy", "--project", s.project)
	time.Sleep(time.Second) // the edge answers a deploy within a second
	if r, err := c.Lookup(context.Background(), "/old"); err != nil || r == nil || r.Destination != "/new" {
		t.Errorf("lookup /old within max-age after a deploy: %+v %v, want the cached /new", r, err)
	}
	clock.Add(int64(301 * time.Second))
	deadline := time.Now().Add(10 * time.Second)
	for {
		r, err := c.Lookup(context.Background(), "/old")
		if err == nil && r != nil && r.Destination == "/newer" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("lookup /old past max-age: %+v %v, want /newer", r, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	// A 204 is cached too: stop the service, and a path asked before is
	// still answered (no rule) without an error, until its max-age ends.
	if r, err := c.Lookup(context.Background(), "/none"); err != nil || r != nil {
		t.Fatalf("lookup /none: %+v %v, want no rule", r, err)
	}
	s.stop()
	if r, err := c.Lookup(context.Background(), "/none"); err != nil || r != nil {
		t.Errorf("cached 204 with the service stopped: %+v %v, want no rule and no error", r, err)
	}
	clock.Add(int64(301 * time.Second))
	if r, err := c.Lookup(context.Background(), "/none"); err == nil {
		t.Errorf("a lookup past max-age with the service stopped did not fail (%+v): the answer outlived its max-age", r)
	}
}

// TestMiddlewareSendsHostAndQuery: the middleware asks for the request's
// path with its query on the request's host, and leaves out a host the
// lookup API would refuse (an IPv6 literal), asking without one.
func TestMiddlewareSendsHostAndQuery(t *testing.T) {
	var asked atomic.Value
	edge := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked.Store(r.URL.RawQuery)
		w.WriteHeader(http.StatusNoContent)
	}))
	defer edge.Close()
	c := &edgekit.Client{Edge: edge.URL, Key: "k", Project: "prj", CacheEntries: -1}
	h := c.Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}), nil)
	for _, tc := range []struct{ host, target, want string }{
		{"Docs.Example.com.:8443", "/index.php?p=123", "project=prj&path=%2Findex.php%3Fp%3D123&host=docs.example.com"},
		{"bücher.example", "/a%20b", "project=prj&path=%2Fa%2520b&host=b%C3%BCcher.example"},
		{"[::1]:8080", "/old", "project=prj&path=%2Fold"},
		{"a_b.example", "/old", "project=prj&path=%2Fold"},
	} {
		r := httptest.NewRequest(http.MethodGet, tc.target, nil)
		r.Host = tc.host
		h.ServeHTTP(httptest.NewRecorder(), r)
		if got, _ := asked.Load().(string); got != tc.want {
			t.Errorf("Host %q, %s: asked %q, want %q", tc.host, tc.target, got, tc.want)
		}
	}
}

// TestMiddlewareHostIsTheAPIs: the middleware sends a request's host
// exactly when the lookup API takes it as a host (redirects.ValidLookupHost)
// and asks without one otherwise, so that a host the API would refuse
// still gets the host-less rules' answer rather than a failed lookup.
func TestMiddlewareHostIsTheAPIs(t *testing.T) {
	var asked atomic.Value
	edge := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked.Store(r.URL.Query())
		w.WriteHeader(http.StatusNoContent)
	}))
	defer edge.Close()
	c := &edgekit.Client{Edge: edge.URL, Key: "k", Project: "prj", CacheEntries: -1}
	h := c.Middleware(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}), nil)
	long := strings.Repeat("a", 63)
	for _, host := range []string{
		"example.com", "Example.COM.:80", "a-b.example", "x.example.com.", "bücher.example", "BÜCHER.example:1",
		long + ".example", strings.Repeat(long+".", 3) + strings.Repeat("a", 61), // 253 bytes
		"-a.example", "a-.example", "a.-b", long + "a.example", strings.Repeat(long+".", 3) + strings.Repeat("a", 62),
		strings.Repeat("a", 58) + "ü.example", "-ü.example", "ü-.example", strings.Repeat("ü", 20) + ".example",
		"*.example.com", "a..b", ".a", "a b", "a_b", "[::1]", "127.0.0.1", "example.com:x", "",
	} {
		r := httptest.NewRequest(http.MethodGet, "/old", nil)
		r.Host = host
		h.ServeHTTP(httptest.NewRecorder(), r)
		q, _ := asked.Load().(url.Values)
		sent, has := q["host"]
		want := host != "" && redirects.ValidLookupHost(host)
		if has != want {
			t.Errorf("Host %q: sent host %q (%v), want a host sent: %v", host, sent, has, want)
			continue
		}
		if has {
			got, _ := pattern.HostKey(sent[0])
			if k, _ := pattern.HostKey(host); got != k {
				t.Errorf("Host %q: sent %q, whose host key is %q, want %q", host, sent[0], got, k)
			}
		}
	}
}
