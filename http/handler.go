package http

import (
	"context"
	"crypto/sha256"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
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

// Req is what the edge reads of a request, whatever the transport. Its
// strings may be views into a connection's buffer, valid only until the
// answer is written: anything kept longer is copied.
type Req struct {
	Method      string
	Path        string
	RawQuery    string
	APIKey      string
	IfNoneMatch string
	RemoteAddr  string
	Ctx         context.Context
}

// maxHeaders bounds the headers of one answer; the edge sets at most 13.
const maxHeaders = 16

// Resp is the edge's answer, whatever the transport: a status, headers in a
// fixed array (no allocation), and a body that is referenced, not copied.
type Resp struct {
	Status  int
	Headers [maxHeaders][2]string
	N       int
	Body    []byte
}

// Set adds a header.
func (r *Resp) Set(name, value string) {
	if r.N < maxHeaders {
		r.Headers[r.N] = [2]string{name, value}
		r.N++
	}
}

// Edge answers the edge API: /v1/lookup, /v1/export and /healthz. Handle
// holds the logic; ServeHTTP (net/http) and the evhttp engine carry it.
type Edge struct {
	Clock   redirects.Clock
	Logger  *slog.Logger
	Metrics *Metrics

	live     atomic.Pointer[live]
	stopping atomic.Bool
	times    headerTimes
}

// live is what the edge answers from once the store has been loaded.
type live struct {
	state   *State
	limiter redirects.Limiter
	// exports caches export files read from the store.
	exports *ExportCache
}

func (e *Edge) setLive(l *live) { e.live.Store(l) }

// SetReady(false) makes /healthz answer 503 while the server shuts down.
func (e *Edge) SetReady(ready bool) { e.stopping.Store(!ready) }

// Handle answers q in w. When the answer needs the store (an older version
// not compiled yet, an export file not cached), Handle returns a function
// that finishes the answer and may block; the caller runs it where blocking
// is harmless. Everything Handle counts (limits, metrics) is counted once.
func (e *Edge) Handle(q *Req, w *Resp) func(*Resp) {
	// A limiter that waits on the network (Redis) must not hold up an
	// event loop: the whole answer moves to the slow path.
	if lv := e.live.Load(); lv != nil && q.Method == http.MethodGet && (q.Path == "/v1/lookup" || q.Path == "/v1/export") {
		if b, ok := lv.limiter.(interface{ Blocking() bool }); ok && b.Blocking() {
			held := Req{Method: http.MethodGet, Path: strings.Clone(q.Path), RawQuery: strings.Clone(q.RawQuery),
				APIKey: strings.Clone(q.APIKey), IfNoneMatch: strings.Clone(q.IfNoneMatch), RemoteAddr: strings.Clone(q.RemoteAddr),
				Ctx: context.Background()}
			return func(w *Resp) {
				if slow := e.handle(&held, w); slow != nil {
					slow(w)
				}
			}
		}
	}
	return e.handle(q, w)
}

func (e *Edge) handle(q *Req, w *Resp) func(*Resp) {
	start := time.Now()
	var ep endpoint
	var slow func(*Resp)
	switch q.Path {
	case "/v1/lookup":
		ep = epLookup
		slow = e.serveAPI(q, w, true)
	case "/v1/export":
		ep = epExport
		slow = e.serveAPI(q, w, false)
	case "/healthz":
		ep = epOther
		w.Status = http.StatusOK
		if e.stopping.Load() || e.live.Load() == nil {
			w.Status = http.StatusServiceUnavailable
		}
		w.Set("Cache-Control", ccNoStore)
	default:
		ep = epOther
		e.writeError(w, errRoute)
	}
	if slow == nil {
		e.done(q, w, ep, start)
		return nil
	}
	// The slow part runs after q's views may be gone: keep copies.
	method, path, key, remote := strings.Clone(q.Method), strings.Clone(q.Path), strings.Clone(q.APIKey), strings.Clone(q.RemoteAddr)
	return func(w *Resp) {
		slow(w)
		e.done(&Req{Method: method, Path: path, APIKey: key, RemoteAddr: remote, Ctx: context.Background()}, w, ep, start)
	}
}

// done records an answer in the metrics and, at debug level, the log.
func (e *Edge) done(q *Req, w *Resp, ep endpoint, start time.Time) {
	e.Metrics.observe(ep, w.Status, time.Since(start))
	if e.Logger.Enabled(context.Background(), slog.LevelDebug) {
		e.Logger.Debug("request", "method", q.Method, "path", q.Path, "status", w.Status,
			"key", redactKey(q.APIKey), "duration", time.Since(start), "remote", q.RemoteAddr)
	}
}

// ServeHTTP carries Handle over net/http (the admin listener, and the edge
// when the evhttp engine is not used).
func (e *Edge) ServeHTTP(hw http.ResponseWriter, r *http.Request) {
	q := Req{Method: r.Method, Path: r.URL.EscapedPath(), RawQuery: r.URL.RawQuery, IfNoneMatch: r.Header.Get("If-None-Match"),
		RemoteAddr: r.RemoteAddr, Ctx: r.Context()}
	if v := r.Header["X-Api-Key"]; len(v) > 0 {
		q.APIKey = v[0]
	}
	var w Resp
	if slow := e.Handle(&q, &w); slow != nil {
		slow(&w)
	}
	h := hw.Header()
	for _, kv := range w.Headers[:w.N] {
		h[kv[0]] = []string{kv[1]}
	}
	if w.Status != http.StatusNoContent && w.Status != http.StatusNotModified {
		h["Content-Length"] = []string{itoa(len(w.Body))}
	}
	hw.WriteHeader(w.Status)
	hw.Write(w.Body)
}

// redactKey keeps a key's prefix and last four characters for logs.
func redactKey(k string) string {
	if len(k) <= 15 {
		if k == "" {
			return ""
		}
		return "(malformed)"
	}
	return k[:11] + "..." + k[len(k)-4:]
}

// serveAPI answers /v1/lookup and /v1/export in the order of checks of
// CONTRACT.md.
func (e *Edge) serveAPI(r *Req, w *Resp, lookup bool) (slow func(*Resp)) {
	// 1. Method.
	if r.Method != http.MethodGet {
		w.Set("Allow", "GET")
		e.writeError(w, errMethod)
		return nil
	}
	// Nothing can be checked before the store has been loaded.
	lv := e.live.Load()
	if lv == nil {
		e.writeError(w, errUnavailable)
		return nil
	}
	// 2-3. Key.
	key := r.APIKey
	if key == "" {
		e.writeError(w, errMissingKey)
		return nil
	}
	cat := lv.state.catalog()
	if !redirects.WellFormedKey(key) {
		e.writeError(w, errInvalidKey)
		return nil
	}
	// The key is hashed in place: converting it to []byte would allocate.
	k := cat.keys[sha256.Sum256(unsafe.Slice(unsafe.StringData(key), len(key)))]
	var ps *projectState
	var org *redirects.Org
	if k != nil && k.RevokedAt == nil {
		if ps = cat.projects[k.ProjectID]; ps != nil {
			org = cat.orgs[ps.project.OrgID]
		}
	}
	if org == nil {
		e.writeError(w, errInvalidKey)
		return nil
	}
	// 4-5. Limits.
	ctx := r.Ctx
	if ctx == nil {
		ctx = context.Background()
	}
	d := lv.limiter.Take(ctx, redirects.Usage{Org: org, Test: k.Test, Lookup: lookup, Now: e.Clock.Now()})
	e.Metrics.limiter(d.Refused)
	e.setLimitHeaders(w, &d, lookup)
	switch d.Refused {
	case redirects.QuotaExceeded:
		w.Set("Retry-After", itoa(int(d.RetryAfter)))
		e.writeError(w, errQuota)
		return nil
	case redirects.RateLimitExceeded:
		w.Set("Retry-After", itoa(int(d.RetryAfter)))
		e.writeError(w, errRate)
		return nil
	}
	// 6. Parameters.
	q := parseQuery(r.RawQuery)
	if perr := q.check(lookup); perr != nil {
		e.writeError(w, perr)
		return nil
	}
	// 7. Project: unknown and foreign look the same.
	if q.project != k.ProjectID {
		e.writeError(w, errProject)
		return nil
	}
	if q.versionHuge != "" {
		e.writeError(w, errVersionNotFoundText(!lookup, q.versionHuge))
		return nil
	}
	// 8-9.
	if lookup {
		return e.serveLookup(w, lv.state, ps, q.versionN, q.path)
	}
	return e.serveExport(w, lv.exports, r.IfNoneMatch, ps, q.versionN, q.format)
}

func (e *Edge) serveLookup(w *Resp, state *State, ps *projectState, version int, path string) (slow func(*Resp)) {
	d := ps.latest
	switch {
	case d == nil && version > 0:
		e.writeError(w, errVersionNotFound(false, version))
		return nil
	case d == nil:
		e.writeError(w, errNoDeployments)
		return nil
	case version > 0 && version != d.version:
		if old := state.cachedVersion(ps.project.ID, version); old != nil {
			d = old
			break
		}
		project, path := ps.project.ID, strings.Clone(path)
		return func(w *Resp) {
			d, err := state.Version(context.Background(), project, version)
			if err != nil {
				if redirects.ErrorCode(err) == redirects.ENOTFOUND {
					e.writeError(w, errVersionNotFound(false, version))
					return
				}
				e.Logger.Error("loading a deployment", "project", project, "version", version, "err", err)
				e.writeError(w, storeError(err))
				return
			}
			e.writeLookup(w, d, path)
		}
	}
	e.writeLookup(w, d, path)
	return nil
}

func (e *Edge) writeLookup(w *Resp, d *deployed, path string) {
	w.Set("Cache-Control", ccLookup)
	w.Set("Vary", varyKey)
	m, ok := d.snap.Lookup(path)
	if !ok {
		w.Status = http.StatusNoContent
		return
	}
	w.Status = http.StatusOK
	w.Set("Content-Type", ctJSON)
	w.Body = m.JSON()
}

func (e *Edge) serveExport(w *Resp, exports *ExportCache, ifNoneMatch string, ps *projectState, version int, format string) (slow func(*Resp)) {
	if ps.latest == nil {
		if version > 0 {
			e.writeError(w, errVersionNotFound(true, version))
		} else {
			e.writeError(w, errNoExports)
		}
		return nil
	}
	if version == 0 {
		version = ps.latest.version
	}
	if ex := exports.Cached(ps.project.ID, version, format); ex != nil {
		e.writeExport(w, ifNoneMatch, ex, format)
		return nil
	}
	project, format, ifNoneMatch := ps.project.ID, strings.Clone(format), strings.Clone(ifNoneMatch)
	return func(w *Resp) {
		ex, err := exports.Get(context.Background(), project, version, format)
		if err != nil {
			if redirects.ErrorCode(err) == redirects.ENOTFOUND {
				e.writeError(w, errVersionNotFound(true, version))
				return
			}
			e.Logger.Error("loading an export", "project", project, "version", version, "format", format, "err", err)
			e.writeError(w, storeError(err))
			return
		}
		e.writeExport(w, ifNoneMatch, ex, format)
	}
}

func (e *Edge) writeExport(w *Resp, ifNoneMatch string, ex *redirects.Export, format string) {
	w.Set("Cache-Control", ccExport)
	w.Set("Vary", varyKey)
	w.Set("ETag", ex.ETag)
	if ifNoneMatch != "" && etagMatches(ifNoneMatch, ex.ETag) {
		w.Status = http.StatusNotModified
		return
	}
	if format == "csv" {
		w.Set("Content-Type", ctCSV)
	} else {
		w.Set("Content-Type", ctText)
	}
	w.Set("Content-Disposition", contentDisposition[format])
	w.Status = http.StatusOK
	w.Body = ex.Body
}

// contentDisposition holds the header of each format's download.
var contentDisposition = func() map[string]string {
	m := map[string]string{}
	for _, f := range redirects.Formats {
		m[f] = `attachment; filename="redirects.` + redirects.FormatExtension(f) + `"`
	}
	return m
}()

// etagMatches applies If-None-Match's weak comparison (RFC 9110 13.1.2).
func etagMatches(header, etag string) bool {
	for _, part := range strings.Split(header, ",") {
		part = strings.TrimSpace(part)
		if part == "*" || strings.TrimPrefix(part, "W/") == etag {
			return true
		}
	}
	return false
}

// writeError fills an error answer.
func (e *Edge) writeError(w *Resp, ae *apiError) {
	w.Set("Content-Type", ctJSON)
	w.Set("Cache-Control", ccNoStore)
	w.Status = ae.status
	w.Body = ae.body
}

// setLimitHeaders writes the rate headers, and for lookups the quota headers.
func (e *Edge) setLimitHeaders(w *Resp, d *redirects.Decision, lookup bool) {
	w.Set("X-RateLimit-Limit", limitValue(d.RateLimit))
	w.Set("X-RateLimit-Remaining", limitValue(d.RateRemaining))
	w.Set("X-RateLimit-Reset", e.times.minute.get(d.RateReset))
	if lookup {
		w.Set("X-Quota-Limit", limitValue(d.QuotaLimit))
		w.Set("X-Quota-Remaining", limitValue(d.QuotaRemaining))
		w.Set("X-Quota-Reset", e.times.month.get(d.QuotaReset))
	}
}

func limitValue(l redirects.Limit) string {
	if l.IsUnlimited() {
		return unlimitedText
	}
	return itoa(int(l))
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
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

// query holds the parameters of an edge request.
type query struct {
	project, path, format, version string
	hasVersion                     bool
	versionN                       int
	// versionHuge holds a version too large to be one, for the not-found
	// answer.
	versionHuge string
	// bad is the first malformed or repeated parameter, badParam its name.
	bad      *apiError
	badParam string
}

// check validates the parameters in CONTRACT.md's order and parses version.
func (q *query) check(lookup bool) *apiError {
	if q.project == "" && q.badParam != "project" {
		return errMissingProject
	}
	if q.bad != nil {
		return q.bad
	}
	if lookup {
		if q.path == "" {
			return errMissingPath
		}
		if q.path[0] != '/' || len(q.path) > redirects.MaxSourceLen {
			return errInvalidPath
		}
	} else {
		if q.format == "" {
			return errMissingFormat
		}
		if redirects.FormatExtension(q.format) == "" {
			return errInvalidFormat
		}
	}
	if q.hasVersion {
		v, err := strconv.Atoi(q.version)
		if err != nil && allDigits(q.version) && strings.Trim(q.version, "0") != "" {
			// A positive whole number too large for any version: valid here,
			// and not found once the project has been checked.
			q.versionHuge = strings.TrimLeft(q.version, "0")
			return nil
		}
		if err != nil || v <= 0 {
			return errInvalidVersion
		}
		q.versionN = v
	}
	return nil
}

// parseQuery reads the parameters the edge knows, once each; others are
// ignored. A malformed escape or a repeated known parameter is recorded in
// q.bad (the first one found) for check to report after MISSING_PROJECT,
// which CONTRACT.md puts first.
func parseQuery(raw string) query {
	var q query
	var seen [4]bool
	bad := func(e *apiError, param string) {
		if q.bad == nil {
			q.bad, q.badParam = e, param
		}
	}
	for raw != "" {
		var pair string
		pair, raw, _ = strings.Cut(raw, "&")
		if pair == "" {
			continue
		}
		k, v, _ := strings.Cut(pair, "=")
		if strings.IndexByte(k, '%') >= 0 || strings.IndexByte(k, '+') >= 0 {
			uk, err := url.QueryUnescape(k)
			if err != nil {
				bad(errBadQuery("Malformed query string: bad escape in a parameter name"), "")
				continue
			}
			k = uk
		}
		var i int
		var dst *string
		switch k {
		case "project":
			i, dst = 0, &q.project
		case "path":
			i, dst = 1, &q.path
		case "format":
			i, dst = 2, &q.format
		case "version":
			i, dst = 3, &q.version
			q.hasVersion = true
		default:
			continue
		}
		if seen[i] {
			bad(errBadQuery("Repeated "+k+" parameter"), k)
			continue
		}
		seen[i] = true
		if strings.IndexByte(v, '%') >= 0 || strings.IndexByte(v, '+') >= 0 {
			uv, err := url.QueryUnescape(v)
			if err != nil {
				bad(errBadQuery("Malformed query string: bad escape in the "+k+" parameter"), k)
				continue
			}
			v = uv
		}
		*dst = v
	}
	return q
}
