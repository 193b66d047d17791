package main_test

import (
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"redirects/internal/hostileimport"
)

// reportSize is the size of each file of the report resource test: 16 MB,
// or REDIRECTS_TEST_REPORT_MB.
func reportSize(t *testing.T) int64 {
	t.Helper()
	if os.Getenv("REDIRECTS_TEST_RESOURCES") == "" {
		t.Skip("sends 16 MB files of listed lines to a node; set REDIRECTS_TEST_RESOURCES=1, as .ci/run does")
	}
	if mb, err := strconv.Atoi(os.Getenv("REDIRECTS_TEST_REPORT_MB")); err == nil && mb > 0 {
		return int64(mb) << 20
	}
	return 16 << 20
}

// TestImportReportsBoundTheNode: a 16 MB file whose every line the report
// lists (skipped lines of apache, nginx, netlify and vercel files, changed
// lines of an Apache one), sent with dry_run=true through the management
// API of a real serve, is answered 200 with the whole report, and grows
// the node's RSS by less than reportBound times the file's size (it grew
// by 15 to 36 times when the answer was built whole in memory and each
// listed line held a note of its own; BENCHMARKS.md has the figures). The
// answer's size is logged; so are the CLI's rule import --from --dry-run
// --json output and peak RSS for the same file.
func TestImportReportsBoundTheNode(t *testing.T) {
	size := reportSize(t)
	c := newCLI(t)
	org, p, _ := deployed(t, c)
	token := c.ok("token", "create", "--org", org, "--role", "editor", "--name", "reports")
	file := filepath.Join(t.TempDir(), "file")
	for _, shape := range hostileimport.ReportShapes() {
		t.Run(shape.Name, func(t *testing.T) {
			s := startManageProcess(t, c, nil)
			node := hostileimport.Node{PID: s.pid, Manage: s.manage, Project: p, Token: token}
			r := hostileimport.Send(node, shape, size, hostileimport.Options{ReplyLimit: 4 << 10, Abort: 32 * size})
			t.Logf("%s: %d, reply %d bytes, sent %d MiB in %s, RSS %d MiB + %d MiB; cut: %q; %.160q",
				r.Shape, r.Status, r.Reply, r.Sent>>20, r.Took.Round(time.Millisecond), r.Before>>20, r.Growth>>20, r.Cut, r.Excerpt)
			// The answer is written as it goes, its status first: the whole
			// of it came when the body ended without an error, in the
			// report's last brace.
			if r.Status != 200 || r.Err != nil || r.Cut != "" || !strings.HasSuffix(r.Tail, "}\n") {
				t.Errorf("%s: status %d, error %v, cut %q, ending %q; want 200 and the whole report", r.Shape, r.Status, r.Err, r.Cut, r.Tail)
			}
			bound := reportBound(shape.Name)
			if r.Growth >= bound*size {
				t.Errorf("%s: the node's RSS grew by %d MiB; want under %d times the file's %d MiB", r.Shape, r.Growth>>20, bound, size>>20)
			}

			f, err := os.Create(file)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := io.Copy(f, shape.Reader(size)); err != nil {
				t.Fatal(err)
			}
			f.Close()
			m := runMeasured(t, c, 10*size+(256<<20), "rule", "import", "--project", p, "--from", shape.From, "--dry-run", "--json", file)
			t.Logf("%s: CLI --json: exit %d, %d bytes out, peak RSS %d MiB", shape.Name, m.code, m.out, m.maxRSS>>20)
			if m.code != 0 {
				t.Errorf("%s: CLI exit %d: %.300s", shape.Name, m.code, m.stderr)
			}
		})
	}
}

// reportBound is how many times a file's size a node may grow by for its
// report. A listed line is held as an importer.Outcome (80 bytes) and its
// text until the answer is written: lines of 40 bytes, skipped in the same
// words, cost a node some 6 times their size; a Netlify rewrite's note
// names its destination, a line of its own each, and the changed Apache
// lines are rules as well.
func reportBound(shape string) int64 {
	switch shape {
	case "netlify/skipped", "apache/changed":
		return 24
	}
	return 10
}
