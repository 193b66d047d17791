//go:build linux && !386

package evhttp

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// testHandler answers the paths the tests use.
//
//	/echo          200 text: method, path, query, proto and the X-Test header
//	/status/N      status N with body "body"
//	/big           the 20 MiB body bigBody
//	/medium        its first copyBodyMax bytes (the largest body that is copied)
//	/slow          a slow function that sleeps 100 ms (or what ?ms= says), keeping a header set before
//	/panic         a panic in the handler
//	/slowpanic     a panic in the slow function
//	/block         a slow function that waits until unblock is closed
//	/scratch       the query repeated (the number before its first '&') times, rendered into
//	               Response.Scratch, as the edge renders a computed lookup answer
func testHandler(t testing.TB) (Handler, chan struct{}) {
	unblock := make(chan struct{})
	return func(req *Request, resp *Response) func(*Response) {
		switch {
		case req.Path == "/echo":
			resp.Status = 200
			resp.Set("Content-Type", "text/plain")
			resp.Body = fmt.Appendf(nil, "%s %s %s %s %s %q", req.Method, req.Path, req.RawQuery, req.Proto, req.Header("x-TEST"), req.RemoteAddr)
		case strings.HasPrefix(req.Path, "/status/"):
			fmt.Sscan(req.Path[len("/status/"):], &resp.Status)
			resp.Body = []byte("body")
		case req.Path == "/medium":
			resp.Status = 200
			resp.Body = bigBody()[:copyBodyMax]
		case req.Path == "/big":
			resp.Status = 200
			resp.Body = bigBody()
		case req.Path == "/slow":
			ms := 100
			if strings.HasPrefix(req.RawQuery, "ms=") {
				fmt.Sscan(req.RawQuery[3:], &ms)
			}
			resp.Set("X-Before", "kept")
			resp.Set("X-Path", req.Path) // a view: must stay valid across the slow function
			return func(resp *Response) {
				time.Sleep(time.Duration(ms) * time.Millisecond)
				resp.Status = 200
				resp.Body = []byte("slow")
			}
		case req.Path == "/block":
			return func(resp *Response) {
				<-unblock
				resp.Status = 200
				resp.Body = []byte("unblocked")
			}
		case req.Path == "/scratch":
			var n int
			q, _, _ := strings.Cut(req.RawQuery, "&")
			fmt.Sscan(q, &n)
			b := resp.Scratch[:0]
			for range n {
				b = append(b, req.RawQuery...)
			}
			resp.Scratch, resp.Body = b, b
			resp.Status = 200
		case req.Path == "/panic":
			panic("boom")
		case req.Path == "/slowpanic":
			return func(resp *Response) { panic("slow boom") }
		default:
			resp.Status = 404
			resp.Body = []byte("not found")
		}
		return nil
	}, unblock
}

var (
	bigOnce sync.Once
	big     []byte
)

func bigBody() []byte {
	bigOnce.Do(func() {
		big = make([]byte, 20<<20)
		for i := range big {
			big[i] = byte(i*7 + i>>11)
		}
	})
	return big
}

func startServer(t *testing.T, cfg Config) (*Server, chan struct{}) {
	t.Helper()
	h, unblock := testHandler(t)
	if cfg.Handler == nil {
		cfg.Handler = h
	}
	if cfg.Addr == "" {
		cfg.Addr = "127.0.0.1:0"
	}
	if cfg.Loops == 0 {
		// As serve runs the engine (SpareP): a loop per P but one, so the loops hold their Ps
		// through short waits (TestMain leaves at least 3 Ps).
		cfg.Loops = runtime.GOMAXPROCS(0) - 1
	}
	s, err := Listen(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		select {
		case <-unblock:
		default:
			close(unblock)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := s.Shutdown(ctx); err != nil {
			t.Errorf("Shutdown: %v", err)
		}
	})
	return s, unblock
}

type rawConn struct {
	t *testing.T
	net.Conn
	r *bufio.Reader
}

func dial(t *testing.T, s *Server) *rawConn {
	t.Helper()
	c, err := net.Dial("tcp", s.Addr())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	c.SetDeadline(time.Now().Add(10 * time.Second))
	return &rawConn{t, c, bufio.NewReader(c)}
}

func (c *rawConn) send(s string) {
	c.t.Helper()
	if _, err := io.WriteString(c, s); err != nil {
		c.t.Fatal(err)
	}
}

// response reads one response to a request with the given method and returns it with its body.
func (c *rawConn) response(method string) (*http.Response, string) {
	c.t.Helper()
	resp, err := http.ReadResponse(c.r, &http.Request{Method: method})
	if err != nil {
		c.t.Fatalf("reading response: %v", err)
	}
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		c.t.Fatalf("reading body: %v", err)
	}
	return resp, string(b)
}

