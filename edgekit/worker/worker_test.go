// The Worker (worker.js) runs here in the real Workers runtime, workerd
// from the npm registry (npm install in this directory; package.json pins
// its version), against a real `redirects serve`.
package worker_test

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"redirects"
	"redirects/internal/testreport"
	"redirects/sqlite"
)

// workerd returns the runtime's binary: node_modules/.bin/workerd here, or
// workerd on PATH; the test is skipped without it.
func workerd(t *testing.T) string {
	t.Helper()
	if abs, err := filepath.Abs("node_modules/.bin/workerd"); err == nil {
		if _, err := os.Stat(abs); err == nil {
			testreport.Ran(t, testreport.Worker)
			return abs
		}
	}
	if p, err := exec.LookPath("workerd"); err == nil {
		testreport.Ran(t, testreport.Worker)
		return p
	}
	testreport.Skip(t, testreport.Worker, "workerd is not installed: run npm ci in edgekit/worker")
	return ""
}

func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// waitListening waits until addr accepts connections.
func waitListening(t *testing.T, addr string, exited <-chan struct{}, what string) {
	t.Helper()
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return
		}
		select {
		case <-exited:
			t.Fatalf("%s exited before listening", what)
		default:
		}
	}
	t.Fatalf("%s does not listen on %s after 60 s", what, addr)
}

// start runs a process until the test ends; its output goes to a file
// shown when the test fails.
func start(t *testing.T, name string, env []string, args ...string) *exec.Cmd {
	t.Helper()
	log := filepath.Join(t.TempDir(), filepath.Base(name)+".log")
	out, err := os.Create(log)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(name, args...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGCONT)
		cmd.Process.Kill()
		cmd.Wait()
		out.Close()
		if t.Failed() {
			b, _ := os.ReadFile(log)
			t.Logf("%s output:\n%s", filepath.Base(name), b)
		}
	})
	return cmd
}

