package evhttp

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"net/http"
	"net/textproto"
	"regexp"
	"strings"
	"testing"
)

// diffLimit is the head limit of the differential tests: large enough for any seed, small enough
// that net/http's own limits (which are larger) never decide.
const diffLimit = 4096

// diffSeeds are heads that exercise each rule both parsers apply.
var diffSeeds = []string{
	"GET / HTTP/1.1\r\nHost: h\r\n\r\n",
	"GET /a/b?x=1&y HTTP/1.1\r\nHost: example.com:8080\r\nX-API-Key: k\r\n\r\n",
	"HEAD /x HTTP/1.0\r\nConnection: keep-alive\r\n\r\n",
	"GET / HTTP/1.0\r\nConnection: Keep-Alive, close\r\n\r\n",
	"GET / HTTP/1.1\r\nHost: h\r\nConnection: upgrade, CLOSE\r\n\r\n",
	"GET / HTTP/1.2\r\nHost: h\r\n\r\n",
	"GET / HTTP/1.1\r\n\r\n",
	"GET / HTTP/1.1\r\nHost: a\r\nHost: a\r\n\r\n",
	"GET / HTTP/1.1\r\nHost: a b\r\n\r\n",
	"GET / HTTP/1.1\r\nHost:\r\n\r\n",
	"GET / HTTP/1.1\r\nHost: [::1]:80\r\n\r\n",
	"POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\nhello",
	"POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n",
	"POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\n",
	"POST / HTTP/1.1\r\nHost: h\r\nContent-Length: +5\r\n\r\n",
	"POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
	"POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: gzip\r\n\r\n",
	"POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n",
	"POST / HTTP/1.0\r\nTransfer-Encoding: gzip\r\nContent-Length: 2\r\n\r\nab",
	"GET /a%zz HTTP/1.1\r\nHost: h\r\n\r\n",
	"GET /a?%zz HTTP/1.1\r\nHost: h\r\n\r\n",
	"GET /caf\xc3\xa9 HTTP/1.1\r\nHost: h\r\nX: \xff\r\n\r\n",
	"OPTIONS * HTTP/1.1\r\nHost: h\r\n\r\n",
	"GET / HTTP/1.1\nHost: h\n\n",
	"GET / HTTP/1.1\r\nHost: h\r\nX: a\r\n b\r\n\r\n",
	"GET http://h/ HTTP/1.1\r\nHost: h\r\n\r\n",
	"GET / HTTP/2.0\r\nHost: h\r\n\r\n",
	"get / HTTP/1.1\r\nHost: h\r\n\r\n",
	"GET / HTTP/1.1\r\nHost: h\r\nX :v\r\n\r\n",
	"\r\nGET / HTTP/1.1\r\nHost: h\r\n\r\n",
	"GET / HTTP/1.1\r\nHost: h\r\n\r\nGET /2 HTTP/1.1\r\nHost: h\r\n\r\n",
}

// netHTTPAnswer is what net/http's server decides for a request head: the parsed request, or the
// status it refuses it with. It is http.ReadRequest plus the checks the server adds (its
// conn.readRequest method: version, Host, header values).
func netHTTPAnswer(b []byte) (req *http.Request, status int, incomplete bool) {
	req, err := http.ReadRequest(bufio.NewReader(bytes.NewReader(b)))
	switch {
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF):
		return nil, 0, true
	case err != nil && strings.Contains(err.Error(), "transfer encoding"):
		return nil, codeNotImplemented, false
	case err != nil:
		return nil, 400, false
	case req.ProtoMajor != 1:
		return nil, 505, false
	}
	// ReadRequest moves the Host header to req.Host; the server checks the header lines themselves.
	tp := textproto.NewReader(bufio.NewReader(bytes.NewReader(b)))
	tp.ReadLine()
	raw, _ := tp.ReadMIMEHeader()
	hosts := raw["Host"]
	if req.ProtoAtLeast(1, 1) && len(hosts) == 0 && req.Method != "CONNECT" {
		return nil, 400, false
	}
	if len(hosts) == 1 && !validHost(hosts[0]) {
		return nil, 400, false
	}
	for k, vv := range raw {
		if k == "" || strings.ContainsFunc(k, func(r rune) bool { return r >= 0x80 || !tchar[r] }) {
			return nil, 400, false
		}
		for _, v := range vv {
			if strings.ContainsFunc(v, func(r rune) bool { return r < ' ' && r != '\t' || r == 0x7f }) {
				return nil, 400, false
			}
		}
	}
	return req, 0, false
}

