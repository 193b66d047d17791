package importer

import (
	"context"
	"strings"
	"testing"
)

// TestPlatformExamples: each format's example (which the dashboard offers
// and the browser suite imports) is detected as its format, imports
// without a bad line, and has lines of every class its shapes give.
func TestPlatformExamples(t *testing.T) {
	for _, name := range []string{"netlify", "netlify-toml", "cloudflare", "shopify", "cloudflare-pages"} {
		f := Lookup(name)
		if f == nil || f.Example == "" {
			t.Fatalf("format %s has no example", name)
		}
		hosts := []string{"example.com"}
		if name == "shopify" {
			hosts = []string{"shop.example.com"}
		}
		res, err := Read(context.Background(), strings.NewReader(f.Example), "auto", Options{Hosts: hosts})
		if err != nil {
			t.Errorf("%s: example: %v", name, err)
			continue
		}
		if res.Format != name {
			t.Errorf("%s: example detected as %s (%s)", name, res.Format, res.Detected)
		}
		if res.AsIs == 0 || res.Skipped+res.Changed == 0 {
			t.Errorf("%s: example has %d as is, %d changed, %d skipped: want as-is lines and others", name, res.AsIs, res.Changed, res.Skipped)
		}
	}
}

// FuzzReadPlatforms: no input makes a reader of these formats panic, hang
// or report out of order; a file either is refused (every bad line with a
// line number within the file) or gives each rule a line within it.
func FuzzReadPlatforms(f *testing.F) {
	for _, name := range []string{"netlify", "netlify-toml", "cloudflare", "shopify", "cloudflare-pages"} {
		f.Add(name, Lookup(name).Example)
	}
	f.Add("netlify-toml", "[[redirects]]\nfrom = \"/a\"\nto = [\"/b\",\n")
	f.Add("cloudflare", "\"example.com/a,/b\n")
	f.Fuzz(func(t *testing.T, name, in string) {
		if Lookup(name) == nil {
			return
		}
		lines := strings.Count(in, "\n") + 1
		res, err := Read(context.Background(), strings.NewReader(in), name, Options{Placeholders: map[string][]string{"lang": {"en", "fr"}}})
		if be, ok := err.(*BadLinesError); ok {
			for _, l := range be.Lines {
				if l.Line < 1 || l.Line > lines {
					t.Fatalf("bad line %d of a %d-line file: %v", l.Line, lines, err)
				}
			}
			return
		}
		if err != nil {
			return
		}
		for _, l := range res.RuleLines {
			if l < 1 || l > lines {
				t.Fatalf("a rule from line %d of a %d-line file", l, lines)
			}
		}
		for _, r := range res.Rules {
			if err := r.Validate(); err != nil {
				t.Fatalf("an imported rule the store refuses: %+v: %v", r, err)
			}
		}
	})
}
