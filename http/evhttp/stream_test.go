package evhttp

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// failingReader yields r's bytes up to failAt, then an error.
type failingReader struct {
	r      io.Reader
	failAt int
	read   int
}

func (f *failingReader) Read(p []byte) (int, error) {
	if f.read >= f.failAt {
		return 0, errors.New("the stream broke")
	}
	p = p[:min(len(p), f.failAt-f.read)]
	n, err := f.r.Read(p)
	f.read += n
	return n, err
}

// streamHandler answers /stream?n=N[&fail=K][&short=S] with a Stream of the
// first N bytes of bigBody (StreamLen N), failing after K bytes or ending
// after S; /small answers a referenced body. done counts the Done calls.
func streamHandler(done *atomic.Int64) Handler {
	return func(req *Request, resp *Response) func(*Response) {
		q := map[string]int{}
		for _, kv := range strings.Split(req.RawQuery, "&") {
			k, v, _ := strings.Cut(kv, "=")
			q[k], _ = strconv.Atoi(v)
		}
		switch req.Path {
		case "/stream":
			n := q["n"]
			var r io.Reader = bytes.NewReader(bigBody()[:n])
			if k, ok := q["fail"]; ok {
				r = &failingReader{r: r, failAt: k}
			}
			if s, ok := q["short"]; ok {
				r = bytes.NewReader(bigBody()[:s])
			}
			resp.Status = 200
			resp.Set("X-Stream", "yes")
			resp.Stream, resp.StreamLen = r, int64(n)
			resp.Done = func() { done.Add(1) }
		case "/slowstream":
			n := q["n"]
			return func(resp *Response) {
				resp.Status = 200
				resp.Stream, resp.StreamLen = bytes.NewReader(bigBody()[:n]), int64(n)
				resp.Done = func() { done.Add(1) }
			}
		default:
			resp.Status = 200
			resp.Body = []byte("small")
		}
		return nil
	}
}

// TestStreamedBodies: a Stream body arrives whole, with its Content-Length,
// at every length around the piece size, pipelined between other answers,
// directly and after a slow function; Done is called once per stream.
func TestStreamedBodies(t *testing.T) {
	var done atomic.Int64
	s, _ := startServer(t, Config{Handler: streamHandler(&done)})
	lengths := []int{1, 100, copyBodyMax + 1, streamPiece - 1, streamPiece, streamPiece + 1, 3*streamPiece + 17, maxWrite + 5, 5 << 20}
	c := dial(t, s)
	var req strings.Builder
	for _, n := range lengths {
		fmt.Fprintf(&req, get, fmt.Sprintf("/stream?n=%d", n))
		fmt.Fprintf(&req, get, "/small")
		fmt.Fprintf(&req, get, fmt.Sprintf("/slowstream?n=%d", n))
	}
	c.send(req.String())
	for _, n := range lengths {
		for _, path := range []string{"/stream", "/slowstream"} {
			resp, body := c.response("GET")
			want := bigBody()[:n]
			if resp.StatusCode != 200 || resp.ContentLength != int64(n) || sha256.Sum256([]byte(body)) != sha256.Sum256(want) {
				t.Fatalf("%s?n=%d: %d, Content-Length %d, %d bytes (want %d, the same bytes)", path, n, resp.StatusCode, resp.ContentLength, len(body), n)
			}
			if path == "/stream" {
				if resp, body := c.response("GET"); body != "small" {
					t.Fatalf("after a stream of %d: %d %q", n, resp.StatusCode, body)
				}
			}
		}
	}
	waitDone(t, &done, int64(2*len(lengths)))
}

// TestStreamedBodyHEAD: HEAD gets the stream's length and no byte of it.
func TestStreamedBodyHEAD(t *testing.T) {
	var done atomic.Int64
	s, _ := startServer(t, Config{Handler: streamHandler(&done)})
	c := dial(t, s)
	c.send("HEAD /stream?n=300000 HTTP/1.1\r\nHost: t\r\n\r\n" + fmt.Sprintf(get, "/small"))
	resp, body := c.response("HEAD")
	if resp.StatusCode != 200 || resp.ContentLength != 300000 || body != "" {
		t.Fatalf("HEAD: %d, length %d, body %d bytes", resp.StatusCode, resp.ContentLength, len(body))
	}
	if _, body := c.response("GET"); body != "small" {
		t.Fatalf("after HEAD: %q", body)
	}
	waitDone(t, &done, 1)
}

