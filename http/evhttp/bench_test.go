//go:build linux && !386

package evhttp

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Requests as wrk and as a browser send them.
const (
	wrkRequest     = "GET /v1/lookup?project=prj_1&path=/old HTTP/1.1\r\nHost: 127.0.0.1:8080\r\n\r\n"
	browserRequest = "GET /v1/lookup?project=prj_01HZX3&path=%2Fblog%2F2019%2Fhello HTTP/1.1\r\n" +
		"Host: redirects.example.com\r\n" +
		"User-Agent: Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0\r\n" +
		"Accept: application/json,text/html;q=0.9,*/*;q=0.8\r\n" +
		"Accept-Language: en-US,en;q=0.5\r\n" +
		"Accept-Encoding: gzip, deflate, br\r\n" +
		"X-API-Key: rk_live_0123456789abcdef0123456789abcdef\r\n" +
		"Connection: keep-alive\r\n" +
		"Sec-Fetch-Mode: cors\r\n\r\n"
)

var lookupBody = []byte(`{"destination":"https://blog.example.com/2019/hello","statusCode":301,"matchType":"starts_with"}`)

// lookupHandler does what the edge's lookup answer does to a response: a key check, six headers, a
// pre-rendered JSON body.
func lookupHandler(req *Request, resp *Response) func(*Response) {
	if req.Path != "/v1/lookup" {
		resp.Status = 404
		return nil
	}
	_ = req.Header("X-API-Key")
	resp.Status = 200
	resp.Set("Content-Type", "application/json")
	resp.Set("Cache-Control", "no-store")
	resp.Set("X-RateLimit-Limit", "1000")
	resp.Set("X-RateLimit-Remaining", "999")
	resp.Set("X-RateLimit-Reset", "60")
	resp.Set("X-Request-Id", "req_0123456789")
	resp.Body = lookupBody
	return nil
}

func BenchmarkParse(b *testing.B) {
	for _, tc := range []struct{ name, req string }{{"wrk", wrkRequest}, {"browser", browserRequest}} {
		b.Run(tc.name, func(b *testing.B) {
			buf := []byte(tc.req)
			var r Request
			b.SetBytes(int64(len(buf)))
			b.ReportAllocs()
			for b.Loop() {
				if n, code := parseRequest(buf, &r, 16<<10); n != len(buf) || code != 0 {
					b.Fatal(n, code)
				}
			}
		})
	}
}

// benchLoop is a loop without a listener serving one end of a socket pair; the benchmark plays the
// client on the other end and calls the loop's read path directly, as epoll would.
func benchLoop(b testing.TB, h Handler) (*loop, *conn, int) {
	l := &loop{
		handler: h, maxHeader: DefaultMaxHeaderBytes, base: time.Now(), lfd: -1, efd: -1,
		readHeaderTimeout: int64(time.Second), writeTimeout: int64(time.Second), idle: int64(time.Second),
	}
	var err error
	if l.epfd, err = syscall.EpollCreate1(syscall.EPOLL_CLOEXEC); err != nil {
		b.Fatal(err)
	}
	fds, err := syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_NONBLOCK|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		b.Fatal(err)
	}
	if e := epollCtl(l.epfd, syscall.EPOLL_CTL_ADD, fds[0], syscall.EPOLLIN); e != 0 {
		b.Fatal(e)
	}
	if l.efd, err = sysEventfd(); err != nil {
		b.Fatal(err)
	}
	l.tick()
	c := l.newConn()
	c.fd, c.interest, c.remote = fds[0], syscall.EPOLLIN, "127.0.0.1:1"
	l.active = append(l.active, c)
	l.byFD = make([]*conn, fds[0]+1)
	l.byFD[fds[0]] = c
	b.Cleanup(func() {
		l.closeConn(c)
		syscall.Close(fds[1])
		syscall.Close(l.epfd)
		syscall.Close(l.efd)
	})
	return l, c, fds[1]
}

