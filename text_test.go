package redirects_test

import (
	"testing"
	"unicode/utf8"

	"redirects"
)

func TestCleanText(t *testing.T) {
	for in, want := range map[string]string{
		"":                       "",
		"plain ascii":            "plain ascii",
		"café ✓":                 "café ✓",
		"a\x00b":                 "a\ufffdb",
		"\x00\x00":               "\ufffd\ufffd",
		"bad \xff\xfe end":       "bad \ufffd end",
		"cut \xe2\x9c":           "cut \ufffd",
		"\xc3\x00\xa9":           "\ufffd\ufffd\ufffd",
		"surrogate \xed\xa0\x80": "surrogate \ufffd",
	} {
		got := redirects.CleanText(in)
		if got != want {
			t.Errorf("CleanText(%q) = %q, want %q", in, got, want)
		}
		if !utf8.ValidString(got) {
			t.Errorf("CleanText(%q) = %q is not valid UTF-8", in, got)
		}
	}
}
