package postgres_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"redirects"
	"redirects/sqlstore"
)

// BenchmarkReadAfterFlushes: what a read of hits waits for at worst, on a
// node that flushes 100,000 distinct rules a second: the flushes since
// the last fold leave just under sqlstore.FoldEntries entries pending
// (not timed), and the read (FindHits of the project) folds them first
// and then reads the 100,000 rules' counts (timed). ns/op is the read's
// wall time, bare-read-ns the same read again with nothing pending; the
// reads' answers are checked.
func BenchmarkReadAfterFlushes(b *testing.B) {
	const rules = 100_000
	ctx := context.Background()
	a, _ := newStore(b)
	p := newProject(b, a)
	hits := make([]redirects.RuleHits, rules)
	for i := range hits {
		hits[i] = redirects.RuleHits{ProjectID: p.ID, MatchType: redirects.Exact, Source: fmt.Sprintf("/read/%07d", i), Hits: 1, LastHit: time.Unix(1, 0)}
	}
	if err := a.AddHits(ctx, hits); err != nil {
		b.Fatal(err)
	}
	flushes := int64(1)
	var bare time.Duration
	for b.Loop() {
		b.StopTimer()
		// The first flush inserted the rows; each later one appends a
		// batch. Stop one flush short of the fold.
		for range sqlstore.FoldEntries/rules - 1 {
			if err := a.AddHits(ctx, hits); err != nil {
				b.Fatal(err)
			}
			flushes++
		}
		b.StartTimer()
		got, err := a.FindHits(ctx, p.ID, nil)
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		if len(got) != rules || got[0].Hits != flushes {
			b.Fatalf("%d rules, the first with %d hits; want %d with %d", len(got), got[0].Hits, rules, flushes)
		}
		start := time.Now()
		again, err := a.FindHits(ctx, p.ID, nil)
		bare += time.Since(start)
		if err != nil || len(again) != rules || again[0].Hits != flushes {
			b.Fatalf("read again: %d rules, %v", len(again), err)
		}
		b.StartTimer()
	}
	b.ReportMetric(float64(bare.Nanoseconds())/float64(b.N), "bare-read-ns")
}