// BenchmarkServeInProcess measures the server's whole per-request path (read, parse, handler,
// response, write: two system calls) without the network or epoll_wait; the client's write and read
// on the socket pair are included in the time.
func BenchmarkServeInProcess(b *testing.B) {
	for _, depth := range []int{1, 16} {
		b.Run(fmt.Sprintf("pipeline=%d", depth), func(b *testing.B) {
			l, c, peer := benchLoop(b, lookupHandler)
			req := bytes.Repeat([]byte(browserRequest), depth)
			out := make([]byte, 64<<10)
			// One round to learn the size of the responses.
			syscall.Write(peer, req)
			l.readable(c)
			want, _ := syscall.Read(peer, out)
			if want <= 0 || !bytes.HasPrefix(out, []byte("HTTP/1.1 200 OK\r\n")) {
				b.Fatalf("response %q", out[:max(want, 0)])
			}
			b.ReportAllocs()
			for b.Loop() {
				syscall.Write(peer, req)
				l.readable(c)
				for got := 0; got < want; {
					n, err := syscall.Read(peer, out)
					if err != nil || n <= 0 {
						b.Fatal(err)
					}
					got += n
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*depth), "ns/req")
		})
	}
}

// BenchmarkServe is the real thing over loopback TCP: a running server, a raw client connection,
// one request and response per operation (pipelined by 16 in the second case). The allocations
// reported are the whole process's: server and client.
func BenchmarkServe(b *testing.B) {
	for _, depth := range []int{1, 16} {
		b.Run(fmt.Sprintf("pipeline=%d", depth), func(b *testing.B) {
			s, err := Listen(Config{Addr: "127.0.0.1:0", Handler: lookupHandler, Loops: 1})
			if err != nil {
				b.Fatal(err)
			}
			defer s.Shutdown(b.Context())
			c, err := net.Dial("tcp", s.Addr())
			if err != nil {
				b.Fatal(err)
			}
			defer c.Close()
			req := bytes.Repeat([]byte(browserRequest), depth)
			r := bufio.NewReaderSize(c, 64<<10)
			c.Write(req)
			resp := readN(b, r, depth)
			b.ReportAllocs()
			for b.Loop() {
				c.Write(req)
				if _, err := io.ReadFull(r, resp); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*depth), "ns/req")
		})
	}
}

// readN reads depth responses and returns a buffer of their total size.
func readN(b *testing.B, r *bufio.Reader, depth int) []byte {
	total := 0
	for range depth {
		for {
			line, err := r.ReadSlice('\n')
			if err != nil {
				b.Fatal(err)
			}
			total += len(line)
			if len(line) == 2 {
				break
			}
		}
		total += len(lookupBody)
		if _, err := r.Discard(len(lookupBody)); err != nil {
			b.Fatal(err)
		}
	}
	return make([]byte, total)
}

// TestZeroAllocs guards the zero-allocation property of the request path: read, parse, handler,
// response, write, with one request and with a pipelined batch.
func TestZeroAllocs(t *testing.T) {
	l, c, peer := benchLoop(t, lookupHandler)
	out := make([]byte, 64<<10)
	for _, req := range [][]byte{[]byte(wrkRequest), []byte(browserRequest), bytes.Repeat([]byte(browserRequest), 20)} {
		allocs := testing.AllocsPerRun(200, func() {
			syscall.Write(peer, req)
			l.readable(c)
			for {
				if _, err := syscall.Read(peer, out); err != nil {
					break // EAGAIN: all read
				}
			}
		})
		if allocs != 0 {
			t.Errorf("%d-byte request: %v allocations per run", len(req), allocs)
		}
	}
}

