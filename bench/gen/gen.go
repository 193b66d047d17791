// Package gen writes generated rule sets as redirects import files, for the
// benchmark tools.
package gen

import (
	"bufio"
	"io"
	"strconv"

	"redirects/internal/rulegen"
)

// WriteCSV writes rulegen.RulesDeeper(n, prefixShare, seed,
// extraDepth) as an import file (header
// source,destination,statusCode,matchType,priority).
func WriteCSV(out io.Writer, n int, prefixShare float64, seed uint64, extraDepth int) error {
	w := bufio.NewWriterSize(out, 1<<20)
	w.WriteString("source,destination,statusCode,matchType,priority\n")
	var line []byte
	for _, r := range rulegen.RulesDeeper(n, prefixShare, seed, extraDepth) {
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
	return w.Flush()
}
