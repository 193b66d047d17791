package importer

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// ask sends GET wire (up to its fragment, which clients do not send) to
// 127.0.0.1:port as the raw request line, and returns the status and the
// Location header.
func ask(t *testing.T, port int, wire string) (int, string) {
	t.Helper()
	return askHost(t, port, "127.0.0.1", wire)
}

// askHost is ask with the Host header host.
func askHost(t *testing.T, port int, host, wire string) (int, string) {
	t.Helper()
	if i := strings.IndexByte(wire, '#'); i >= 0 {
		wire = wire[:i]
	}
	c, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(port), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	if host == "" {
		// Without a host: HTTP/1.0, which needs no Host header.
		fmt.Fprintf(c, "GET %s HTTP/1.0\r\n\r\n", wire)
	} else {
		fmt.Fprintf(c, "GET %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n", wire, host)
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("GET %s: %v", wire, err)
	}
	resp.Body.Close()
	return resp.StatusCode, resp.Header.Get("Location")
}

// decodeLoose percent-decodes every valid %XX of s and leaves the rest: the
// servers re-escape the rest of a path as they like, so answers are
// compared decoded.
func decodeLoose(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) && hex1(s[i+1]) && hex1(s[i+2]) {
			v, _ := strconv.ParseUint(s[i+1:i+3], 16, 8)
			b.WriteByte(byte(v))
			i += 2
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func hex1(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// markerLine finds the line marker /d<N> a generated destination carries.
var markerRe = regexp.MustCompile(`/d([0-9]+)`)

func markerLine(loc string) int {
	m := markerRe.FindStringSubmatch(loc)
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// classes returns the class of every reported line of res: as is, changed
// or skipped, and the winner of shadowed lines.
func classes(res *Result) (map[int]Class, map[int]int) {
	cl, win := map[int]Class{}, map[int]int{}
	for _, r := range res.AsIsLines {
		for l := r[0]; l <= r[1]; l++ {
			cl[l] = AsIs
		}
	}
	for _, o := range res.Lines {
		cl[o.Line] = o.Class
		if o.Winner != 0 {
			win[o.Line] = o.Winner
		}
	}
	return cl, win
}
