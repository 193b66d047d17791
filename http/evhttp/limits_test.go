//go:build linux && !386

package evhttp

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// TestAddressInUse: a second server on a live address fails with "address already in use", as
// net/http does, instead of joining the port and taking part of its connections; so does a socket
// of another program that asks for SO_REUSEPORT.
func TestAddressInUse(t *testing.T) {
	s, _ := startServer(t, Config{Loops: 2})
	h, _ := testHandler(t)
	_, port, _ := net.SplitHostPort(s.Addr())
	for _, addr := range []string{s.Addr(), ":" + port} {
		s2, err := Listen(Config{Addr: addr, Handler: h, Loops: 2})
		if err == nil {
			s2.Shutdown(t.Context())
			t.Fatalf("%s: a second server started on a live address", addr)
		}
		if !errors.Is(err, syscall.EADDRINUSE) || !strings.Contains(err.Error(), "address already in use") {
			t.Fatalf("%s: %v", addr, err)
		}
	}
	if ln, err := net.Listen("tcp", s.Addr()); err == nil {
		ln.Close()
		t.Fatal("net.Listen bound the live address")
	}
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(fd)
	const soReusePort = 0xf
	syscall.SetsockoptInt(fd, syscall.SOL_SOCKET, soReusePort, 1)
	p, _ := strconv.Atoi(port)
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Port: p, Addr: [4]byte{127, 0, 0, 1}}); !errors.Is(err, syscall.EADDRINUSE) {
		t.Fatalf("an SO_REUSEPORT socket binding the live address: %v", err)
	}
	// The loops still share the port: every connection is answered, over several loops.
	for i := range 8 {
		c := dial(t, s)
		c.send(fmt.Sprintf(get, fmt.Sprintf("/echo?%d", i)))
		if resp, _ := c.response("GET"); resp.StatusCode != 200 {
			t.Fatal(resp.Status)
		}
	}
	if st := s.Stats(); st.Conns != 8 || st.Accepted != 8 {
		t.Fatalf("stats %+v", st)
	}
}

// logLines collects ErrorLog's lines.
type logLines struct {
	mu    sync.Mutex
	lines []string
}

func (l *logLines) log(err error) {
	l.mu.Lock()
	l.lines = append(l.lines, err.Error())
	l.mu.Unlock()
}

func (l *logLines) count(sub string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, s := range l.lines {
		if strings.Contains(s, sub) {
			n++
		}
	}
	return n
}

// dialFrom connects to s from a given loopback address.
func dialFrom(t *testing.T, s *Server, from string) *rawConn {
	t.Helper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}}
	c, err := d.Dial("tcp", s.Addr())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	c.SetDeadline(time.Now().Add(10 * time.Second))
	return &rawConn{t, c, bufio.NewReader(c)}
}

// TestConnectionCaps: past MaxConnsPerAddr a client's new connections are closed at once while other
// clients are served; past MaxConns every new connection is; one line is logged when shedding
// begins and one when it ends, not one per connection.
func TestConnectionCaps(t *testing.T) {
	var logs logLines
	s, _ := startServer(t, Config{MaxConns: 5, MaxConnsPerAddr: 3, Loops: 2, ErrorLog: logs.log})
	serve := func(c *rawConn) {
		c.t.Helper()
		c.send(fmt.Sprintf(get, "/echo"))
		if resp, _ := c.response("GET"); resp.StatusCode != 200 {
			c.t.Fatal(resp.Status)
		}
	}
	var first []*rawConn
	for range 3 {
		c := dialFrom(t, s, "127.0.0.1")
		serve(c)
		first = append(first, c)
	}
	for range 2 {
		c := dialFrom(t, s, "127.0.0.1")
		c.send(fmt.Sprintf(get, "/echo"))
		c.expectClosed(5 * time.Second)
	}
	for range 2 {
		serve(dialFrom(t, s, "127.0.0.2"))
	}
	for range 3 {
		c := dialFrom(t, s, "127.0.0.3")
		c.send(fmt.Sprintf(get, "/echo"))
		c.expectClosed(5 * time.Second)
	}
	if n := logs.count("MaxConnsPerAddr"); n != 1 {
		t.Fatalf("%d lines about MaxConnsPerAddr: %q", n, logs.lines)
	}
	if n := logs.count("the limit (MaxConns)"); n != 1 {
		t.Fatalf("%d lines about MaxConns: %q", n, logs.lines)
	}
	st := s.Stats()
	if st.Conns != 5 || st.Shed != 3 || st.ShedPerAddr != 2 || st.MaxConns != 5 || st.MaxConnsPerAddr != 3 {
		t.Fatalf("stats %+v", st)
	}
	// Once a connection ends, new ones are served again, and the end of shedding is logged.
	first[0].Close()
	deadline := time.Now().Add(5 * time.Second)
	for s.Stats().Conns != 4 {
		if time.Now().After(deadline) {
			t.Fatalf("connection count stays at %d", s.Stats().Conns)
		}
		time.Sleep(10 * time.Millisecond)
	}
	serve(dialFrom(t, s, "127.0.0.3"))
	if n := logs.count("accepting connections again"); n != 1 {
		t.Fatalf("%d lines about the end of shedding: %q", n, logs.lines)
	}
}

