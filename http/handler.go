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

	"redirects"
)

// Header values shared by every response; net/http only reads them.
var (
	hvJSON        = []string{"application/json"}
	hvCSV         = []string{"text/csv; charset=utf-8"}
	hvText        = []string{"text/plain; charset=utf-8"}
	hvNoStore     = []string{"no-store"}
	hvLookupCache = []string{"public, max-age=300"}
	hvExportCache = []string{"public, max-age=60"}
	hvVary        = []string{"X-API-Key"}
	hvAllow       = []string{"GET"}
	hvUnlimited   = []string{"unlimited"}
)

// Edge is the http.Handler of the edge API: /v1/lookup, /v1/export and
// /healthz.
type Edge struct {
	State   *State
	Limiter redirects.Limiter
	Clock   redirects.Clock
	Logger  *slog.Logger
	Metrics *Metrics
	// Exports caches export files read from the store.
	Exports *ExportCache

	ready atomic.Bool
	times headerTimes
}

// SetReady says whether /healthz answers 200.
func (e *Edge) SetReady(ready bool) { e.ready.Store(ready) }

// ServeHTTP routes a request.
func (e *Edge) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	var status int
	var ep endpoint
	switch r.URL.Path {
	case "/v1/lookup":
		ep = epLookup
		status = e.serveAPI(w, r, true)
	case "/v1/export":
		ep = epExport
		status = e.serveAPI(w, r, false)
	case "/healthz":
		ep = epOther
		status = http.StatusOK
		if !e.ready.Load() {
			status = http.StatusServiceUnavailable
		}
		w.Header()["Cache-Control"] = hvNoStore
		w.WriteHeader(status)
	default:
		ep = epOther
		status = e.writeError(w, errRoute)
	}
	e.Metrics.observe(ep, status, time.Since(start))
	if e.Logger.Enabled(r.Context(), slog.LevelDebug) {
		e.Logger.Debug("request", "method", r.Method, "path", r.URL.Path, "status", status,
			"key", redactKey(r.Header.Get("X-API-Key")), "duration", time.Since(start), "remote", r.RemoteAddr)
	}
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
// CONTRACT.md, and returns the status sent.
func (e *Edge) serveAPI(w http.ResponseWriter, r *http.Request, lookup bool) int {
	h := w.Header()
	// 1. Method.
	if r.Method != http.MethodGet {
		h["Allow"] = hvAllow
		return e.writeError(w, errMethod)
	}
	// 2-3. Key.
	keys := r.Header["X-Api-Key"]
	if len(keys) == 0 || keys[0] == "" {
		return e.writeError(w, errMissingKey)
	}
	cat := e.State.catalog()
	key := keys[0]
	if !redirects.WellFormedKey(key) {
		return e.writeError(w, errInvalidKey)
	}
	k := cat.keys[sha256.Sum256([]byte(key))]
	if k == nil || k.RevokedAt != nil {
		return e.writeError(w, errInvalidKey)
	}
	ps := cat.projects[k.ProjectID]
	if ps == nil {
		return e.writeError(w, errInvalidKey)
	}
	org := cat.orgs[ps.project.OrgID]
	if org == nil {
		return e.writeError(w, errInvalidKey)
	}
	// 4-5. Limits.
	now := e.Clock.Now()
	d := e.Limiter.Take(r.Context(), redirects.Usage{Org: org, Test: k.Test, Lookup: lookup, Now: now})
	e.Metrics.limiter(d.Refused)
	e.setLimitHeaders(h, &d, lookup)
	switch d.Refused {
	case redirects.QuotaExceeded:
		h["Retry-After"] = []string{strconv.FormatInt(d.RetryAfter, 10)}
		return e.writeError(w, errQuota)
	case redirects.RateLimitExceeded:
		h["Retry-After"] = []string{strconv.FormatInt(d.RetryAfter, 10)}
		return e.writeError(w, errRate)
	}
	// 6. Parameters.
	q, perr := parseQuery(r.URL.RawQuery)
	if perr != nil {
		return e.writeError(w, perr)
	}
	if q.project == "" {
		return e.writeError(w, errMissingProject)
	}
	if lookup {
		if q.path == "" {
			return e.writeError(w, errMissingPath)
		}
		if q.path[0] != '/' || len(q.path) > redirects.MaxSourceLen {
			return e.writeError(w, errInvalidPath)
		}
	} else {
		if q.format == "" {
			return e.writeError(w, errMissingFormat)
		}
		if redirects.FormatExtension(q.format) == "" {
			return e.writeError(w, errInvalidFormat)
		}
	}
	version := 0
	if q.hasVersion {
		v, err := strconv.Atoi(q.version)
		if err != nil || v <= 0 {
			return e.writeError(w, errInvalidVersion)
		}
		version = v
	}
	// 7. Project: unknown and foreign look the same.
	if q.project != k.ProjectID {
		return e.writeError(w, errProject)
	}
	// 8-9.
	if lookup {
		return e.serveLookup(w, r.Context(), ps, version, q.path)
	}
	return e.serveExport(w, r, ps, version, q.format)
}

