package main_test

import (
	"bufio"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// serveProcess is "redirects serve" run as a process of the binary, for the
// tests where the process is the point: its signals and its exit.
type serveProcess struct {
	*edge // for requests and logs: base and admin are the process's addresses
	cmd   *exec.Cmd
	done  chan error // Wait's result
}

// servingLine is the log line that gives a process's addresses: a process
// has no other way to tell which ports it picked.
var servingLine = regexp.MustCompile(`msg=serving addr=(\S+) admin=(\S*)`)

// startServeProcess starts the binary's serve on free loopback ports and
// returns once it answers /healthz. A process still running at the test's
// end gets SIGTERM, then SIGKILL. extra are more flags of serve.
func startServeProcess(t *testing.T, c *cli, extra ...string) *serveProcess {
	t.Helper()
	args := append([]string{"serve", "--addr", "127.0.0.1:0", "--admin-addr", "127.0.0.1:0"}, extra...)
	if c.engine != "" {
		args = append(args, "--engine", c.engine)
	}
	s := &serveProcess{edge: &edge{t: t}, cmd: c.command(args...), done: make(chan error, 1)}
	stderr, err := s.cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	addrs := make(chan []string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			line := sc.Text()
			s.logs.Write([]byte(line + "\n"))
			if m := servingLine.FindStringSubmatch(line); m != nil {
				addrs <- m[1:]
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
		noDataRace(t, s.logs.String())
	})
	select {
	case a := <-addrs:
		s.base, s.admin = "http://"+a[0], "http://"+a[1]
	case <-time.After(15 * time.Second):
		t.Fatalf("serve did not start in 15 s; logs:\n%s", s.logs.String())
	}
	if r := s.get("/healthz", ""); r.status != 200 {
		t.Fatalf("/healthz answered %d after start", r.status)
	}
	return s
}

// noDataRace fails the test if a binary built with REDIRECTS_TEST_RACE
// reported a data race.
func noDataRace(t *testing.T, logs string) {
	t.Helper()
	if strings.Contains(logs, "DATA RACE") {
		t.Errorf("the process reported a data race:\n%s", logs)
	}
}

// TestServeStopsOnSIGTERM runs the binary: on SIGTERM it finishes, flushes
// the usage it counted and exits 0.
func TestServeStopsOnSIGTERM(t *testing.T) { eachEngine(t, testServeStopsOnSIGTERM) }

func testServeStopsOnSIGTERM(t *testing.T, c *cli) {
	_, p, key := deployed(t, c, "--monthly-quota", "3")
	month := time.Now().UTC().Month()
	s := startServeProcess(t, c)
	for i, want := range []string{"2", "1"} {
		r := s.get(lookupURL(p, "/old"), key)
		if r.status != 200 || r.header.Get("X-Quota-Remaining") != want {
			t.Fatalf("lookup %d: %d X-Quota-Remaining %q, want 200 and %s", i+1, r.status, r.header.Get("X-Quota-Remaining"), want)
		}
	}
	s.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-s.done:
		if err != nil {
			t.Fatalf("serve exited with %v after SIGTERM; logs:\n%s", err, s.logs.String())
		}
	case <-time.After(15 * time.Second):
		t.Fatalf("serve did not stop within 15 s of SIGTERM; logs:\n%s", s.logs.String())
	}
	logs := s.logs.String()
	for _, want := range []string{"msg=\"shutting down: finishing in-flight requests and flushing usage\"", "msg=stopped"} {
		if !strings.Contains(logs, want) {
			t.Fatalf("the logs after SIGTERM lack %s:\n%s", want, logs)
		}
	}

	// The two lookups were written to the store on the way out.
	e := startEdge(t, c)
	r := e.get(lookupURL(p, "/old"), key)
	if time.Now().UTC().Month() != month {
		t.Skip("a new month began during the test: its quota starts afresh")
	}
	if r.status != 200 || r.header.Get("X-Quota-Remaining") != "0" {
		t.Fatalf("after the restart: %d X-Quota-Remaining %q, want 200 and 0 (the usage flushed at SIGTERM)", r.status, r.header.Get("X-Quota-Remaining"))
	}
}
