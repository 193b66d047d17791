package main_test

import (
	"bufio"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// jsonServer is "redirects serve --log-format json" on 127.0.0.1, with its
// log lines decoded.
type jsonServer struct {
	t           *testing.T
	cmd         *exec.Cmd
	base, admin string
	mu          sync.Mutex
	lines       []map[string]any
	raw         []string
	done        chan error
}

// startJSONServer starts "redirects serve" on db with JSON logs, asked for
// by REDIRECTS_LOG_FORMAT (byEnv) or by --log-format, and returns once it
// listens, ready or not.
func startJSONServer(t *testing.T, db string, byEnv bool) *jsonServer {
	t.Helper()
	args := []string{"serve", "--addr", "127.0.0.1:0", "--admin-addr", "127.0.0.1:0"}
	env := append(os.Environ(), "REDIRECTS_DB="+db)
	if byEnv {
		env = append(env, "REDIRECTS_LOG_FORMAT=json")
	} else {
		args = append(args, "--log-format", "json")
	}
	s := &jsonServer{t: t, cmd: exec.Command(binary(t), args...), done: make(chan error, 1)}
	s.cmd.Env = env
	stderr, err := s.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	serving := make(chan map[string]any, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			var line map[string]any
			err := json.Unmarshal(sc.Bytes(), &line)
			s.mu.Lock()
			s.raw = append(s.raw, sc.Text())
			if err == nil {
				s.lines = append(s.lines, line)
			}
			s.mu.Unlock()
			if err == nil && line["msg"] == "serving" {
				serving <- line
			}
		}
		s.done <- s.cmd.Wait()
	}()
	t.Cleanup(func() {
		if s.cmd.ProcessState == nil {
			s.cmd.Process.Signal(syscall.SIGTERM)
			select {
			case <-s.done:
			case <-time.After(10 * time.Second):
				s.cmd.Process.Kill()
				<-s.done
			}
		}
	})
	select {
	case l := <-serving:
		addr, _ := l["addr"].(string)
		admin, _ := l["admin"].(string)
		s.base, s.admin = "http://"+addr, "http://"+admin
	case <-time.After(15 * time.Second):
		t.Fatalf("no JSON \"serving\" line in 15 s; stderr:\n%s", s.stderr())
	}
	return s
}

func (s *jsonServer) stderr() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return strings.Join(s.raw, "\n")
}

// stop sends SIGTERM and waits for exit 0.
func (s *jsonServer) stop() {
	s.t.Helper()
	s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-s.done:
		if err != nil {
			s.t.Fatalf("exit %v after SIGTERM; stderr:\n%s", err, s.stderr())
		}
	case <-time.After(15 * time.Second):
		s.t.Fatalf("no exit within 15 s of SIGTERM")
	}
}

// readyz returns the status and body of GET base/readyz.
func readyz(t *testing.T, base string) (int, string) {
	t.Helper()
	r, err := client.Get(base + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Body.Close()
	b, err := io.ReadAll(r.Body)
	if err != nil {
		t.Fatal(err)
	}
	return r.StatusCode, string(b)
}

// TestServeJSONLogs runs the server with JSON logs, set by flag and by
// environment: every line it writes, from start to stop, is one JSON object
// with time, level and msg, and the server answers /readyz on both
// listeners once it has loaded the store.
func TestServeJSONLogs(t *testing.T) {
	for _, byEnv := range []bool{false, true} {
		name := "flag"
		if byEnv {
			name = "environment"
		}
		t.Run(name, func(t *testing.T) {
			c := newCLI(t)
			_, p, key := deployed(t, c)
			s := startJSONServer(t, c.db, byEnv)
			for _, base := range []string{s.base, s.admin} {
				if status, body := readyz(t, base); status != 200 || body != "ready\n" {
					t.Fatalf("%s/readyz: %d %q, want 200 \"ready\\n\"", base, status, body)
				}
			}
			req, err := http.NewRequest("GET", s.base+lookupURL(p, "/old"), nil)
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("X-API-Key", key)
			r, err := client.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			r.Body.Close()
			if r.StatusCode != 200 {
				t.Fatalf("lookup: %d, want 200", r.StatusCode)
			}
			s.stop()
			s.mu.Lock()
			defer s.mu.Unlock()
			if len(s.lines) != len(s.raw) {
				t.Fatalf("%d of %d log lines are not JSON:\n%s", len(s.raw)-len(s.lines), len(s.raw), strings.Join(s.raw, "\n"))
			}
			var msgs []string
			for _, l := range s.lines {
				for _, k := range []string{"time", "level", "msg"} {
					if _, ok := l[k].(string); !ok {
						t.Errorf("log line without %s: %v", k, l)
					}
				}
				msgs = append(msgs, l["msg"].(string))
			}
			want := []string{"serving", "shutting down: finishing in-flight requests and flushing usage", "stopped"}
			if strings.Join(msgs, "|") != strings.Join(want, "|") {
				t.Errorf("log messages %q, want %q", msgs, want)
			}
		})
	}
}

// TestReadyzWithoutStore starts a node whose PostgreSQL refuses
// connections: /readyz and /healthz answer 503, /readyz says why, and the
// JSON log says the store cannot be reached.
func TestReadyzWithoutStore(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := ln.Addr().String()
	ln.Close() // nothing listens there: connections are refused
	s := startJSONServer(t, "postgres://redirects@"+closed+"/redirects?sslmode=disable&connect_timeout=2", false)
	for _, base := range []string{s.base, s.admin} {
		if status, body := readyz(t, base); status != 503 || body != "not ready: the store has not been loaded yet\n" {
			t.Errorf("%s/readyz without a store: %d %q", base, status, body)
		}
		r, err := client.Get(base + "/healthz")
		if err != nil {
			t.Fatal(err)
		}
		r.Body.Close()
		if r.StatusCode != 503 {
			t.Errorf("%s/healthz without a store: %d, want 503", base, r.StatusCode)
		}
	}
	s.stop()
	s.mu.Lock()
	defer s.mu.Unlock()
	found := false
	for _, l := range s.lines {
		if l["msg"] == "the store cannot be reached: answering 503 until it can" && l["level"] == "ERROR" {
			found = true
		}
	}
	if !found {
		t.Errorf("no JSON ERROR line saying the store cannot be reached:\n%s", strings.Join(s.raw, "\n"))
	}
}

// TestLogFormatRefused checks that an unknown log format is refused with
// a message naming it, by serve and by quickstart, before quickstart writes
// its demo data.
func TestLogFormatRefused(t *testing.T) {
	c := newCLI(t)
	c.fail(1, `log format "xml" is not one of text, json`, "serve", "--addr", "127.0.0.1:0", "--admin-addr", "", "--log-format", "xml")
	db := filepath.Join(t.TempDir(), "quick.db")
	q := &cli{t: t, db: "sqlite:" + db}
	q.fail(1, `log format "yaml" is not one of text, json`, "quickstart", "--addr", "127.0.0.1:0", "--admin-addr", "", "--log-format", "yaml")
	if _, err := os.Stat(db); !os.IsNotExist(err) {
		t.Errorf("quickstart with a bad log format created its database (%v)", err)
	}
}
