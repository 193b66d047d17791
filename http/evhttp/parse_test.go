package evhttp

import (
	"bytes"
	"strings"
	"testing"
)

func TestParseRequest(t *testing.T) {
	for _, tc := range []struct {
		in                        string
		code                      int
		method, path, query, prot string
		close, keepAlive10, body  bool
	}{
		{in: "GET / HTTP/1.1\r\nHost: h\r\n\r\n", method: "GET", path: "/", prot: "HTTP/1.1"},
		{in: "GET /a/b?x=1&y HTTP/1.1\r\nHost: h\r\n\r\n", method: "GET", path: "/a/b", query: "x=1&y", prot: "HTTP/1.1"},
		{in: "GET /a? HTTP/1.1\nHost: h\n\n", method: "GET", path: "/a", prot: "HTTP/1.1"},
		{in: "\r\n\nHEAD /x HTTP/1.1\r\nHost: h\r\n\r\n", method: "HEAD", path: "/x", prot: "HTTP/1.1"},
		{in: "OPTIONS * HTTP/1.1\r\nHost: h\r\n\r\n", method: "OPTIONS", path: "*", prot: "HTTP/1.1"},
		{in: "GET /caf\xc3\xa9 HTTP/1.1\r\nHost: h\r\n\r\n", method: "GET", path: "/caf\xc3\xa9", prot: "HTTP/1.1"},
		{in: "GET / HTTP/1.0\r\n\r\n", method: "GET", path: "/", prot: "HTTP/1.0", close: true},
		{in: "GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n", method: "GET", path: "/", prot: "HTTP/1.0", keepAlive10: true},
		{in: "GET / HTTP/1.0\r\nconnection: Keep-Alive, close\r\n\r\n", method: "GET", path: "/", prot: "HTTP/1.0", close: true},
		{in: "GET / HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n", method: "GET", path: "/", prot: "HTTP/1.1", close: true},
		{in: "GET / HTTP/1.1\r\nHost: h\r\nConnection: keep-alive\r\n\r\n", method: "GET", path: "/", prot: "HTTP/1.1"},
		{in: "GET / HTTP/1.1\r\nHost: h\r\nConnection: upgrade,  CLOSE \r\n\r\n", method: "GET", path: "/", prot: "HTTP/1.1", close: true},
		{in: "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\n\r\nabc", method: "POST", path: "/", prot: "HTTP/1.1", close: true, body: true},
		{in: "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 000\r\n\r\n", method: "POST", path: "/", prot: "HTTP/1.1"},
		{in: "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n", method: "POST", path: "/", prot: "HTTP/1.1", close: true, body: true},
		{in: "GET / HTTP/1.1\r\nHost: h\r\nX: a\tb\r\n\r\n", method: "GET", path: "/", prot: "HTTP/1.1"},
		{in: "GET / HTTP/1.1\r\nHost: h\r\nX:\r\n\r\n", method: "GET", path: "/", prot: "HTTP/1.1"},

		// RFC 9112: HTTP/1.1 needs exactly one valid Host; a later HTTP/1 minor version is 1.1.
		{in: "GET / HTTP/1.2\r\nHost: h\r\n\r\n", method: "GET", path: "/", prot: "HTTP/1.2"},
		{in: "GET / HTTP/1.9\r\nHost: h\r\nConnection: close\r\n\r\n", method: "GET", path: "/", prot: "HTTP/1.9", close: true},
		{in: "GET / HTTP/1.1\r\nhOsT:\r\n\r\n", method: "GET", path: "/", prot: "HTTP/1.1"},
		{in: "GET / HTTP/1.1\r\nHost: [::1]:8080\r\n\r\n", method: "GET", path: "/", prot: "HTTP/1.1"},
		{in: "GET / HTTP/1.0\r\n\r\n", method: "GET", path: "/", prot: "HTTP/1.0", close: true},
		{in: "GET /a%2Fb?q=%zz HTTP/1.1\r\nHost: h\r\n\r\n", method: "GET", path: "/a%2Fb", query: "q=%zz", prot: "HTTP/1.1"},
		{in: "GET / HTTP/1.1\r\n\r\n", code: 400},
		{in: "GET / HTTP/1.2\r\n\r\n", code: 400},
		{in: "GET / HTTP/1.1\r\nHost: a\r\nHost: a\r\n\r\n", code: 400},
		{in: "GET / HTTP/1.0\r\nHost: a\r\nhost: b\r\n\r\n", code: 400},
		{in: "GET / HTTP/1.1\r\nHost: a b\r\n\r\n", code: 400},
		{in: "GET / HTTP/1.1\r\nHost: a/b\r\n\r\n", code: 400},
		{in: "GET / HTTP/1.0\r\nHost: a@b\r\n\r\n", code: 400},
		{in: "GET /a%zz HTTP/1.1\r\nHost: h\r\n\r\n", code: 400},
		{in: "GET /a% HTTP/1.1\r\nHost: h\r\n\r\n", code: 400},
		{in: "GET /a%4 HTTP/1.1\r\nHost: h\r\n\r\n", code: 400},
		// Content-Length and Transfer-Encoding (RFC 9112 section 6).
		{in: "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\ncontent-length: 3\r\n\r\n", method: "POST", path: "/", prot: "HTTP/1.1", close: true, body: true},
		{in: "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: Chunked\r\nContent-Length: 0\r\n\r\n", method: "POST", path: "/", prot: "HTTP/1.1", close: true, body: true},
		{in: "POST / HTTP/1.0\r\nTransfer-Encoding: gzip\r\n\r\n", method: "POST", path: "/", prot: "HTTP/1.0", close: true, body: true},
		{in: "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\n", code: 400},
		{in: "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\nContent-Length: 03\r\n\r\n", code: 400},
		{in: "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 0\r\nContent-Length: 0, 0\r\n\r\n", code: 400},
		{in: "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: gzip\r\n\r\n", code: 501},
		{in: "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", code: 501},
		{in: "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n", code: 501},
		{in: "POST / HTTP/1.1\r\nTransfer-Encoding: gzip\r\n\r\n", code: 501}, // before the missing Host, as net/http
		{in: "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\nContent-Length: x\r\n\r\n", code: 400},

		{in: "GET / HTTP/1.1\r\n", code: 0},
		{in: "\r", code: 0},
		{in: "\r\n\r", code: 0},
		{in: "GET / HTTP/1.", code: 0},
		{in: "GET / HTTP/1.1\r\nHost: h\r\n", code: 0},
		{in: "GET / HTTP/1.1\r\nHost: h\r", code: 0},
		{in: "GET / HTTP/1.1\r", code: 0},
		{in: "GET / HTTP/1.", code: 0},
		{in: "GET /abc", code: 0},
		{in: "GET", code: 0},
		{in: "", code: 0},
		{in: "\r\n", code: 0},

		{in: "GET / HTTP/1.1\rX\n\r\n", code: 400},
		{in: "GET / HTTP/1.1 \r\n\r\n", code: 400},
		{in: "GET / HTTP/1.1\r\nX: a\rb\r\n\r\n", code: 400},
		{in: "GET / HTTP/1.1\r\nX: a\x00b\r\n\r\n", code: 400},
		{in: "GET / HTTP/1.1\r\nX: a\x7fb\r\n\r\n", code: 400},
		{in: "GET / HTTP/1.1\r\n\r\r\n", code: 400},
		{in: "GET / HTTP/1.1\r\n: v\r\n\r\n", code: 400},
		{in: "GET / HTTP/1.1\r\nX\r\n\r\n", code: 400},
		{in: "GET / HTTP/1.1\r\nX :v\r\n\r\n", code: 400},
		{in: "GET / HTTP/1.1\r\n X: v\r\n\r\n", code: 400},
		{in: "GET / HTTP/1.1\r\nX: v\r\n folded\r\n\r\n", code: 400},
		{in: "GET / HTTP/1.1\r\nContent-Length: 1x\r\n\r\n", code: 400},
		{in: "GET / HTTP/1.1\r\nContent-Length:\r\n\r\n", code: 400},
		{in: "GET / HTTP/1.1\r\nContent-Length: 99999999999999999999\r\n\r\n", code: 400},
		{in: "GET / http/1.1\r\n\r\n", code: 400},
		{in: "GET / HTTP/2\r\n\r\n", code: 400},
		{in: "GET / HTTP/1.1x\r\n\r\n", code: 400},
		{in: "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", code: 400},
		{in: "GET /\r\n\r\n", code: 400},
		{in: "GET  / HTTP/1.1\r\n\r\n", code: 400},
		{in: "GET /a b HTTP/1.1\r\n\r\n", code: 400},
		{in: "GET /a\tb HTTP/1.1\r\n\r\n", code: 400},
		{in: "GET http://h/ HTTP/1.1\r\n\r\n", code: 400},
		{in: "GET ** HTTP/1.1\r\n\r\n", code: 400},
		{in: "GET h", code: 400},
		{in: "G(T / HTTP/1.1\r\n\r\n", code: 400},
		{in: " GET / HTTP/1.1\r\n\r\n", code: 400},
		{in: "\x16\x03\x01", code: 400},
		{in: "GET / HTTP/1.1\r\n" + strings.Repeat("a: b\r\n", 65) + "\r\n", code: 431},
		{in: "GET / HTTP/1.1\r\nX: " + strings.Repeat("v", 200) + "\r\n\r\n", code: 431},
		{in: "GET / HTTP/1.1\r\nX: " + strings.Repeat("v", 200), code: 431},
		{in: "GET /" + strings.Repeat("v", 200), code: 431},
	} {
		var r Request
		n, code := parseRequest([]byte(tc.in), &r, 128)
		if code != tc.code {
			t.Errorf("%q: code %d, want %d", tc.in, code, tc.code)
			continue
		}
		if tc.code != 0 || tc.method == "" {
			if n != 0 {
				t.Errorf("%q: n = %d, want 0", tc.in, n)
			}
			continue
		}
		wantN := len(tc.in)
		if tc.body {
			wantN = strings.Index(tc.in, "\r\n\r\n") + 4
		}
		if n != wantN || r.Method != tc.method || r.Path != tc.path || r.RawQuery != tc.query || r.Proto != tc.prot ||
			r.close != tc.close || r.keepAlive10 != tc.keepAlive10 || r.hasBody != tc.body {
			t.Errorf("%q: n=%d %q %q %q %q close=%v ka10=%v body=%v", tc.in, n, r.Method, r.Path, r.RawQuery, r.Proto, r.close, r.keepAlive10, r.hasBody)
		}
	}
}

