// Command gencsv writes a generated rule set as a redirects import file, for
// benchmarks: realistic paths, a chosen share of starts_with rules.
package main

import (
	"flag"
	"fmt"
	"os"

	"redirects/export"
	"redirects/internal/rulegen"
)

func main() {
	n := flag.Int("n", 1_000_000, "number of rules")
	prefix := flag.Float64("prefix-share", 0.5, "share of starts_with rules, 0..1")
	seed := flag.Uint64("seed", 1, "random seed; the same seed gives the same rules")
	depth := flag.Int("extra-depth", 0, "add 0..N slug segments to every path (longer paths)")
	chains := flag.Bool("chains", false, "point every tenth rule at another rule's source and give every thirtieth a 302 (chains for lint --fix chains)")
	flag.Parse()
	rules := rulegen.RulesDeeper(*n, *prefix, *seed, *depth)
	if *chains {
		// As safety's BenchmarkFlatten1M (withChains) does.
		for i := range rules {
			r := &rules[i]
			if r.StatusCode == 410 {
				continue
			}
			if i%10 == 0 {
				r.Destination = rules[(i*7+13)%len(rules)].Source
			}
			if i%30 == 0 {
				r.StatusCode = 302
			}
		}
	}
	if err := export.WriteCSV(os.Stdout, rules); err != nil {
		fmt.Fprintln(os.Stderr, "gencsv:", err)
		os.Exit(1)
	}
}
