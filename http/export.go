package http

import (
	"context"
	"net/http"
	"strings"

	"redirects"
)

// serveExport answers /v1/export: the check pipeline (check.go), then the
// deployment asked for, then its file in the format asked for.
func (e *Edge) serveExport(r *Req, w *Resp) (slow func(*Resp)) {
	var p passed
	if !e.check(r, w, false, &p) {
		return nil
	}
	return e.export(w, p.lv.exports, r.IfNoneMatch, r.AcceptEncoding, p.ps, p.q.versionN, p.q.format)
}

// export answers from the export cache; a file not cached is read from the
// store on the slow path.
func (e *Edge) export(w *Resp, exports *ExportCache, ifNoneMatch, acceptEncoding string, ps *projectState, version int, format string) (slow func(*Resp)) {
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
		e.writeExport(w, ifNoneMatch, acceptEncoding, ex, format)
		return nil
	}
	project, format, ifNoneMatch, acceptEncoding := ps.project.ID, strings.Clone(format), strings.Clone(ifNoneMatch), strings.Clone(acceptEncoding)
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
		e.writeExport(w, ifNoneMatch, acceptEncoding, ex, format)
	}
}

// writeExport answers an export file in the content coding Accept-Encoding
// asks for (see negotiateEncoding), or 304 when the client holds that
// encoding. Each encoding has an ETag of its own, so a tag matches only
// the encoding it was given with.
func (e *Edge) writeExport(w *Resp, ifNoneMatch, acceptEncoding string, ex *redirects.Export, format string) {
	etag, body := ex.ETag, ex.Body
	enc := negotiateEncoding(acceptEncoding, ex)
	if enc != nil {
		etag, body = enc.ETag, enc.Body
	}
	w.Set("Cache-Control", ccExport)
	w.Set("Vary", varyExport)
	w.Set("ETag", etag)
	if ifNoneMatch != "" && etagMatches(ifNoneMatch, etag) {
		w.Status = http.StatusNotModified
		return
	}
	if format == "csv" {
		w.Set("Content-Type", ctCSV)
	} else {
		w.Set("Content-Type", ctText)
	}
	w.Set("Content-Disposition", contentDisposition[format])
	if enc != nil {
		w.Set("Content-Encoding", enc.Coding)
	}
	w.Status = http.StatusOK
	w.Body = body
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
