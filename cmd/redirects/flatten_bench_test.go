package main_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"redirects"
	"redirects/export"
	"redirects/internal/rulegen"
)

// BenchmarkLintFixChains1M is flattening end to end, as a user runs it: the
// real binary, `redirects lint --fix chains` and then with `--write`, on a
// SQLite file whose draft is a million rules (rulegen.Rules(1_000_000, 0.3,
// 1) with chains made as `bench/gencsv -chains` makes them: every tenth
// rule pointed at another rule's source, every thirtieth a 302), the
// project's hosts two of the generator's. Each iteration flattens a fresh
// copy of the imported file. It reports each command's CPU time (user and
// system, from the child's rusage: on a shared machine the figure to
// compare) and its wall time, and fails unless --write rewrote the rules
// the dry command listed and the undo record takes the change back.
//
//	go test -run '^$' -bench LintFixChains1M -benchtime 1x ./cmd/redirects
func BenchmarkLintFixChains1M(b *testing.B) {
	dir := b.TempDir()
	bin := filepath.Join(dir, "redirects")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		b.Fatalf("building redirects: %v\n%s", err, out)
	}
	rules := rulegen.Rules(1_000_000, 0.3, 1)
	n := len(rules)
	for i := range rules {
		r := &rules[i]
		if r.StatusCode == redirects.StatusGone {
			continue
		}
		if i%10 == 0 {
			r.Destination = rules[(i*7+13)%n].Source
		}
		if i%30 == 0 {
			r.StatusCode = 302
		}
	}
	csvPath := filepath.Join(dir, "rules.csv")
	f, err := os.Create(csvPath)
	if err != nil {
		b.Fatal(err)
	}
	if err := export.WriteCSV(f, rules); err != nil {
		b.Fatal(err)
	}
	f.Close()
	seed := filepath.Join(dir, "seed.db")
	run := func(db string, args ...string) (string, string, time.Duration, time.Duration) {
		b.Helper()
		cmd := exec.Command(bin, args...)
		cmd.Env = append(os.Environ(), "REDIRECTS_DB=sqlite:"+db)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		start := time.Now()
		if err := cmd.Run(); err != nil {
			b.Fatalf("redirects %s: %v\n%s", strings.Join(args, " "), err, errb.String())
		}
		wall := time.Since(start)
		ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
		cpu := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
		return out.String(), errb.String(), cpu, wall
	}
	org, _, _, _ := run(seed, "org", "create", "--name", "bench", "--tier", "enterprise")
	project, _, _, _ := run(seed, "project", "create", "--org", strings.TrimSpace(org), "--name", "flatten",
		"--host", "www.example.com", "--host", "shop.example.org")
	project = strings.TrimSpace(project)
	run(seed, "rule", "import", "--project", project, csvPath)
	seedBytes, err := os.ReadFile(seed)
	if err != nil {
		b.Fatal(err)
	}

	var dryCPU, writeCPU, dryWall, writeWall time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		db := filepath.Join(dir, "flatten.db")
		for _, suffix := range []string{"", "-wal", "-shm"} {
			os.Remove(db + suffix)
		}
		if err := os.WriteFile(db, seedBytes, 0o600); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		diff, dryErr, cpu, wall := run(db, "lint", "--project", project, "--fix", "chains")
		dryCPU, dryWall = dryCPU+cpu, dryWall+wall
		wdiff, wErr, cpu, wall := run(db, "lint", "--project", project, "--fix", "chains", "--write")
		writeCPU, writeWall = writeCPU+cpu, writeWall+wall
		b.StopTimer()
		if diff != wdiff || strings.Count(diff, "\n@@ ") == 0 {
			b.Fatalf("--write printed another diff than the dry command (%d and %d bytes), or none", len(diff), len(wdiff))
		}
		if !strings.Contains(dryErr, "to rewrite") || !strings.Contains(wErr, "rewritten") {
			b.Fatalf("summaries: %q, %q", lastLine(dryErr), lastLine(wErr))
		}
		// The undo record restores the draft: the million rules are back.
		undo := wErr[strings.LastIndex(wErr, "--import ")+len("--import "):]
		out, _, _, _ := run(db, "rule", "undo-import", "--project", project, "--import", strings.TrimSpace(undo))
		if strings.TrimSpace(out) != "1000000" {
			b.Fatalf("undo-import restored %q rules, want 1000000", out)
		}
		b.StartTimer()
	}
	b.ReportMetric(dryCPU.Seconds()/float64(b.N), "fix-cpu-s/op")
	b.ReportMetric(dryWall.Seconds()/float64(b.N), "fix-wall-s/op")
	b.ReportMetric(writeCPU.Seconds()/float64(b.N), "write-cpu-s/op")
	b.ReportMetric(writeWall.Seconds()/float64(b.N), "write-wall-s/op")
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	return s[strings.LastIndex(s, "\n")+1:]
}
