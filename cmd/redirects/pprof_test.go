package main_test

import (
	"bytes"
	"io"
	"strings"
	"testing"
)

// TestServePprofOnlyWithFlag runs the binary: Go's profiles are served on
// the admin listener with --pprof, and nowhere without it; never on the
// edge listener.
func TestServePprofOnlyWithFlag(t *testing.T) {
	c := newCLI(t)
	c.setup()
	fetch := func(url string) (int, []byte) {
		t.Helper()
		r, err := client.Get(url)
		if err != nil {
			t.Fatalf("GET %s: %v", url, err)
		}
		defer r.Body.Close()
		b, err := io.ReadAll(r.Body)
		if err != nil {
			t.Fatalf("GET %s: %v", url, err)
		}
		return r.StatusCode, b
	}

	off := startServeProcess(t, c)
	for _, base := range []string{off.admin, off.base} {
		for _, path := range []string{"/debug/pprof/", "/debug/pprof/profile?seconds=1", "/debug/pprof/heap"} {
			if code, _ := fetch(base + path); code != 404 {
				t.Errorf("without --pprof, GET %s%s answered %d, want 404", base, path, code)
			}
		}
	}

	on := startServeProcess(t, c, "--pprof")
	if code, body := fetch(on.admin + "/debug/pprof/"); code != 200 || !strings.Contains(string(body), "profile") {
		t.Errorf("with --pprof, the admin listener's /debug/pprof/ answered %d %.200q, want 200 and the index", code, body)
	}
	// A CPU profile is gzipped protocol buffers.
	if code, body := fetch(on.admin + "/debug/pprof/profile?seconds=1"); code != 200 || !bytes.HasPrefix(body, []byte{0x1f, 0x8b}) {
		t.Errorf("with --pprof, a CPU profile answered %d with %d bytes starting %x, want 200 and gzip", code, len(body), body[:min(4, len(body))])
	}
	if code, _ := fetch(on.base + "/debug/pprof/"); code != 404 {
		t.Errorf("with --pprof, the edge listener's /debug/pprof/ answered %d, want 404", code)
	}

	c.fail(2, "--pprof serves on the admin address", "serve", "--addr", "127.0.0.1:0", "--admin-addr", "", "--pprof")
}
