package importer_test

import (
	"context"
	"strings"
	"testing"

	"redirects/importer"
)

// TestEveryReportedLineHasItsText: a line that became a rule and is then
// skipped as shadowed by an earlier one keeps its text for the report, in
// the CSV formats too (whose readers join a record again only for the
// lines the report lists).
func TestEveryReportedLineHasItsText(t *testing.T) {
	for _, tc := range []struct {
		format, file string
		line         int
		want         string
	}{
		{"shopify", "Redirect from,Redirect to\n/a,/b\n/a,/c\n", 3, "/a,/c"},
		{"cloudflare", "example.com/a,https://example.com/b,301,,,,\nexample.com/a,https://example.com/c,301,,,,\n", 2, "example.com/a,https://example.com/c,301,,,,"},
		{"netlify", "/a /b 301\n/a /c 301\n", 2, "/a /c 301"},
	} {
		res, err := importer.Read(context.Background(), strings.NewReader(tc.file), tc.format, importer.Options{})
		if err != nil {
			t.Fatalf("%s: %v", tc.format, err)
		}
		if len(res.Lines) != 1 || res.Lines[0].Line != tc.line || res.Lines[0].Class != importer.Skipped || res.Lines[0].Text != tc.want {
			t.Errorf("%s: the report's lines %+v; want line %d skipped with its text %q", tc.format, res.Lines, tc.line, tc.want)
		}
	}
}