// expectClosed asserts that the server closes the connection (EOF or reset) within d and returns
// how long that took.
func (c *rawConn) expectClosed(d time.Duration) time.Duration {
	c.t.Helper()
	start := time.Now()
	c.SetReadDeadline(start.Add(d))
	b, err := io.ReadAll(c.r)
	if err != nil && !errors.Is(err, net.ErrClosed) && !isReset(err) {
		c.t.Fatalf("connection not closed after %v: %v (read %q)", d, err, b)
	}
	if len(b) > 0 {
		c.t.Fatalf("unexpected bytes before close: %q", b)
	}
	return time.Since(start)
}

func isReset(err error) bool {
	return err != nil && strings.Contains(err.Error(), "connection reset")
}

const get = "GET %s HTTP/1.1\r\nHost: t\r\n\r\n"

func TestKeepAliveNetHTTP(t *testing.T) {
	s, _ := startServer(t, Config{})
	var conns atomic.Int32
	tr := &http.Transport{
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			conns.Add(1)
			return (&net.Dialer{}).DialContext(ctx, network, addr)
		},
	}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, Timeout: 5 * time.Second}
	for i := range 5 {
		req, _ := http.NewRequest("GET", fmt.Sprintf("http://%s/echo?i=%d", s.Addr(), i), nil)
		req.Header.Set("X-Test", "hello")
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		want := fmt.Sprintf("GET /echo i=%d HTTP/1.1 hello ", i)
		if resp.StatusCode != 200 || !strings.HasPrefix(string(b), want) {
			t.Fatalf("got %d %q, want 200 %q...", resp.StatusCode, b, want)
		}
		if resp.Header.Get("Date") == "" || resp.Header.Get("Content-Type") != "text/plain" {
			t.Fatalf("headers: %v", resp.Header)
		}
	}
	if n := conns.Load(); n != 1 {
		t.Fatalf("%d connections for 5 requests, want 1 (keep-alive)", n)
	}
}

func TestKeepAliveRaw(t *testing.T) {
	s, _ := startServer(t, Config{})
	c := dial(t, s)
	for i := range 5 {
		c.send(fmt.Sprintf("GET /echo?i=%d HTTP/1.1\r\nHost: t\r\nX-Test:  v%d \t\r\n\r\n", i, i))
		resp, body := c.response("GET")
		local := c.LocalAddr().String()
		want := fmt.Sprintf("GET /echo i=%d HTTP/1.1 v%d %q", i, i, local)
		if resp.StatusCode != 200 || body != want {
			t.Fatalf("got %d %q, want %q", resp.StatusCode, body, want)
		}
		if resp.Close {
			t.Fatal("Connection: close on a keep-alive response")
		}
	}
}

func TestHeaderOrderAndFraming(t *testing.T) {
	s, _ := startServer(t, Config{Handler: func(req *Request, resp *Response) func(*Response) {
		resp.Status = 201
		resp.Set("B-Second", "2")
		resp.Set("A-First", "1")
		resp.Set("X-Split", "a\r\nInjected: yes")
		resp.Body = []byte("created")
		return nil
	}})
	c := dial(t, s)
	c.send(fmt.Sprintf(get, "/"))
	var head []string
	for {
		line, err := c.r.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		if line == "\r\n" {
			break
		}
		head = append(head, strings.TrimRight(line, "\r\n"))
	}
	if len(head) != 6 || head[0] != "HTTP/1.1 201 Created" || head[1] != "B-Second: 2" || head[2] != "A-First: 1" ||
		head[3] != "X-Split: a  Injected: yes" || !strings.HasPrefix(head[4], "Date: ") || head[5] != "Content-Length: 7" {
		t.Fatalf("head:\n%s", strings.Join(head, "\n"))
	}
	if _, err := time.Parse(http.TimeFormat, head[4][len("Date: "):]); err != nil {
		t.Fatal(err)
	}
	b := make([]byte, 7)
	if _, err := io.ReadFull(c.r, b); err != nil || string(b) != "created" {
		t.Fatalf("body %q %v", b, err)
	}
}

func TestPipelining(t *testing.T) {
	s, _ := startServer(t, Config{})
	c := dial(t, s)
	c.send("GET /echo?n=1 HTTP/1.1\r\nHost: t\r\n\r\nGET /status/404 HTTP/1.1\r\nHost: t\r\n\r\nGET /echo?n=3 HTTP/1.1\r\nHost: t\r\n\r\n")
	for i, want := range []string{"GET /echo n=1", "body", "GET /echo n=3"} {
		resp, body := c.response("GET")
		if !strings.HasPrefix(body, want) {
			t.Fatalf("response %d: %d %q, want %q", i, resp.StatusCode, body, want)
		}
	}
}

