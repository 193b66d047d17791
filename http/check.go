package http

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"net/http"
	"time"
	"unsafe"

	"redirects"
	"redirects/edge"
)

// passed is what the check pipeline hands the lookup and export handlers:
// the loaded state it checked against, the key's project and the parsed
// parameters.
type passed struct {
	lv *live
	ps *edge.Project
	q  query
	// now is when the limiter counted the request; live is whether its
	// key is a live one (not a test key), whose lookups count as hits and
	// misses.
	now  time.Time
	live bool
	// key is the request's API key's ID.
	key string
}

// check runs the checks of /v1/lookup and /v1/export in the order of
// docs/contract.md: method, key, quota, rate, parameters, project. (The
// deployment is the handlers' to check.) The first check that fails writes
// its error answer in w, and check returns false; the limit headers are
// written once the limiter has been asked, whatever follows.
func (e *Edge) check(r *Req, w *Resp, lookup bool, p *passed) bool {
	// 1. Method.
	if r.Method != http.MethodGet {
		w.Set("Allow", "GET")
		e.writeError(w, errMethod)
		return false
	}
	// Nothing can be checked before the store has been loaded.
	lv := e.live.Load()
	if lv == nil {
		e.writeError(w, errUnavailable)
		return false
	}
	// 2-3. Key.
	key := r.APIKey
	if key == "" {
		e.writeError(w, errMissingKey)
		return false
	}
	v := lv.catalog.View()
	sum, ok := r.memo.digest(key)
	if !ok {
		if !redirects.WellFormedKey(key) {
			e.writeError(w, errInvalidKey)
			return false
		}
		// The key is hashed in place: converting it to []byte would allocate.
		sum = sha256.Sum256(unsafe.Slice(unsafe.StringData(key), len(key)))
		r.memo.keep(key, sum)
	}
	k := v.Key(sum)
	var ps *edge.Project
	var org *redirects.Org
	if k != nil && k.RevokedAt == nil {
		if ps = v.Project(k.ProjectID); ps != nil {
			org = v.Org(ps.OrgID)
		}
	}
	if org == nil {
		e.writeError(w, errInvalidKey)
		return false
	}
	// 4-5. Limits.
	ctx := r.Ctx
	if ctx == nil {
		ctx = context.Background()
	}
	// No reading of the clock on the loops: the system clock's time is
	// the request's start (Clock.Now is time.Now().UTC()), the event
	// loop's wake-up that answers it (evhttp.Request.Woke), held to no
	// earlier than the latest time the limiter was given (limitTime).
	var now time.Time
	if _, system := e.Clock.(redirects.SystemClock); system && !r.start.IsZero() {
		now = e.limitTime.notBefore(r.start).UTC()
	} else {
		now = e.Clock.Now()
	}
	p.now, p.live, p.key = now, !k.Test, k.ID
	u := redirects.Usage{Org: org, Test: k.Test, Lookup: lookup, Now: now}
	var d redirects.Decision
	if b, ok := lv.limiter.(redirects.BlockingLimiter); ok && !r.offLoop {
		var decided bool
		if d, decided = b.TryTake(u); !decided {
			// Handle moves the request off the loop, to Take.
			r.waitLimiter = true
			return false
		}
	} else {
		d = lv.limiter.Take(ctx, u)
	}
	e.Metrics.limiter(r.Shard, d.Refused)
	e.setLimitHeaders(w, &d, lookup)
	switch d.Refused {
	case redirects.QuotaExceeded:
		w.Set("Retry-After", itoa(int(d.RetryAfter)))
		e.writeError(w, errQuota)
		return false
	case redirects.RateLimitExceeded:
		w.Set("Retry-After", itoa(int(d.RetryAfter)))
		e.writeError(w, errRate)
		return false
	}
	// A live lookup that passed the limits consumed quota (redirects.Decide):
	// count it for its key and day too.
	if lookup && !k.Test {
		k.CountLookup(now)
	}
	// 6. Parameters.
	// A lookup's escaped values go into the connection's scratch buffer;
	// an export's (its format may be kept by the agents' tracker) are
	// allocated.
	if lookup {
		p.q = parseQueryInto(r.RawQuery, &w.Scratch)
	} else {
		p.q = parseQuery(r.RawQuery)
	}
	if perr := p.q.check(lookup); perr != nil {
		e.writeError(w, perr)
		return false
	}
	// 7. Project: unknown and foreign look the same.
	if p.q.project != k.ProjectID {
		e.writeError(w, errProject)
		return false
	}
	if p.q.versionHuge != "" {
		e.writeError(w, errVersionNotFoundText(!lookup, p.q.versionHuge))
		return false
	}
	p.lv, p.ps = lv, ps
	return true
}

// keyMemo is an event loop's last well-formed API key and its SHA-256
// digest: a loop's requests mostly carry the key of the request before,
// whose digest is then compared for, not computed. The key is compared in
// constant time, as a digest lookup would not leak it. The memo holds the
// digest only: the catalog's view decides, on every request, what the
// key is and whether it is revoked. A nil memo (net/http, the slow path)
// keeps nothing.
type keyMemo struct {
	n   int
	key [maxKeyLen]byte
	sum [sha256.Size]byte
}

// maxKeyLen bounds the keys a memo keeps; a well-formed key is shorter.
const maxKeyLen = 64

// digest returns the digest of key if it is the memo's key.
func (m *keyMemo) digest(key string) (sum [sha256.Size]byte, ok bool) {
	if m == nil || m.n == 0 || len(key) != m.n {
		return sum, false
	}
	if !equalKeys(m.key[:m.n], key) {
		return sum, false
	}
	return m.sum, true
}

// equalKeys reports whether a and b (of a's length) are equal, in a time
// that depends on their length only: eight bytes at a time, every byte
// read, differences gathered without a branch (as crypto/subtle's
// ConstantTimeCompare, which goes a byte at a time).
func equalKeys(a []byte, b string) bool {
	var diff uint64
	i := 0
	for ; i+8 <= len(a); i += 8 {
		diff |= binary.LittleEndian.Uint64(a[i:]) ^ (uint64(b[i]) | uint64(b[i+1])<<8 | uint64(b[i+2])<<16 | uint64(b[i+3])<<24 |
			uint64(b[i+4])<<32 | uint64(b[i+5])<<40 | uint64(b[i+6])<<48 | uint64(b[i+7])<<56)
	}
	for ; i < len(a); i++ {
		diff |= uint64(a[i] ^ b[i])
	}
	return diff == 0
}

// keep makes key, well-formed, and its digest the memo's.
func (m *keyMemo) keep(key string, sum [sha256.Size]byte) {
	if m == nil || len(key) > maxKeyLen {
		return
	}
	m.n = copy(m.key[:], key)
	m.sum = sum
}
