package main_test

import (
	"bufio"
	"io"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// edge is a running "redirects serve" process on 127.0.0.1.
type edge struct {
	t     *testing.T
	base  string
	admin string
	cmd   *exec.Cmd
	mu    sync.Mutex
	logs  strings.Builder
	done  chan error
}

var servingLine = regexp.MustCompile(`msg=serving addr=(\S+) admin=(\S*)`)

// startEdge starts the server on free loopback ports and waits until it
// answers /healthz.
func startEdge(t *testing.T, c *cli, env ...string) *edge {
	t.Helper()
	e := startEdgeUnready(t, c, env...)
	if r := e.do("GET", "/healthz", "", nil); r.status != 200 {
		t.Fatalf("/healthz answered %d after start", r.status)
	}
	return e
}

// startEdgeUnready starts the server and returns once it listens, ready or
// not.
func startEdgeUnready(t *testing.T, c *cli, env ...string) *edge {
	t.Helper()
	e := &edge{t: t, done: make(chan error, 1)}
	e.cmd = exec.Command(binary, "serve", "--addr", "127.0.0.1:0", "--admin-addr", "127.0.0.1:0")
	e.cmd.Env = append(append(os.Environ(), "REDIRECTS_DB="+c.db), env...)
	stderr, err := e.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := e.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	addrs := make(chan []string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			line := sc.Text()
			e.mu.Lock()
			e.logs.WriteString(line + "\n")
			e.mu.Unlock()
			if m := servingLine.FindStringSubmatch(line); m != nil {
				addrs <- m[1:]
			}
		}
		e.done <- e.cmd.Wait()
	}()
	t.Cleanup(func() {
		if e.cmd.ProcessState == nil {
			e.cmd.Process.Signal(syscall.SIGTERM)
			select {
			case <-e.done:
			case <-time.After(10 * time.Second):
				e.cmd.Process.Kill()
				<-e.done
			}
		}
		if strings.Contains(e.logText(), "DATA RACE") {
			t.Errorf("the server reported a data race:\n%s", e.logText())
		}
	})
	select {
	case a := <-addrs:
		e.base, e.admin = "http://"+a[0], "http://"+a[1]
	case <-time.After(15 * time.Second):
		t.Fatalf("server did not start in 15 s; logs:\n%s", e.logText())
	}
	return e
}

func (e *edge) logText() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.logs.String()
}

// stop sends SIGTERM and waits for a clean exit.
func (e *edge) stop() {
	e.t.Helper()
	e.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-e.done:
		if err != nil {
			e.t.Fatalf("server exited with %v after SIGTERM; logs:\n%s", err, e.logText())
		}
	case <-time.After(15 * time.Second):
		e.t.Fatalf("server did not stop within 15 s of SIGTERM")
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
