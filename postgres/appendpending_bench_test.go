package postgres_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"redirects"
	"redirects/sqlstore"
)

// BenchmarkAppendPending: flushes of 10 known rules while batches of 10
// wait, 96 % of sqlstore.FoldEntries, short of a fold: what an append
// costs with many small batches pending. Past FoldEntries / 250
// iterations the appends fold, and the fold drops the placeholder
// batches: keep -benchtime under that.
func BenchmarkAppendPending(b *testing.B) {
	ctx := context.Background()
	a, url := newStore(b)
	p := newProject(b, a)
	var hits []redirects.RuleHits
	for i := range 10 {
		hits = append(hits, redirects.RuleHits{ProjectID: p.ID, MatchType: redirects.Exact, Source: fmt.Sprintf("/r/%d", i), Hits: 1, LastHit: time.Unix(1, 0)})
	}
	if err := a.AddHits(ctx, hits); err != nil {
		b.Fatal(err)
	}
	if err := adminExec(url, fmt.Sprintf(`INSERT INTO rule_hit_batches (n, entries) SELECT 10, decode(repeat('00', 320), 'hex') FROM generate_series(1, %d)`, sqlstore.FoldEntries*24/25/10)); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		if err := a.AddHits(ctx, hits); err != nil {
			b.Fatal(err)
		}
	}
}
