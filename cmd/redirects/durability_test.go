package main_test

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"redirects"
	"redirects/internal/rulegen"
)

// writeRulesCSV writes n generated rules as an import file.
func writeRulesCSV(t *testing.T, n int) string {
	t.Helper()
	f, err := os.Create(filepath.Join(t.TempDir(), "rules.csv"))
	if err != nil {
		t.Fatal(err)
	}
	w := bufio.NewWriter(f)
	fmt.Fprintln(w, "source,destination,statusCode,matchType,priority")
	for _, r := range rulegen.Rules(n, 0.5, 42) {
		fmt.Fprintf(w, "%s,%s,%d,%s,%d\n", r.Source, r.Destination, r.StatusCode, r.MatchType, r.Priority)
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return f.Name()
}

// TestKilledDeployLeavesNoPartialVersion kills the CLI at several points of a
// large deploy and checks that the database holds either no new version or
// a whole one, and that the next deploy takes the next number.
func TestKilledDeployLeavesNoPartialVersion(t *testing.T) {
	if testing.Short() {
		t.Skip("imports 100,000 rules")
	}
	c := newCLI(t)
	_, p := c.setup()
	csv := writeRulesCSV(t, 100_000)
	// The import and the first deploy run as processes too: the kills below
	// are timed by how long a deploy process takes.
	if r := c.execProcess("", "rule", "import", "--project", p, csv); r.code != 0 || strings.TrimSpace(r.stdout) != "100000" {
		t.Fatalf("import: exit %d, printed %q, stderr %s", r.code, r.stdout, r.stderr)
	}
	start := time.Now()
	if r := c.execProcess("", "deploy", "--project", p); r.code != 0 {
		t.Fatalf("deploy: exit %d, stderr %s", r.code, r.stderr)
	}
	full := time.Since(start)
	t.Logf("a whole deploy of 100,000 rules took %v", full)

	versions := 1
	killed := 0
	for i, frac := range []float64{0.3, 0.6, 0.85} {
		cmd := c.command("deploy", "--project", p, "--message", "killed "+strconv.Itoa(i))
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		began := time.Now()
		exited := make(chan struct{})
		go func() { cmd.Wait(); close(exited) }()
		select {
		case <-exited:
			// The deploy finished before its kill: deploys run faster now
			// (a busy machine calmed down), so the next kills are timed
			// by this one.
			full = time.Since(began)
		case <-time.After(time.Duration(float64(full) * frac)):
			cmd.Process.Signal(syscall.SIGKILL)
			<-exited
		}
		var deps []struct {
			Version, ExactRules, PrefixRules int
		}
		c.jsonOf(&deps, "deployments", "--project", p, "--json")
		// The kill may land before the commit (no new version) or after it
		// (a whole new version); never in between.
		switch len(deps) {
		case versions:
			killed++
		case versions + 1:
			versions++
		default:
			t.Fatalf("after kill %d: %d deployments, want %d or %d", i, len(deps), versions, versions+1)
		}
		for j, d := range deps {
			if d.Version != j+1 || d.ExactRules+d.PrefixRules != 100_000 {
				t.Fatalf("after kill %d: deployment %+v is not whole version %d", i, d, j+1)
			}
		}
	}
	if killed == 0 {
		t.Fatalf("no deploy was killed mid-way; the test proved nothing")
	}
	t.Logf("%d of 3 deploys killed mid-way", killed)
	if v := c.ok("deploy", "--project", p); v != strconv.Itoa(versions+1) {
		t.Fatalf("deploy after the kills printed %q, want %d", v, versions+1)
	}
	for _, f := range redirects.Formats {
		r := c.exec("", "export", "--project", p, "--format", f)
		if r.code != 0 || len(r.stdout) < 1000 {
			t.Fatalf("export %s of the last version: exit %d, %d bytes", f, r.code, len(r.stdout))
		}
	}
}

// TestConcurrentWriters runs several CLI processes that add rules and deploy
// at once on one SQLite file: nothing is lost, and versions have no gaps.
// They are processes because that is how the CLI meets a running server or
// another CLI: SQLite's locks between processes are what is tested.
func TestConcurrentWriters(t *testing.T) {
	c := newCLI(t)
	_, p := c.setup()
	const writers, rulesEach, deploysEach = 6, 15, 3
	var wg sync.WaitGroup
	errs := make(chan string, writers*(rulesEach+deploysEach))
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < rulesEach; i++ {
				r := c.execProcess("", "rule", "add", "--project", p, "--source", fmt.Sprintf("/w%d/r%d", w, i), "--destination", "/d")
				if r.code != 0 {
					errs <- r.stderr
				}
				if i%5 == 4 {
					r := c.execProcess("", "deploy", "--project", p)
					if r.code != 0 {
						errs <- r.stderr
					}
				}
			}
		}(w)
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Errorf("a concurrent command failed: %s", e)
	}
	var rules []struct{ Source string }
	c.jsonOf(&rules, "rule", "list", "--project", p, "--json")
	if len(rules) != writers*rulesEach {
		t.Fatalf("%d rules stored, want %d", len(rules), writers*rulesEach)
	}
	var deps []struct{ Version int }
	c.jsonOf(&deps, "deployments", "--project", p, "--json")
	if len(deps) != writers*deploysEach {
		t.Fatalf("%d deployments, want %d", len(deps), writers*deploysEach)
	}
	for i, d := range deps {
		if d.Version != i+1 {
			t.Fatalf("versions %v have a gap or duplicate at %d", deps, i)
		}
	}
	if out := c.ok("lookup", "--project", p, "--path", "/w0/r0"); !strings.Contains(out, `"destination":"/d"`) {
		t.Fatalf("latest deployment lacks an early rule: %q", out)
	}
}
