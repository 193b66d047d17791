package http

import (
	"redirects"
	"redirects/http/evhttp"
)

// serveEv carries Handle over the evhttp engine. The common answers (every
// lookup, cached exports, errors) are built and written without a heap
// allocation; answers that need the store finish on evhttp's slow path.
func (e *Edge) serveEv(req *evhttp.Request, resp *evhttp.Response) func(*evhttp.Response) {
	q := Req{Method: req.Method, Path: req.Path, RawQuery: req.RawQuery,
		APIKey: req.Header("X-API-Key"), IfNoneMatch: req.Header("If-None-Match"), RemoteAddr: req.RemoteAddr, Shard: req.Loop + 1,
		start: req.Woke}
	// Only exports are encoded, so a lookup does not scan its headers for
	// Accept-Encoding.
	if req.Path == exportPath {
		q.AcceptEncoding = req.Header("Accept-Encoding")
		if q.AppliedVersion = req.Header(redirects.AppliedVersionHeader); q.AppliedVersion != "" {
			q.Agent, q.UserAgent = req.Header(redirects.AgentHeader), req.Header("User-Agent")
		}
	}
	memo, _ := req.Local.(*keyMemo)
	if memo == nil {
		memo = new(keyMemo)
		req.Local = memo
	}
	q.memo = memo
	w := Resp{Scratch: resp.Scratch[:0]}
	slow := e.Handle(&q, &w)
	if slow == nil {
		copyResp(resp, &w)
		resp.Scratch = w.Scratch
		return nil
	}
	held := new(Resp)
	*held = w
	// The slow function runs on a goroutine of its own: it renders into
	// a buffer of its own, not the connection's.
	held.Scratch = nil
	return func(resp *evhttp.Response) {
		slow(held)
		copyResp(resp, held)
	}
}

func copyResp(dst *evhttp.Response, src *Resp) {
	dst.Status = src.Status
	dst.Body = src.Body
	dst.Done = src.Done
	dst.Stream, dst.StreamLen = src.Stream, src.StreamLen
	for _, kv := range src.Headers[:src.N] {
		dst.Set(kv[0], kv[1])
	}
}
