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
	flag.Parse()
	if err := export.WriteCSV(os.Stdout, rulegen.RulesDeeper(*n, *prefix, *seed, *depth)); err != nil {
		fmt.Fprintln(os.Stderr, "gencsv:", err)
		os.Exit(1)
	}
}
