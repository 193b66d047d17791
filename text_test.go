package redirects_test

import (
	"strings"
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

func TestCheckText(t *testing.T) {
	for _, ok := range []string{"", "www", "café ✓", "\t tab"} {
		if err := redirects.CheckText("name", ok); err != nil {
			t.Errorf("CheckText(%q) = %v, want nil", ok, err)
		}
	}
	for in, want := range map[string]string{
		"ab\x00c":      "name holds a NUL byte at byte 2",
		"caf\xe9":      "name is not valid UTF-8: byte 3 is 0xE9",
		"é\xc3":        "name is not valid UTF-8: byte 2 is 0xC3",
		"\xed\xa0\x80": "name is not valid UTF-8: byte 0 is 0xED",
	} {
		err := redirects.CheckText("name", in)
		if redirects.ErrorCode(err) != redirects.EINVALID || !strings.HasPrefix(redirects.ErrorMessage(err), want) {
			t.Errorf("CheckText(%q) = %v, want EINVALID %q", in, err, want)
		}
	}
}
