package http

import (
	"strconv"
	"sync/atomic"
	"time"
	"unsafe"

	"redirects"
)

// Header values of the edge's answers.
const (
	ctJSON        = "application/json"
	ctCSV         = "text/csv; charset=utf-8"
	ctText        = "text/plain; charset=utf-8"
	ccNoStore     = "no-store"
	ccLookup      = "public, max-age=300"
	ccExport      = "public, max-age=60"
	varyKey       = "X-API-Key"
	unlimitedText = "unlimited"
)

// writeError fills an error answer.
func (e *Edge) writeError(w *Resp, ae *apiError) {
	w.Set("Content-Type", ctJSON)
	w.Set("Cache-Control", ccNoStore)
	w.Status = ae.status
	w.Body = ae.body
}

// setLimitHeaders writes the rate headers, and for lookups the quota headers.
func (e *Edge) setLimitHeaders(w *Resp, d *redirects.Decision, lookup bool) {
	w.Set("X-RateLimit-Limit", w.limitValue(d.RateLimit))
	w.Set("X-RateLimit-Remaining", w.limitValue(d.RateRemaining))
	w.Set("X-RateLimit-Reset", e.times.minute.get(d.RateReset))
	if lookup {
		w.Set("X-Quota-Limit", w.limitValue(d.QuotaLimit))
		w.Set("X-Quota-Remaining", w.limitValue(d.QuotaRemaining))
		w.Set("X-Quota-Reset", e.times.month.get(d.QuotaReset))
	}
}

// limitValue is a limit header's value. A count past the table of small
// numbers (a rate limit of millions, a quota of billions, and what remains
// of them) is formatted into w's scratch buffer, after what it holds, so it
// allocates nothing on the evhttp engine: the value lives until the next
// request on the connection, and the head is written before that.
func (w *Resp) limitValue(l redirects.Limit) string {
	if l.IsUnlimited() {
		return unlimitedText
	}
	if l >= 0 && l < redirects.Limit(len(smallInts)) {
		return smallInts[l]
	}
	start := len(w.Scratch)
	w.Scratch = strconv.AppendInt(w.Scratch, int64(l), 10)
	return unsafe.String(&w.Scratch[start], len(w.Scratch)-start)
}

// smallInts holds the decimal form of 0..9999, so most counts and lengths
// cost no formatting.
var smallInts = func() []string {
	s := make([]string, 10000)
	for i := range s {
		s[i] = strconv.Itoa(i)
	}
	return s
}()

func itoa(n int) string {
	if n >= 0 && n < len(smallInts) {
		return smallInts[n]
	}
	return strconv.Itoa(n)
}

// headerTimes caches the header form of the current minute's and month's
// reset times, which every request in a minute shares.
type headerTimes struct {
	minute, month timeCache
}

// timeCache holds the header form of one Unix time.
type timeCache struct {
	p atomic.Pointer[timeValue]
}

type timeValue struct {
	unix int64
	v    string
}

func (c *timeCache) get(at time.Time) string {
	u := at.Unix()
	if v := c.p.Load(); v != nil && v.unix == u {
		return v.v
	}
	v := &timeValue{unix: u, v: strconv.FormatInt(u, 10)}
	c.p.Store(v)
	return v.v
}

// latestTime hands out request times that never go back: each event loop
// gives its requests the time it woke up (evhttp.Request.Woke), so one
// loop may answer a request with a time earlier, by the length of its
// wake-up, than another loop's last, and a limiter that saw the later one
// would count the earlier one in a window it already left
// (docs/contract.md: a request counts when it arrives). notBefore costs
// a load of the shared value, and a store only when a later time comes:
// about once a wake-up per loop. A time more than maxLate before the
// latest is the system clock set back, not a late loop: it is taken as
// it is, and times go on from it (held, the limiters' minute would stand
// still until the clock caught up).
type latestTime struct{ ns atomic.Int64 }

// maxLate is how far before the latest time a loop's time is held to it.
const maxLate = int64(time.Second)

// notBefore returns t, or the latest time handed out when that is later
// by at most maxLate.
func (l *latestTime) notBefore(t time.Time) time.Time {
	n := t.UnixNano()
	for {
		last := l.ns.Load()
		if n == last {
			return t
		}
		if n < last && last-n <= maxLate {
			return time.Unix(0, last)
		}
		if l.ns.CompareAndSwap(last, n) {
			return t
		}
	}
}
