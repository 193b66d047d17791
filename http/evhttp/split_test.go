//go:build linux && !386

package evhttp

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"math/rand/v2"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"
)

// splitHandler answers without slow functions, so that a loop driven by hand serves it:
//
//	/big     an 80 KiB body (more than the high-water mark: the loop pauses the connection)
//	/medium  a body of copyBodyMax bytes
//	/status/N  status N
//	anything else: 200 with the request's method, target, version, Host and X-Test header
func splitHandler(req *Request, resp *Response) func(*Response) {
	switch {
	case req.Path == "/big":
		resp.Body = bigBody()[:80<<10]
	case req.Path == "/medium":
		resp.Body = bigBody()[:copyBodyMax]
	case strings.HasPrefix(req.Path, "/status/"):
		fmt.Sscan(req.Path[len("/status/"):], &resp.Status)
	default:
		resp.Body = fmt.Appendf(nil, "%s %s?%s %s host=%q x=%q", req.Method, req.Path, req.RawQuery, req.Proto,
			req.Header("Host"), req.Header("X-Test"))
	}
	return nil
}

var dateLine = regexp.MustCompile("\r\nDate: [^\r]*\r\n")

// unread returns how many bytes wait in fd's receive queue (FIONREAD).
func unread(fd int) int {
	var n int32
	syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), syscall.TIOCINQ, uintptr(unsafe.Pointer(&n)))
	return int(n)
}

// serveChunks drives a loop by hand over a socket pair: it writes the chunks one after the other,
// running the loop's event handling after each until it has nothing left to do, then closes the
// client's sending side and does the same. It returns everything the server wrote, Date lines
// masked, and whether the server closed the connection.
func serveChunks(t testing.TB, chunks [][]byte) (string, bool) {
	l, c, peer := benchLoop(t, splitHandler)
	var out bytes.Buffer
	buf := make([]byte, 64<<10)
	drain := func() {
		for {
			n, err := syscall.Read(peer, buf)
			if n <= 0 || err != nil {
				return
			}
			out.Write(buf[:n])
		}
	}
	pump := func() {
		for range 10000 {
			if c.closed {
				return
			}
			before := out.Len()
			l.event(c, syscall.EPOLLIN|syscall.EPOLLOUT)
			drain()
			if out.Len() == before && !c.pending() && (unread(c.fd) == 0 || c.interest&syscall.EPOLLIN == 0) {
				return
			}
		}
		t.Fatal("the loop does not settle")
	}
send:
	for _, ch := range chunks {
		for len(ch) > 0 {
			n, err := syscall.Write(peer, ch)
			if n > 0 {
				ch = ch[n:]
			} else if err == syscall.EPIPE || err == syscall.ECONNRESET {
				break send // the server closed the connection
			} else if err != syscall.EAGAIN {
				t.Fatal(err)
			}
			pump()
		}
	}
	syscall.Shutdown(peer, syscall.SHUT_WR)
	pump()
	drain()
	return dateLine.ReplaceAllString(out.String(), "\r\nDate: -\r\n"), c.closed
}

// splitAt cuts b at random points drawn from seed: into single bytes when small is set.
func splitAt(b []byte, seed uint64, small bool) [][]byte {
	r := rand.New(rand.NewPCG(seed, seed>>32|1))
	var chunks [][]byte
	for len(b) > 0 {
		n := 1
		if !small {
			n = 1 + r.IntN(len(b))
			if r.IntN(3) == 0 {
				n = 1 + r.IntN(min(len(b), 8)) // often very short pieces: CR and LF apart
			}
		}
		chunks = append(chunks, b[:n])
		b = b[n:]
	}
	return chunks
}

// checkSplits holds the server's answers to a byte stream sent in one piece against the answers
// when it is sent in pieces.
func checkSplits(t testing.TB, stream []byte, seed uint64) {
	want, wantClosed := serveChunks(t, [][]byte{stream})
	for i, small := range []bool{false, false, len(stream) <= 512} {
		if i == 2 && !small {
			break
		}
		chunks := splitAt(stream, seed+uint64(i), small)
		got, closed := serveChunks(t, chunks)
		if got != want || closed != wantClosed {
			t.Fatalf("stream %q\nin %d pieces: %q (closed %v)\nin one piece: %q (closed %v)",
				stream, len(chunks), got, closed, want, wantClosed)
		}
	}
}