// TestScratch checks Response.Scratch: pipelined requests whose bodies are
// rendered into the connection's one buffer, below copyBodyMax (copied at
// once) and above it (written later from the buffer, which the next
// request must not render over), each get their own body.
func TestScratch(t *testing.T) {
	s, _ := startServer(t, Config{})
	c := dial(t, s)
	var reqs strings.Builder
	var want []string
	for i := range 60 {
		n := i * 37 % 400
		q := fmt.Sprintf("%d&i=%03d&pad=%s", n, i, strings.Repeat("x", 20))
		fmt.Fprintf(&reqs, "GET /scratch?%s HTTP/1.1\r\nHost: t\r\n\r\n", q)
		want = append(want, strings.Repeat(q, n))
	}
	c.send(reqs.String())
	large := 0
	for i, w := range want {
		resp, body := c.response("GET")
		if resp.StatusCode != 200 || body != w {
			t.Fatalf("response %d: %d, body of %d bytes %.40q..., want %d bytes %.40q...", i, resp.StatusCode, len(body), body, len(w), w)
		}
		if len(w) > copyBodyMax {
			large++
		}
	}
	if large == 0 || large == len(want) {
		t.Fatalf("%d of %d bodies are over copyBodyMax: the test needs both kinds", large, len(want))
	}
}

// TestPipeliningSplit sends pipelined requests cut at every byte boundary.
func TestPipeliningSplit(t *testing.T) {
	s, _ := startServer(t, Config{})
	reqs := "GET /echo?n=1 HTTP/1.1\r\nHost: t\r\n\r\nGET /echo?n=2 HTTP/1.1\nHost: t\n\nGET /echo?n=3 HTTP/1.1\r\nHost: t\r\nX-Test: x\r\n\r\n"
	for cut := 1; cut < len(reqs); cut += 7 {
		c := dial(t, s)
		c.send(reqs[:cut])
		time.Sleep(time.Millisecond)
		c.send(reqs[cut:])
		for i := 1; i <= 3; i++ {
			_, body := c.response("GET")
			if !strings.HasPrefix(body, fmt.Sprintf("GET /echo n=%d", i)) {
				t.Fatalf("cut %d response %d: %q", cut, i, body)
			}
		}
		c.Close()
	}
}

func TestHEAD(t *testing.T) {
	s, _ := startServer(t, Config{})
	c := dial(t, s)
	c.send("HEAD /status/200 HTTP/1.1\r\nHost: t\r\n\r\n" + fmt.Sprintf(get, "/status/201"))
	resp, body := c.response("HEAD")
	if resp.StatusCode != 200 || resp.ContentLength != 4 || body != "" {
		t.Fatalf("HEAD: %d length %d body %q", resp.StatusCode, resp.ContentLength, body)
	}
	// The next response must start right after the head: no body bytes in between.
	resp, body = c.response("GET")
	if resp.StatusCode != 201 || body != "body" {
		t.Fatalf("after HEAD: %d %q", resp.StatusCode, body)
	}
	// A large body is not sent either.
	c.send("HEAD /big HTTP/1.1\r\nHost: t\r\n\r\n" + fmt.Sprintf(get, "/status/202"))
	resp, _ = c.response("HEAD")
	if resp.ContentLength != 20<<20 {
		t.Fatalf("HEAD /big: length %d", resp.ContentLength)
	}
	if resp, _ = c.response("GET"); resp.StatusCode != 202 {
		t.Fatalf("after HEAD /big: %d", resp.StatusCode)
	}
}

func TestNoBodyStatuses(t *testing.T) {
	s, _ := startServer(t, Config{})
	for _, code := range []int{204, 304} {
		c := dial(t, s)
		c.send(fmt.Sprintf(get, fmt.Sprintf("/status/%d", code)) + fmt.Sprintf(get, "/status/200"))
		var head bytes.Buffer
		for {
			line, err := c.r.ReadString('\n')
			if err != nil {
				t.Fatal(err)
			}
			head.WriteString(line)
			if line == "\r\n" {
				break
			}
		}
		if strings.Contains(strings.ToLower(head.String()), "content-length") {
			t.Fatalf("%d has Content-Length:\n%s", code, head.String())
		}
		if !strings.HasPrefix(head.String(), fmt.Sprintf("HTTP/1.1 %d ", code)) {
			t.Fatalf("head:\n%s", head.String())
		}
		if resp, body := c.response("GET"); resp.StatusCode != 200 || body != "body" {
			t.Fatalf("after %d: %d %q", code, resp.StatusCode, body)
		}
	}
}

