package http

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
	"time"
)

// TestRepeatLogKeepsOneLinePerCause: a failure that repeats every second
// for two minutes logs one line per cause per interval, each after the
// first saying how many it stands for; two causes are counted apart.
func TestRepeatLogKeepsOneLinePerCause(t *testing.T) {
	var buf bytes.Buffer
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	l := newRepeatLog(slog.New(slog.NewTextHandler(&buf, nil)), 30*time.Second, func() time.Time { return now })
	for range 120 {
		l.log(slog.LevelError, "cannot write usage to the store; will retry", "err", "down")
		l.log(slog.LevelWarn, "lost the store's change notices; polling until they return", "err", "down")
		now = now.Add(time.Second)
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 8 {
		t.Fatalf("120 s of two failures a second logged %d lines, want 8 (4 per cause):\n%s", len(lines), buf.String())
	}
	if strings.Contains(lines[0], "repeated") || !strings.Contains(lines[2], "repeated=29") {
		t.Fatalf("want the first line plain and the next with repeated=29:\n%s", buf.String())
	}
}
