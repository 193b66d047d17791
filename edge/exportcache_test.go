package edge

import (
	"testing"

	"redirects"
)

func TestExportCache(t *testing.T) {
	f := newFixture(t)
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
