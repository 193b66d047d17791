package export_test

import (
	"bytes"
	"strings"
	"testing"

	"redirects"
	"redirects/export"
	"redirects/internal/rulegen"
)

// TestCSVRoundTrip writes generated rules, a comma included, as
// an import file and reads them back whole, priorities included.
func TestCSVRoundTrip(t *testing.T) {
	rules := rulegen.Rules(2000, 0.3, 4)
	rules[0].Destination = "/a,b?q=1"
	var buf bytes.Buffer
	if err := export.WriteCSV(&buf, rules); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(buf.String(), "source,destination,statusCode,matchType,priority\r\n") {
		t.Fatalf("import file starts %q", buf.String()[:60])
	}
	got, lines, err := export.ReadCSV(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(rules) || len(lines) != len(rules) {
		t.Fatalf("read %d rules and %d lines, wrote %d", len(got), len(lines), len(rules))
	}
	for i := range rules {
		w, g := rules[i], got[i]
		if g.Source != w.Source || g.Destination != w.Destination || g.StatusCode != w.StatusCode ||
			g.MatchType != w.MatchType || g.Priority != w.Priority {
			t.Fatalf("rule %d read back as %+v, wrote %+v", i, g, w)
		}
		if lines[i] != i+2 {
			t.Fatalf("rule %d on line %d, want %d", i, lines[i], i+2)
		}
	}
}

// TestReadCSVErrors checks that every bad line is reported with its number
// and that nothing is returned beside the error.
func TestReadCSVErrors(t *testing.T) {
	in := "source,destination,statusCode,matchType\n" +
		"/a,/b,301,exact\n" +
		"/c,/d,303,exact\n" +
		"\n" +
		"/e,/f,301\n" +
		"/a,/x,302,exact\n"
	rules, lines, err := export.ReadCSV(strings.NewReader(in))
	if err == nil || rules != nil || lines != nil {
		t.Fatalf("ReadCSV = %v, %v, %v; want only an error", rules, lines, err)
	}
	if redirects.ErrorCode(err) != redirects.EINVALID {
		t.Fatalf("code %s, want EINVALID", redirects.ErrorCode(err))
	}
	msg := redirects.ErrorMessage(err)
	for _, want := range []string{"line 3: ", "line 5: has 3 fields, the header has 4", `line 6: a exact rule for source "/a" already appears on line 2`} {
		if !strings.Contains(msg, want) {
			t.Errorf("message %q lacks %q", msg, want)
		}
	}
	if _, _, err := export.ReadCSV(strings.NewReader("")); err == nil || !strings.Contains(err.Error(), "line 1: the file is empty") {
		t.Fatalf("empty file: %v", err)
	}
}

func TestRuleLines(t *testing.T) {
	got := export.RuleLines("rule 1: bad\nrule 2: a rule (rule ID 9)\nrule 7: out of range", []int{4, 10})
	if want := "line 4: bad\nline 10: a rule (rule ID 9)\nrule 7: out of range"; got != want {
		t.Fatalf("RuleLines = %q, want %q", got, want)
	}
}
