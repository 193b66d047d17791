package http

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"

	"redirects"
)

func TestItoa(t *testing.T) {
	for _, n := range []int{0, 1, 42, 9999, 10000, 123456789, -1, -10000} {
		if got := itoa(n); got != strconv.Itoa(n) {
			t.Errorf("itoa(%d) = %q", n, got)
		}
	}
}

func TestLimitValue(t *testing.T) {
	for l, want := range map[redirects.Limit]string{redirects.Unlimited: "unlimited", 0: "0", 100: "100", 1_000_000: "1000000"} {
		var w Resp
		if got := w.limitValue(l); got != want {
			t.Errorf("limitValue(%d) = %q, want %q", l, got, want)
		}
	}
}

// TestLimitValuesShareScratch: values formatted into one answer's scratch
// buffer, one after the other and past its growth, each keep their digits
// (the model: strconv), and a body rendered after them does not touch them.
func TestLimitValuesShareScratch(t *testing.T) {
	rng := rand.New(rand.NewPCG(33, 1))
	for range 200 {
		w := Resp{Scratch: make([]byte, 0, rng.IntN(40))}
		var got, want []string
		for range 1 + rng.IntN(6) {
			l := redirects.Limit(rng.Int64N(1 << uint(rng.IntN(62))))
			got = append(got, w.limitValue(l))
			want = append(want, strconv.FormatInt(int64(l), 10))
		}
		w.Scratch = append(w.Scratch, strings.Repeat("b", rng.IntN(100))...)
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("value %d = %q, want %q", i, got[i], want[i])
			}
		}
	}
}

func TestTimeCache(t *testing.T) {
	var c timeCache
	at := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	first := c.get(at)
	if first != strconv.FormatInt(at.Unix(), 10) {
		t.Fatalf("get = %q, want %d", first, at.Unix())
	}
	// The same second is served from the cache, a new one replaces it.
	if again := c.get(at.Add(500 * time.Millisecond)); again != first {
		t.Errorf("same second: %q, want %q", again, first)
	}
	if next := c.get(at.Add(time.Minute)); next != strconv.FormatInt(at.Add(time.Minute).Unix(), 10) {
		t.Errorf("next minute: %q", next)
	}
}

func TestSetLimitHeaders(t *testing.T) {
	minute := time.Date(2026, 11, 22, 10, 1, 0, 0, time.UTC)
	month := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	d := redirects.Decision{RateLimit: 100, RateRemaining: 99, RateReset: minute,
		QuotaLimit: redirects.Unlimited, QuotaRemaining: redirects.Unlimited, QuotaReset: month}
	var e Edge
	var w Resp
	e.setLimitHeaders(&w, &d, true)
	want := map[string]string{
		"X-RateLimit-Limit": "100", "X-RateLimit-Remaining": "99", "X-RateLimit-Reset": strconv.FormatInt(minute.Unix(), 10),
		"X-Quota-Limit": "unlimited", "X-Quota-Remaining": "unlimited", "X-Quota-Reset": strconv.FormatInt(month.Unix(), 10),
	}
	if w.N != len(want) {
		t.Fatalf("lookup: %d headers, want %d", w.N, len(want))
	}
	for name, v := range want {
		if got := header(&w, name); got != v {
			t.Errorf("lookup: %s = %q, want %q", name, got, v)
		}
	}
	// Exports do not count against the quota: no quota headers.
	var x Resp
	e.setLimitHeaders(&x, &d, false)
	if x.N != 3 || header(&x, "X-Quota-Limit") != "" || header(&x, "X-RateLimit-Limit") != "100" {
		t.Errorf("export: headers %v", x.Headers[:x.N])
	}
}

func TestWriteError(t *testing.T) {
	var e Edge
	var w Resp
	e.writeError(&w, errRate)
	wantError(t, &w, errRate)
	if string(w.Body) != `{"error":"Too Many Requests","code":"RATE_LIMIT_EXCEEDED"}` {
		t.Errorf("body %s", w.Body)
	}
}

func TestRespSetBound(t *testing.T) {
	var w Resp
	for i := range maxHeaders + 3 {
		w.Set("X-H", itoa(i))
	}
	if w.N != maxHeaders {
		t.Fatalf("N = %d, want %d: headers beyond the array are dropped", w.N, maxHeaders)
	}
}

func TestEtagMatches(t *testing.T) {
	const etag = `"abc"`
	tests := []struct {
		header string
		want   bool
	}{
		{`"abc"`, true},
		{`W/"abc"`, true},
		{`"x", "abc"`, true},
		{`"x",W/"abc" `, true},
		{`*`, true},
		{`"abd"`, false},
		{`abc`, false},
		{`"x", "y"`, false},
	}
	for _, tt := range tests {
		if got := etagMatches(tt.header, etag); got != tt.want {
			t.Errorf("etagMatches(%q) = %v, want %v", tt.header, got, tt.want)
		}
	}
}

func TestContentDisposition(t *testing.T) {
	for _, f := range redirects.Formats {
		want := `attachment; filename="redirects.` + redirects.FormatExtension(f) + `"`
		if got := contentDisposition[f]; got != want || redirects.FormatExtension(f) == "" {
			t.Errorf("%s: %q, want %q", f, got, want)
		}
	}
}

func TestRedactKey(t *testing.T) {
	if got := redactKey(""); got != "" {
		t.Errorf("empty: %q", got)
	}
	if got := redactKey("short"); got != "(malformed)" {
		t.Errorf("short: %q", got)
	}
	k := "rk_live_0123456789abcdefWXYZ"
	if got := redactKey(k); got != "rk_live_012...WXYZ" {
		t.Errorf("redactKey(%q) = %q", k, got)
	}
}
