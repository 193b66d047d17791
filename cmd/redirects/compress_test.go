package main_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"os/exec"
	"strings"
	"testing"
	"time"

	"redirects/internal/coding"
)

func TestEdgeExportCompressed(t *testing.T) { eachEngine(t, testEdgeExportCompressed) }

// testEdgeExportCompressed downloads an export from the real server with a
// client that neither asks for nor decodes compression itself, so it sees
// the bytes on the wire: each encoding decodes (gzip with the standard
// library's reader) to the CLI's identity bytes, with its own ETag and 304.
// With curl installed, curl --compressed gets the same file.
func testEdgeExportCompressed(t *testing.T, c *cli) {
	_, p, key := deployed(t, c)
	e := startEdge(t, c, atClockStart)
	target := "/v1/export?project=" + p + "&format=nginx"
	want := c.exec("", "export", "--project", p, "--format", "nginx").stdout
	raw := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{DisableCompression: true}}
	get := func(accept, ifNoneMatch string) (*http.Response, []byte) {
		t.Helper()
		req, err := http.NewRequest("GET", e.base+target, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("X-API-Key", key)
		if accept != "" {
			req.Header.Set("Accept-Encoding", accept)
		}
		if ifNoneMatch != "" {
			req.Header.Set("If-None-Match", ifNoneMatch)
		}
		resp, err := raw.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if err != nil {
			t.Fatal(err)
		}
		return resp, b
	}

	resp, body := get("", "")
	identity := resp.Header.Get("ETag")
	if resp.StatusCode != 200 || string(body) != want || resp.Header.Get("Content-Encoding") != "" {
		t.Fatalf("no Accept-Encoding: %d, Content-Encoding %q, %d bytes; want the CLI's %d bytes uncompressed", resp.StatusCode, resp.Header.Get("Content-Encoding"), len(body), len(want))
	}
	for _, tc := range []struct{ accept, coding string }{{"gzip", "gzip"}, {"zstd", "zstd"}, {"gzip;q=0.5, zstd", "zstd"}, {"identity", ""}} {
		resp, body := get(tc.accept, "")
		h := resp.Header
		wantETag := identity
		if tc.coding != "" {
			wantETag = strings.TrimSuffix(identity, `"`) + "-" + tc.coding + `"`
		}
		if resp.StatusCode != 200 || h.Get("Content-Encoding") != tc.coding || h.Get("ETag") != wantETag || h.Get("Vary") != "X-API-Key, Accept-Encoding" {
			t.Fatalf("Accept-Encoding %q: %d, Content-Encoding %q, ETag %q, Vary %q; want 200, %q, %s", tc.accept, resp.StatusCode, h.Get("Content-Encoding"), h.Get("ETag"), h.Get("Vary"), tc.coding, wantETag)
		}
		var dec []byte
		var err error
		if tc.coding == "gzip" {
			var zr *gzip.Reader
			if zr, err = gzip.NewReader(bytes.NewReader(body)); err == nil {
				dec, err = io.ReadAll(zr)
			}
		} else {
			dec, err = coding.Decode(tc.coding, body)
		}
		if err != nil || string(dec) != want {
			t.Fatalf("Accept-Encoding %q: the body decodes to %q (%v), want the CLI's %q", tc.accept, dec, err, want)
		}
		nm, nb := get(tc.accept, wantETag)
		if nm.StatusCode != 304 || len(nb) != 0 || nm.Header.Get("ETag") != wantETag || nm.Header.Get("Vary") != "X-API-Key, Accept-Encoding" {
			t.Fatalf("Accept-Encoding %q with its ETag: %d, %d bytes, ETag %q, Vary %q; want 304", tc.accept, nm.StatusCode, len(nb), nm.Header.Get("ETag"), nm.Header.Get("Vary"))
		}
		if tc.coding != "" {
			if other, _ := get(tc.accept, identity); other.StatusCode != 200 {
				t.Fatalf("Accept-Encoding %q with the identity ETag: %d, want 200 (another representation)", tc.accept, other.StatusCode)
			}
		}
	}

	curl, err := exec.LookPath("curl")
	if err != nil {
		t.Log("curl not installed: skipping the curl --compressed download")
		return
	}
	out, err := exec.Command(curl, "-sS", "--compressed", "-D", "-", "-o", "/dev/null", "-H", "X-API-Key: "+key, e.base+target).Output()
	if err != nil {
		t.Fatalf("curl --compressed: %v", err)
	}
	if !strings.Contains(strings.ToLower(string(out)), "content-encoding: ") {
		t.Fatalf("curl --compressed got no compressed answer:\n%s", out)
	}
	body, err = exec.Command(curl, "-sS", "--compressed", "-H", "X-API-Key: "+key, e.base+target).Output()
	if err != nil || string(body) != want {
		t.Fatalf("curl --compressed: %q (%v), want the CLI's %q", body, err, want)
	}
}