func TestRequestHeaders(t *testing.T) {
	var r Request
	in := "GET / HTTP/1.1\r\nHost: example.com\r\nX-Api-Key:\t k1 \t\r\nEmpty:\r\nx-api-key: k2\r\nX-[bracket: no\r\n\r\n"
	if _, code := parseRequest([]byte(in), &r, 1024); code != 400 {
		t.Fatalf("'[' in a name: code %d", code) // not a token character
	}
	in = strings.Replace(in, "X-[bracket: no\r\n", "", 1)
	if n, code := parseRequest([]byte(in), &r, 1024); n != len(in) || code != 0 {
		t.Fatal(n, code)
	}
	for _, tc := range []struct {
		name, value string
		has         bool
	}{
		{"host", "example.com", true},
		{"X-API-KEY", "k1", true},
		{"empty", "", true},
		{"missing", "", false},
		{"Hos", "", false},
	} {
		if v, has := r.Header(tc.name), r.HasHeader(tc.name); v != tc.value || has != tc.has {
			t.Errorf("%s: %q %v, want %q %v", tc.name, v, has, tc.value, tc.has)
		}
	}
	if r.NumHeaders() != 4 {
		t.Fatal(r.NumHeaders())
	}
	if name, value := r.HeaderAt(3); name != "x-api-key" || value != "k2" {
		t.Fatal(name, value)
	}
	// A reused Request forgets the previous headers.
	parseRequest([]byte("GET / HTTP/1.1\r\n\r\n"), &r, 1024)
	if r.HasHeader("host") || r.NumHeaders() != 0 {
		t.Fatal("stale headers")
	}
}