func TestConnLimitDefaults(t *testing.T) {
	for _, tc := range []struct{ nofile, max, perAddr, wantMax, wantPerAddr int }{
		{nofile: 1024, wantMax: 922, wantPerAddr: 461},
		{nofile: 200, wantMax: 136, wantPerAddr: 68},
		{nofile: 1 << 20, wantMax: 943719, wantPerAddr: 471859},
		{nofile: 1024, max: 10, perAddr: -1, wantMax: 10, wantPerAddr: 0},
		{nofile: 1024, perAddr: 7, wantMax: 922, wantPerAddr: 7},
	} {
		cfg := Config{MaxConns: tc.max, MaxConnsPerAddr: tc.perAddr}
		cfg.setConnLimits(tc.nofile)
		if cfg.MaxConns != tc.wantMax || cfg.MaxConnsPerAddr != tc.wantPerAddr {
			t.Errorf("%+v: %d %d", tc, cfg.MaxConns, cfg.MaxConnsPerAddr)
		}
	}
}

// The descriptor test runs the server in a child process (this test binary again), whose descriptor
// limit it lowers for good: soft 150, hard 200.
const nofileChildEnv = "EVHTTP_TEST_NOFILE_CHILD"

// TestNofileChild is the child: it lowers its limits, starts a server answering /stats with its
// Stats and the descriptor limit, prints the address and serves until its stdin closes; ErrorLog
// lines go to stdout.
func TestNofileChild(t *testing.T) {
	if os.Getenv(nofileChildEnv) == "" {
		t.Skip("the child process of TestOutOfDescriptors")
	}
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &syscall.Rlimit{Cur: 150, Max: 200}); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var srv atomic.Pointer[Server]
	s, err := Listen(Config{Addr: "127.0.0.1:0", MaxConns: 1 << 20, Loops: 2,
		ErrorLog: func(err error) {
			mu.Lock()
			fmt.Printf("log: %v\n", err)
			mu.Unlock()
		},
		Handler: func(req *Request, resp *Response) func(*Response) {
			resp.Body, _ = json.Marshal(map[string]any{"stats": srv.Load().Stats(), "nofile": nofile()})
			return nil
		}})
	if err != nil {
		t.Fatal(err)
	}
	srv.Store(s)
	mu.Lock()
	fmt.Printf("addr: %s\n", s.Addr())
	mu.Unlock()
	io.Copy(io.Discard, os.Stdin)
	s.Shutdown(t.Context())
}

// TestOutOfDescriptors: a server out of descriptors logs one line when accepting stops and one when
// it resumes, not one per retry; its Stats count the failures and show the pause; and it serves
// again once connections end. It also checks that Listen raised the soft limit to the hard one.
func TestOutOfDescriptors(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a child process")
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestNofileChild$")
	cmd.Env = append(os.Environ(), nofileChildEnv+"=1")
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer stdin.Close()
	lines := make(chan string, 1000)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	var addr string
	var logs []string
	for addr == "" {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatal("the child ended")
			}
			if a, ok := strings.CutPrefix(l, "addr: "); ok {
				addr = a
			}
		case <-time.After(30 * time.Second):
			t.Fatal("no address from the child")
		}
	}
	stats := func() (st Stats, nofile uint64) {
		t.Helper()
		var v struct {
			Stats  Stats
			Nofile uint64
		}
		c := dial(t, &Server{addr: addr})
		defer c.Close()
		c.send(fmt.Sprintf(get, "/stats"))
		_, body := c.response("GET")
		if err := json.Unmarshal([]byte(body), &v); err != nil {
			t.Fatalf("%q: %v", body, err)
		}
		return v.Stats, v.Nofile
	}
	if _, n := stats(); n != 200 {
		t.Fatalf("descriptor limit %d, want the hard limit 200", n)
	}
	// 300 connections: about 190 are accepted, the rest wait in the kernel's queue.
	var conns []net.Conn
	for range 300 {
		c, err := net.DialTimeout("tcp", addr, 5*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
	}
	time.Sleep(1500 * time.Millisecond) // six sweeps: six retries of accept
	for _, c := range conns {
		c.Close()
	}
	// Accepting resumes: the stats request is served.
	st, _ := stats()
	if st.OutOfDescriptors == 0 {
		t.Fatalf("no accept failure counted: %+v", st)
	}
	stdin.Close()
	cmd.Wait()
	for l := range lines {
		logs = append(logs, l)
	}
	// One line per change of state: running out and accepting again
	// alternate, starting with running out. A loaded machine may free and
	// use up descriptors more than once while the connections come in, so
	// a second round is allowed, but never a repeated line (which a log
	// line per retry of accept would give: six sweeps, six lines).
	var out, again int
	for _, l := range logs {
		switch {
		case strings.Contains(l, "too many open files"):
			if out != again {
				t.Fatalf("two lines about running out without one about resuming between them:\n%s", strings.Join(logs, "\n"))
			}
			out++
		case strings.Contains(l, "accepting again"):
			if again+1 != out {
				t.Fatalf("a line about resuming without one about running out before it:\n%s", strings.Join(logs, "\n"))
			}
			again++
		}
	}
	if out == 0 || out != again || out > 3 {
		t.Fatalf("%d lines about running out, %d about resuming, want one of each per transition, at most 3:\n%s", out, again, strings.Join(logs, "\n"))
	}
}

