package http

import (
	"context"
	"net/http"
	"runtime"
	"strings"
	"time"

	"redirects"
	"redirects/edge"
	"redirects/internal/coding"
)

// serveExport answers /v1/export: the check pipeline (check.go), then the
// deployment asked for, then its file in the format asked for.
func (e *Edge) serveExport(r *Req, w *Resp) (slow func(*Resp)) {
	var p passed
	if !e.check(r, w, false, &p) {
		return nil
	}
	// Test keys report nothing: the servers listed are the ones that
	// serve live traffic, and a test key is handed out more freely.
	if r.AppliedVersion != "" && p.live {
		p.lv.catalog.SeeAgent(p.ps.ID, p.q.format, r.AppliedVersion, r.Agent, r.UserAgent, r.RemoteAddr, p.now)
	}
	if p.q.waitN > 0 && r.IfNoneMatch != "" && p.ps.Latest != nil {
		return e.waitExport(r, w, p.lv, p.ps, p.q.format, time.Duration(p.q.waitN)*time.Second, p.key)
	}
	return e.export(w, p.lv.exports, r.IfNoneMatch, r.AcceptEncoding, p.ps, p.q.versionN, p.q.format, p.q.hasWait, p.key)
}

// versionHeader carries, on the answers of the change feed, the deployment
// version of the file.
const versionHeader = "Redirects-Version"

// MaxWait is the longest an export long-poll waits (the wait parameter, in
// seconds).
const MaxWait = 60

// maxWaiting bounds the long-polls one edge node holds at once; past it a
// long-poll is answered at once, as without wait. Each held one costs a
// goroutine (a few KiB).
const maxWaiting = 10000

// waitExport answers an export long-poll (docs/contract.md#the-change-feed):
// while the latest deployment's file still has the ETag the client sent in
// If-None-Match, the answer waits, up to wait, for a deployment that changes
// it; then 200 with the new file, or 304 when the time is up or the edge
// stops. The checks and the counting were done once, when the request came.
func (e *Edge) waitExport(r *Req, w *Resp, lv *live, ps *edge.Project, format string, wait time.Duration, key string) (slow func(*Resp)) {
	if ex := lv.exports.Cached(ps.ID, ps.Latest.Version, format); ex != nil &&
		!etagMatches(r.IfNoneMatch, exportETag(r.AcceptEncoding, ex)) {
		w.Set(versionHeader, itoa(ps.Latest.Version))
		e.writeExport(w, r.IfNoneMatch, r.AcceptEncoding, ex, format, key)
		return nil
	}
	if e.waiting.Add(1) > maxWaiting {
		e.waiting.Add(-1)
		return e.export(w, lv.exports, r.IfNoneMatch, r.AcceptEncoding, ps, 0, format, true, key)
	}
	e.Metrics.waiting.Inc()
	ctx := r.Ctx
	if ctx == nil {
		ctx = context.Background()
	}
	quit := e.quitting()
	project, format, ifNoneMatch, acceptEncoding, key := ps.ID, strings.Clone(format), strings.Clone(r.IfNoneMatch), strings.Clone(r.AcceptEncoding), strings.Clone(key)
	return func(w *Resp) {
		defer func() {
			e.waiting.Add(-1)
			e.Metrics.waiting.Dec()
		}()
		timer := time.NewTimer(wait)
		defer timer.Stop()
		for {
			v := lv.catalog.View()
			ps := v.Project(project)
			if ps == nil || ps.Latest == nil {
				// The project was deleted meanwhile.
				e.writeError(w, errProject)
				return
			}
			ex, err := lv.exports.Get(ctx, project, ps.Latest.Version, format)
			if err != nil && ctx.Err() != nil {
				// The client went away while the file was read.
				e.writeError(w, errUnavailable)
				return
			}
			if err != nil {
				e.Logger.Error("loading an export", "project", project, "version", ps.Latest.Version, "format", format, "err", err)
				e.writeError(w, storeError(err))
				return
			}
			if !etagMatches(ifNoneMatch, exportETag(acceptEncoding, ex)) {
				w.Set(versionHeader, itoa(ps.Latest.Version))
				e.writeExport(w, ifNoneMatch, acceptEncoding, ex, format, key)
				return
			}
			select {
			case <-v.Replaced():
				continue
			case <-timer.C:
			case <-quit:
			case <-ctx.Done():
			}
			w.Set(versionHeader, itoa(ps.Latest.Version))
			e.writeExport(w, ifNoneMatch, acceptEncoding, ex, format, key)
			return
		}
	}
}

