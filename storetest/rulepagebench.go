package storetest

import (
	"context"
	"slices"
	"testing"
	"time"

	"redirects"
)

// BenchRulePage measures FindRulePage on a project that holds rules (made by
// internal/rulegen and imported by the caller), one sub-benchmark
// per kind of request the management API's rule list makes. Each request
// includes the filtered Total. Besides ns/op it reports the median and the
// 95th percentile of the requests, in milliseconds.
func BenchRulePage(b *testing.B, s redirects.Store, projectID string, rules []redirects.Rule) {
	ctx := context.Background()
	first, err := s.FindRulePage(ctx, projectID, redirects.RulePageQuery{Sort: redirects.SortID, Limit: 1})
	if err != nil || len(first.Rules) != 1 {
		b.Fatalf("FindRulePage(first ID) = %+v, %v", first, err)
	}
	mid := rules[len(rules)/2]
	exact, prefix := redirects.Exact, redirects.StartsWith
	for _, bc := range []struct {
		name string
		q    redirects.RulePageQuery
	}{
		{"FirstPage", redirects.RulePageQuery{}},
		{"DeepPage/source", redirects.RulePageQuery{After: redirects.CursorAfter(redirects.SortSource, &redirects.Rule{ID: 1, Source: mid.Source})}},
		{"DeepPage/-id", redirects.RulePageQuery{Sort: redirects.SortIDDesc, After: redirects.CursorAfter(redirects.SortIDDesc, &redirects.Rule{ID: first.Rules[0].ID + int64(len(rules)/2)})}},
		{"DeepPage/priority", redirects.RulePageQuery{Sort: redirects.SortPriority, After: redirects.CursorAfter(redirects.SortPriority, &redirects.Rule{ID: first.Rules[0].ID + int64(len(rules)/2), Priority: redirects.DefaultPriority})}},
		{"Search/rare", redirects.RulePageQuery{Filter: redirects.RuleFilter{Query: "85276386"}}},
		{"Search/common", redirects.RulePageQuery{Filter: redirects.RuleFilter{Query: "tokyo"}}},
		{"Search/prefix", redirects.RulePageQuery{Filter: redirects.RuleFilter{Query: "/blog/2014/*"}}},
		{"Filter/starts_with", redirects.RulePageQuery{Filter: redirects.RuleFilter{MatchType: &prefix}}},
		{"Filter/exact-302", redirects.RulePageQuery{Sort: redirects.SortID, Filter: redirects.RuleFilter{MatchType: &exact, StatusCode: 302}}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			times := make([]time.Duration, 0, b.N)
			var total int
			for i := 0; i < b.N; i++ {
				start := time.Now()
				page, err := s.FindRulePage(ctx, projectID, bc.q)
				if err != nil {
					b.Fatalf("FindRulePage(%+v): %v", bc.q, err)
				}
				times = append(times, time.Since(start))
				total = page.Total
			}
			slices.Sort(times)
			ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
			b.ReportMetric(ms(times[len(times)/2]), "p50-ms")
			b.ReportMetric(ms(times[(len(times)*95)/100]), "p95-ms")
			b.ReportMetric(float64(total), "total")
		})
	}
}
