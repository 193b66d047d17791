package http

import (
	"bytes"
	"io"
	"net/http"
	"runtime"
	"testing"

	"redirects"
	"redirects/internal/coding"
)

func TestNegotiateEncoding(t *testing.T) {
	both := &redirects.Export{ETag: `"e"`, Encodings: []redirects.Encoding{{Coding: "zstd"}, {Coding: "gzip"}}}
	gzOnly := &redirects.Export{ETag: `"e"`, Encodings: []redirects.Encoding{{Coding: "gzip"}}}
	none := &redirects.Export{ETag: `"e"`}
	for _, tc := range []struct {
		accept string
		ex     *redirects.Export
		want   string // "" for identity
	}{
		{"", both, ""},
		{"gzip", both, "gzip"},
		{"zstd", both, "zstd"},
		{"GZIP", both, "gzip"},
		{"x-gzip", both, "gzip"},
		{"gzip, deflate, br, zstd", both, "zstd"}, // a browser's: equal q, zstd first
		{"gzip, zstd;q=0.5", both, "gzip"},
		{"gzip;q=0.2, zstd;q=0.3", both, "zstd"},
		{"gzip;q=0.5", both, "gzip"},               // unnamed identity ranks last
		{"gzip;q=0.5, identity", both, ""},         // named identity ranks by its q
		{"gzip;q=1.0, identity;q=1", both, "gzip"}, // ties go to the coding
		{"gzip;q=0", both, ""},
		{"gzip;q=0.000", both, ""},
		{"gzip;q=0.001", both, "gzip"},
		{"identity", both, ""},
		{"identity;q=0", both, ""}, // nothing acceptable: identity all the same
		{"br, deflate", both, ""},
		{"*", both, "zstd"},
		{"*;q=0", both, ""},
		{"*;q=0.5, zstd;q=0", both, "gzip"},
		{"*, gzip;q=0", both, "zstd"},
		{"zstd", gzOnly, ""},
		{"*", gzOnly, "gzip"},
		{"gzip, zstd", none, ""},
		{" gzip ; q=0.8 , zstd ; Q=0.9 ", both, "zstd"},
		{"gzip;level=1;q=0.9", both, "gzip"},
		{"gzip;q=2", both, ""},      // not a qvalue: accepts nothing
		{"gzip;q=0.1234", both, ""}, // too many digits
		{"gzip;q=abc", both, ""},
		{"gzip;q=1.5", both, "gzip"}, // RFC allows only 1.000; capped at 1
		{",,gzip,", both, "gzip"},
	} {
		got := ""
		if enc := negotiateEncoding(tc.accept, tc.ex); enc != nil {
			got = enc.Coding
		}
		if got != tc.want {
			t.Errorf("negotiateEncoding(%q) = %q, want %q", tc.accept, got, tc.want)
		}
	}
	if n := testing.AllocsPerRun(100, func() { negotiateEncoding("gzip;q=0.5, zstd, identity;q=0.1, *;q=0", both) }); n != 0 {
		t.Errorf("negotiateEncoding allocates %v times", n)
	}
}

