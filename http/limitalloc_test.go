package http

import (
	"strconv"
	"strings"
	"testing"

	"redirects"
)

// TestHandleLookupAllocsWithLimits: a lookup hit under an organization with
// a rate limit and a monthly quota whose counts run past the table of small
// numbers (the limit headers' values have ten and more digits) allocates
// nothing either.
func TestHandleLookupAllocsWithLimits(t *testing.T) {
	rate, quota := redirects.Limit(1_000_000_000), redirects.Limit(1_000_000_000_000)
	f := newFixture(t, &redirects.Org{Name: "acme", Tier: redirects.TierPro, RateLimitOverride: &rate, QuotaOverride: &quota})
	q := Req{Method: "GET", Path: "/v1/lookup", RawQuery: f.lookupQuery("/a"), APIKey: f.secret, Ctx: f.ctx}
	var w Resp
	// The connection's scratch buffer, kept from one request to the next
	// as the evhttp engine does (serveEv).
	var scratch []byte
	allocs := testing.AllocsPerRun(1000, func() {
		w = Resp{Scratch: scratch[:0]}
		if slow := f.edge.Handle(&q, &w); slow != nil || w.Status != 200 {
			t.Fatalf("lookup hit: slow path %v, status %d", slow != nil, w.Status)
		}
		scratch = w.Scratch
	})
	if allocs != 0 {
		t.Errorf("%v allocations per lookup hit", allocs)
	}
	// The values are the decision's, digit for digit.
	for name, min := range map[string]int64{"X-RateLimit-Limit": 1_000_000_000, "X-RateLimit-Remaining": 999_000_000,
		"X-Quota-Limit": 1_000_000_000_000, "X-Quota-Remaining": 999_999_000_000} {
		v := header(&w, name)
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < min || strconv.FormatInt(n, 10) != v {
			t.Errorf("%s: %q", name, v)
		}
	}
	if !strings.Contains(string(w.Body), `"/to-a"`) {
		t.Errorf("body %q", w.Body)
	}
}

// TestHandleLookupAllocsEncodedPath: a lookup hit whose path parameter is
// percent-encoded whole (encodeURIComponent: each slash "%2F"), under real
// limits, allocates nothing, and finds the rule.
func TestHandleLookupAllocsEncodedPath(t *testing.T) {
	rate, quota := redirects.Limit(1_000_000_000), redirects.Limit(1_000_000_000_000)
	f := newFixture(t, &redirects.Org{Name: "acme", Tier: redirects.TierPro, RateLimitOverride: &rate, QuotaOverride: &quota})
	raw := strings.Replace(f.lookupQuery("/a"), "path=/a", "path=%2F%61", 1)
	if raw == f.lookupQuery("/a") {
		t.Fatalf("the query %q has no path=/a to encode", raw)
	}
	q := Req{Method: "GET", Path: "/v1/lookup", RawQuery: raw, APIKey: f.secret, Ctx: f.ctx}
	var w Resp
	var scratch []byte
	allocs := testing.AllocsPerRun(1000, func() {
		w = Resp{Scratch: scratch[:0]}
		if slow := f.edge.Handle(&q, &w); slow != nil || w.Status != 200 {
			t.Fatalf("lookup hit: slow path %v, status %d", slow != nil, w.Status)
		}
		scratch = w.Scratch
	})
	if allocs != 0 {
		t.Errorf("%v allocations per lookup hit", allocs)
	}
	if !strings.Contains(string(w.Body), `"/to-a"`) {
		t.Errorf("body %q", w.Body)
	}
}
