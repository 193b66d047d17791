// Command gencsv writes a generated rule set as a redirects import file, for
// benchmarks: realistic paths, a chosen share of starts_with rules.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"strconv"

	"redirects"
)

func main() {
	n := flag.Int("n", 1_000_000, "number of rules")
	prefix := flag.Float64("prefix-share", 0.5, "share of starts_with rules, 0..1")
	seed := flag.Uint64("seed", 1, "random seed; the same seed gives the same rules")
	flag.Parse()
	w := bufio.NewWriterSize(os.Stdout, 1<<20)
	w.WriteString("source,destination,statusCode,matchType,priority\n")
	var line []byte
	for _, r := range redirects.GenerateRules(*n, *prefix, *seed) {
		line = append(line[:0], r.Source...)
		line = append(line, ',')
		line = append(line, r.Destination...)
		line = append(line, ',')
		line = strconv.AppendInt(line, int64(r.StatusCode), 10)
		line = append(line, ',')
		line = append(line, r.MatchType.String()...)
		line = append(line, ',')
		line = strconv.AppendInt(line, int64(r.Priority), 10)
		line = append(line, '\n')
		w.Write(line)
	}
	if err := w.Flush(); err != nil {
		fmt.Fprintln(os.Stderr, "gencsv:", err)
		os.Exit(1)
	}
}