func TestEqualFoldASCII(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		eq   bool
	}{
		{"Content-Length", "content-length", true},
		{"ABC", "abc", true},
		{"abc", "abd", false},
		{"@", "`", false}, // differ only in bit 0x20 but are not letters
		{"[", "{", false},
		{"a", "ab", false},
	} {
		if equalFoldASCII(tc.a, tc.b) != tc.eq {
			t.Errorf("%q %q", tc.a, tc.b)
		}
	}
}

func TestScanners(t *testing.T) {
	// ctlIndex and targetEnd against the obvious byte loops, at every alignment.
	for c := 0; c < 256; c++ {
		for pos := 0; pos < 20; pos++ {
			b := bytes.Repeat([]byte("a"), 20)
			b[pos] = byte(c)
			wantCtl, wantTarget := -1, -1
			if c < 0x20 && c != '\t' || c == 0x7f {
				wantCtl = pos
			}
			if c <= 0x20 || c == 0x7f {
				wantTarget = pos
			}
			if got := ctlIndex(b); got != wantCtl {
				t.Fatalf("ctlIndex byte %#x at %d: %d", c, pos, got)
			}
			if got := targetEnd(b); got != wantTarget {
				t.Fatalf("targetEnd byte %#x at %d: %d", c, pos, got)
			}
		}
	}
	if got := ctlIndex([]byte("a\tb\tc\td\te\tf\tg\th\r\n")); got != 15 {
		t.Fatal(got)
	}
}

