package migrate

import (
	"strings"
	"testing"
)

// TestPlatformExamples: each format's example (which the dashboard offers
// and the browser suite imports) is detected as its format, imports
// without a bad line, and has lines of every class its shapes give.
func TestPlatformExamples(t *testing.T) {
	for _, name := range []string{"netlify", "netlify-toml", "cloudflare", "shopify"} {
		f := Lookup(name)
		if f == nil || f.Example == "" {
			t.Fatalf("format %s has no example", name)
		}
		hosts := []string{"example.com"}
		if name == "shopify" {
			hosts = []string{"shop.example.com"}
		}
		res, err := Read(strings.NewReader(f.Example), "auto", Options{Hosts: hosts})
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