// TestWorkerInWorkerd runs the Worker in workerd in front of an origin,
// against a real edge: it redirects what a rule answers and passes the
// rest to the origin; with the edge stopped (SIGSTOP: connections accepted,
// never answered) it passes requests on once its timeout is up, and keeps
// answering what it cached; with the edge gone it passes requests on.
func TestWorkerInWorkerd(t *testing.T) {
	wd := workerd(t)
	dir := t.TempDir()
	bin := filepath.Join(dir, "redirects")
	if out, err := exec.Command("go", "build", "-o", bin, "../../cmd/redirects").CombinedOutput(); err != nil {
		t.Fatalf("building redirects: %v\n%s", err, out)
	}
	db := "REDIRECTS_DB=sqlite:" + filepath.Join(dir, "redirects.db")
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command(bin, args...)
		cmd.Env = append(os.Environ(), db)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("redirects %s: %v", strings.Join(args, " "), err)
		}
		return strings.TrimSpace(string(out))
	}
	org := run("org", "create", "--name", "Acme", "--tier", "enterprise")
	project := run("project", "create", "--org", org, "--name", "www")
	run("rule", "add", "--project", project, "--source", "/old", "--destination", "/new")
	run("rule", "add", "--project", project, "--source", "/blog/", "--destination", "https://blog.example.com/", "--status", "302", "--match", "starts_with")
	// A rule scoped to the host the Worker listens on: only a lookup that
	// sends the request's host gets it.
	st, err := sqlite.Open(context.Background(), filepath.Join(dir, "redirects.db"))
	if err != nil {
		t.Fatal(err)
	}
	if err := st.AddRule(context.Background(), &redirects.Rule{ProjectID: project, Source: "/hosted", Destination: "/on-local", StatusCode: 301,
		MatchType: redirects.Exact, Priority: 100, Host: "127.0.0.1"}); err != nil {
		t.Fatal(err)
	}
	st.Close()
	run("deploy", "--project", project)
	key := run("key", "create", "--project", project)
	edgeAddr := freeAddr(t)
	edge := start(t, bin, []string{db}, "serve", "--addr", edgeAddr, "--admin-addr", "")
	edgeExited := make(chan struct{})
	go func() { edge.Process.Wait(); close(edgeExited) }()
	waitListening(t, edgeAddr, edgeExited, "redirects serve")

	var originServed atomic.Int64
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		originServed.Add(1)
		w.Write([]byte("origin " + r.URL.Path))
	}))
	t.Cleanup(origin.Close)

	src, err := os.ReadFile("worker.js")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "worker.js"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	workerAddr := freeAddr(t)
	config := fmt.Sprintf(`using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [
    (name = "main", worker = .worker),
    (name = "net", network = (allow = ["public", "private", "local"])),
    (name = "origin", external = (address = %q, http = ())),
  ],
  sockets = [ (name = "http", address = %q, http = (), service = "main") ],
);
const worker :Workerd.Worker = (
  modules = [ (name = "worker.js", esModule = embed "worker.js") ],
  compatibilityDate = "2025-01-01",
  bindings = [
    (name = "EDGE", text = %q),
    (name = "KEY", text = %q),
    (name = "PROJECT", text = %q),
    (name = "TIMEOUT_MS", text = "300"),
    (name = "FAILURES", text = "3"),
    (name = "ORIGIN", service = "origin"),
  ],
  globalOutbound = "net",
);
`, strings.TrimPrefix(origin.URL, "http://"), workerAddr, "http://"+edgeAddr, key, project)
	capnp := filepath.Join(dir, "config.capnp")
	if err := os.WriteFile(capnp, []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	w := start(t, wd, nil, "serve", capnp, "--verbose")
	wExited := make(chan struct{})
	go func() { w.Process.Wait(); close(wExited) }()
	waitListening(t, workerAddr, wExited, "workerd")

	client := &http.Client{Timeout: 10 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	get := func(path string) (int, string, string) {
		t.Helper()
		resp, err := client.Get("http://" + workerAddr + path)
		if err != nil {
			t.Fatalf("GET %s through the Worker: %v", path, err)
		}
		defer resp.Body.Close()
		var b strings.Builder
		buf := make([]byte, 512)
		n, _ := resp.Body.Read(buf)
		b.Write(buf[:n])
		return resp.StatusCode, resp.Header.Get("Location"), b.String()
	}

	if code, loc, _ := get("/old"); code != 301 || loc != "/new" {
		t.Errorf("/old: %d %q, want 301 /new", code, loc)
	}
	if code, loc, _ := get("/blog/post"); code != 302 || loc != "https://blog.example.com/" {
		t.Errorf("/blog/post: %d %q, want 302 https://blog.example.com/", code, loc)
	}
	if code, loc, _ := get("/hosted"); code != 301 || loc != "/on-local" {
		t.Errorf("/hosted on 127.0.0.1: %d %q, want 301 /on-local", code, loc)
	}
	if code, _, body := get("/other"); code != 200 || body != "origin /other" {
		t.Errorf("/other: %d %q, want 200 from the origin", code, body)
	}
	if originServed.Load() != 1 {
		t.Errorf("the origin served %d requests, want 1", originServed.Load())
	}

	// The edge stops answering: cached answers stand, other paths pass.
	if err := edge.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	waitStopped(t, edge.Process.Pid)
	if code, loc, _ := get("/old"); code != 301 || loc != "/new" {
		t.Errorf("/old (cached) with the edge stopped: %d %q, want 301 /new", code, loc)
	}
	if code, _, body := get("/uncached"); code != 200 || body != "origin /uncached" {
		t.Errorf("/uncached with the edge stopped: %d %q, want 200 from the origin", code, body)
	}

	// The edge is gone: requests pass at once.
	edge.Process.Signal(syscall.SIGCONT)
	edge.Process.Kill()
	<-edgeExited
	if code, _, body := get("/gone"); code != 200 || body != "origin /gone" {
		t.Errorf("/gone with the edge gone: %d %q, want 200 from the origin", code, body)
	}
	// Other methods go to the origin without a lookup.
	resp, err := client.Post("http://"+workerAddr+"/old", "text/plain", nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("POST /old: %d, want 200 from the origin", resp.StatusCode)
	}
}

// waitStopped waits until the kernel says process pid is stopped.
func waitStopped(t *testing.T, pid int) {
	t.Helper()
	stat := fmt.Sprintf("/proc/%d/stat", pid)
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		b, err := os.ReadFile(stat)
		if err != nil {
			t.Skipf("cannot read %s: %v", stat, err)
		}
		if i := strings.LastIndexByte(string(b), ')'); i > 0 && strings.HasPrefix(string(b[i+1:]), " T") {
			return
		}
	}
	t.Fatal("the edge did not stop within 10 s of SIGSTOP")
}