// TestLargeBody reads a 20 MiB body slowly, with a pipelined request behind it.
func TestLargeBody(t *testing.T) {
	s, _ := startServer(t, Config{})
	c := dial(t, s)
	c.Conn.(*net.TCPConn).SetReadBuffer(64 << 10)
	c.send(fmt.Sprintf(get, "/big") + fmt.Sprintf(get, "/status/200"))
	resp, err := http.ReadResponse(c.r, nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.ContentLength != 20<<20 {
		t.Fatalf("length %d", resp.ContentLength)
	}
	h := sha256.New()
	buf := make([]byte, 256<<10)
	var n int64
	for reads := 0; ; reads++ {
		k, err := resp.Body.Read(buf)
		h.Write(buf[:k])
		n += int64(k)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if reads%8 == 0 && reads < 200 {
			time.Sleep(2 * time.Millisecond) // a slow reader: the server meets EAGAIN
		}
	}
	if want := sha256.Sum256(bigBody()); n != 20<<20 || !bytes.Equal(h.Sum(nil), want[:]) {
		t.Fatalf("body: %d bytes, digest mismatch", n)
	}
	if resp, body := c.response("GET"); resp.StatusCode != 200 || body != "body" {
		t.Fatalf("after big: %d %q", resp.StatusCode, body)
	}
}

// TestWriteTimeout: a client that does not read a large body is cut off after WriteTimeout.
func TestWriteTimeout(t *testing.T) {
	s, _ := startServer(t, Config{WriteTimeout: 300 * time.Millisecond})
	c := dial(t, s)
	c.Conn.(*net.TCPConn).SetReadBuffer(16 << 10)
	c.send(fmt.Sprintf(get, "/big"))
	time.Sleep(800 * time.Millisecond)
	// Some of the body was buffered; reading must end well before 20 MiB.
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	n, err := io.Copy(io.Discard, c.r)
	if err != nil && !isReset(err) {
		t.Fatalf("after %d bytes: %v", n, err)
	}
	if n >= 20<<20 {
		t.Fatalf("read %d bytes: the connection was not cut", n)
	}
}

func TestSlowHandler(t *testing.T) {
	s, _ := startServer(t, Config{})
	c := dial(t, s)
	start := time.Now()
	c.send(fmt.Sprintf(get, "/slow?ms=150") + fmt.Sprintf(get, "/echo?after") + fmt.Sprintf(get, "/slow?ms=10") + fmt.Sprintf(get, "/echo?last"))
	resp, body := c.response("GET")
	if resp.StatusCode != 200 || body != "slow" || resp.Header.Get("X-Before") != "kept" || resp.Header.Get("X-Path") != "/slow" {
		t.Fatalf("slow: %d %q %v", resp.StatusCode, body, resp.Header)
	}
	if d := time.Since(start); d < 150*time.Millisecond {
		t.Fatalf("slow answered after %v", d)
	}
	for _, want := range []string{"GET /echo after", "slow", "GET /echo last"} {
		if _, body := c.response("GET"); !strings.HasPrefix(body, want) {
			t.Fatalf("got %q, want %q", body, want)
		}
	}
	// Many connections with slow handlers at once.
	var wg sync.WaitGroup
	for range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := net.Dial("tcp", s.Addr())
			if err != nil {
				t.Error(err)
				return
			}
			defer c.Close()
			c.SetDeadline(time.Now().Add(5 * time.Second))
			fmt.Fprintf(c, get+get, "/slow?ms=20", "/echo")
			r := bufio.NewReader(c)
			for _, want := range []string{"slow", "GET /echo"} {
				resp, err := http.ReadResponse(r, nil)
				if err != nil {
					t.Error(err)
					return
				}
				b, _ := io.ReadAll(resp.Body)
				if !strings.HasPrefix(string(b), want) {
					t.Errorf("got %q, want %q", b, want)
				}
			}
		}()
	}
	wg.Wait()
}

func TestPanics(t *testing.T) {
	var logged atomic.Int32
	s, _ := startServer(t, Config{ErrorLog: func(error) { logged.Add(1) }})
	for _, path := range []string{"/panic", "/slowpanic"} {
		c := dial(t, s)
		c.send(fmt.Sprintf(get, path) + fmt.Sprintf(get, "/echo"))
		resp, body := c.response("GET")
		if resp.StatusCode != 500 || body != `{"error":"Internal Server Error","code":"INTERNAL_ERROR"}` ||
			resp.Header.Get("Content-Type") != "application/json" || resp.Header.Get("Cache-Control") != "no-store" || !resp.Close {
			t.Fatalf("%s: %d %q %v", path, resp.StatusCode, body, resp.Header)
		}
		c.expectClosed(2 * time.Second)
	}
	if logged.Load() != 2 {
		t.Fatalf("ErrorLog called %d times", logged.Load())
	}
}

