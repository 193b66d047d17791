package main_test

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"redirects/importer"
	"redirects/internal/hostileimport"
	"redirects/plan"
)

// resourceSize is the size of each hostile file of the resource tests:
// 100 MB, or REDIRECTS_TEST_RESOURCES_MB.
func resourceSize(t *testing.T) int64 {
	t.Helper()
	if os.Getenv("REDIRECTS_TEST_RESOURCES") == "" {
		t.Skip("sends 100 MB hostile files of every shape and format (some minutes on 2 cores); set REDIRECTS_TEST_RESOURCES=1, as .ci/run does")
	}
	if mb, err := strconv.Atoi(os.Getenv("REDIRECTS_TEST_RESOURCES_MB")); err == nil && mb > 0 {
		return int64(mb) << 20
	}
	return 100 << 20
}

// TestHostileImportsBoundTheNode (issue #31): every hostile shape of every
// format the import route reads (hostileimport.Shapes: one line, many
// lines, lines of a megabyte, deep nesting, a structure left open, a huge
// header), 100 MB each, sent with dry_run=true through the management API
// of a real serve on a SQLite file with an editor's token: the node stays
// up (a lookup answers after each), its RSS grows by less than 4 times the
// file's size, the answer is under 1 MiB, and the node stops within a
// second of the answer, or of the client leaving a slow import after a
// second: it is idle in the second after that (CPU ticks counted, not
// wall-clock time).
// A file that makes the node's RSS grow past 10 times its size is cut by
// the client, so that a runaway import cannot take the machine.
func TestHostileImportsBoundTheNode(t *testing.T) {
	size := resourceSize(t)
	c := newCLI(t)
	org, p, key := deployed(t, c)
	token := c.ok("token", "create", "--org", org, "--role", "editor", "--name", "hostile")
	s := startManageProcess(t, c, nil)
	node := func() hostileimport.Node {
		return hostileimport.Node{PID: s.pid, Manage: s.manage, Project: p, Token: token}
	}
	lookup := func() error {
		req, _ := http.NewRequest("GET", s.base+lookupURL(p, "/old"), nil)
		req.Header.Set("X-API-Key", key)
		res, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
		if err != nil {
			return err
		}
		res.Body.Close()
		if res.StatusCode != 200 {
			return fmt.Errorf("status %d", res.StatusCode)
		}
		return nil
	}
	// restart gives the next shape a node of its own.
	restart := func() {
		syscall.Kill(s.pid, syscall.SIGKILL)
		s = startManageProcess(t, c, nil)
	}
	const idle = 20 // clock ticks (0.2 s) of CPU in the second measured
	for _, shape := range hostileimport.Shapes(importer.FormatNames()[1:]) {
		t.Run(shape.Name, func(t *testing.T) {
			check := func(r hostileimport.Result) {
				t.Helper()
				t.Logf("%s: %d, reply %d bytes, sent %d MiB in %s, RSS %d MiB + %d MiB, %d ticks after; cut: %q; %.160q",
					r.Shape, r.Status, r.Reply, r.Sent>>20, r.Took.Round(time.Millisecond), r.Before>>20, r.Growth>>20, r.IdleTicks, r.Cut, r.Excerpt)
				if r.Growth >= 4*size {
					t.Errorf("%s: the node's RSS grew by %d MiB; want under 4 times the file's %d MiB", r.Shape, r.Growth>>20, size>>20)
				}
				if r.Reply >= 1<<20 {
					t.Errorf("%s: the answer has %d bytes; want under 1 MiB", r.Shape, r.Reply)
				}
				if r.IdleTicks > idle || r.IdleTicks < 0 {
					t.Errorf("%s: the node used %d ticks of CPU in the second after the answer or the client leaving; want at most %d (idle)", r.Shape, r.IdleTicks, idle)
				}
			}
			r := hostileimport.Send(node(), shape, size, hostileimport.Options{})
			check(r)
			if r.Cut != "" {
				t.Errorf("%s: the client cut the import: %s", r.Shape, r.Cut)
			}
			if r.Status == 0 && r.Cut == "" {
				t.Errorf("%s: no answer: %v", r.Shape, r.Err)
			}
			if r.Took > time.Second && r.Cut == "" {
				// A slow shape: the client leaves after a second.
				check(hostileimport.Send(node(), shape, size, hostileimport.Options{CutAfter: time.Second}))
			}
			if err := lookup(); err != nil {
				t.Errorf("%s: a lookup after the import: %v; want the node up", shape.Name, err)
			}
			// A node of its own for each shape: Go keeps the heap an
			// import grew, so a node that took one shape would take the
			// next within it, and its growth would read as none.
			restart()
		})
	}
}