var splitSeeds = []string{
	"GET /a HTTP/1.1\r\nHost: t\r\n\r\nGET /b?x HTTP/1.1\r\nHost: t\r\nX-Test: y\r\n\r\n",
	"\r\nGET /a HTTP/1.1\r\nHost: t\r\n\r\n",
	"\r\n\r\n\r\n\r\n\r\n\r\n\r\n\r\nGET /a HTTP/1.1\r\nHost: t\r\n\r\n",
	"GET /a HTTP/1.1\nHost: t\n\nGET /b HTTP/1.0\r\n\r\nGET /never HTTP/1.1\r\nHost: t\r\n\r\n",
	"GET /a HTTP/1.0\r\nConnection: keep-alive\r\n\r\nHEAD /big HTTP/1.1\r\nHost: t\r\n\r\n",
	"GET /big HTTP/1.1\r\nHost: t\r\n\r\nGET /medium HTTP/1.1\r\nHost: t\r\n\r\nGET /big HTTP/1.1\r\nHost: t\r\n\r\nGET /a HTTP/1.1\r\nHost: t\r\n\r\n",
	"GET /a HTTP/1.1\r\nHost: t\r\nX: \x01\r\n\r\n",
	"GET /a HTTP/1.1\r\nHost: t\r\nX: v\r\n fold",
	"GET /a HTTP/1.1\r\nHost: t\r\nContent-Length: 3\r\n\r\nabcGET /b HTTP/1.1\r\n\r\n",
	"GET /a HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: gzip\r\n\r\n",
	"GET /a HTTP/1.1\r\n\r\nGET /b HTTP/1.1\r\nHost: t\r\n\r\n",
	"GET /a HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\nGET /b HTTP/1.1\r\nHost: t\r\n\r\n",
	"GET /status/204 HTTP/1.1\r\nHost: t\r\n\r\nGET /status/304 HTTP/1.1\r\nHost: t\r\n\r\n",
	"GET /a HTTP/1.1\r\nHost: t\r\nX-Test: " + strings.Repeat("v", 20000) + "\r\n\r\n",
	"GET /a HTTP/1.1\r\nHost: t\r\nX-Test: " + strings.Repeat("v", 2000) + "\x02" + strings.Repeat("v", 2000),
	"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03",
	"GET /a HTTP/1.1\r\nHost: t\r\n\r\nGET /b HTTP/1.1\r\nHost: t\r\n",
}

// TestSplitStreams: the answers to each seed stream do not depend on how it is split into reads.
func TestSplitStreams(t *testing.T) {
	for i, s := range splitSeeds {
		for seed := range uint64(20) {
			checkSplits(t, []byte(s), seed*1000+uint64(i))
		}
	}
}

// TestSplitCRLF: a CR and its LF in different reads, before the request line and inside the head,
// get the answers they get in one piece (a 200, not a 400).
func TestSplitCRLF(t *testing.T) {
	s, _ := startServer(t, Config{})
	for _, pieces := range [][]string{
		{"\r", "\nGET /echo?1 HTTP/1.1\r\nHost: t\r\n\r\n"},
		{"\r\n\r", "\nGET /echo?2 HTTP/1.1\r\nHost: t\r\n\r\n"},
		{"GET /echo?3 HTTP/1.1\r", "\nHost: t\r", "\n\r", "\n"},
	} {
		c := dial(t, s)
		for _, p := range pieces {
			c.send(p)
			time.Sleep(20 * time.Millisecond)
		}
		resp, body := c.response("GET")
		if resp.StatusCode != 200 || !strings.HasPrefix(body, "GET /echo") {
			t.Fatalf("%q: %d %q", pieces, resp.StatusCode, body)
		}
	}
}

// TestSplitRealServer sends pipelined requests for slow, large and small answers to a running
// server in random pieces with pauses, and checks every answer against the one-piece answers.
func TestSplitRealServer(t *testing.T) {
	s, _ := startServer(t, Config{})
	stream := fmt.Sprintf(get, "/echo?1") + fmt.Sprintf(get, "/slow?ms=30") + fmt.Sprintf(get, "/big") +
		"\r\n" + fmt.Sprintf(get, "/medium") + fmt.Sprintf(get, "/slow?ms=5") + "GET /echo?2 HTTP/1.1\nHost: t\n\n" +
		fmt.Sprintf(get, "/big") + fmt.Sprintf(get, "/status/204") + "GET /echo?3 HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n"
	answers := func(chunks [][]byte) []string {
		c := dial(t, s)
		go func() {
			for _, ch := range chunks {
				if _, err := c.Write(ch); err != nil {
					return
				}
				time.Sleep(time.Duration(len(ch)%3) * time.Millisecond)
			}
		}()
		var got []string
		for range 9 {
			resp, body := c.response("GET")
			if strings.HasPrefix(body, "GET /echo") {
				body = body[:strings.LastIndex(body, ` "`)] // without the client's port
			}
			sum := sha256.Sum256([]byte(body))
			got = append(got, fmt.Sprintf("%d %x %v", resp.StatusCode, sum[:8], resp.Close))
		}
		c.expectClosed(5 * time.Second)
		return got
	}
	want := answers([][]byte{[]byte(stream)})
	for seed := range uint64(8) {
		if got := answers(splitAt([]byte(stream), seed, false)); strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("seed %d:\n%s\nwant\n%s", seed, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
	}
}

// FuzzSplitStream: the answers to a byte stream do not depend on how it is split into reads.
func FuzzSplitStream(f *testing.F) {
	for i, s := range splitSeeds {
		f.Add([]byte(s), uint64(i))
	}
	f.Fuzz(func(t *testing.T, stream []byte, seed uint64) {
		if len(stream) > 24<<10 {
			return // larger than a read buffer and the head limit, small enough for many runs
		}
		checkSplits(t, stream, seed)
	})
}