func TestSlowloris(t *testing.T) {
	s, _ := startServer(t, Config{ReadHeaderTimeout: 300 * time.Millisecond})
	c := dial(t, s)
	c.send("GET / HTTP/1.1\r\nHost: t\r\n")
	go func(c net.Conn) {
		// Trickling bytes does not extend the deadline.
		for range 10 {
			time.Sleep(50 * time.Millisecond)
			if _, err := io.WriteString(c, "X"); err != nil {
				return
			}
		}
	}(c.Conn)
	if d := c.expectClosed(3 * time.Second); d < 250*time.Millisecond || d > 1500*time.Millisecond {
		t.Fatalf("closed after %v, want about 300ms", d)
	}
	// A second request on a kept-alive connection gets its own clock.
	c = dial(t, s)
	c.send(fmt.Sprintf(get, "/echo"))
	c.response("GET")
	time.Sleep(200 * time.Millisecond)
	c.send("GET /echo HTTP/1.1\r\n")
	if d := c.expectClosed(3 * time.Second); d < 250*time.Millisecond {
		t.Fatalf("second request closed after %v", d)
	}
}

func TestIdleTimeout(t *testing.T) {
	s, _ := startServer(t, Config{IdleTimeout: 300 * time.Millisecond, ReadHeaderTimeout: 2 * time.Second})
	c := dial(t, s)
	c.send(fmt.Sprintf(get, "/echo"))
	c.response("GET")
	if d := c.expectClosed(3 * time.Second); d < 250*time.Millisecond || d > 1500*time.Millisecond {
		t.Fatalf("closed after %v, want about 300ms", d)
	}
}

// TestSilentConnection: a connection that never sends a byte is cut at ReadHeaderTimeout after the
// accept, not kept for IdleTimeout; one that has been answered idles for IdleTimeout, and the header
// clock starts again only with the next request's first byte.
func TestSilentConnection(t *testing.T) {
	s, _ := startServer(t, Config{ReadHeaderTimeout: 300 * time.Millisecond, IdleTimeout: time.Minute})
	silent := dial(t, s)
	kept := dial(t, s)
	kept.send(fmt.Sprintf(get, "/echo"))
	kept.response("GET")
	if d := silent.expectClosed(5 * time.Second); d < 250*time.Millisecond {
		t.Fatalf("silent connection closed after %v, before ReadHeaderTimeout", d)
	}
	// The answered connection outlived ReadHeaderTimeout several times over and still serves.
	time.Sleep(300 * time.Millisecond)
	kept.send(fmt.Sprintf(get, "/echo?again"))
	if _, body := kept.response("GET"); !strings.HasPrefix(body, "GET /echo again") {
		t.Fatalf("kept-alive connection: %q", body)
	}
	// A connection that sent one byte of its first request has the same clock as a silent one.
	partial := dial(t, s)
	partial.send("G")
	partial.expectClosed(5 * time.Second)
}

func TestHeadersTooLarge(t *testing.T) {
	s, _ := startServer(t, Config{MaxHeaderBytes: 1024})
	for _, req := range []string{
		"GET / HTTP/1.1\r\nHost: t\r\nX-Big: " + strings.Repeat("a", 2000) + "\r\n\r\n",
		"GET / HTTP/1.1\r\nHost: t\r\nX-Big: " + strings.Repeat("a", 2000), // never finished
		"GET /" + strings.Repeat("a", 2000) + " HTTP/1.1\r\n\r\n",
		"GET / HTTP/1.1\r\n" + strings.Repeat("A: b\r\n", 65) + "\r\n",
	} {
		c := dial(t, s)
		c.send(req)
		resp, body := c.response("GET")
		if resp.StatusCode != 431 || body != `{"error":"Request Header Fields Too Large","code":"HEADERS_TOO_LARGE"}` ||
			resp.Header.Get("Content-Type") != "application/json" || !resp.Close {
			t.Fatalf("%.40q: %d %q", req, resp.StatusCode, body)
		}
		c.expectClosed(3 * time.Second)
	}
	// A head just under the limit is fine, also when it arrives in pieces.
	c := dial(t, s)
	req := "GET /echo HTTP/1.1\r\nHost: t\r\nX-Test: " + strings.Repeat("b", 900) + "\r\n\r\n"
	c.send(req[:500])
	time.Sleep(10 * time.Millisecond)
	c.send(req[500:])
	if resp, _ := c.response("GET"); resp.StatusCode != 200 {
		t.Fatalf("under the limit: %d", resp.StatusCode)
	}
}

