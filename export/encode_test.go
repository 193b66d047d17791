package export_test

import (
	"bytes"
	"strings"
	"testing"

	"redirects"
	"redirects/export"
	"redirects/internal/coding"
	"redirects/internal/rulegen"
)

// TestRenderEncodings checks that every file Render makes carries a zstd and
// a gzip encoding that decode to its bytes, with the file's ETag suffixed by
// the coding, and that the ETag of the file itself is still ETag(body).
func TestRenderEncodings(t *testing.T) {
	c, err := export.Render(rulegen.Rules(2000, 0.3, 7))
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range c.Exports {
		if x.ETag != export.ETag(x.Body) {
			t.Errorf("%s: ETag %s, want ETag(body) %s", x.Format, x.ETag, export.ETag(x.Body))
		}
		if len(x.Encodings) != 2 || x.Encodings[0].Coding != coding.Zstd || x.Encodings[1].Coding != coding.Gzip {
			t.Fatalf("%s: encodings %v, want zstd then gzip", x.Format, x.Encodings)
		}
		for _, enc := range x.Encodings {
			dec, err := coding.Decode(enc.Coding, enc.Body)
			if err != nil || !bytes.Equal(dec, x.Body) {
				t.Errorf("%s %s: decodes to %d bytes (%v), want the file's %d", x.Format, enc.Coding, len(dec), err, len(x.Body))
			}
			if want := strings.TrimSuffix(x.ETag, `"`) + "-" + enc.Coding + `"`; enc.ETag != want || enc.ETag != redirects.EncodingETag(x.ETag, enc.Coding) {
				t.Errorf("%s %s: ETag %s, want %s", x.Format, enc.Coding, enc.ETag, want)
			}
			if len(x.Body) > 10000 && len(enc.Body) > len(x.Body)/2 {
				t.Errorf("%s %s: %d bytes of %d, want it well compressed", x.Format, enc.Coding, len(enc.Body), len(x.Body))
			}
		}
	}
}