// TestStreamedBodyFails: a stream that breaks (or ends early) after its
// head was sent closes the connection where it stands: the client reads a
// body shorter than its Content-Length, and nothing after it. One that
// breaks before its first piece is answered 500, as a handler's panic is.
// Done is called each time.
func TestStreamedBodyFails(t *testing.T) {
	var done atomic.Int64
	// No ErrorLog: the engine must not need one to report a stream's failure.
	s, _ := startServer(t, Config{Handler: streamHandler(&done)})
	for i, q := range []string{"n=1000000&fail=200000", "n=1000000&short=300000"} {
		c := dial(t, s)
		c.send(fmt.Sprintf(get, "/stream?"+q) + fmt.Sprintf(get, "/small"))
		resp, err := http.ReadResponse(c.r, nil)
		if err != nil {
			t.Fatal(err)
		}
		c.SetReadDeadline(time.Now().Add(5 * time.Second))
		b, err := io.ReadAll(resp.Body)
		if err == nil || resp.ContentLength != 1000000 || len(b) >= 1000000 || len(b) < 100000 {
			t.Fatalf("%s: %d bytes of %d, err %v; want a cut body and an error", q, len(b), resp.ContentLength, err)
		}
		if !bytes.Equal(b, bigBody()[:len(b)]) {
			t.Fatalf("%s: the bytes before the cut differ", q)
		}
		if rest, _ := io.ReadAll(c.r); len(rest) != 0 {
			t.Fatalf("%s: %d bytes after the cut, want the connection closed", q, len(rest))
		}
		waitDone(t, &done, int64(i+1))
	}
	c := dial(t, s)
	c.send(fmt.Sprintf(get, "/stream?n=1000&fail=0") + fmt.Sprintf(get, "/small"))
	if resp, _ := c.response("GET"); resp.StatusCode != 500 || !resp.Close {
		t.Fatalf("a stream that fails at once: %d (close %v), want 500 closing the connection", resp.StatusCode, resp.Close)
	}
	waitDone(t, &done, 3)
}

// TestStreamedBodyClientGone: a client that goes away mid-stream ends it
// (Done is called) without the body being read further.
func TestStreamedBodyClientGone(t *testing.T) {
	var done atomic.Int64
	s, _ := startServer(t, Config{Handler: streamHandler(&done)})
	c := dial(t, s)
	c.send(fmt.Sprintf(get, "/stream?n=20000000"))
	if _, err := http.ReadResponse(c.r, nil); err != nil {
		t.Fatal(err)
	}
	c.Close()
	waitDone(t, &done, 1)
}

func waitDone(t *testing.T, done *atomic.Int64, want int64) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for done.Load() != want {
		if time.Now().After(deadline) {
			t.Fatalf("Done called %d times, want %d", done.Load(), want)
		}
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(50 * time.Millisecond)
	if n := done.Load(); n != want {
		t.Fatalf("Done called %d times, want %d", n, want)
	}
}

// TestPanicCallsDone: a handler or slow function that set Done and then
// panicked is answered 500, and its Done is still called, once: what it
// held (a download slot) is not lost.
func TestPanicCallsDone(t *testing.T) {
	var done atomic.Int64
	h := func(req *Request, resp *Response) func(*Response) {
		if req.Path == "/slow" {
			return func(resp *Response) {
				resp.Done = func() { done.Add(1) }
				panic("slow boom")
			}
		}
		resp.Done = func() { done.Add(1) }
		panic("boom")
	}
	s, _ := startServer(t, Config{Handler: h})
	for i, path := range []string{"/fast", "/slow"} {
		c := dial(t, s)
		c.send(fmt.Sprintf(get, path))
		if resp, _ := c.response("GET"); resp.StatusCode != 500 {
			t.Fatalf("%s: %d, want 500", path, resp.StatusCode)
		}
		waitDone(t, &done, int64(i+1))
	}
}