// exportETag is the ETag of the encoding of ex that acceptEncoding picks.
func exportETag(acceptEncoding string, ex *redirects.Export) string {
	if enc := negotiateEncoding(acceptEncoding, ex); enc != nil {
		return enc.ETag
	}
	return ex.ETag
}

// export answers from the export cache; a file not cached is read from the
// store on the slow path.
//
// feed (the request has a wait parameter) adds the Redirects-Version
// header, the deployment version of the file (docs/contract.md#the-change-feed).
func (e *Edge) export(w *Resp, exports *edge.ExportCache, ifNoneMatch, acceptEncoding string, ps *edge.Project, version int, format string, feed bool, key string) (slow func(*Resp)) {
	if ps.Latest == nil && version == 0 {
		e.writeError(w, errNoExports)
		return nil
	}
	// A project with no live version may have staged ones
	// (docs/contract.md#staged-deploys): a version asked for is read.
	if version == 0 {
		version = ps.Latest.Version
	}
	if feed {
		w.Set(versionHeader, itoa(version))
	}
	if ex := exports.Cached(ps.ID, version, format); ex != nil {
		e.writeExport(w, ifNoneMatch, acceptEncoding, ex, format, key)
		return nil
	}
	project, format, ifNoneMatch, acceptEncoding, key := ps.ID, strings.Clone(format), strings.Clone(ifNoneMatch), strings.Clone(acceptEncoding), strings.Clone(key)
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
		e.writeExport(w, ifNoneMatch, acceptEncoding, ex, format, key)
	}
}

// writeExport answers an export file in the content coding Accept-Encoding
// asks for (see negotiateEncoding), or 304 when the client holds that
// encoding. Each encoding has an ETag of its own, so a tag matches only
// the encoding it was given with.
//
// A large body takes a download slot of the node and of key for as long as
// it is written (Resp.Done frees it); past a cap the answer is 503 with
// Retry-After instead.
func (e *Edge) writeExport(w *Resp, ifNoneMatch, acceptEncoding string, ex *redirects.Export, format, key string) {
	etag, body := ex.ETag, ex.Body
	enc := negotiateEncoding(acceptEncoding, ex)
	if enc != nil {
		etag, body = enc.ETag, enc.Body
	}
	// A compact file's identity is decompressed as it is written.
	stream := enc == nil && ex.Compact()
	size := int64(len(body))
	if stream {
		size = ex.IdentityLen
	}
	notModified := ifNoneMatch != "" && etagMatches(ifNoneMatch, etag)
	if !notModified && size >= downloadMin {
		release := e.downloads.take(key, cmpOr(e.MaxDownloads, MaxDownloads), cmpOr(e.MaxKeyDownloads, MaxKeyDownloads))
		if release == nil {
			w.Set("Retry-After", itoa(downloadRetryAfter))
			e.writeError(w, errDownloads)
			return
		}
		// The download holds the file itself, not only its bytes, so that
		// the export cache's weak pointer to it stays valid meanwhile and
		// a request for it shares this copy (edge.ExportCache).
		w.Done = func() {
			release()
			runtime.KeepAlive(ex)
		}
	}
	if stream && !notModified {
		r, err := coding.IdentityReader(ex)
		if err != nil {
			if w.Done != nil {
				w.Done()
				w.Done = nil
			}
			e.Logger.Error("reading an export", "format", format, "err", err)
			e.writeError(w, errUnavailable)
			return
		}
		w.Stream, w.StreamLen = r, ex.IdentityLen
	}
	w.Set("Cache-Control", ccExport)
	w.Set("Vary", varyExport)
	w.Set("ETag", etag)
	if notModified {
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
	if !stream {
		w.Body = body
	}
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

// cmpOr returns n, or def when n is not positive.
func cmpOr(n, def int) int {
	if n > 0 {
		return n
	}
	return def
}