var (
	obsFold      = regexp.MustCompile(`\n[ \t]`)
	teLine       = regexp.MustCompile(`(?i)\ntransfer-encoding:[^\n]*\n`)
	spaceColon   = regexp.MustCompile(`\n[^:\r\n]*[ \t]:`)
	longLength   = regexp.MustCompile(`(?i)\ncontent-length:[ \t]*[0-9]{19}`)
	connectLine  = regexp.MustCompile(`^(\r?\n)*CONNECT `)
	originOrStar = regexp.MustCompile(`^(\r?\n)*[!-~]+ (/|\* )`)
	http1        = regexp.MustCompile(`^(\r?\n)*[^ \r\n]+ [^ \r\n]+ HTTP/1\.[0-9]\r?\n`)
)

// stricter reports why this engine may refuse a head that net/http accepts: what it refuses on
// purpose (obsolete line folding, whitespace between a header name and its colon, targets other than origin and asterisk form, more than 64 header
// lines, a Content-Length of more than 18 digits, CONNECT without Host), or "" if nothing applies.
func stricter(head []byte) string {
	switch {
	case obsFold.Match(head[bytes.IndexByte(head, '\n')+1:]):
		return "obsolete line folding"
	case spaceColon.Match(head):
		return "whitespace before a colon (RFC 9112 section 5.1: MUST 400)"
	case !http1.Match(head):
		return "a version other than HTTP/1.x (net/http answers 505 once it has read the head)"
	case !originOrStar.Match(head):
		return "absolute or authority form"
	case bytes.Count(head, []byte("\n")) > maxRequestHeaders+1:
		return "more than 64 header lines"
	case longLength.Match(head):
		return "a Content-Length of 19 digits"
	case connectLine.Match(head):
		return "CONNECT"
	}
	return ""
}

// leadingEmptyLines strips the empty lines the parser skips before a request line (net/http skips
// them only after a POST).
func leadingEmptyLines(b []byte) []byte {
	for range maxLeadingEmptyLines {
		switch {
		case bytes.HasPrefix(b, []byte("\n")):
			b = b[1:]
		case bytes.HasPrefix(b, []byte("\r\n")):
			b = b[2:]
		default:
			return b
		}
	}
	return b
}