// TestSlowWhileOutputPending drives a loop by hand through the case where a slow function runs while
// the responses before its request still wait for the socket: they must keep flowing on EPOLLOUT,
// the connection must then wait with no events registered, and the slow response must follow.
func TestSlowWhileOutputPending(t *testing.T) {
	release := make(chan struct{})
	medium := bytes.Repeat([]byte("m"), copyBodyMax)
	l, c, peer := benchLoop(t, func(req *Request, resp *Response) func(*Response) {
		switch req.Path {
		case "/medium":
			resp.Body = medium
		case "/slow":
			return func(resp *Response) {
				<-release
				resp.Body = []byte("slow")
			}
		default:
			resp.Body = []byte("echo")
		}
		return nil
	})
	if err := syscall.SetsockoptInt(c.fd, syscall.SOL_SOCKET, syscall.SO_SNDBUF, 4096); err != nil {
		t.Fatal(err)
	}
	req := strings.Repeat("GET /medium HTTP/1.1\r\nHost: t\r\n\r\n", 7) + "GET /slow HTTP/1.1\r\nHost: t\r\n\r\nGET /echo HTTP/1.1\r\nHost: t\r\n\r\n"
	syscall.Write(peer, []byte(req))
	l.readable(c)
	if c.state != stSlow || !c.pending() || c.interest != syscall.EPOLLOUT {
		t.Fatalf("state %d pending %v interest %#x: the test does not reach its case", c.state, c.pending(), c.interest)
	}
	var got []byte
	buf := make([]byte, 64<<10)
	drain := func() {
		for {
			n, err := syscall.Read(peer, buf)
			if err != nil || n <= 0 {
				return
			}
			got = append(got, buf[:n]...)
		}
	}
	for i := 0; c.pending(); i++ {
		if i == 100 {
			t.Fatalf("no progress on EPOLLOUT: %d bytes pending", c.pendingBytes)
		}
		drain()
		l.event(c, syscall.EPOLLOUT)
	}
	drain()
	if c.interest != 0 {
		t.Fatalf("interest %#x while the slow function runs, want none", c.interest)
	}
	if n := bytes.Count(got, medium); n != 7 || bytes.Contains(got, []byte("slow")) {
		t.Fatalf("%d medium bodies before the slow one finished", n)
	}
	close(release)
	for deadline := time.Now().Add(5 * time.Second); ; {
		l.mu.Lock()
		n := len(l.done)
		l.mu.Unlock()
		if n > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("slow function did not complete")
		}
		time.Sleep(time.Millisecond)
	}
	l.wakeup()
	got = got[:0]
	drain()
	if i, j := bytes.Index(got, []byte("\r\n\r\nslow")), bytes.Index(got, []byte("\r\n\r\necho")); i < 0 || j < i {
		t.Fatalf("after the slow function: %q", got)
	}
	if c.state != stReading || c.interest != syscall.EPOLLIN {
		t.Fatalf("state %d interest %#x after the slow response", c.state, c.interest)
	}
}

// TestServeForWrk serves a fixed 200 JSON answer for load generators when EVHTTP_WRK_ADDR is set,
// for EVHTTP_WRK_SECONDS (default 30), e.g.:
//
//	go test -c -o /tmp/evhttp.test ./http/evhttp
//	EVHTTP_WRK_ADDR=127.0.0.1:18080 taskset -c 0 /tmp/evhttp.test -test.run TestServeForWrk &
//	taskset -c 1 wrk -t1 -c64 -d5s http://127.0.0.1:18080/v1/lookup
func TestServeForWrk(t *testing.T) {
	addr := os.Getenv("EVHTTP_WRK_ADDR")
	if addr == "" {
		t.Skip("EVHTTP_WRK_ADDR not set")
	}
	secs, _ := strconv.Atoi(os.Getenv("EVHTTP_WRK_SECONDS"))
	if secs <= 0 {
		secs = 30
	}
	body := []byte(`{"destination":"https://example.com/new","statusCode":301,"matchType":"exact"}`)
	s, err := Listen(Config{Addr: addr, Handler: func(req *Request, resp *Response) func(*Response) {
		resp.Status = 200
		resp.Set("Content-Type", "application/json")
		resp.Body = body
		return nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("serving on %s for %ds", s.Addr(), secs)
	time.Sleep(time.Duration(secs) * time.Second)
	s.Shutdown(t.Context())
}