func TestMalformed(t *testing.T) {
	s, _ := startServer(t, Config{})
	for _, req := range []string{
		"GARBAGE\r\n\r\n",
		"GET / HTTP/2.0\r\n\r\n",
		"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n",
		"GET / HTTP/1.2\r\n\r\n", // handled as HTTP/1.1, which needs a Host header
		"GET /  HTTP/1.1\r\n\r\n",
		"GET http://example.com/ HTTP/1.1\r\n\r\n",
		"GET / HTTP/1.1\r\nNoColon\r\n\r\n",
		"GET / HTTP/1.1\r\nBad Name: v\r\n\r\n",
		"GET / HTTP/1.1\r\nName : v\r\n\r\n",
		"GET / HTTP/1.1\r\nX: a\x01b\r\n\r\n",
		"GET / HTTP/1.1\r\nX: a\r\n folded\r\n\r\n",
		"GET /a\x7fb HTTP/1.1\r\n\r\n",
		"GET / HTTP/1.1\r\nContent-Length: -1\r\n\r\n",
		"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03", // a TLS client hello, refused before any line end
	} {
		c := dial(t, s)
		c.send(req)
		resp, body := c.response("GET")
		if resp.StatusCode != 400 || body != `{"error":"Bad Request","code":"BAD_REQUEST"}` ||
			resp.Header.Get("Content-Type") != "application/json" || resp.Header.Get("Cache-Control") != "no-store" || !resp.Close {
			t.Fatalf("%q: %d %q", req, resp.StatusCode, body)
		}
		c.expectClosed(3 * time.Second)
	}
}

func TestConnectionClose(t *testing.T) {
	s, _ := startServer(t, Config{})
	c := dial(t, s)
	c.send("GET /echo HTTP/1.1\r\nHost: t\r\nConnection: Keep-Alive, CLOSE\r\n\r\n" + fmt.Sprintf(get, "/echo?ignored"))
	resp, _ := c.response("GET")
	if !resp.Close { // net/http removes the "Connection: close" header it acted on
		t.Fatalf("no Connection: close: %v", resp.Header)
	}
	c.expectClosed(2 * time.Second)
	// The handler can close too.
	s2, _ := startServer(t, Config{Handler: func(req *Request, resp *Response) func(*Response) {
		resp.Status = 200
		resp.Close = true
		return nil
	}})
	c = dial(t, s2)
	c.send(fmt.Sprintf(get, "/"))
	if resp, _ := c.response("GET"); !resp.Close {
		t.Fatal("handler's Close not honoured")
	}
	c.expectClosed(2 * time.Second)
}

func TestHTTP10(t *testing.T) {
	s, _ := startServer(t, Config{})
	c := dial(t, s)
	c.send("GET /echo HTTP/1.0\r\n\r\n")
	resp, body := c.response("GET")
	if !strings.HasPrefix(body, "GET /echo  HTTP/1.0") || !resp.Close {
		t.Fatalf("%q close=%v", body, resp.Close)
	}
	c.expectClosed(2 * time.Second)

	c = dial(t, s)
	for range 3 {
		c.send("GET /echo HTTP/1.0\r\nConnection: keep-alive\r\n\r\n")
		resp, _ := c.response("GET")
		if resp.Close || resp.Header.Get("Connection") != "keep-alive" {
			t.Fatalf("keep-alive: close=%v %v", resp.Close, resp.Header)
		}
	}
}

func TestRequestBody(t *testing.T) {
	s, _ := startServer(t, Config{})
	for _, req := range []string{
		"POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 5\r\n\r\nhello",
		"POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
		"POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 100000\r\n\r\n" + strings.Repeat("x", 100000),
	} {
		c := dial(t, s)
		c.send(req)
		resp, body := c.response("GET")
		if resp.StatusCode != 200 || !strings.HasPrefix(body, "POST /echo") || !resp.Close {
			t.Fatalf("%.30q: %d %q close=%v", req, resp.StatusCode, body, resp.Close)
		}
		c.expectClosed(3 * time.Second)
	}
	// A zero Content-Length is no body.
	c := dial(t, s)
	for range 2 {
		c.send("GET /echo HTTP/1.1\r\nHost: t\r\nContent-Length: 0\r\n\r\n")
		if resp, _ := c.response("GET"); resp.Close {
			t.Fatal("closed after Content-Length: 0")
		}
	}
}

