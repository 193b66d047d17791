package main

import (
	"bytes"
	"encoding/json"
	"testing"

	"pgregory.net/rapid"

	"redirects"
	"redirects/api"
	"redirects/importer"
)

// genReportText draws strings of what a report's texts hold: ASCII, HTML,
// quotes and backslashes, control bytes, U+2028 and U+2029, other runes
// and invalid UTF-8.
var genReportText = rapid.Custom(func(t *rapid.T) string {
	parts := []string{"a", "/old/page", " ", "\"", "\\", "<", ">", "&", "\n", "\r", "\t", "\b", "\f", "\x00", "\x1f", "\x7f",
		"\u2028", "\u2029", "é", "日本", "\U0001F600", "\xff", "\xe2\x80", "line 12 wins", "%2F"}
	var b bytes.Buffer
	for _, i := range rapid.SliceOfN(rapid.IntRange(0, len(parts)-1), 0, 10).Draw(t, "parts") {
		b.WriteString(parts[i])
	}
	return b.String()
})

// TestMigrationJSONAsEncodingJSON: the report written line by line is, byte
// for byte, what printJSON (encoding/json, indented, HTML unescaped) writes
// of the same value.
func TestMigrationJSONAsEncodingJSON(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
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
		v := api.MigrationCounts{ImportCounts: api.ImportCountsOf(&redirects.ImportReport{Mode: redirects.ImportAppend, DryRun: true, Added: 3}),
			UndoID: int64(rapid.IntRange(0, 2).Draw(t, "undo")), Migration: res}
		n := len(res.Lines)
		var want, got bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err != nil {
			t.Fatal(err)
		}
		if err := writeMigrationJSON(&got, v); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want.Bytes()) {
			t.Fatalf("written line by line:\n%s\nencoding/json:\n%s", got.Bytes(), want.Bytes())
		}
		if len(v.Migration.Lines) != n {
			t.Fatalf("the value's lines were changed: %d, were %d", len(v.Migration.Lines), n)
		}
	})
}