// TestServeExportEncodings checks the export answer in each content coding:
// its Content-Encoding, ETag of its own, a body that decodes to the identity
// bytes, Vary, and If-None-Match matching only the encoding's own ETag.
func TestServeExportEncodings(t *testing.T) {
	f := newFixture(t, nil)
	_, stored, err := f.db.FindExport(f.ctx, f.project.ID, 2, "nginx")
	f.ok(err)
	if len(stored.Encodings) != 2 {
		t.Fatalf("the deployment has %d encodings, want zstd and gzip", len(stored.Encodings))
	}
	q := Req{Method: "GET", Path: "/v1/export", RawQuery: "project=" + f.project.ID + "&format=nginx", APIKey: f.secret}
	etags := map[string]string{}
	for _, tc := range []struct{ accept, coding string }{
		{"", ""}, {"gzip", "gzip"}, {"zstd", "zstd"}, {"gzip, zstd", "zstd"}, {"identity", ""}, {"br", ""},
	} {
		q := q
		q.AcceptEncoding = tc.accept
		w := f.handleReq(&q)
		wantETag := redirects.EncodingETag(stored.ETag, tc.coding)
		if w.Status != 200 || header(w, "Content-Encoding") != tc.coding || header(w, "ETag") != wantETag || header(w, "Vary") != "X-API-Key, Accept-Encoding" {
			t.Fatalf("Accept-Encoding %q: %d, Content-Encoding %q, ETag %q, Vary %q; want 200, %q, %q, Accept-Encoding in Vary",
				tc.accept, w.Status, header(w, "Content-Encoding"), header(w, "ETag"), header(w, "Vary"), tc.coding, wantETag)
		}
		if body, err := coding.Decode(tc.coding, w.Body); err != nil || !bytes.Equal(body, stored.Body) {
			t.Errorf("Accept-Encoding %q: the body decodes to %d bytes (%v), want the identity %d bytes", tc.accept, len(body), err, len(stored.Body))
		}
		if tc.coding != "" && bytes.Equal(w.Body, stored.Body) {
			t.Errorf("Accept-Encoding %q: the identity bytes were sent as %s", tc.accept, tc.coding)
		}
		etags[tc.coding] = wantETag
	}
	if etags[""] != stored.ETag || etags["gzip"] == etags["zstd"] || etags["gzip"] == etags[""] {
		t.Fatalf("ETags %v are not one per encoding with the identity one unchanged (%s)", etags, stored.ETag)
	}
	for _, c := range []string{"", "gzip", "zstd"} {
		for _, held := range []string{"", "gzip", "zstd"} {
			q := q
			q.AcceptEncoding, q.IfNoneMatch = c, etags[held]
			w := f.handleReq(&q)
			want := 200
			if c == held {
				want = 304
			}
			if w.Status != want || header(w, "ETag") != etags[c] || header(w, "Vary") != varyExport {
				t.Errorf("Accept-Encoding %q, If-None-Match %s: %d, ETag %q, Vary %q; want %d with %s", c, etags[held], w.Status, header(w, "ETag"), header(w, "Vary"), want, etags[c])
			}
			if want == 304 && (len(w.Body) != 0 || header(w, "Content-Encoding") != "") {
				t.Errorf("Accept-Encoding %q: 304 with %d bytes, Content-Encoding %q", c, len(w.Body), header(w, "Content-Encoding"))
			}
		}
	}
}

// TestEnginesExportEncodings downloads an export over real connections on
// 127.0.0.1 through both engines, with a client that neither asks for nor
// decodes compression on its own, so it sees the bytes on the wire.
func TestEnginesExportEncodings(t *testing.T) {
	for _, engine := range []string{"evhttp", "net/http"} {
		t.Run(engine, func(t *testing.T) {
			if engine == "evhttp" && runtime.GOOS != "linux" {
				t.Skip("evhttp needs Linux epoll")
			}
			f := newFixture(t, nil)
			s := f.open(engine)
			_, stored, err := f.db.FindExport(f.ctx, f.project.ID, 2, "csv")
			f.ok(err)
			client := &http.Client{Transport: &http.Transport{DisableCompression: true}}
			url := "http://" + s.Addr() + "/v1/export?project=" + f.project.ID + "&format=csv"
			for _, tc := range []struct{ accept, coding string }{{"", ""}, {"gzip", "gzip"}, {"zstd;q=1, gzip;q=0.5", "zstd"}, {"identity", ""}} {
				for _, inm := range []string{"", redirects.EncodingETag(stored.ETag, tc.coding)} {
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
					h := resp.Header
					if resp.StatusCode != want || h.Get("ETag") != redirects.EncodingETag(stored.ETag, tc.coding) || h.Get("Vary") != "X-API-Key, Accept-Encoding" {
						t.Fatalf("Accept-Encoding %q, If-None-Match %q: %d, ETag %q, Vary %q; want %d", tc.accept, inm, resp.StatusCode, h.Get("ETag"), h.Get("Vary"), want)
					}
					if want == 304 {
						continue
					}
					if h.Get("Content-Encoding") != tc.coding || h.Get("Content-Length") != itoa(len(body)) {
						t.Errorf("Accept-Encoding %q: Content-Encoding %q, Content-Length %q for %d bytes", tc.accept, h.Get("Content-Encoding"), h.Get("Content-Length"), len(body))
					}
					if dec, err := coding.Decode(tc.coding, body); err != nil || !bytes.Equal(dec, stored.Body) {
						t.Errorf("Accept-Encoding %q: the body decodes to %q (%v), want %q", tc.accept, dec, err, stored.Body)
					}
				}
			}
		})
	}
}