func TestShutdownWaitsForSlow(t *testing.T) {
	h, _ := testHandler(t)
	s, err := Listen(Config{Addr: "127.0.0.1:0", Handler: h})
	if err != nil {
		t.Fatal(err)
	}
	busy := dial(t, &Server{addr: s.Addr()})
	idle := dial(t, &Server{addr: s.Addr()})
	idle.send(fmt.Sprintf(get, "/echo"))
	idle.response("GET")
	busy.send(fmt.Sprintf(get, "/slow?ms=300"))
	time.Sleep(50 * time.Millisecond)
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- s.Shutdown(ctx) }()
	idle.expectClosed(time.Second)
	resp, body := busy.response("GET")
	if body != "slow" || !resp.Close {
		t.Fatalf("slow response: %q close=%v", body, resp.Close)
	}
	if err := <-done; err != nil {
		t.Fatalf("Shutdown: %v", err)
	}
	if d := time.Since(start); d < 200*time.Millisecond {
		t.Fatalf("Shutdown returned after %v, before the slow handler", d)
	}
	if _, err := net.Dial("tcp", s.Addr()); err == nil {
		t.Fatal("still accepting after Shutdown")
	}
}

func TestShutdownCut(t *testing.T) {
	h, unblock := testHandler(t)
	defer close(unblock)
	s, err := Listen(Config{Addr: "127.0.0.1:0", Handler: h, Loops: 2})
	if err != nil {
		t.Fatal(err)
	}
	c := dial(t, &Server{addr: s.Addr()})
	c.send(fmt.Sprintf(get, "/block"))
	time.Sleep(50 * time.Millisecond)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	if err := s.Shutdown(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Shutdown: %v", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("Shutdown took %v", d)
	}
	c.expectClosed(time.Second)
}

func countFDs(t *testing.T) int {
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skip(err)
	}
	return len(ents)
}

