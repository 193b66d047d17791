package export_test

import (
	"testing"

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
