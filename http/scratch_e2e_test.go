//go:build linux

package http

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"redirects"
)

// TestScratchValuesOverPipelinedRequests: on the real evhttp engine, over
// one connection, pipelined lookups under limits past 9,999 (whose header
// values live in the connection's scratch buffer), with percent-encoded
// paths (unescaped into it) and an older version not compiled yet (its
// answer finishes on the slow path while the requests behind it wait),
// each get their own answer: the rule of their path and version, and
// limit headers that count down one by one with the quota's limit intact.
func TestScratchValuesOverPipelinedRequests(t *testing.T) {
	rate, quota := redirects.Limit(1_000_000_000), redirects.Limit(1_000_000_000_000)
	f := newFixture(t, &redirects.Org{Name: "acme", Tier: redirects.TierPro, RateLimitOverride: &rate, QuotaOverride: &quota})
	s := f.open("evhttp")
	conn, err := net.Dial("tcp", s.Addr())
	f.ok(err)
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(20 * time.Second))
	type ask struct{ query, body string }
	asks := []ask{
		{"&path=%2Fa&version=1", `"/to-a"`}, // version 1: the slow path the first time
		{"&path=%2F%62", `"/to-b"`},
		{"&path=/a", `"/to-a"`},
		{"&path=%2Fb&version=1", ""}, // version 1 has no /b: 204
		{"&path=%2F%61&version=1", `"/to-a"`},
	}
	for round := range 3 {
		var req strings.Builder
		for _, a := range asks {
			fmt.Fprintf(&req, "GET /v1/lookup?project=%s%s HTTP/1.1\r\nHost: x\r\nX-API-Key: %s\r\n\r\n", f.project.ID, a.query, f.secret)
		}
		if _, err := io.WriteString(conn, req.String()); err != nil {
			t.Fatal(err)
		}
		r := bufio.NewReader(conn)
		last := int64(-1)
		for i, a := range asks {
			resp, err := http.ReadResponse(r, nil)
			if err != nil {
				t.Fatalf("round %d, answer %d: %v", round, i, err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			want := 200
			if a.body == "" {
				want = 204
			}
			if resp.StatusCode != want || a.body != "" && !strings.Contains(string(body), a.body) {
				t.Errorf("round %d, %s: %d %q, want %d with %s", round, a.query, resp.StatusCode, body, want, a.body)
			}
			if v := resp.Header.Get("X-Quota-Limit"); v != "1000000000000" {
				t.Errorf("round %d, %s: X-Quota-Limit %q", round, a.query, v)
			}
			if v := resp.Header.Get("X-RateLimit-Limit"); v != "1000000000" {
				t.Errorf("round %d, %s: X-RateLimit-Limit %q", round, a.query, v)
			}
			rem, err := strconv.ParseInt(resp.Header.Get("X-RateLimit-Remaining"), 10, 64)
			if err != nil || last >= 0 && rem != last-1 {
				t.Errorf("round %d, %s: X-RateLimit-Remaining %q after %d", round, a.query, resp.Header.Get("X-RateLimit-Remaining"), last)
			}
			last = rem
		}
	}
}
