package http

import (
	"bytes"
	"testing"

	"redirects"
)

func TestServeExport(t *testing.T) {
	f := newFixture(t, nil)
	for _, format := range redirects.Formats {
		t.Run(format, func(t *testing.T) {
			_, stored, err := f.db.FindExport(f.ctx, f.project.ID, 2, format)
			f.ok(err)
			q := &Req{Method: "GET", Path: "/v1/export", RawQuery: "project=" + f.project.ID + "&format=" + format, APIKey: f.secret}
			// The first request reads the store on the slow path, the
			// next ones answer from the export cache.
			w := new(Resp)
			slow := f.edge.Handle(q, w)
			if slow == nil {
				t.Fatal("an export not cached was answered without the store")
			}
			slow(w)
			if w.Status != 200 || !bytes.Equal(w.Body, stored.Body) {
				t.Fatalf("got %d with %d bytes, want 200 with the stored file (%d bytes)", w.Status, len(w.Body), len(stored.Body))
			}
			wantCT := ctText
			if format == "csv" {
				wantCT = ctCSV
			}
			for name, want := range map[string]string{
				"ETag": stored.ETag, "Cache-Control": ccExport, "Vary": varyExport, "Content-Type": wantCT,
				"Content-Disposition": contentDisposition[format], "X-RateLimit-Limit": "unlimited",
			} {
				if got := header(w, name); got != want {
					t.Errorf("%s = %q, want %q", name, got, want)
				}
			}
			w = new(Resp)
			if slow := f.edge.Handle(q, w); slow != nil {
				t.Fatal("a cached export took the slow path")
			}
			if w.Status != 200 || header(w, "ETag") != stored.ETag {
				t.Fatalf("cached: %d, ETag %q", w.Status, header(w, "ETag"))
			}

			// If-None-Match: 304 without a body, with the ETag.
			for _, inm := range []string{stored.ETag, "W/" + stored.ETag, `"other", ` + stored.ETag, "*"} {
				q2 := *q
				q2.IfNoneMatch = inm
				w := f.handleReq(&q2)
				if w.Status != 304 || len(w.Body) != 0 || header(w, "ETag") != stored.ETag || header(w, "Content-Type") != "" {
					t.Errorf("If-None-Match %s: %d, %d bytes, ETag %q, Content-Type %q; want 304, no body, the ETag, no type",
						inm, w.Status, len(w.Body), header(w, "ETag"), header(w, "Content-Type"))
				}
			}
			q2 := *q
			q2.IfNoneMatch = `"stale"`
			if w := f.handleReq(&q2); w.Status != 200 {
				t.Errorf("a stale If-None-Match answered %d, want 200", w.Status)
			}
		})
	}
	t.Run("old version", func(t *testing.T) {
		_, v1, err := f.db.FindExport(f.ctx, f.project.ID, 1, "csv")
		f.ok(err)
		w := f.handle("GET", "/v1/export", "project="+f.project.ID+"&format=csv&version=1", f.secret)
		if w.Status != 200 || header(w, "ETag") != v1.ETag || !bytes.Equal(w.Body, v1.Body) {
			t.Fatalf("version 1: %d, ETag %q", w.Status, header(w, "ETag"))
		}
	})
}
