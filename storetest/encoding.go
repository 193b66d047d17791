package storetest

import (
	"bytes"
	"fmt"
	"testing"

	"redirects"
	"redirects/export"
	"redirects/internal/coding"
	"redirects/service"
)

// testDeployExportEncodings checks that export files round-trip through the
// store in their content codings: an export with zstd and gzip encodings (as
// export.Render makes them) comes back with its identity bytes and ETag
// unchanged and both encodings decoding to them; one with gzip only, or
// none, comes back with just those; an empty file stays an empty file.
func testDeployExportEncodings(t *testing.T, e *env) {
	p := e.newProject()
	e.rule(p.ID, "/a", "/x", redirects.Exact, 100)
	e.rule(p.ID, "/b", "/y", redirects.StartsWith, 100)
	gzOnly := func(format string, body []byte) redirects.Export {
		x := export.Encode(format, body)
		x.Encodings = []redirects.Encoding{*x.Encoding(coding.Gzip)}
		return x
	}
	want := map[string][]string{ // format: the codings FindExport returns
		"csv": {"zstd", "gzip"}, "nginx": {"gzip"}, "nginx-map-exact": nil, "nginx-map-prefix": {"zstd", "gzip"},
	}
	var made map[string]redirects.Export
	_, err := service.DeployUnchecked(e.ctx, e.s, p.ID, redirects.DeployOptions{}, func(rules []redirects.Rule, _ redirects.Settings) (*redirects.DeployContent, error) {
		made = map[string]redirects.Export{}
		body := func(f string) []byte {
			var b bytes.Buffer
			for range 50 { // long enough that compression shrinks it
				for _, r := range rules {
					fmt.Fprintf(&b, "%s %s %s\n", f, r.Source, r.Destination)
				}
			}
			return b.Bytes()
		}
		made["csv"] = export.Encode("csv", body("csv"))
		made["nginx"] = gzOnly("nginx", body("nginx"))
		made["nginx-map-exact"] = redirects.Export{Format: "nginx-map-exact", Body: body("nginx-map-exact"), ETag: `"plain"`}
		made["nginx-map-prefix"] = export.Encode("nginx-map-prefix", []byte{})
		c := &redirects.DeployContent{}
		for _, f := range []string{"csv", "nginx", "nginx-map-exact", "nginx-map-prefix"} {
			c.Exports = append(c.Exports, made[f])
		}
		return c, nil
	})
	if err != nil {
		t.Fatalf("Deploy: %v", err)
	}
	for f, codings := range want {
		w := made[f]
		_, x := e.export(p.ID, 1, f)
		if x.Body == nil || !bytes.Equal(x.Body, w.Body) || x.ETag != w.ETag {
			t.Errorf("FindExport(%s) = %d bytes %s, want the identity %d bytes %s", f, len(x.Body), x.ETag, len(w.Body), w.ETag)
		}
		if len(x.Encodings) != len(codings) {
			t.Errorf("FindExport(%s) has %d encodings, want %v", f, len(x.Encodings), codings)
			continue
		}
		for _, c := range codings {
			enc, wenc := x.Encoding(c), w.Encoding(c)
			if enc == nil {
				t.Errorf("FindExport(%s) has no %s encoding", f, c)
				continue
			}
			if !bytes.Equal(enc.Body, wenc.Body) || enc.ETag != redirects.EncodingETag(w.ETag, c) {
				t.Errorf("FindExport(%s) %s = %d bytes %s, want %d bytes %s", f, c, len(enc.Body), enc.ETag, len(wenc.Body), redirects.EncodingETag(w.ETag, c))
			}
			if dec, err := coding.Decode(c, enc.Body); err != nil || !bytes.Equal(dec, w.Body) {
				t.Errorf("FindExport(%s) %s decodes to %d bytes (%v), want the identity %d bytes", f, c, len(dec), err, len(w.Body))
			}
		}
	}
}
