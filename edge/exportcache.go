package edge

import (
	"context"
	"sync"
	"weak"

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
	// loading holds the loads under way: concurrent requests for one
	// file share one load and one copy of it, however large.
	loading map[exportKey]*exportLoad
	// inUse holds weak pointers to the files loaded that the cache does
	// not hold (too large for it, or let go to make room): while a
	// connection still writes one, the next request for it takes the same
	// copy instead of loading another.
	inUse map[exportKey]weak.Pointer[redirects.Export]
	// forgets counts Forget's calls: a load that began before one keeps
	// what it read out of the cache (it may be a discarded version's).
	forgets uint64
}

// exportLoad is one load of a file from the store, shared by the requests
// that asked for it while it ran.
type exportLoad struct {
	done chan struct{}
	e    *redirects.Export
	err  error
}

type exportKey struct {
	project string
	version int
	format  string
}

// CompactMin is the smallest export file the cache holds compact
// (redirects.Export.Compact): its gzip and zstd encodings only, a fifth of
// its size or less, its identity decompressed from the gzip encoding as
// each download that asks for it is written. A million-rule project's four
// largest files then take some 180 MB instead of 600 (BENCHMARKS.md,
// "Resilience against hostile clients"); a smaller file is held whole and
// written from its one copy.
const CompactMin = 4 << 20

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
	if ok {
		c.mu.Unlock()
		return e, nil
	}
	if wp, ok := c.inUse[k]; ok {
		if e := wp.Value(); e != nil {
			c.mu.Unlock()
			return e, nil
		}
		delete(c.inUse, k)
	}
	if ld := c.loading[k]; ld != nil {
		c.mu.Unlock()
		select {
		case <-ld.done:
			return ld.e, ld.err
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	ld := &exportLoad{done: make(chan struct{})}
	if c.loading == nil {
		c.loading = map[exportKey]*exportLoad{}
	}
	c.loading[k] = ld
	forgets := c.forgets
	c.mu.Unlock()
	// The load does not end with the request that started it: the others
	// waiting on it would see its cancellation.
	ld.e, ld.err = c.load(context.WithoutCancel(ctx), k, forgets)
	c.mu.Lock()
	delete(c.loading, k)
	c.mu.Unlock()
	close(ld.done)
	return ld.e, ld.err
}

// Forget drops every cached file of one version of a project: a discarded
// staged version's files must not be served after the discard.
func (c *ExportCache) Forget(project string, version int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.forgets++
	for _, f := range redirects.Formats {
		k := exportKey{project, version, f}
		if e, ok := c.lru.get(k); ok {
			c.bytes -= e.Size()
			c.lru.remove(k)
		}
		delete(c.inUse, k)
	}
}

// load reads one file from the store and keeps it if it fits, and if no
// Forget ran since forgets was read.
func (c *ExportCache) load(ctx context.Context, k exportKey, forgets uint64) (*redirects.Export, error) {
	_, e, err := redirects.FindCompactExport(ctx, c.store, c.Builder, k.project, k.version, k.format, CompactMin)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.forgets != forgets {
		return e, nil
	}
	if e.Size() > c.maxBytes {
		c.keepWeak(k, e)
		return e, nil
	}
	if c.lru.contains(k) {
		return e, nil
	}
	for c.bytes+e.Size() > c.maxBytes {
		oldKey, old, ok := c.lru.removeOldest()
		if !ok {
			break
		}
		c.bytes -= old.Size()
		// A download may still be writing the file let go: a request for
		// it meanwhile takes that copy instead of loading a second one.
		c.keepWeak(oldKey, old)
	}
	if _, old, ok := c.lru.add(k, e); ok {
		c.bytes -= old.Size()
	}
	c.bytes += e.Size()
	return e, nil
}

// keepWeak remembers e, a file the cache does not hold, for as long as
// something else (a download writing it) does; c.mu is held.
func (c *ExportCache) keepWeak(k exportKey, e *redirects.Export) {
	if c.inUse == nil {
		c.inUse = map[exportKey]weak.Pointer[redirects.Export]{}
	}
	for k, wp := range c.inUse {
		if wp.Value() == nil {
			delete(c.inUse, k)
		}
	}
	c.inUse[k] = weak.Make(e)
}
