package edge

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"redirects"
)

// keyCounter counts one edge key's live lookups per UTC day, without a
// lock or an allocation on the request path: two atomic slots, one per
// parity of the day number. The flusher harvests both every flush
// interval, so a slot holds the counts of one day only: of the harvest's
// day, or of its neighbour (the day before, in the first half of a day,
// counted before midnight and not yet harvested; the day after, in the
// second half, counted by a request whose clock read passed midnight just
// before the harvest's). Counts stay exact as long as harvests come less
// than half a day apart, which the flush interval (a second) ensures.
type keyCounter struct {
	id    string
	slots [2]atomic.Int64
}

// unixDay returns the number of the UTC day holding t.
func unixDay(t time.Time) int64 {
	s := t.Unix()
	if s < 0 {
		return (s - 86399) / 86400
	}
	return s / 86400
}

// add counts one lookup on day (unixDay).
func (c *keyCounter) add(day int64) { c.slots[day&1].Add(1) }

// harvest moves what c counted into out, by day, as of now.
func (c *keyCounter) harvest(now time.Time, out []redirects.DailyUsage) []redirects.DailyUsage {
	day := unixDay(now)
	other := day - 1
	if now.Unix()-day*86400 >= 43200 {
		other = day + 1
	}
	for _, d := range [2]int64{day, other} {
		if n := c.slots[d&1].Swap(0); n > 0 {
			out = append(out, redirects.DailyUsage{KeyID: c.id, Day: redirects.UsageDay(time.Unix(d*86400, 0)), Count: n})
		}
	}
	return out
}

// keyUsage holds the counters of every key the edge has loaded, by key ID,
// and the counts harvested but not yet written to the store. A counter
// lives as long as the process: a key's counts survive the reloads of the
// catalog's view, and a deleted project's keys cost a few bytes each.
type keyUsage struct {
	mu       sync.Mutex
	counters map[string]*keyCounter
	// pending holds counts a failed write gave back, for the next flush.
	pending map[[2]string]int64
}

// counter returns the counter of the key with ID id, making it if needed.
func (u *keyUsage) counter(id string) *keyCounter {
	u.mu.Lock()
	defer u.mu.Unlock()
	c := u.counters[id]
	if c == nil {
		if u.counters == nil {
			u.counters = map[string]*keyCounter{}
		}
		c = &keyCounter{id: id}
		u.counters[id] = c
	}
	return c
}

// flush harvests every counter as of now and writes the counts, with those
// of earlier failed flushes, to store in one AddKeyUsage. On failure the
// counts stay pending for the next flush, so a lost flush loses nothing
// while the process lives.
func (u *keyUsage) flush(ctx context.Context, store CountWriter, now time.Time) error {
	u.mu.Lock()
	var counts []redirects.DailyUsage
	for _, c := range u.counters {
		counts = c.harvest(now, counts)
	}
	for k, n := range u.pending {
		counts = append(counts, redirects.DailyUsage{KeyID: k[0], Day: k[1], Count: n})
	}
	u.pending = nil
	u.mu.Unlock()
	if len(counts) == 0 {
		return nil
	}
	err := store.AddKeyUsage(ctx, counts)
	if err != nil {
		u.mu.Lock()
		if u.pending == nil {
			u.pending = map[[2]string]int64{}
		}
		for _, c := range counts {
			u.pending[[2]string{c.KeyID, c.Day}] += c.Count
		}
		u.mu.Unlock()
	}
	return err
}
