package testreport

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRecordsAndTable: Ran, LeftOut and Skip append their lines to the
// file REDIRECTS_TEST_REPORT names (Skip skipping the test), Parse reads
// them back, and Table counts each suite's tests with the reasons they
// skipped, and names the suites that ran no test.
func TestRecordsAndTable(t *testing.T) {
	path := filepath.Join(t.TempDir(), "report")
	t.Setenv(Env, path)
	Ran(t, Postgres)
	Ran(t, Postgres)
	LeftOut(t, Axe, "REDIRECTS_TEST_AXE is not set")
	skipped := t.Run("skips", func(t *testing.T) {
		Skip(t, Nginx, "nginx is not on PATH")
		t.Error("Skip did not skip")
	})
	if !skipped {
		t.Fatal("the subtest failed")
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	lines, err := Parse(f)
	if err != nil {
		t.Fatal(err)
	}
	want := []Line{
		{Postgres, "ran", t.Name(), ""},
		{Postgres, "ran", t.Name(), ""},
		{Axe, "skipped", t.Name(), "REDIRECTS_TEST_AXE is not set"},
		{Nginx, "skipped", t.Name() + "/skips", "nginx is not on PATH"},
	}
	if len(lines) != len(want) {
		t.Fatalf("lines %+v, want %+v", lines, want)
	}
	for i := range want {
		if lines[i] != want[i] {
			t.Errorf("line %d: %+v, want %+v", i, lines[i], want[i])
		}
	}
	var b bytes.Buffer
	notRun := Table(&b, lines)
	rows := map[string]string{}
	for _, l := range strings.Split(b.String(), "\n") {
		for _, s := range Suites {
			if strings.HasPrefix(l, s+" ") {
				rows[s] = strings.Join(strings.Fields(strings.TrimPrefix(l, s)), " ")
			}
		}
	}
	for suite, row := range map[string]string{
		Postgres: "2 0",
		Axe:      "0 1 REDIRECTS_TEST_AXE is not set",
		Nginx:    "0 1 nginx is not on PATH",
		Redis:    "- - not reported: no test of this run uses it",
	} {
		if rows[suite] != row {
			t.Errorf("the table's %s row is %q, want %q; table:\n%s", suite, rows[suite], row, b.String())
		}
	}
	if len(notRun) != len(Suites)-1 || strings.Contains(strings.Join(notRun, ","), Postgres) {
		t.Errorf("suites that ran no test: %q, want all but %s", notRun, Postgres)
	}
}

// TestParseRefusesOtherLines: a line that is not a record is an error
// naming its number.
func TestParseRefusesOtherLines(t *testing.T) {
	_, err := Parse(strings.NewReader("nginx\tran\tTestX\t\nnot a record\n"))
	if err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Fatalf("err %v, want one naming line 2", err)
	}
}

// TestEverySuiteIsRecorded: .ci/run names the report file and prints the
// table whatever its exit status, and every suite is recorded somewhere:
// tofu by .ci/run after the provider's tests, each other by a test file
// of the module that calls Ran and Skip (or LeftOut) with it.
func TestEverySuiteIsRecorded(t *testing.T) {
	ci, err := os.ReadFile("../../.ci/run")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`export REDIRECTS_TEST_REPORT=`, `trap suites_table EXIT`, `go run ./internal/testreport/cmd/testreport "$REDIRECTS_TEST_REPORT"`, `printf 'tofu\tran\t`} {
		if !strings.Contains(string(ci), want) {
			t.Errorf(".ci/run has no %q", want)
		}
	}
	names := map[string]string{Postgres: "Postgres", Redis: "Redis", Browser: "Browser", Axe: "Axe", Worker: "Worker", NPM: "NPM", Nginx: "Nginx", HAProxy: "HAProxy", Apache: "Apache"}
	ran, skipped := map[string]bool{}, map[string]bool{}
	err = filepath.WalkDir("../..", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || d.Name() == ".git" || d.Name() == "terraform-provider-redirects" || d.Name() == "testreport") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		src := string(b)
		for _, c := range names {
			ran[c] = ran[c] || strings.Contains(src, "testreport.Ran(t, testreport."+c+")")
			skipped[c] = skipped[c] || strings.Contains(src, "testreport.Skip(t, testreport."+c+",") || strings.Contains(src, "testreport.LeftOut(t, testreport."+c+",")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	// nginx, HAProxy and Apache are recorded through servertest.LookPath,
	// by the suite its table gives the binary.
	for _, c := range []string{"Nginx", "HAProxy", "Apache"} {
		ran[c], skipped[c] = true, true
	}
	lp, err := os.ReadFile("../servertest/servertest.go")
	if err != nil {
		t.Fatal(err)
	}
	for bin, c := range map[string]string{"nginx": "Nginx", "haproxy": "HAProxy", "apache2": "Apache"} {
		if !strings.Contains(string(lp), `"`+bin+`": testreport.`+c) {
			t.Errorf("servertest.LookPath does not record %s as testreport.%s", bin, c)
		}
	}
	for _, s := range Suites {
		c, ok := names[s]
		if !ok {
			continue // tofu: .ci/run
		}
		if !ran[c] || !skipped[c] {
			t.Errorf("no test records the suite %s both when it runs (Ran) and when it skips (Skip or LeftOut): ran %v, skipped %v", s, ran[c], skipped[c])
		}
	}
}