func TestAppendHead(t *testing.T) {
	var resp Response
	resp.Status = 200
	resp.Set("Content-Type", "application/json")
	resp.Set("Location", "/a\r\nSet-Cookie: x")
	resp.Body = []byte("{}")
	date := []byte("Date: Mon, 02 Jan 2006 15:04:05 GMT\r\n")
	got := string(appendHead(nil, &resp, date, false, false))
	want := "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nLocation: /a  Set-Cookie: x\r\n" + string(date) + "Content-Length: 2\r\n\r\n"
	if got != want {
		t.Fatalf("got\n%q\nwant\n%q", got, want)
	}
	resp.Status = 304
	if got := string(appendHead(nil, &resp, date, true, false)); strings.Contains(got, "Content-Length") || !strings.Contains(got, "Connection: keep-alive\r\n") {
		t.Fatal(got)
	}
	resp.Status = 799
	if got := string(appendHead(nil, &resp, date, false, true)); !strings.HasPrefix(got, "HTTP/1.1 799 \r\n") || !strings.Contains(got, "Connection: close\r\n") {
		t.Fatal(got)
	}
	for range 14 {
		resp.Set("X", "y")
	}
	defer func() {
		if recover() == nil {
			t.Fatal("no panic on the 17th header")
		}
	}()
	resp.Set("X", "y")
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"GET / HTTP/1.1\r\nHost: h\r\n\r\n",
		"GET /a?b HTTP/1.0\r\nConnection: keep-alive\r\n\r\nGET / HTTP/1.1\n\n",
		"POST / HTTP/1.1\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\nhello",
		"\r\n\r\nOPTIONS * HTTP/1.1\r\nX:\t v \t\r\n\r\n",
		"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n",
		"GET / HTTP/1.1\r\nX: a\r\n b\r\n\r\n",
	} {
		f.Add([]byte(s), 64)
	}
	f.Fuzz(func(t *testing.T, b []byte, limit int) {
		limit = 1 + limit&0xfff
		var r Request
		n, code := parseRequest(b, &r, limit)
		switch code {
		case 0:
			if n < 0 || n > len(b) || n > limit {
				t.Fatalf("n = %d for %d bytes, limit %d", n, len(b), limit)
			}
			if n == 0 {
				return
			}
			// HTTP/1.2 and later minor versions are handled as HTTP/1.1,
			// and Proto keeps the version as sent (RFC 9112, 2.5).
			if r.Method == "" || r.Path == "" || len(r.Proto) != len("HTTP/1.x") || !strings.HasPrefix(r.Proto, "HTTP/1.") || r.Proto[7] < '0' || r.Proto[7] > '9' {
				t.Fatalf("accepted %q as %q %q %q", b[:n], r.Method, r.Path, r.Proto)
			}
			if !bytes.HasSuffix(b[:n], []byte("\n\n")) && !bytes.HasSuffix(b[:n], []byte("\n\r\n")) {
				t.Fatalf("head %q does not end with an empty line", b[:n])
			}
			for i := 0; i < r.NumHeaders(); i++ {
				name, value := r.HeaderAt(i)
				ctl := func(r rune) bool { return r < 0x20 && r != '\t' || r == 0x7f }
				if name == "" || strings.ContainsAny(name, " \t:") || strings.ContainsFunc(name, ctl) ||
					strings.ContainsFunc(value, ctl) || strings.Trim(value, " \t") != value {
					t.Fatalf("header %q: %q", name, value)
				}
				if !r.HasHeader(name) {
					t.Fatalf("header %q not found", name)
				}
			}
			// A complete head parses the same with anything after it, and is incomplete when cut.
			var r2 Request
			if n2, code2 := parseRequest(append(b[:n:n], "GET"...), &r2, limit); n2 != n || code2 != 0 {
				t.Fatalf("with a suffix: %d %d, want %d", n2, code2, n)
			}
			if n2, code2 := parseRequest(b[:n-1], &r2, limit); n2 != 0 || code2 != 0 && code2 != codeHeadersTooLarge {
				t.Fatalf("cut: %d %d", n2, code2)
			}
		case codeBadRequest, codeHeadersTooLarge, codeNotImplemented:
			if n != 0 {
				t.Fatalf("n = %d with code %d", n, code)
			}
		default:
			t.Fatalf("code %d", code)
		}
	})
}

