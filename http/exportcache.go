package http

import (
	"context"
	"sync"

	"redirects"
)

// ExportCache keeps recently served export files in memory, each with its
// encodings, up to a total size (see redirects.Export.Size), so repeated
// downloads do not read the store nor decompress. Deployments are
// immutable, so entries never go stale.
type ExportCache struct {
	store    redirects.ExportSource
	maxBytes int
	// Builder, if set, renders again the files of a version the store
	// pruned, as redirects.FindExport does; set it before the first Get.
	Builder redirects.Builder

	mu    sync.Mutex
	bytes int
	lru   *lru[exportKey, *redirects.Export]
}

type exportKey struct {
	project string
	version int
	format  string
}

// NewExportCache returns a cache that holds at most maxBytes of files.
func NewExportCache(store redirects.ExportSource, maxBytes int) *ExportCache {
	return &ExportCache{store: store, maxBytes: maxBytes, lru: newLRU[exportKey, *redirects.Export](1 << 20)}
}

// Cached returns an export file if it is in memory, or nil.
func (c *ExportCache) Cached(project string, version int, format string) *redirects.Export {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, _ := c.lru.get(exportKey{project, version, format})
	return e
}

// Get returns one export file, rendered again if the store pruned it.
// Errors: ENOTFOUND.
func (c *ExportCache) Get(ctx context.Context, project string, version int, format string) (*redirects.Export, error) {
	k := exportKey{project, version, format}
	c.mu.Lock()
	e, ok := c.lru.get(k)
	c.mu.Unlock()
	if ok {
		return e, nil
	}
	_, e, err := redirects.FindExport(ctx, c.store, c.Builder, project, version, format)
	if err != nil {
		return nil, err
	}
	if e.Size() > c.maxBytes {
		return e, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.lru.contains(k) {
		return e, nil
	}
	for c.bytes+e.Size() > c.maxBytes {
		_, old, ok := c.lru.removeOldest()
		if !ok {
			break
		}
		c.bytes -= old.Size()
	}
	if _, old, ok := c.lru.add(k, e); ok {
		c.bytes -= old.Size()
	}
	c.bytes += e.Size()
	return e, nil
}
