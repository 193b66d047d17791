package syncagent

import (
	"bytes"
	"compress/gzip"
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"redirects/export"
)

// hostileEdge serves every export request with body, under the ETag of
// unpacked (the identity ETag, as a real edge sends it), gzip-coded when
// gzipped is set, in chunks so that no Content-Length gives the size
// away.
func hostileEdge(t *testing.T, body, unpacked []byte, gzipped bool) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Redirects-Version", "7")
		w.Header().Set("ETag", export.ETag(unpacked))
		if gzipped {
			w.Header().Set("Content-Encoding", "gzip")
		}
		for b := body; len(b) > 0; {
			n := min(len(b), 64<<10)
			if _, err := w.Write(b[:n]); err != nil {
				return
			}
			w.(http.Flusher).Flush()
			b = b[n:]
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// oldFile writes the file a target keeps and returns its path.
func oldFile(t *testing.T) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "redirects.map")
	if err := os.WriteFile(out, []byte("/old /kept;\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return out
}

// assertKept fails unless the target's file still holds what oldFile wrote.
func assertKept(t *testing.T, out string) {
	t.Helper()
	if b, err := os.ReadFile(out); err != nil || string(b) != "/old /kept;\n" {
		t.Errorf("the file in place changed (err %v): %.80q", err, b)
	}
}

// TestAgentRefusesLargeExport: an export past MaxBytes, sent without a
// length, is refused with an error naming --max-bytes, and the file in
// place stays.
func TestAgentRefusesLargeExport(t *testing.T) {
	body := bytes.Repeat([]byte("/a /b;\n"), 600_000) // 4.2 MB
	out := oldFile(t)
	a := &Agent{Targets: []Target{{Name: "big", Edge: hostileEdge(t, body, body, false), Key: "redir_live_x", Project: "p", Format: "nginx-map-exact", Out: out}},
		MaxBytes: 64 << 10}
	_, err := a.Once(context.Background())
	if err == nil || !strings.Contains(err.Error(), "--max-bytes 65536") {
		t.Fatalf("Once with a 4.2 MB export and --max-bytes 65536: %v, want an error naming --max-bytes", err)
	}
	assertKept(t, out)
}

// TestAgentRefusesGzipBomb: a gzip body of a few hundred kilobytes that
// unpacks to 256 MiB is refused like a large one, and the agent reads no
// more of it than the bound.
func TestAgentRefusesGzipBomb(t *testing.T) {
	var bomb bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&bomb, gzip.BestCompression)
	zero := make([]byte, 1<<20)
	for range 256 {
		zw.Write(zero)
	}
	zw.Close()
	out := oldFile(t)
	a := &Agent{Targets: []Target{{Name: "bomb", Edge: hostileEdge(t, bomb.Bytes(), []byte("x"), true), Key: "redir_live_x", Project: "p", Format: "nginx-map-exact", Out: out}},
		MaxBytes: 1 << 20}
	runtime.GC()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err := a.Once(context.Background())
	runtime.ReadMemStats(&after)
	if err == nil || !strings.Contains(err.Error(), "--max-bytes 1048576") {
		t.Fatalf("Once with a %d-byte gzip bomb of 256 MiB: %v, want an error naming --max-bytes", bomb.Len(), err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 32<<20 {
		t.Errorf("reading a gzip bomb with --max-bytes 1 MiB allocated %d MiB, want under 32", alloc>>20)
	}
	assertKept(t, out)
}

// TestCheckEdgeTransport: a plain-http edge on another machine is refused
// with an error naming --allow-insecure-edge, and accepted with it;
// loopback and https edges need nothing. Nothing is connected to.
func TestCheckEdgeTransport(t *testing.T) {
	for _, c := range []struct {
		edge    string
		refused bool
	}{
		{"http://192.0.2.1:9", true},
		{"http://edge.example.com", true},
		{"http://[2001:db8::1]:8080", true},
		{"http://127.0.0.1:8080", false},
		{"http://127.8.9.10", false},
		{"http://[::1]:8080", false},
		{"http://localhost:8080", false},
		{"https://192.0.2.1:9", false},
	} {
		tg := Target{Name: "t", Edge: c.edge}
		err := tg.CheckEdgeTransport(false)
		if c.refused != (err != nil) || (err != nil && !strings.Contains(err.Error(), "--allow-insecure-edge")) {
			t.Errorf("edge %s: %v, want refused=%v naming --allow-insecure-edge", c.edge, err, c.refused)
		}
		if err := tg.CheckEdgeTransport(true); err != nil {
			t.Errorf("edge %s with --allow-insecure-edge: %v", c.edge, err)
		}
	}
}
