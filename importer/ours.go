package importer

import (
	"bytes"
	"context"
	"io"
	"strings"

	"redirects/export"
)

// The project's own draft CSV (and the csv export, which is its first four
// columns), read by export.ReadRules with today's all-or-nothing
// validation: every line imports as is, or the file is refused.
func init() {
	Register(&Format{
		Name:   "csv",
		Title:  "redirects draft CSV",
		Strict: true,
		Detect: detectOurCSV,
		Read:   readOurCSV,
		Example: "source,destination,statusCode,matchType,priority,preservePath,preserveQuery\n" +
			"/old,/new,301,exact,,,\n/docs/,/guide/,308,starts_with,10,true,true\n/gone,,410,exact,,,\n",
	})
}

// detectOurCSV: a first line that names the source, destination and
// matchType columns (in any of the spellings ReadRules takes).
func detectOurCSV(head []byte, _ string) (bool, string) {
	head = bytes.TrimPrefix(head, []byte("\uFEFF"))
	first, _, _ := bytes.Cut(head, []byte("\n"))
	cols := map[string]bool{}
	for _, sep := range []string{",", ";", "\t"} {
		for _, c := range strings.Split(string(first), sep) {
			cols[foldHeader(c)] = true
		}
	}
	if cols["source"] && cols["destination"] && (cols["matchtype"] || cols["match"]) {
		return true, "its header names the columns source, destination and matchType"
	}
	return false, ""
}

// foldHeader lower-cases a header cell and drops quotes, spaces,
// underscores and hyphens.
func foldHeader(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '_' || c == '-' || c == '"' || c == '\r' || c == '\t':
		case 'A' <= c && c <= 'Z':
			b.WriteByte(c + 'a' - 'A')
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

func readOurCSV(in io.Reader, o *Options, sink *Sink) error {
	// The rule limit is checked as the file is read (MaxRows: the sink's
	// own limit is never reached), and only the bad lines a report lists
	// are kept. Good rules go to the sink as they are read, held once;
	// a file with a bad line is refused whole all the same (Read).
	f, err := export.ReadFile(context.Background(), in, export.ReadOptions{Hosts: o.Hosts, Settings: o.Settings, MaxRows: o.MaxRules, MaxErrors: MaxBadLines,
		Each: sink.Rule})
	if err != nil {
		return err
	}
	for _, b := range f.Bad {
		sink.Bad(b.Line, "%s", b.Message)
	}
	return nil
}
