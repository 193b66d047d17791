package inmem

import (
	"context"
	"sync"
)

// UsageBuffer holds monthly usage that a limiter has counted but not yet
// written to the redirects.Store, so that the store sees one AddUsage per period and
// flush instead of one write per request. The zero value is empty and ready
// to use; a UsageBuffer is safe for concurrent use.
type UsageBuffer struct {
	mu      sync.Mutex
	pending map[string]map[string]int64 // period -> org ID -> not yet flushed
}

// Add counts one request of the organization with ID org in period (as
// redirects.BillingPeriod names it).
func (b *UsageBuffer) Add(period, org string) { b.AddN(period, org, 1) }

// AddN counts n requests of the organization with ID org in period.
func (b *UsageBuffer) AddN(period, org string, n int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	p := b.pending[period]
	if p == nil {
		if b.pending == nil {
			b.pending = map[string]map[string]int64{}
		}
		p = map[string]int64{}
		b.pending[period] = p
	}
	p[org] += n
}

// Flush writes the buffered usage to store, one AddUsage per period, and
// returns the first error. The counts of the period that failed and of the
// periods not yet written go back into the buffer, added to what was counted
// meanwhile, for the next try; periods already written are not written
// again.
func (b *UsageBuffer) Flush(ctx context.Context, store UsageStore) error {
	b.mu.Lock()
	pending := b.pending
	b.pending = nil
	b.mu.Unlock()
	for period, counts := range pending {
		if err := store.AddUsage(ctx, period, counts); err != nil {
			b.requeue(pending)
			return err
		}
		delete(pending, period)
	}
	return nil
}

// Take empties the buffer and returns what it held, period -> org ID ->
// count, for a caller that writes it with other counts in one
// transaction; Requeue gives back what it could not write.
func (b *UsageBuffer) Take() map[string]map[string]int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	p := b.pending
	b.pending = nil
	return p
}

// Requeue adds counts that could not be written back into the buffer.
func (b *UsageBuffer) Requeue(pending map[string]map[string]int64) { b.requeue(pending) }

// requeue adds counts that could not be flushed back into the buffer.
func (b *UsageBuffer) requeue(pending map[string]map[string]int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.pending == nil {
		b.pending = map[string]map[string]int64{}
	}
	for period, counts := range pending {
		m := b.pending[period]
		if m == nil {
			m = map[string]int64{}
			b.pending[period] = m
		}
		for org, n := range counts {
			m[org] += n
		}
	}
}
