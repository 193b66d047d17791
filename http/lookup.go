package http

import (
	"context"
	"net/http"
	"runtime"
	"strings"
	"time"

	"redirects"
	"redirects/edge"
)

// serveLookup answers /v1/lookup: the check pipeline (check.go), then the
// deployment asked for, then the match. The latest deployment and the
// catalog's cache of older ones answer at once; a version not compiled yet
// is read from the store on the slow path.
func (e *Edge) serveLookup(r *Req, w *Resp) (slow func(*Resp)) {
	var p passed
	if !e.check(r, w, true, &p) {
		return nil
	}
	catalog, ps, version, path, host := p.lv.catalog, p.ps, p.q.versionN, p.q.path, p.q.host
	var misses *edge.MissSketch
	if p.live {
		misses = ps.Misses
	}
	now := p.now
	d := ps.Latest
	switch {
	case d == nil && version == 0:
		e.writeError(w, errNoDeployments)
		return nil
	case version > 0 && (d == nil || version != d.Version):
		// An older version, or a staged one (a project may have only
		// staged versions: docs/contract.md#staged-deploys).
		if old := catalog.CachedVersion(ps.ID, version); old != nil {
			d = old
			break
		}
		project, path, host := ps.ID, strings.Clone(path), strings.Clone(host)
		return func(w *Resp) {
			d, err := catalog.Version(context.Background(), project, version)
			if err != nil {
				if redirects.ErrorCode(err) == redirects.ENOTFOUND {
					e.writeError(w, errVersionNotFound(false, version))
					return
				}
				e.Logger.Error("loading a deployment", "project", project, "version", version, "err", err)
				e.writeError(w, storeError(err))
				return
			}
			e.writeLookup(w, d, host, path, misses, now)
		}
	}
	e.writeLookup(w, d, host, path, misses, now)
	return nil
}

// writeLookup answers the match of path on host ("" for none) in d: 200
// with the rule, or 204.
// A live lookup (misses not nil) counts a hit of the rule or a miss of the
// path (docs/contract.md, "Hits and misses"), unless d is a staged version,
// whose test traffic counts nothing (docs/contract.md#staged-deploys).
func (e *Edge) writeLookup(w *Resp, d *edge.Deployment, host, path string, misses *edge.MissSketch, now time.Time) {
	if d.Staged {
		misses = nil
	}
	w.Set("Cache-Control", ccLookup)
	w.Set("Vary", varyKey)
	m, ok := d.Snap.LookupHost(host, path)
	if !ok {
		w.Status = http.StatusNoContent
		if misses != nil {
			misses.CountHost(host, path, d.Snap.Settings(), now)
		}
		return
	}
	if misses != nil {
		d.Snap.CountHit(m)
		// The flusher harvests a snapshot's counters one last time once it
		// is unreachable: keep it reachable until the count is in.
		runtime.KeepAlive(d.Snap)
	}
	w.Status = http.StatusOK
	w.Set("Content-Type", ctJSON)
	if m.Computed(path) {
		// docs/contract.md#rule-options: the answer keeps a rest of the
		// path or the query, or inserts captures
		// (docs/contract.md#captures-in-destinations), rendered into the
		// connection's scratch buffer (nil on the slow path and on
		// net/http, where it allocates).
		// The body goes after what the scratch buffer holds already (the
		// limit headers' values, setLimitHeaders).
		start := len(w.Scratch)
		w.Scratch = m.AppendJSON(w.Scratch, path)
		w.Body = w.Scratch[start:]
		// Rendered: the match's scratch space can serve another lookup.
		m.Release()
		return
	}
	w.Body = m.JSON()
}
