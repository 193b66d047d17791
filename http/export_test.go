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

func TestExportCache(t *testing.T) {
	f := newFixture(t, nil)
	id := f.project.ID
	_, v1, err := f.db.FindExport(f.ctx, id, 1, "csv")
	f.ok(err)
	_, v2, err := f.db.FindExport(f.ctx, id, 2, "csv")
	f.ok(err)
	// Room for the larger file but not for both.
	c := NewExportCache(f.db, max(v1.Size(), v2.Size())+1)
	if c.Cached(id, 1, "csv") != nil {
		t.Fatal("cached before the first read")
	}
	got, err := c.Get(f.ctx, id, 1, "csv")
	if err != nil || got.ETag != v1.ETag {
		t.Fatalf("Get(1) = %v, %v", got, err)
	}
	if c.Cached(id, 1, "csv") == nil || c.bytes != v1.Size() {
		t.Fatalf("after Get(1): cached %v, %d bytes counted, want %d", c.Cached(id, 1, "csv") != nil, c.bytes, v1.Size())
	}
	if _, err := c.Get(f.ctx, id, 2, "csv"); err != nil {
		t.Fatal(err)
	}
	if c.Cached(id, 1, "csv") != nil || c.Cached(id, 2, "csv") == nil || c.bytes != v2.Size() {
		t.Fatalf("after Get(2): version 1 cached %v, version 2 cached %v, %d bytes counted; want only version 2, %d bytes",
			c.Cached(id, 1, "csv") != nil, c.Cached(id, 2, "csv") != nil, c.bytes, v2.Size())
	}
	// A file larger than the whole cache is served but not kept.
	small := NewExportCache(f.db, 1)
	if got, err := small.Get(f.ctx, id, 2, "csv"); err != nil || got.ETag != v2.ETag {
		t.Fatalf("Get through a tiny cache: %v, %v", got, err)
	}
	if small.Cached(id, 2, "csv") != nil || small.bytes != 0 {
		t.Fatal("a tiny cache kept a file larger than itself")
	}
	if _, err := c.Get(f.ctx, id, 99, "csv"); redirects.ErrorCode(err) != redirects.ENOTFOUND {
		t.Fatalf("Get(99): %v, want ENOTFOUND", err)
	}
}
