package http

import (
	"bytes"
	"io"
	"net/http"
	"runtime"
	"testing"

	"redirects"
	"redirects/edge"
	"redirects/internal/coding"
	"redirects/internal/rulegen"
)

// TestEnginesServeCompactExports: a deployment's files of at least
// edge.CompactMin bytes are held compact by the export cache (their encodings
// only, a fraction of the identity's size), and every answer for them, in
// every coding and through both engines, is byte for byte the stored file
// the deploy made (redirects.FindExport, the model), with the same ETags
// and 304s as a file held whole.
func TestEnginesServeCompactExports(t *testing.T) {
	f := newFixture(t, nil)
	_, err := f.db.ImportRules(f.ctx, f.project.ID, rulegen.Rules(40_000, 0.5, 7), true)
	f.ok(err)
	version := f.deploy()
	f.refresh()

	type file struct {
		format  string
		stored  *redirects.Export
		compact bool
	}
	var files []file
	for _, format := range []string{"haproxy", "nginx", "csv", "nginx-map-exact", "haproxy-map-prefix"} {
		_, stored, err := f.db.FindExport(f.ctx, f.project.ID, version, format)
		f.ok(err)
		files = append(files, file{format, stored, len(stored.Body) >= edge.CompactMin})
	}
	var compact, whole int
	for _, fl := range files {
		if fl.compact {
			compact++
		} else {
			whole++
		}
	}
	if compact == 0 || whole == 0 {
		t.Fatalf("the test needs files on both sides of edge.CompactMin (%d bytes): %d compact, %d whole", edge.CompactMin, compact, whole)
	}

	// The cache holds the large files compact, the small ones whole.
	lv := &live{catalog: f.catalog, limiter: f.limiter, exports: edge.NewExportCache(f.db, 256<<20)}
	f.edge.setLive(lv)
	for _, fl := range files {
		w := f.handle("GET", "/v1/export", "project="+f.project.ID+"&format="+fl.format, f.secret)
		if w.Done != nil {
			w.Done()
		}
		held := lv.exports.Cached(f.project.ID, version, fl.format)
		if held == nil {
			t.Fatalf("%s: not cached after a download", fl.format)
		}
		if held.Compact() != fl.compact {
			t.Fatalf("%s (%d bytes): held compact %v, want %v", fl.format, len(fl.stored.Body), held.Compact(), fl.compact)
		}
		if fl.compact && (held.IdentityLen != int64(len(fl.stored.Body)) || held.Size() > len(fl.stored.Body)/2 || held.ETag != fl.stored.ETag) {
			t.Fatalf("%s: held %d bytes for a %d-byte file (IdentityLen %d, ETag %s want %s)", fl.format, held.Size(), len(fl.stored.Body), held.IdentityLen, held.ETag, fl.stored.ETag)
		}
		if fl.compact && (w.Stream == nil || w.StreamLen != int64(len(fl.stored.Body))) {
			t.Fatalf("%s: identity answered without its stream (%d bytes of body)", fl.format, len(w.Body))
		}
	}

	for _, engine := range []string{"evhttp", "net/http"} {
		t.Run(engine, func(t *testing.T) {
			if engine == "evhttp" && runtime.GOOS != "linux" {
				t.Skip("evhttp needs Linux epoll")
			}
			s := f.open(engine)
			client := &http.Client{Transport: &http.Transport{DisableCompression: true}}
			for _, fl := range files {
				url := "http://" + s.Addr() + "/v1/export?project=" + f.project.ID + "&format=" + fl.format
				for _, tc := range []struct{ accept, coding string }{{"", ""}, {"gzip", "gzip"}, {"zstd", "zstd"}, {"identity, gzip;q=0.5", ""}} {
					for _, inm := range []string{"", redirects.EncodingETag(fl.stored.ETag, tc.coding)} {
						req, err := http.NewRequest("GET", url, nil)
						f.ok(err)
						req.Header.Set("X-API-Key", f.secret)
						if tc.accept != "" {
							req.Header.Set("Accept-Encoding", tc.accept)
						}
						if inm != "" {
							req.Header.Set("If-None-Match", inm)
						}
						resp, err := client.Do(req)
						f.ok(err)
						body, err := io.ReadAll(resp.Body)
						resp.Body.Close()
						f.ok(err)
						want := 200
						if inm != "" {
							want = 304
						}
						if resp.StatusCode != want || resp.Header.Get("ETag") != redirects.EncodingETag(fl.stored.ETag, tc.coding) {
							t.Fatalf("%s, Accept-Encoding %q, If-None-Match %q: %d, ETag %q; want %d", fl.format, tc.accept, inm, resp.StatusCode, resp.Header.Get("ETag"), want)
						}
						if want == 304 {
							if len(body) != 0 {
								t.Fatalf("%s: a 304 with %d bytes", fl.format, len(body))
							}
							continue
						}
						if resp.Header.Get("Content-Encoding") != tc.coding || resp.ContentLength != int64(len(body)) {
							t.Fatalf("%s, Accept-Encoding %q: Content-Encoding %q, Content-Length %d for %d bytes", fl.format, tc.accept, resp.Header.Get("Content-Encoding"), resp.ContentLength, len(body))
						}
						if dec, err := coding.Decode(tc.coding, body); err != nil || !bytes.Equal(dec, fl.stored.Body) {
							t.Fatalf("%s, Accept-Encoding %q: the body (%d bytes, %v) is not the stored file (%d bytes)", fl.format, tc.accept, len(dec), err, len(fl.stored.Body))
						}
					}
				}
			}
		})
	}
}