// checkPrefixes holds parseRequest to its promise that the answer does not depend on how the bytes
// arrive: every prefix of b parses as "more bytes needed" or exactly as b does.
func checkPrefixes(t *testing.T, b []byte, limit int) {
	var r Request
	n, code := parseRequest(b, &r, limit)
	for k := range len(b) {
		pn, pcode := parseRequest(b[:k], &r, limit)
		if (pn != 0 || pcode != 0) && (pn != n || pcode != code) {
			t.Fatalf("%q: %d %d, but its first %d bytes: %d %d", b, n, code, k, pn, pcode)
		}
	}
}

func TestParsePrefixes(t *testing.T) {
	for _, s := range diffSeeds {
		checkPrefixes(t, []byte(s), 64)
		checkPrefixes(t, []byte(s), diffLimit)
	}
	checkPrefixes(t, []byte("GET /"+strings.Repeat("v", 100)+"\x01"), 64)
	checkPrefixes(t, []byte("\r\n\r\n\r\n\r\n\r\n\r\n\r\n\r\n\r\nGET / HTTP/1.1\r\n"), 64)
}

// FuzzParsePrefixes: every prefix of a request stream parses as incomplete or as the whole.
func FuzzParsePrefixes(f *testing.F) {
	for _, s := range diffSeeds {
		f.Add([]byte(s), 64)
	}
	f.Fuzz(func(t *testing.T, b []byte, limit int) {
		if len(b) > 8<<10 {
			return
		}
		checkPrefixes(t, b, 1+limit&0x1fff)
	})
}