func (e *Edge) serveLookup(w http.ResponseWriter, ctx context.Context, ps *projectState, version int, path string) int {
	d := ps.latest
	if d == nil {
		if version > 0 {
			return e.writeError(w, errVersionNotFound(false, version))
		}
		return e.writeError(w, errNoDeployments)
	}
	if version > 0 && version != d.version {
		var err error
		d, err = e.State.Version(ctx, ps.project.ID, version)
		if err != nil {
			if redirects.ErrorCode(err) == redirects.ENOTFOUND {
				return e.writeError(w, errVersionNotFound(false, version))
			}
			e.Logger.Error("loading a deployment", "project", ps.project.ID, "version", version, "err", err)
			return e.writeError(w, storeError(err))
		}
	}
	h := w.Header()
	h["Cache-Control"] = hvLookupCache
	h["Vary"] = hvVary
	m, ok := d.snap.Lookup(path)
	if !ok {
		w.WriteHeader(http.StatusNoContent)
		return http.StatusNoContent
	}
	body := m.JSON()
	h["Content-Type"] = hvJSON
	h["Content-Length"] = []string{itoa(len(body))}
	w.WriteHeader(http.StatusOK)
	w.Write(body)
	return http.StatusOK
}

func (e *Edge) serveExport(w http.ResponseWriter, r *http.Request, ps *projectState, version int, format string) int {
	if ps.latest == nil {
		if version > 0 {
			return e.writeError(w, errVersionNotFound(true, version))
		}
		return e.writeError(w, errNoExports)
	}
	if version == 0 {
		version = ps.latest.version
	}
	ex, err := e.Exports.Get(r.Context(), ps.project.ID, version, format)
	if err != nil {
		if redirects.ErrorCode(err) == redirects.ENOTFOUND {
			return e.writeError(w, errVersionNotFound(true, version))
		}
		e.Logger.Error("loading an export", "project", ps.project.ID, "version", version, "format", format, "err", err)
		return e.writeError(w, storeError(err))
	}
	h := w.Header()
	h["Cache-Control"] = hvExportCache
	h["Vary"] = hvVary
	h["Etag"] = []string{ex.ETag}
	if inm := r.Header.Get("If-None-Match"); inm != "" && etagMatches(inm, ex.ETag) {
		w.WriteHeader(http.StatusNotModified)
		return http.StatusNotModified
	}
	if format == "csv" {
		h["Content-Type"] = hvCSV
	} else {
		h["Content-Type"] = hvText
	}
	h["Content-Disposition"] = []string{`attachment; filename="redirects.` + redirects.FormatExtension(format) + `"`}
	h["Content-Length"] = []string{itoa(len(ex.Body))}
	w.WriteHeader(http.StatusOK)
	w.Write(ex.Body)
	return http.StatusOK
}

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

// writeError sends an error answer and returns its status.
func (e *Edge) writeError(w http.ResponseWriter, ae *apiError) int {
	h := w.Header()
	h["Content-Type"] = hvJSON
	h["Cache-Control"] = hvNoStore
	h["Content-Length"] = []string{itoa(len(ae.body))}
	w.WriteHeader(ae.status)
	w.Write(ae.body)
	return ae.status
}

// setLimitHeaders writes the rate headers, and for lookups the quota headers.
func (e *Edge) setLimitHeaders(h http.Header, d *redirects.Decision, lookup bool) {
	h["X-Ratelimit-Limit"] = limitValue(d.RateLimit)
	h["X-Ratelimit-Remaining"] = limitValue(d.RateRemaining)
	h["X-Ratelimit-Reset"] = e.times.minute.get(d.RateReset)
	if lookup {
		h["X-Quota-Limit"] = limitValue(d.QuotaLimit)
		h["X-Quota-Remaining"] = limitValue(d.QuotaRemaining)
		h["X-Quota-Reset"] = e.times.month.get(d.QuotaReset)
	}
}

func limitValue(l redirects.Limit) []string {
	if l.IsUnlimited() {
		return hvUnlimited
	}
	return []string{itoa(int(l))}
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
	v    []string
}

func (c *timeCache) get(at time.Time) []string {
	u := at.Unix()
	if v := c.p.Load(); v != nil && v.unix == u {
		return v.v
	}
	v := &timeValue{unix: u, v: []string{strconv.FormatInt(u, 10)}}
	c.p.Store(v)
	return v.v
}

// query holds the parameters of an edge request.
type query struct {
	project, path, format, version string
	hasVersion                     bool
}

// parseQuery reads the parameters the edge knows, once each; others are
// ignored. It refuses malformed escapes and repeated known parameters.
func parseQuery(raw string) (query, *apiError) {
	var q query
	var seen [4]bool
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
				return q, errBadQuery("Malformed query string: bad escape in a parameter name")
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
			return q, errBadQuery("Repeated " + k + " parameter")
		}
		seen[i] = true
		if strings.IndexByte(v, '%') >= 0 || strings.IndexByte(v, '+') >= 0 {
			uv, err := url.QueryUnescape(v)
			if err != nil {
				return q, errBadQuery("Malformed query string: bad escape in the " + k + " parameter")
			}
			v = uv
		}
		*dst = v
	}
	return q, nil
}
