package export_test

import (
	"testing"

	"redirects"
	"redirects/export"
	"redirects/internal/rulegen"
)

// BenchmarkRender1M renders all seven formats of a million generated rules
// (a tenth of them starts_with), as a deploy does:
//
//	go test -run '^$' -bench Render1M -benchtime 3x ./export
func BenchmarkRender1M(b *testing.B) {
	rules := rulegen.Rules(1_000_000, 0.1, 1)
	b.ResetTimer()
	var size int
	for b.Loop() {
		c, err := export.Render(rules)
		if err != nil {
			b.Fatal(err)
		}
		size = 0
		for _, e := range c.Exports {
			size += len(e.Body)
		}
	}
	b.ReportMetric(float64(size)/1e6, "MB/deploy")
}

// BenchmarkBuild1MOptions is BenchmarkRender1M for a project that uses every
// option and both settings: a third of the rules pass the query on, the
// starts_with rules keep the path, every seventh rule answers 308 with a
// fragment, under caseSensitive false and trailingSlash ignore:
//
//	go test -run '^$' -bench Build1MOptions -benchtime 3x ./export
func BenchmarkBuild1MOptions(b *testing.B) {
	rules := rulegen.Rules(1_000_000, 0.1, 1)
	for i := range rules {
		r := &rules[i]
		r.PreserveQuery = i%3 == 0
		r.PreservePath = r.MatchType == redirects.StartsWith
		if i%7 == 0 {
			r.StatusCode, r.Destination = 308, r.Destination+"#top"
		}
	}
	set := redirects.Settings{CaseInsensitive: true, IgnoreTrailingSlash: true}
	b.ResetTimer()
	var size int
	for b.Loop() {
		c, err := export.Build(rules, set)
		if err != nil {
			b.Fatal(err)
		}
		size = 0
		for _, e := range c.Exports {
			size += len(e.Body)
		}
	}
	b.ReportMetric(float64(size)/1e6, "MB/deploy")
}
