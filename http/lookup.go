package http

import (
	"context"
	"net/http"
	"strings"

	"redirects"
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
	catalog, ps, version, path := p.lv.catalog, p.ps, p.q.versionN, p.q.path
	d := ps.latest
	switch {
	case d == nil && version > 0:
		e.writeError(w, errVersionNotFound(false, version))
		return nil
	case d == nil:
		e.writeError(w, errNoDeployments)
		return nil
	case version > 0 && version != d.version:
		if old := catalog.cachedVersion(ps.project.ID, version); old != nil {
			d = old
			break
		}
		project, path := ps.project.ID, strings.Clone(path)
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
			e.writeLookup(w, d, path)
		}
	}
	e.writeLookup(w, d, path)
	return nil
}

// writeLookup answers the match of path in d: 200 with the rule, or 204.
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
