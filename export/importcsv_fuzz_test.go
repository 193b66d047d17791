package export_test

import (
	"bytes"
	"context"
	"io"
	"strings"
	"testing"

	"redirects"
	"redirects/export"
	"redirects/internal/hostileimport"
)

// FuzzReadFile holds the draft CSV reader to its promises on any input:
// it never panics; it returns rules or bad lines, never both; each bad
// line names a line of the file and a message of bounded size (an excerpt,
// never a whole value); each rule is valid and the rules read back the
// same from the file WriteCSV makes of them. Seeds: the quirks the reader
// takes and the hostile shapes of issue #31, small.
func FuzzReadFile(f *testing.F) {
	for _, s := range []string{
		"source,destination,statusCode,matchType\n/a,/b,301,exact\n",
		"\uFEFFSource;Destination;Status Code;Match Type;Priority\r\n/a;/b;302;Starts With;7\r\n",
		"source\tdestination\tstatus\tmatch\n/gone\t\t410\texact\n",
		"source,destination,statusCode,matchType,preservePath,preserveQuery\n/d/,/e/,308,starts_with,TRUE,false\n",
		"source,destination,statusCode,matchType\n\"/a\nb\",/b,301,exact\n",
		"source,destination,statusCode,matchType\n/a,/b,30\xff1,exact\n/a,/b,301,exact\n/a,/c,301,exact\n",
		"source,destination,statusCode,matchType,\xff\xfe\n",
		"source,destination,statusCode,matchType\n\"/a,/b,301,exact\n" + strings.Repeat("/x,/y,301,exact\n", 5000),
		"source,destination,statusCode,matchType\n/a,/" + strings.Repeat("b", 70000) + ",301,exact\n",
	} {
		f.Add([]byte(s))
	}
	for _, s := range hostileimport.Shapes(nil) {
		b, err := io.ReadAll(s.Reader(80 << 10))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		file, err := export.ReadFile(context.Background(), bytes.NewReader(in), export.ReadOptions{Hosts: []string{"www.example.com"}, MaxErrors: 50})
		if err != nil {
			t.Fatalf("ReadFile: %v (only a failure to read in is an error)", err)
		}
		if len(file.Rules) > 0 && file.BadCount > 0 {
			t.Fatalf("%d rules and %d bad lines", len(file.Rules), file.BadCount)
		}
		lines := bytes.Count(in, []byte("\n")) + 1
		for _, b := range file.Bad {
			// A clash names two sources of at most 2,048 bytes each,
			// quoted (an escape takes at most 10 bytes for 4).
			if b.Line < 1 || b.Line > lines || len(b.Message) > 2*3*redirects.MaxSourceLen+600 {
				t.Fatalf("bad line %d (of %d) with a message of %d bytes: %.300q", b.Line, lines, len(b.Message), b.Message)
			}
		}
		if len(file.Bad) > 50 || file.BadCount < len(file.Bad) {
			t.Fatalf("%d bad lines kept, %d counted; want at most 50 kept", len(file.Bad), file.BadCount)
		}
		for i := range file.Rules {
			if err := file.Rules[i].Validate(); err != nil {
				t.Fatalf("rule %+v is not valid: %v", file.Rules[i], err)
			}
		}
		var out bytes.Buffer
		if err := export.WriteCSV(&out, file.Rules); err != nil {
			t.Fatal(err)
		}
		again, err := export.ReadFile(context.Background(), &out, export.ReadOptions{})
		if err != nil || again.BadCount > 0 && len(file.Rules) > 0 || len(again.Rules) != len(file.Rules) {
			t.Fatalf("the rules written back read as %d rules and %v (%v); want the %d", len(again.Rules), again.Bad, err, len(file.Rules))
		}
		for i := range again.Rules {
			if !again.Rules[i].Equal(&file.Rules[i]) {
				t.Fatalf("rule %d reads back as %+v; want %+v", i, again.Rules[i], file.Rules[i])
			}
		}
	})
}
