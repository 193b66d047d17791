package importer

import (
	"context"
	"strings"
	"testing"

	"redirects/internal/rulemodel"
)

// TestApacheRewriteBeforeAlias: Apache runs mod_rewrite before mod_alias
// whatever the order of the lines, so a RewriteRule below a Redirect that
// covers its path still answers that path, and is imported as is.
func TestApacheRewriteBeforeAlias(t *testing.T) {
	in := "Redirect 301 /a/ /x/\nRewriteEngine On\nRewriteRule ^/a/b$ /y [R=301,L]\n"
	res, err := Read(context.Background(), strings.NewReader(in), "apache", Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range res.Lines {
		if o.Line == 3 {
			t.Fatalf("line 3 is %s (%v), want as is", o.Class, o.Notes)
		}
	}
	for p, want := range map[string]string{"/a/b": "/y", "/a/c": "/x/c"} {
		a, ok := rulemodel.Lookup(res.Rules, rulemodel.Settings{}, p)
		if !ok || a.Destination != want {
			t.Errorf("%s answers %+v %v, want %s", p, a, ok, want)
		}
	}
	if len(res.AsIsLines) != 2 || res.AsIsLines[0] != [2]int{1, 1} || res.AsIsLines[1] != [2]int{3, 3} {
		t.Errorf("as-is lines %v, want 1 and 3", res.AsIsLines)
	}
}