// TestRFC9112Answers sends raw requests to this engine and to net/http's server and compares the
// statuses: the MUSTs of RFC 9112 on Host and Content-Length (400), unknown transfer codings (501),
// and HTTP/1.2 handled as HTTP/1.1.
func TestRFC9112Answers(t *testing.T) {
	s, _ := startServer(t, Config{})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	std := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}),
		ReadHeaderTimeout: 5 * time.Second}
	go std.Serve(ln)
	t.Cleanup(func() { std.Close() })
	status := func(addr, req string) int {
		t.Helper()
		c := dial(t, &Server{addr: addr})
		defer c.Close()
		c.send(req)
		resp, _ := c.response("GET")
		return resp.StatusCode
	}
	for _, tc := range []struct {
		req  string
		want int
	}{
		{"GET /echo HTTP/1.1\r\nHost: t\r\n\r\n", 200},
		{"GET /echo HTTP/1.1\r\n\r\n", 400},
		{"GET /echo HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 400},
		{"GET /echo HTTP/1.1\r\nHost: a\r\nHost: a\r\n\r\n", 400},
		{"GET /echo HTTP/1.1\r\nHost: a b\r\n\r\n", 400},
		{"GET /echo HTTP/1.1\r\nHost: a/b\r\n\r\n", 400},
		{"GET /echo HTTP/1.0\r\n\r\n", 200},
		{"GET /echo HTTP/1.0\r\nHost: a\r\nHost: b\r\n\r\n", 400},
		{"POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab", 400},
		{"POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\nab", 200},
		{"POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: gzip\r\n\r\n", 501},
		{"POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", 501},
		{"POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 200},
		{"GET /echo HTTP/1.2\r\nHost: t\r\n\r\n", 200},
		{"GET /ec%zzho HTTP/1.1\r\nHost: t\r\n\r\n", 400},
	} {
		got, fromStd := status(s.Addr(), tc.req), status(ln.Addr().String(), tc.req)
		if got != tc.want || fromStd != tc.want {
			t.Errorf("%q: %d, net/http %d, want %d", tc.req, got, fromStd, tc.want)
		}
	}
	// The engine's own 501 answer.
	c := dial(t, s)
	c.send("POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: gzip\r\n\r\n")
	resp, body := c.response("GET")
	if body != `{"error":"Not Implemented","code":"NOT_IMPLEMENTED"}` || resp.Header.Get("Content-Type") != "application/json" || !resp.Close {
		t.Fatalf("%d %q %v", resp.StatusCode, body, resp.Header)
	}
	c.expectClosed(3 * time.Second)
	// HTTP/1.2 keeps the connection alive like 1.1.
	c = dial(t, s)
	for range 2 {
		c.send("GET /echo HTTP/1.2\r\nHost: t\r\n\r\n")
		if resp, body := c.response("GET"); resp.Close || !strings.HasPrefix(body, "GET /echo  HTTP/1.2") {
			t.Fatalf("HTTP/1.2: close %v %q", resp.Close, body)
		}
	}
}

// TestSilentFlood: connections that never send a byte fill MaxConns; new connections are closed at
// once meanwhile, and once ReadHeaderTimeout has cut the silent ones, requests are served again.
func TestSilentFlood(t *testing.T) {
	var logs logLines
	s, _ := startServer(t, Config{MaxConns: 20, MaxConnsPerAddr: -1, ReadHeaderTimeout: 300 * time.Millisecond, ErrorLog: logs.log})
	var silent []*rawConn
	for range 30 {
		silent = append(silent, dial(t, s))
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		c := dial(t, s)
		c.send(fmt.Sprintf(get, "/echo"))
		c.SetReadDeadline(time.Now().Add(5 * time.Second))
		if resp, err := http.ReadResponse(c.r, nil); err == nil && resp.StatusCode == 200 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no request served after the silent connections; stats %+v", s.Stats())
		}
		time.Sleep(50 * time.Millisecond)
	}
	for _, c := range silent {
		c.expectClosed(5 * time.Second)
	}
	if st := s.Stats(); st.Shed < 10 || logs.count("the limit (MaxConns)") != 1 || logs.count("accepting connections again") != 1 {
		t.Fatalf("stats %+v, log %q", st, logs.lines)
	}
}
