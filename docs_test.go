package redirects

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestDocsNameREADMESections: every README section the docs send a reader
// to ("see the README's "Import files"") is a heading of the README, and
// the README starts with how to run the program.
func TestDocsNameREADMESections(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	headings := map[string]bool{}
	var order []string
	for _, m := range regexp.MustCompile(`(?m)^#{2,4} (.+)$`).FindAllStringSubmatch(string(readme), -1) {
		headings[m[1]] = true
		order = append(order, m[1])
	}
	if len(order) == 0 || order[0] != "Run it" {
		t.Errorf("the README's first section is %q, want \"Run it\"", order[:min(1, len(order))])
	}
	files, _ := filepath.Glob("docs/*.md")
	files = append(files, "README.md", "CHANGELOG.md")
	ref := regexp.MustCompile(`README's\s+"([^"]+)"`)
	n := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range ref.FindAllStringSubmatch(string(b), -1) {
			n++
			name := strings.Join(strings.Fields(m[1]), " ")
			if !headings[name] {
				t.Errorf("%s sends the reader to the README's %q, which has no such section", f, name)
			}
		}
	}
	if n == 0 {
		t.Fatal("no reference to a README section found: the pattern no longer matches the docs")
	}
}
