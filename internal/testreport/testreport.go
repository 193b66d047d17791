// Package testreport records which external suites a test run ran and
// which it skipped, and why, so that a run of `go test ./...` that prints
// "ok" can say what it left out. A test that needs something a bare machine
// lacks (a PostgreSQL server, Chromium, nginx, ...) calls Ran when it has
// it and Skip when it does not; with REDIRECTS_TEST_REPORT naming a file,
// each call appends one line to it:
//
//	SUITE<TAB>ran|skipped<TAB>TEST<TAB>WHY
//
// .ci/run sets the variable and prints the file as a table at the end
// (Table). Without the variable the calls only skip.
package testreport

import (
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"sync"
	"testing"
)

// The suites, by the name the table gives them.
const (
	Postgres = "PostgreSQL"
	Redis    = "Redis"
	Browser  = "browser (Chromium)"
	Axe      = "axe-core"
	Worker   = "Worker (workerd)"
	NPM      = "npm reference parsers"
	Nginx    = "nginx"
	HAProxy  = "HAProxy"
	Apache   = "Apache"
	Tofu     = "tofu"
)

// Suites lists every suite in the table's order.
var Suites = []string{Postgres, Redis, Browser, Axe, Worker, NPM, Nginx, HAProxy, Apache, Tofu}

// Env names the file the records are appended to.
const Env = "REDIRECTS_TEST_REPORT"

var mu sync.Mutex

// record appends one line to the report file, if there is one.
func record(t testing.TB, suite, state, why string) {
	path := os.Getenv(Env)
	if path == "" {
		return
	}
	line := fmt.Sprintf("%s\t%s\t%s\t%s\n", suite, state, t.Name(), strings.Join(strings.Fields(why), " "))
	mu.Lock()
	defer mu.Unlock()
	// One write of one short line in append mode: the processes of one run
	// (a process per package) do not interleave their lines.
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		t.Errorf("%s: %v", Env, err)
		return
	}
	defer f.Close()
	if _, err := f.WriteString(line); err != nil {
		t.Errorf("%s: %v", Env, err)
	}
}

// Ran records that t runs against suite.
func Ran(t testing.TB, suite string) {
	t.Helper()
	record(t, suite, "ran", "")
}

// LeftOut records that t leaves suite out, and why, and goes on: for a
// part of a test that runs without it.
func LeftOut(t testing.TB, suite, why string) {
	t.Helper()
	record(t, suite, "skipped", why)
}

// Skip records that t skips suite, and why, and skips t with why.
func Skip(t testing.TB, suite, why string) {
	t.Helper()
	record(t, suite, "skipped", why)
	t.Skip(why)
}

// Line is one record of the report file.
type Line struct {
	Suite, State, Test, Why string
}

// Parse reads the records of a report file; a line that is not a record
// is an error naming it.
func Parse(r io.Reader) ([]Line, error) {
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	var out []Line
	for i, l := range strings.Split(strings.TrimRight(string(b), "\n"), "\n") {
		if l == "" {
			continue
		}
		f := strings.SplitN(l, "\t", 4)
		if len(f) != 4 || (f[1] != "ran" && f[1] != "skipped") {
			return nil, fmt.Errorf("line %d: %q is not SUITE, ran or skipped, TEST and WHY separated by tabs", i+1, l)
		}
		out = append(out, Line{f[0], f[1], f[2], f[3]})
	}
	return out, nil
}

// Table writes, for each suite of Suites and any other the lines name, how
// many tests ran against it and how many skipped it, with the reasons
// given (each once, the most frequent first); a suite no test named is
// "not reported". It returns the suites that ran no test.
func Table(w io.Writer, lines []Line) (notRun []string) {
	type row struct {
		ran, skipped int
		why          map[string]int
	}
	rows := map[string]*row{}
	order := append([]string(nil), Suites...)
	for _, l := range lines {
		r := rows[l.Suite]
		if r == nil {
			r = &row{why: map[string]int{}}
			rows[l.Suite] = r
			known := false
			for _, s := range Suites {
				known = known || s == l.Suite
			}
			if !known {
				order = append(order, l.Suite)
			}
		}
		if l.State == "ran" {
			r.ran++
		} else {
			r.skipped++
			r.why[l.Why]++
		}
	}
	width := 0
	for _, s := range order {
		width = max(width, len(s))
	}
	fmt.Fprintf(w, "%-*s  %-5s  %-7s  %s\n", width, "SUITE", "RAN", "SKIPPED", "WHY")
	for _, s := range order {
		r := rows[s]
		if r == nil {
			fmt.Fprintf(w, "%-*s  %-5s  %-7s  %s\n", width, s, "-", "-", "not reported: no test of this run uses it")
			notRun = append(notRun, s)
			continue
		}
		whys := make([]string, 0, len(r.why))
		for why := range r.why {
			whys = append(whys, why)
		}
		sort.Slice(whys, func(i, j int) bool {
			if r.why[whys[i]] != r.why[whys[j]] {
				return r.why[whys[i]] > r.why[whys[j]]
			}
			return whys[i] < whys[j]
		})
		if len(whys) > 3 {
			whys = append(whys[:3], fmt.Sprintf("and %d more", len(whys)-3))
		}
		fmt.Fprintf(w, "%-*s  %-5d  %-7d  %s\n", width, s, r.ran, r.skipped, strings.Join(whys, "; "))
		if r.ran == 0 {
			notRun = append(notRun, s)
		}
	}
	return notRun
}
