package edge

import (
	"context"
	"errors"
	"time"

	"redirects"
)

// UsageTogetherWriter is a store that writes monthly and daily usage in
// one transaction (see redirects.Store).
type UsageTogetherWriter interface {
	AddUsageTogether(ctx context.Context, monthly map[string]map[string]int64, daily []redirects.DailyUsage) error
}

// Flush writes what the edge counted since the last flush to the store, as
// of now: the limiter's monthly usage (monthly, nil when the limiter keeps
// none) with the live lookups counted per key and day, then the hits and
// misses counted per project and the sync agents' reports. Each part that
// could not be written is kept for the next flush.
//
// The monthly totals and the keys' daily counts are written in one
// transaction (AddUsageTogether), so they add up whatever ends the
// process.
func (s *Catalog) Flush(ctx context.Context, monthly redirects.UsageTaker, now time.Time) error {
	if monthly == nil {
		return errors.Join(s.usage.flush(ctx, s.store, now), s.insight.flush(ctx, s.store, now), s.agents.flush(ctx, s.store))
	}
	taken := monthly.TakeUsage()
	tw := &usageTogether{CountWriter: s.store, w: s.store, monthly: taken}
	err := s.usage.flush(ctx, tw, now)
	if !tw.written && err == nil && len(taken) > 0 {
		err = s.store.AddUsageTogether(ctx, taken, nil)
		tw.written = err == nil
	}
	if !tw.written && len(taken) > 0 {
		monthly.ReturnUsage(taken)
	}
	return errors.Join(err, s.insight.flush(ctx, s.store, now), s.agents.flush(ctx, s.store))
}

// Written returns how many entries the flushes wrote so far: one per rule
// with hits, one per missed path (for the metrics).
func (s *Catalog) Written() (hits, misses int64) {
	return s.insight.wroteHits.Load(), s.insight.wroteMisses.Load()
}

// usageTogether is the CountWriter the keys' usage is flushed through: its
// AddKeyUsage writes the limiter's monthly usage in the same transaction.
type usageTogether struct {
	CountWriter
	w       UsageTogetherWriter
	monthly map[string]map[string]int64
	written bool
}

func (u *usageTogether) AddKeyUsage(ctx context.Context, counts []redirects.DailyUsage) error {
	if err := u.w.AddUsageTogether(ctx, u.monthly, counts); err != nil {
		return err
	}
	u.written = true
	return nil
}