func TestFDLeak(t *testing.T) {
	s, _ := startServer(t, Config{Loops: 2})
	var client http.Client // warm up whatever net/http opens, before the baseline
	_ = client
	c := dial(t, s)
	c.send(fmt.Sprintf(get, "/echo"))
	c.response("GET")
	c.Close()
	time.Sleep(50 * time.Millisecond)
	base := countFDs(t)
	for i := range 1000 {
		c, err := net.Dial("tcp", s.Addr())
		if err != nil {
			t.Fatal(err)
		}
		c.SetDeadline(time.Now().Add(5 * time.Second))
		switch i % 5 {
		case 0: // connect and leave
		case 1: // a full exchange
			fmt.Fprintf(c, get, "/echo")
			http.ReadResponse(bufio.NewReader(c), nil)
		case 2: // half a request
			io.WriteString(c, "GET /echo HTTP/1.1\r\n")
		case 3: // a refused request
			io.WriteString(c, "BAD\r\n\r\n")
			io.Copy(io.Discard, c)
		case 4: // a slow request, abandoned
			fmt.Fprintf(c, get, "/slow?ms=5")
		}
		c.Close()
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		n := countFDs(t)
		if n <= base {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d descriptors open, %d before", n, base)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestListenErrors(t *testing.T) {
	if _, err := Listen(Config{Addr: "127.0.0.1:0"}); !errors.Is(err, ErrNoHandler) {
		t.Fatal(err)
	}
	h, _ := testHandler(t)
	for _, addr := range []string{"nonsense", "127.0.0.1:99999", "256.1.1.1:0"} {
		if _, err := Listen(Config{Addr: addr, Handler: h}); err == nil {
			t.Fatalf("%s: no error", addr)
		}
	}
}

func TestLoopsSharePort(t *testing.T) {
	s, _ := startServer(t, Config{Loops: 4})
	for i := range 20 {
		c := dial(t, s)
		c.send(fmt.Sprintf(get, fmt.Sprintf("/echo?%d", i)))
		if resp, _ := c.response("GET"); resp.StatusCode != 200 {
			t.Fatal(resp.Status)
		}
		c.Close()
	}
}

// TestManyPipelined streams thousands of pipelined requests, more than a read buffer holds and more
// responses than the high-water mark, while reading the responses concurrently.
func TestManyPipelined(t *testing.T) {
	s, _ := startServer(t, Config{})
	c := dial(t, s)
	const n = 5000
	go func() {
		var b bytes.Buffer
		for i := range n {
			fmt.Fprintf(&b, "GET /echo?%d HTTP/1.1\r\nHost: t\r\n\r\n", i)
			if i%7 == 0 {
				b.WriteString("GET /status/204 HTTP/1.1\r\nHost: t\r\n\r\n")
			}
		}
		c.Write(b.Bytes())
	}()
	for i := range n {
		_, body := c.response("GET")
		if want := fmt.Sprintf("GET /echo %d HTTP/1.1", i); !strings.HasPrefix(body, want) {
			t.Fatalf("response %d: %q", i, body)
		}
		if i%7 == 0 {
			if resp, _ := c.response("GET"); resp.StatusCode != 204 {
				t.Fatalf("response %d: %d", i, resp.StatusCode)
			}
		}
	}
}

// TestPipelinedBigBodies asks for several large bodies at once: they are referenced, not copied, and
// arrive in order.
func TestPipelinedBigBodies(t *testing.T) {
	s, _ := startServer(t, Config{})
	c := dial(t, s)
	c.send(strings.Repeat(fmt.Sprintf(get, "/big")+fmt.Sprintf(get, "/status/200"), 3))
	want := sha256.Sum256(bigBody())
	for range 3 {
		resp, body := c.response("GET")
		if got := sha256.Sum256([]byte(body)); resp.StatusCode != 200 || got != want {
			t.Fatalf("big: %d, %d bytes", resp.StatusCode, len(body))
		}
		if _, body := c.response("GET"); body != "body" {
			t.Fatalf("small: %q", body)
		}
	}
}

func TestAllAddresses(t *testing.T) {
	s, _ := startServer(t, Config{Addr: ":0"})
	_, port, _ := net.SplitHostPort(s.Addr())
	for _, host := range []string{"127.0.0.1", "::1"} {
		c, err := net.Dial("tcp", net.JoinHostPort(host, port))
		if err != nil {
			if host == "::1" {
				continue // no IPv6 loopback here
			}
			t.Fatal(err)
		}
		rc := &rawConn{t, c, bufio.NewReader(c)}
		c.SetDeadline(time.Now().Add(5 * time.Second))
		rc.send(fmt.Sprintf(get, "/echo"))
		_, body := rc.response("GET")
		if !strings.Contains(body, host) {
			t.Errorf("%s: RemoteAddr in %q", host, body)
		}
		c.Close()
	}
}

// TestRequestLoop checks that every request names the loop that read it:
// the same loop for every request of a connection, each loop's index
// from 0, and every loop used as connections are spread over them.
func TestRequestLoop(t *testing.T) {
	const loops = 3
	var mu sync.Mutex
	seen := map[string]map[int]bool{} // by client address
	h := func(req *Request, resp *Response) func(*Response) {
		mu.Lock()
		if seen[req.RemoteAddr] == nil {
			seen[req.RemoteAddr] = map[int]bool{}
		}
		seen[req.RemoteAddr][req.Loop] = true
		mu.Unlock()
		resp.Status = 204
		return nil
	}
	s, _ := startServer(t, Config{Handler: h, Loops: loops})
	used := map[int]bool{}
	for range 2 * loops {
		c, err := net.Dial("tcp", s.Addr())
		if err != nil {
			t.Fatal(err)
		}
		r := bufio.NewReader(c)
		for range 3 {
			fmt.Fprintf(c, "GET /loop HTTP/1.1\r\nHost: x\r\n\r\n")
			resp, err := http.ReadResponse(r, nil)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
		}
		mu.Lock()
		ls := seen[c.LocalAddr().String()]
		mu.Unlock()
		if len(ls) != 1 {
			t.Fatalf("a connection's requests named loops %v, want one", ls)
		}
		for l := range ls {
			if l < 0 || l >= loops {
				t.Fatalf("loop %d of %d", l, loops)
			}
			used[l] = true
		}
		c.Close()
	}
	if len(used) != loops {
		t.Errorf("requests named loops %v, want each of %d", used, loops)
	}
}

// TestRequestWoke checks the time a request carries: the loop's wake-up
// for it, so never before the request was sent nor after the handler ran,
// and read again at every wake-up (a request sent later carries a later
// time).
func TestRequestWoke(t *testing.T) {
	type seen struct{ woke, ran time.Time }
	got := make(chan seen, 1)
	h := func(req *Request, resp *Response) func(*Response) {
		got <- seen{req.Woke, time.Now()}
		resp.Status = 204
		return nil
	}
	s, _ := startServer(t, Config{Handler: h})
	c, err := net.Dial("tcp", s.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	r := bufio.NewReader(c)
	var last time.Time
	for i := range 3 {
		sent := time.Now()
		fmt.Fprintf(c, "GET /woke HTTP/1.1\r\nHost: x\r\n\r\n")
		resp, err := http.ReadResponse(r, nil)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		g := <-got
		if g.woke.IsZero() || g.woke.Before(sent) || g.woke.After(g.ran) {
			t.Fatalf("request %d: Woke %v, want between its sending %v and its handler's run %v", i, g.woke, sent, g.ran)
		}
		if !last.IsZero() && !g.woke.After(last.Add(20*time.Millisecond)) {
			t.Fatalf("request %d sent over 20 ms after the one before carries Woke %v, the one before %v", i, g.woke, last)
		}
		last = g.woke
		time.Sleep(25 * time.Millisecond)
	}
}
