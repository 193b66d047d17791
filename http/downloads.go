package http

import (
	"net/http"
	"sync"
	"sync/atomic"
)

// Caps on the large export downloads an edge node writes at once: a
// client that requests a file and never reads holds its download until the
// write timeout closes it, so without a cap many such clients would hold
// the host's memory and sockets. Past a cap an export is answered 503
// SERVICE_UNAVAILABLE with Retry-After at once. A long-poll waiting for a
// change holds no slot: it takes one only when it writes a file.
const (
	// MaxDownloads is the most large downloads a node writes at once.
	MaxDownloads = 64
	// MaxKeyDownloads is the most one API key has written at once.
	MaxKeyDownloads = 8
	// downloadMin is the smallest body that takes a slot: smaller ones
	// are written at once, whatever the client reads.
	downloadMin = 64 << 10
	// downloadRetryAfter is the Retry-After, in seconds, of a refused
	// download.
	downloadRetryAfter = 5
)

// errDownloads is the answer past a download cap.
var errDownloads = newAPIError(http.StatusServiceUnavailable, "SERVICE_UNAVAILABLE", "Service Unavailable")

// downloads counts the large downloads being written, per node and per
// key.
type downloads struct {
	node   atomic.Int64
	mu     sync.Mutex
	perKey map[string]int
}

// take reserves a slot for key, or returns nil past a cap. The release
// function frees it, once.
func (d *downloads) take(key string, maxNode, maxKey int) func() {
	if d.node.Add(1) > int64(maxNode) {
		d.node.Add(-1)
		return nil
	}
	d.mu.Lock()
	if d.perKey[key] >= maxKey {
		d.mu.Unlock()
		d.node.Add(-1)
		return nil
	}
	if d.perKey == nil {
		d.perKey = map[string]int{}
	}
	d.perKey[key]++
	d.mu.Unlock()
	var once atomic.Bool
	return func() {
		if once.Swap(true) {
			return
		}
		d.mu.Lock()
		if d.perKey[key]--; d.perKey[key] <= 0 {
			delete(d.perKey, key)
		}
		d.mu.Unlock()
		d.node.Add(-1)
	}
}
