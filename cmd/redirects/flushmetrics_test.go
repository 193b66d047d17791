package main_test

import (
	"io"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestFlushMetrics runs the binary: /metrics counts the flushes' work, the
// time each took and the entries it wrote, one per rule with hits and one
// per missed path, so an operator sees what the background writes cost.
func TestFlushMetrics(t *testing.T) {
	c := newCLI(t)
	_, p, key := deployed(t, c)
	s := startServeProcess(t, c)
	for _, path := range []string{"/old", "/old", "/blog/a", "/nothing-here", "/nothing-here", "/nor-here"} {
		if r := s.get(lookupURL(p, path), key); r.status != 200 && r.status != 204 {
			t.Fatalf("lookup of %s answered %d", path, r.status)
		}
	}
	metrics := func() string {
		r, err := client.Get(s.admin + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		defer r.Body.Close()
		b, err := io.ReadAll(r.Body)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	// Two rules were hit and two paths missed: the next flush (once a
	// second) writes two entries of each.
	var m string
	within(t, 10*time.Second, "the flush of the hits and misses", func() bool {
		m = metrics()
		return strings.Contains(m, `redirects_flush_rows_total{kind="hits"} 2`+"\n") &&
			strings.Contains(m, `redirects_flush_rows_total{kind="misses"} 2`+"\n")
	})
	count := regexp.MustCompile(`(?m)^redirects_flush_duration_seconds_count ([0-9]+)$`).FindStringSubmatch(m)
	if count == nil || count[1] == "0" {
		t.Errorf("/metrics counts no flush (redirects_flush_duration_seconds_count %v):\n%s", count, m)
	}
	// No rule was deleted and the database was not restored: no batch
	// entry was dropped.
	if !strings.Contains(m, "redirects_flush_hit_entries_dropped_total 0\n") {
		t.Errorf("/metrics reports no redirects_flush_hit_entries_dropped_total 0:\n%s", m)
	}
}
