package export_test

import (
	"os"
	"strings"
	"testing"

	"redirects/export"
)

// TestDocQuotesSnippets holds docs/exports.md to the snippets the
// differential tests load into nginx and haproxy: each must appear in the
// page verbatim, with one indentation for all of its lines.
func TestDocQuotesSnippets(t *testing.T) {
	doc, err := os.ReadFile("../docs/exports.md")
	if err != nil {
		t.Fatal(err)
	}
	for name, snippet := range map[string]string{
		"NginxAbsoluteRedirectSnippet":  export.NginxAbsoluteRedirectSnippet,
		"NginxServerSnippet":            export.NginxServerSnippet,
		"NginxMapExactHTTPSnippet":      export.NginxMapExactHTTPSnippet,
		"NginxMapExactSnippet":          export.NginxMapExactSnippet,
		"NginxMapPrefixHTTPSnippet":     export.NginxMapPrefixHTTPSnippet,
		"NginxMapPrefixSnippet":         export.NginxMapPrefixSnippet,
		"HAProxyMapExactSnippet":        export.HAProxyMapExactSnippet,
		"HAProxyMapPrefixSnippet":       export.HAProxyMapPrefixSnippet,
		"NginxMapPrefixStatusSnippet":   export.NginxMapPrefixStatusSnippet,
		"HAProxyMapPrefixStatusSnippet": export.HAProxyMapPrefixStatusSnippet,
		"HAProxyMapExactFoldSnippet":    export.HAProxyMapExactFoldSnippet,
		"HAProxyMapPrefixFoldSnippet":   export.HAProxyMapPrefixFoldSnippet,
		"NginxAnswerSnippet":            export.NginxAnswerSnippet,
		"NginxMapExactExtendedSnippet":  export.NginxMapExactExtendedSnippet,
		"NginxMapPrefixExtendedSnippet": export.NginxMapPrefixExtendedSnippet,
	} {
		found := false
		for _, indent := range []string{"", "    ", "        "} {
			quoted := indent + strings.ReplaceAll(snippet, "\n", "\n"+indent) + "\n"
			found = found || strings.Contains(string(doc), "\n"+quoted)
		}
		if !found {
			t.Errorf("docs/exports.md does not quote %s verbatim:\n%s", name, snippet)
		}
	}
}
