package main_test

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"redirects"
)

// edge is a "redirects serve" run in process on 127.0.0.1.
type edge struct {
	t      *testing.T
	base   string
	admin  string
	logs   syncBuffer // stdout and stderr
	cancel context.CancelFunc
	exited chan struct{} // closed when Run has returned
	code   int           // Run's exit code, once exited is closed
}

// serveOption sets up the program before "serve" runs.
type serveOption func(*serveConfig)

type serveConfig struct {
	env   map[string]string
	clock redirects.Clock
}

// withEnv sets an environment variable of the server.
func withEnv(name, value string) serveOption {
	return func(c *serveConfig) { c.env[name] = value }
}

// clockStart places a server a few seconds into a minute, so a test's
// requests share one rate window.
var clockStart = time.Date(2026, 3, 10, 12, 30, 2, 0, time.UTC)

// atClockStart runs the server on a clock that starts at clockStart.
func atClockStart(c *serveConfig) { c.clock = newTestClock(clockStart) }

// startEdge starts the server on free loopback ports and waits until it
// answers /healthz.
func startEdge(t *testing.T, c *cli, opts ...serveOption) *edge {
	t.Helper()
	e := startEdgeUnready(t, c, opts...)
	if r := e.do("GET", "/healthz", "", nil); r.status != 200 {
		t.Fatalf("/healthz answered %d after start", r.status)
	}
	return e
}

// startEdgeUnready starts the server and returns once it listens, ready or
// not. The server stops when the test ends.
func startEdgeUnready(t *testing.T, c *cli, opts ...serveOption) *edge {
	t.Helper()
	cfg := serveConfig{env: map[string]string{}}
	for _, o := range opts {
		o(&cfg)
	}
	e := &edge{t: t, exited: make(chan struct{})}
	m := c.newMain(cfg.env)
	m.Stdout, m.Stderr = &e.logs, &e.logs
	if cfg.clock != nil {
		m.Clock = cfg.clock
	}
	addrs := make(chan [2]string, 1)
	m.Ready = func(edgeAddr, adminAddr string) { addrs <- [2]string{edgeAddr, adminAddr} }
	args := []string{"serve", "--addr", "127.0.0.1:0", "--admin-addr", "127.0.0.1:0"}
	if c.engine != "" {
		args = append(args, "--engine", c.engine)
	}
	ctx, cancel := context.WithCancel(context.Background())
	e.cancel = cancel
	go func() {
		defer close(e.exited)
		e.code = m.Run(ctx, args)
	}()
	t.Cleanup(func() {
		e.cancel()
		if !e.wait(15 * time.Second) {
			t.Errorf("server did not stop within 15 s of the test's end; logs:\n%s", e.logs.String())
		}
	})
	select {
	case a := <-addrs:
		e.base, e.admin = "http://"+a[0], "http://"+a[1]
	case <-e.exited:
		t.Fatalf("serve exited with %d before listening; logs:\n%s", e.code, e.logs.String())
	case <-time.After(15 * time.Second):
		t.Fatalf("server did not start in 15 s; logs:\n%s", e.logs.String())
	}
	return e
}

// wait reports whether the server has stopped within d.
func (e *edge) wait(d time.Duration) bool {
	select {
	case <-e.exited:
		return true
	case <-time.After(d):
		return false
	}
}

func (e *edge) logText() string { return e.logs.String() }

// stop ends the server's context, as SIGTERM does for the binary, and
// waits for a clean exit.
func (e *edge) stop() {
	e.t.Helper()
	e.cancel()
	if !e.wait(15 * time.Second) {
		e.t.Fatalf("server did not stop within 15 s")
	}
	if e.code != 0 {
		e.t.Fatalf("server exited with %d after its context ended; logs:\n%s", e.code, e.logText())
	}
}

type reply struct {
	status int
	header http.Header
	body   string
}

var client = &http.Client{
	Timeout:       10 * time.Second,
	CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
}

// do sends one request with an optional key and extra headers.
func (e *edge) do(method, target, key string, hdr map[string]string) reply {
	e.t.Helper()
	req, err := http.NewRequest(method, e.base+target, nil)
	if err != nil {
		e.t.Fatal(err)
	}
	if key != "" {
		req.Header.Set("X-API-Key", key)
	}
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := client.Do(req)
	if err != nil {
		e.t.Fatalf("%s %s: %v", method, target, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		e.t.Fatal(err)
	}
	return reply{resp.StatusCode, resp.Header, string(b)}
}

func (e *edge) get(target, key string) reply {
	e.t.Helper()
	return e.do("GET", target, key, nil)
}

// wantError checks an error answer: status, exact body, and error headers.
func wantError(t *testing.T, r reply, status int, code, msg string) {
	t.Helper()
	body := `{"error":"` + msg + `","code":"` + code + `"}`
	if r.status != status || r.body != body {
		t.Fatalf("got %d %s, want %d %s", r.status, r.body, status, body)
	}
	if ct := r.header.Get("Content-Type"); ct != "application/json" {
		t.Fatalf("error Content-Type %q, want application/json", ct)
	}
	if cc := r.header.Get("Cache-Control"); cc != "no-store" {
		t.Fatalf("error Cache-Control %q, want no-store", cc)
	}
	if r.header.Get("Vary") != "" {
		t.Fatalf("error carries Vary %q, meant only for cacheable answers", r.header.Get("Vary"))
	}
}

// wantHeaders checks header presence (value "" = absent, "*" = any value).
func wantHeaders(t *testing.T, r reply, want map[string]string) {
	t.Helper()
	for k, v := range want {
		got, ok := r.header[http.CanonicalHeaderKey(k)]
		switch {
		case v == "" && ok:
			t.Fatalf("header %s = %q, want it absent", k, got)
		case v == "*" && !ok:
			t.Fatalf("header %s absent", k)
		case v != "" && v != "*" && (len(got) != 1 || got[0] != v):
			t.Fatalf("header %s = %q, want %q", k, got, v)
		}
	}
}

// within polls check until it returns true or the limit passes, and
// returns the time it took.
func within(t *testing.T, limit time.Duration, what string, check func() bool) time.Duration {
	t.Helper()
	start := time.Now()
	for !check() {
		if time.Since(start) > limit {
			t.Fatalf("%s: not seen within %v", what, limit)
		}
		time.Sleep(20 * time.Millisecond)
	}
	return time.Since(start)
}

// raw sends bytes as they are on a new connection and reads one answer:
// for requests no HTTP client would send.
func (e *edge) raw(request string) reply {
	e.t.Helper()
	conn, err := net.DialTimeout("tcp", strings.TrimPrefix(e.base, "http://"), 5*time.Second)
	if err != nil {
		e.t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := io.WriteString(conn, request); err != nil {
		e.t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		e.t.Fatalf("reading the answer to %q: %v", request, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		e.t.Fatal(err)
	}
	return reply{resp.StatusCode, resp.Header, string(b)}
}