// TestHostilePlanFilesBoundTheCLI (issue #31): redirects plan of a project
// file whose rulesFile is a 100 MB hostile draft CSV (the shapes of the
// draft import route), and of a hostile project file just under its 64 MiB
// cap (deep nesting of arrays and objects, one line, many rules), fails
// with an error under 1 MiB (a file of good rules may be planned instead)
// and a peak RSS (the child's rusage) less than 4 times the file's size
// above that of a plan of a small file. A plan whose RSS passes 10
// times the size is killed, so that it cannot take the machine.
func TestHostilePlanFilesBoundTheCLI(t *testing.T) {
	size := resourceSize(t)
	c := newCLI(t)
	_, p, _ := deployed(t, c)
	dir := t.TempDir()
	run := func() (code int, out, errs int64, stderr string, maxRSS int64, killed bool) {
		t.Helper()
		r := runMeasured(t, c, 10*size+(256<<20), "plan", "-f", filepath.Join(dir, "project.json"))
		return r.code, r.out, r.errs, r.stderr, r.maxRSS, r.killed
	}
	write := func(name string, r io.Reader) {
		t.Helper()
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.Copy(f, r); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
	}
	write("rules.csv", strings.NewReader("source,destination,statusCode,matchType\n/old,/new,301,exact\n"))
	write("project.json", strings.NewReader(`{"project":"`+p+`","rulesFile":"rules.csv"}`))
	code, _, _, stderr, base, _ := run()
	if code != 0 && code != 2 {
		t.Fatalf("plan of a small project file: exit %d: %s", code, stderr)
	}
	t.Logf("plan of a small project file: peak RSS %d MiB", base>>20)
	for _, shape := range hostileimport.PlanShapes() {
		t.Run(shape.Name, func(t *testing.T) {
			shape.Head = strings.ReplaceAll(shape.Head, "PROJECT", p)
			fileSize := size
			if strings.HasPrefix(shape.Name, "rulesFile/") {
				write("project.json", strings.NewReader(`{"project":"`+p+`","rulesFile":"rules.csv"}`))
				write("rules.csv", shape.Reader(size))
			} else {
				// Under plan.MaxFileSize, so that the file is parsed
				// rather than refused for its size.
				fileSize = min(size, plan.MaxFileSize-1<<20)
				write("project.json", shape.Reader(fileSize))
			}
			code, out, errs, stderr, rss, killed := run()
			t.Logf("%s: exit %d, stdout %d bytes, stderr %d bytes, peak RSS %d MiB (%d above a small file's): %.200q",
				shape.Name, code, out, errs, rss>>20, (rss-base)>>20, stderr)
			if killed {
				t.Errorf("%s: plan's RSS passed %d MiB and it was killed", shape.Name, (10*size+(256<<20))>>20)
			}
			if rss-base >= 4*fileSize {
				t.Errorf("%s: plan's peak RSS is %d MiB above a small file's; want under 4 times the file's %d MiB", shape.Name, (rss-base)>>20, fileSize>>20)
			}
			if strings.HasSuffix(shape.Name, "/many-rules") && code == 2 {
				return // a file of good rules, planned: its list is as long as it is
			}
			if out+errs >= 1<<20 {
				t.Errorf("%s: plan wrote %d bytes; want under 1 MiB", shape.Name, out+errs)
			}
			if code != 1 {
				t.Errorf("%s: plan exit %d; want 1, the file refused", shape.Name, code)
			}
		})
	}
}

// measured is what runMeasured saw of a command.
type measured struct {
	code      int
	out, errs int64
	stderr    string
	maxRSS    int64
	killed    bool
}