// diffParse holds parseRequest against net/http for one input: the same accept or refuse decision
// (up to the refusals listed in stricter), the same status for 501, and for an accepted head the same
// method, target, version, Host, headers and the same reading of the framing and connection headers.
func diffParse(t *testing.T, b []byte) {
	if len(b) >= diffLimit-len("\r\n\r\n") {
		return // the size limit is not what this test is about
	}
	var r Request
	n, code := parseRequest(b, &r, diffLimit)
	if n == 0 && code == 0 {
		// Incomplete: decide on the head as if it ended here.
		b = append(b[:len(b):len(b)], "\r\n\r\n"...)
		if n, code = parseRequest(b, &r, diffLimit); n == 0 && code == 0 {
			return
		}
	}
	refHead := leadingEmptyLines(b)
	ref, refCode, refIncomplete := netHTTPAnswer(refHead)
	if refIncomplete && code != 0 {
		// Refused early, before the head ended: net/http decides once it has read the head.
		refHead = append(refHead[:len(refHead):len(refHead)], "\r\n\r\n"...)
		ref, refCode, refIncomplete = netHTTPAnswer(refHead)
	}
	if code == codeHeadersTooLarge {
		if bytes.Count(b, []byte("\n")) <= maxRequestHeaders {
			t.Fatalf("%q: 431 with %d lines", b, bytes.Count(b, []byte("\n")))
		}
		return
	}
	if code != 0 {
		if ref != nil {
			if why := stricter(b); why == "" {
				t.Fatalf("%q: %d here, net/http accepts %s %q %s", b, code, ref.Method, ref.RequestURI, ref.Proto)
			}
			return
		}
		if refIncomplete {
			// net/http reads on (a folded line); the refusal must be one that stricter explains.
			if stricter(b) == "" {
				t.Fatalf("%q: %d here, net/http reads on", b, code)
			}
			return
		}
		if code == codeNotImplemented && refCode != codeNotImplemented {
			t.Fatalf("%q: 501 here, %d from net/http", b, refCode)
		}
		if refCode == codeNotImplemented && code != codeNotImplemented && stricter(b) == "" {
			// net/http checks header names and values after the transfer coding: the head must
			// have another fault, found here first.
			// The head net/http answered, so a transfer coding on its
			// last line is removed too.
			noTE := refHead
			for teLine.Match(noTE) {
				noTE = teLine.ReplaceAll(noTE, []byte("\n"))
			}
			if ref, _, incomplete := netHTTPAnswer(noTE); ref != nil || incomplete {
				t.Fatalf("%q: %d here, 501 from net/http", b, code)
			}
		}
		return
	}
	if ref == nil {
		t.Fatalf("%q: accepted here (%d bytes), net/http: status %d incomplete %v", b, n, refCode, refIncomplete)
	}
	target := r.Path
	if r.RawQuery != "" || bytes.Contains(b[:n], []byte(r.Path+"? ")) {
		target += "?" + r.RawQuery
	}
	if r.Method != ref.Method || target != ref.RequestURI || r.Proto != ref.Proto || r.RawQuery != ref.URL.RawQuery {
		t.Fatalf("%q: %q %q %q %q, net/http %q %q %q %q", b, r.Method, target, r.Proto, r.RawQuery,
			ref.Method, ref.RequestURI, ref.Proto, ref.URL.RawQuery)
	}
	if r.Header("Host") != ref.Host {
		t.Fatalf("%q: Host %q, net/http %q", b, r.Header("Host"), ref.Host)
	}
	// Every header but the framing ones (which net/http takes out or merges) in the same order.
	got := http.Header{}
	for i := range r.NumHeaders() {
		name, value := r.HeaderAt(i)
		got.Add(name, value)
	}
	got.Del("Host")
	te := got["Transfer-Encoding"]
	for _, h := range []string{"Transfer-Encoding", "Content-Length"} {
		got.Del(h)
		ref.Header.Del(h)
	}
	if len(got) != len(ref.Header) {
		t.Fatalf("%q: headers %q, net/http %q", b, got, ref.Header)
	}
	for k, vv := range got {
		if strings.Join(vv, "\n") != strings.Join(ref.Header[k], "\n") {
			t.Fatalf("%q: header %s %q, net/http %q", b, k, vv, ref.Header[k])
		}
	}
	// The framing: a body (which this engine never reads, so it closes after the answer) exactly
	// when net/http expects one; HTTP/1.0 has no transfer codings, and there the header is a body.
	wantBody := ref.ContentLength != 0 || len(te) > 0
	if r.hasBody != wantBody {
		t.Fatalf("%q: body %v, net/http Content-Length %d, Transfer-Encoding %q", b, r.hasBody, ref.ContentLength, te)
	}
	if wantClose := ref.Close || wantBody; r.close != wantClose {
		t.Fatalf("%q: close %v, net/http %v (body %v)", b, r.close, ref.Close, wantBody)
	}
	if want := ref.ProtoMinor == 0 && !ref.Close && !wantBody; r.keepAlive10 != want {
		t.Fatalf("%q: HTTP/1.0 keep-alive %v, want %v", b, r.keepAlive10, want)
	}
}

// TestParseNetHTTP runs the differential check on the seeds, so a plain go test covers it.
func TestParseNetHTTP(t *testing.T) {
	for _, s := range diffSeeds {
		diffParse(t, []byte(s))
	}
}

// FuzzParseNetHTTP is the differential fuzz test of the parser against net/http's.
func FuzzParseNetHTTP(f *testing.F) {
	for _, s := range diffSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(diffParse)
}
