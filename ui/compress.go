package ui

import (
	"compress/gzip"
	"net/http"
	"strconv"
	"strings"
	"sync"
)

// acceptsGzip reports whether an Accept-Encoding header takes gzip: named
// (or "*") with a q-value above zero (RFC 9110 12.5.3).
func acceptsGzip(header string) bool {
	star := false
	for part := range strings.SplitSeq(header, ",") {
		name, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		name = strings.ToLower(strings.TrimSpace(name))
		q := 1.0
		for p := range strings.SplitSeq(params, ";") {
			if v, ok := strings.CutPrefix(strings.TrimSpace(p), "q="); ok {
				if f, err := strconv.ParseFloat(v, 64); err == nil {
					q = f
				}
			}
		}
		switch name {
		case "gzip", "x-gzip":
			return q > 0
		case "*":
			star = q > 0
		}
	}
	return star
}

// minGzip is the smallest body worth compressing: below it, gzip's own
// framing outweighs what it saves.
const minGzip = 512

var gzipWriters = sync.Pool{New: func() any {
	w, _ := gzip.NewWriterLevel(nil, gzip.BestSpeed)
	return w
}}

// compress gzips the dashboard's answers (pages, static files, CSV
// downloads) for clients that accept it. An answer that sets its own
// Content-Encoding, carries no body (HEAD, 204, 304) or is small goes out
// as it is.
func compress(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Add("Vary", "Accept-Encoding")
		if r.Method == http.MethodHead || !acceptsGzip(r.Header.Get("Accept-Encoding")) {
			next.ServeHTTP(w, r)
			return
		}
		gw := &gzipWriter{ResponseWriter: w}
		defer gw.close()
		next.ServeHTTP(gw, r)
	})
}

// gzipWriter holds back the start of an answer until it knows whether to
// compress it: the first minGzip bytes, or the end of the answer.
type gzipWriter struct {
	http.ResponseWriter
	status  int
	buf     []byte
	decided bool
	gz      *gzip.Writer
}

func (g *gzipWriter) WriteHeader(status int) {
	if g.status == 0 {
		g.status = status
	}
	if status < 200 || status == http.StatusNoContent || status == http.StatusNotModified {
		g.decide(false)
	}
}

func (g *gzipWriter) Write(b []byte) (int, error) {
	if g.status == 0 {
		g.status = http.StatusOK
	}
	if g.decided {
		if g.gz != nil {
			return g.gz.Write(b)
		}
		return g.ResponseWriter.Write(b)
	}
	g.buf = append(g.buf, b...)
	if len(g.buf) >= minGzip {
		g.decide(true)
	}
	return len(b), nil
}

// decide sends the header, compressed when want and nothing forbids it,
// and the bytes held back.
func (g *gzipWriter) decide(want bool) {
	if g.decided {
		return
	}
	g.decided = true
	h := g.ResponseWriter.Header()
	if want && h.Get("Content-Encoding") == "" {
		h.Set("Content-Encoding", "gzip")
		h.Del("Content-Length")
		g.gz = gzipWriters.Get().(*gzip.Writer)
		g.gz.Reset(g.ResponseWriter)
	}
	if g.status != 0 {
		g.ResponseWriter.WriteHeader(g.status)
	}
	if len(g.buf) > 0 {
		if g.gz != nil {
			g.gz.Write(g.buf)
		} else {
			g.ResponseWriter.Write(g.buf)
		}
		g.buf = nil
	}
}

// close ends the answer: what is still held back is small, and goes out
// as it is.
func (g *gzipWriter) close() {
	g.decide(false)
	if g.gz != nil {
		g.gz.Close()
		gzipWriters.Put(g.gz)
		g.gz = nil
	}
}