// runMeasured runs the binary with args and returns its exit code, the
// sizes of its outputs, the first MiB of its standard error and its peak
// RSS (rusage); it kills the process once its RSS passes abort.
func runMeasured(t *testing.T, c *cli, abort int64, args ...string) measured {
	t.Helper()
	cmd := c.command(args...)
	var so, se countingBuffer
	cmd.Stdout, cmd.Stderr = &so, &se
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done, watched := make(chan struct{}), make(chan bool)
	go func() {
		for {
			select {
			case <-done:
				watched <- false
				return
			case <-time.After(20 * time.Millisecond):
			}
			if rss, err := hostileimport.Proc(cmd.Process.Pid, "VmRSS"); err == nil && rss > abort {
				cmd.Process.Kill()
				<-done
				watched <- true
				return
			}
		}
	}()
	cmd.Wait()
	close(done)
	m := measured{killed: <-watched, code: cmd.ProcessState.ExitCode(), out: so.n, errs: se.n, stderr: se.buf.String()}
	if ru, _ := cmd.ProcessState.SysUsage().(*syscall.Rusage); ru != nil {
		m.maxRSS = ru.Maxrss << 10
	}
	return m
}

// countingBuffer keeps the first MiB written to it and counts the rest.
type countingBuffer struct {
	buf bytes.Buffer
	n   int64
}

func (b *countingBuffer) Write(p []byte) (int, error) {
	if room := 1<<20 - b.buf.Len(); room > 0 {
		b.buf.Write(p[:min(len(p), room)])
	}
	b.n += int64(len(p))
	return len(p), nil
}

// TestHostileRuleImportBoundsTheCLI (issue #31): redirects rule import
// --dry-run of a 100 MB hostile draft CSV of each shape but many good
// rules (which the command imports, as many as the file holds) fails with
// an error under 1 MiB and a peak RSS less than 4 times the file's size
// above that of an import of a small file: it keeps only the bad lines the
// terminal shows (it held every one: 5 million bad lines took more than
// 1 GiB).
func TestHostileRuleImportBoundsTheCLI(t *testing.T) {
	size := resourceSize(t)
	c := newCLI(t)
	_, p, _ := deployed(t, c)
	file := filepath.Join(t.TempDir(), "rules.csv")
	write := func(r io.Reader) {
		t.Helper()
		f, err := os.Create(file)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.Copy(f, r); err != nil {
			t.Fatal(err)
		}
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
	}
	write(strings.NewReader("source,destination,statusCode,matchType\n/a,/b,301,exact\n"))
	abort := 10*size + (256 << 20)
	base := runMeasured(t, c, abort, "rule", "import", "--project", p, "--dry-run", file)
	if base.code != 0 {
		t.Fatalf("rule import --dry-run of a small file: exit %d: %s", base.code, base.stderr)
	}
	for _, shape := range hostileimport.Shapes(nil) {
		if shape.Name == "draft/many-rules" {
			continue
		}
		t.Run(shape.Name, func(t *testing.T) {
			write(shape.Reader(size))
			r := runMeasured(t, c, abort, "rule", "import", "--project", p, "--dry-run", file)
			t.Logf("%s: exit %d, stderr %d bytes, peak RSS %d MiB (%d above a small file's): %.200q", shape.Name, r.code, r.errs, r.maxRSS>>20, (r.maxRSS-base.maxRSS)>>20, r.stderr)
			if r.killed {
				t.Errorf("%s: rule import's RSS passed %d MiB and it was killed", shape.Name, abort>>20)
			}
			if r.maxRSS-base.maxRSS >= 4*size {
				t.Errorf("%s: rule import's peak RSS is %d MiB above a small file's; want under 4 times the file's %d MiB", shape.Name, (r.maxRSS-base.maxRSS)>>20, size>>20)
			}
			if r.code != 1 || r.out+r.errs >= 1<<20 {
				t.Errorf("%s: exit %d, %d bytes written; want 1, with an error under 1 MiB", shape.Name, r.code, r.out+r.errs)
			}
		})
	}
}
