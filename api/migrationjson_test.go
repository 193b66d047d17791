package api_test

import (
	"bytes"
	"encoding/json"
	"runtime"
	"testing"

	"pgregory.net/rapid"

	"redirects"
	"redirects/api"
	"redirects/export"
	"redirects/importer"
)

// genReportText draws strings of what a report's texts hold: ASCII, HTML,
// quotes and backslashes, control bytes, U+2028 and U+2029, other runes,
// invalid UTF-8, and the markers WriteMigrationReport and
// WriteMigrationCounts look for.
var genReportText = rapid.Custom(func(t *rapid.T) string {
	parts := []string{"a", "/old/page", " ", "\"", "\\", "<", ">", "&", "\n", "\r", "\t", "\b", "\f", "\x00", "\x1f", "\x7f",
		"\u2028", "\u2029", "é", "日本", "\U0001F600", "\xff", "\xe2\x80", "line 12 wins", "%2F", `"lines":[]`, "lines", "\n    \"lines\": []"}
	var b bytes.Buffer
	for _, i := range rapid.SliceOfN(rapid.IntRange(0, len(parts)-1), 0, 10).Draw(t, "parts") {
		b.WriteString(parts[i])
	}
	return b.String()
})

// genMigration draws a migration report: nil now and then, lines with
// and without notes, a winner and a text, ranges, suggestions.
var genMigration = rapid.Custom(func(t *rapid.T) *importer.Result {
	if rapid.IntRange(0, 9).Draw(t, "migration") == 0 {
		return nil
	}
	res := &importer.Result{Format: "netlify", Detected: genReportText.Draw(t, "detected"),
		AsIs: rapid.IntRange(0, 9).Draw(t, "asIs"), AsIsLines: [][2]int{}, Lines: []importer.Outcome{}}
	for range rapid.IntRange(0, 6).Draw(t, "lines") {
		o := importer.Outcome{Line: rapid.IntRange(0, 1<<30).Draw(t, "line"),
			Class: importer.Class(rapid.SampledFrom([]string{"changed", "skipped", "as-is", "odd\"class"}).Draw(t, "class")),
			Rules: rapid.IntRange(0, 3).Draw(t, "rules"), Winner: rapid.IntRange(-1, 3).Draw(t, "winner"), Text: genReportText.Draw(t, "text")}
		switch rapid.IntRange(0, 2).Draw(t, "notes") {
		case 1:
			o.Notes = []string{}
		case 2:
			o.Notes = rapid.SliceOfN(genReportText, 1, 3).Draw(t, "note")
		}
		res.Lines = append(res.Lines, o)
	}
	for range rapid.IntRange(0, 2).Draw(t, "ranges") {
		res.AsIsLines = append(res.AsIsLines, [2]int{rapid.IntRange(1, 9).Draw(t, "from"), rapid.IntRange(1, 9).Draw(t, "to")})
	}
	if rapid.Bool().Draw(t, "suggest") {
		res.Suggest = &importer.Suggestion{CaseSensitive: true, TrailingSlash: "ignore", Why: genReportText.Draw(t, "why")}
	}
	if rapid.Bool().Draw(t, "hosts") {
		res.SuggestHosts = &importer.HostSuggestion{Hosts: []string{"a.example"}, Declare: []string{}, Why: genReportText.Draw(t, "hostsWhy")}
	}
	return res
})

// TestWriteMigrationReportAsEncodingJSON: the answer written line by line
// is, byte for byte, what encoding/json writes of the same value: the
// management API's report compact, the command line's counts indented by
// two spaces (as its printJSON), both with HTML unescaped; and the value
// is left as it was.
func TestWriteMigrationReportAsEncodingJSON(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		res := genMigration.Draw(t, "report")
		counts := api.ImportCountsOf(&redirects.ImportReport{Mode: redirects.ImportAppend, DryRun: true, Added: 3})
		undo := int64(rapid.IntRange(0, 2).Draw(t, "undo"))
		var v any
		var indent string
		var write func(*bytes.Buffer) error
		if rapid.Bool().Draw(t, "cli") {
			if res == nil {
				res = &importer.Result{Lines: []importer.Outcome{}}
			}
			c := api.MigrationCounts{ImportCounts: counts, UndoID: undo, Migration: res}
			v, indent, write = c, "  ", func(b *bytes.Buffer) error { return api.WriteMigrationCounts(b, c) }
		} else {
			rep := api.ImportReport{ImportCounts: counts, Errors: []export.LineError{}}
			if rapid.Bool().Draw(t, "error") {
				rep.Error, rep.Code = genReportText.Draw(t, "message"), "INVALID_IMPORT"
				rep.Errors = append(rep.Errors, export.LineError{Line: 3, Message: genReportText.Draw(t, "lineError")})
			}
			r := api.MigrationReport{ImportReport: rep, Migration: res, UndoID: undo}
			v, write = r, func(b *bytes.Buffer) error { return api.WriteMigrationReport(b, r) }
		}
		n := 0
		if res != nil {
			n = len(res.Lines)
		}
		var want, got bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetIndent("", indent)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err != nil {
			t.Fatal(err)
		}
		if err := write(&got); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want.Bytes()) {
			t.Fatalf("written line by line:\n%s\nencoding/json:\n%s", got.Bytes(), want.Bytes())
		}
		if res != nil && len(res.Lines) != n {
			t.Fatalf("the value's lines were changed: %d, were %d", len(res.Lines), n)
		}
	})
}

// TestWriteMigrationReportStreams: writing a report of 100,000 listed lines
// allocates less than a tenth of the answer's size (encoding/json built the
// whole answer in memory, and more while its buffer grew).
func TestWriteMigrationReportStreams(t *testing.T) {
	res := &importer.Result{Format: "apache", AsIsLines: [][2]int{}, Lines: make([]importer.Outcome, 100_000)}
	notes := []string{"RewriteEngine is not On above it: Apache does not run the rule"}
	for i := range res.Lines {
		res.Lines[i] = importer.Outcome{Line: i + 1, Class: importer.Skipped, Notes: notes, Text: "RewriteRule ^/a1$ /b1 [R=301,L]"}
	}
	res.Skipped = len(res.Lines)
	v := api.MigrationReport{ImportReport: api.ImportReport{Errors: []export.LineError{}}, Migration: res}
	var size countWriter
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	if err := api.WriteMigrationReport(&size, v); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	alloc := after.TotalAlloc - before.TotalAlloc
	t.Logf("answer %d bytes, %d bytes allocated", size, alloc)
	if size < 10<<20 || alloc >= uint64(size)/10 {
		t.Errorf("an answer of %d bytes allocated %d bytes; want under a tenth of it", size, alloc)
	}
}

// countWriter counts what is written to it.
type countWriter int

func (c *countWriter) Write(p []byte) (int, error) { *c += countWriter(len(p)); return len(p), nil }
