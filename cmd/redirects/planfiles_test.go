//go:build unix

package main_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"redirects"
	"redirects/manage"
	"redirects/plan"
)

// planProcess runs the binary with extra environment variables. A command
// that has not ended after a minute is killed and fails the test: a
// refusal comes at once, so this only ends a run that hangs on a pipe or
// reads a device without end.
func (c *cli) planProcess(t *testing.T, env []string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := c.command(args...)
	cmd = exec.CommandContext(ctx, cmd.Path, cmd.Args[1:]...)
	cmd.Env = append(append(os.Environ(), "REDIRECTS_DB="+c.db), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("redirects %s did not end within a minute; stderr so far: %.500s", strings.Join(args, " "), errb.String())
	}
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("running redirects %s: %v", strings.Join(args, " "), err)
	}
	return result{out.String(), errb.String(), code}
}

// writeFile writes a file of the test, failing it on an error.
func writeFile(t *testing.T, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestPlanFilesStayBesideTheProjectFile: rulesFile and testsFile name
// regular files inside the project file's folder, of at most the caps. A
// name that leaves the folder (by "..", an absolute path or a symbolic
// link), a device, a pipe or a folder, or a file past its cap is refused,
// naming the field and why, without printing a byte of the file: the CI
// job's environment (/proc/self/environ) stays out of a pull request's
// plan, and /dev/zero is refused before it is read.
func TestPlanFilesStayBesideTheProjectFile(t *testing.T) {
	c := newCLI(t)
	_, p := c.setup()
	root := t.TempDir()
	dir := filepath.Join(root, "repo", "redirects")
	b := make([]byte, 8)
	rand.Read(b)
	secret := "s3cret-" + hex.EncodeToString(b)
	// A file one level up, outside the project file's folder, in the
	// formats both fields read.
	writeFile(t, filepath.Join(root, "repo", "secret.csv"), "path,status,destination\n/"+secret+",none,\n")
	writeFile(t, filepath.Join(dir, "rules", "www.csv"), "source,destination,statusCode,matchType\n/old,/new,301,exact\n")
	writeFile(t, filepath.Join(dir, "tests.csv"), "path,status,destination\n/old,301,/new\n")
	if err := os.Symlink(filepath.Join(root, "repo", "secret.csv"), filepath.Join(dir, "link.csv")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/zero", filepath.Join(dir, "zero.csv")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe.csv"), 0o644); err != nil {
		t.Fatal(err)
	}
	// A symbolic link that stays inside the folder is fine.
	if err := os.Symlink("tests.csv", filepath.Join(dir, "same.csv")); err != nil {
		t.Fatal(err)
	}
	big, err := os.Create(filepath.Join(dir, "big.csv"))
	if err != nil {
		t.Fatal(err)
	}
	if err := big.Truncate(plan.MaxRulesFileSize + 1); err != nil { // sparse: no disk taken
		t.Fatal(err)
	}
	big.Close()
	writeFile(t, filepath.Join(dir, "bigtests.csv"), "path,status,destination\n"+strings.Repeat("/a,none,\n", redirects.MaxTestsLen/9+1))
	up := strings.Repeat("../", 40) // past the root, wherever the folder is

	file := filepath.Join(dir, "www.json")
	planWith := func(t *testing.T, fields string) result {
		t.Helper()
		writeFile(t, file, fmt.Sprintf("{\n  \"project\": %q,\n  %s\n}\n", p, fields))
		return c.planProcess(t, []string{"REDIRECTS_TEST_SECRET=" + secret}, "plan", "-f", file)
	}

	if r := planWith(t, `"rulesFile": "rules/www.csv", "testsFile": "same.csv"`); r.code != 2 || !strings.Contains(r.stdout, "+ exact /old -> 301 /new") ||
		!strings.Contains(r.stdout, "tests: 1 case, 0 failing") {
		t.Fatalf("files inside the folder: exit %d, want 2\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	for _, tc := range []struct{ name, fields, want string }{
		{"environ", `"rules": [], "testsFile": "` + up + `proc/self/environ"`, `testsFile "../../../../../../../../../../../../`},
		{"environ reason", `"rules": [], "testsFile": "` + up + `proc/self/environ"`, `has a ".." element; give a path inside the project file's folder`},
		{"dev zero", `"rules": [], "testsFile": "` + up + `dev/zero"`, `has a ".." element`},
		{"absolute", `"rules": [], "testsFile": "/dev/zero"`, `testsFile "/dev/zero": is an absolute path; give a path inside the project file's folder`},
		{"absolute rules", `"rulesFile": "` + filepath.Join(root, "repo", "secret.csv") + `"`, `: is an absolute path; give a path inside the project file's folder`},
		{"up", `"rulesFile": "../secret.csv"`, `rulesFile "../secret.csv": has a ".." element`},
		{"link out", `"rules": [], "testsFile": "link.csv"`, `testsFile "link.csv": cannot open it inside the project file's folder: path escapes from parent`},
		{"link to a device", `"rulesFile": "zero.csv"`, `rulesFile "zero.csv": cannot open it inside the project file's folder: path escapes from parent`},
		{"pipe", `"rules": [], "testsFile": "pipe.csv"`, `testsFile "pipe.csv": is a named pipe, not a regular file`},
		{"folder", `"rulesFile": "rules"`, `rulesFile "rules": is a folder, not a regular file`},
		{"big rules", `"rulesFile": "big.csv"`, `rulesFile "big.csv": is larger than the 200 MiB a rules file may be`},
		{"big tests", `"rules": [], "testsFile": "bigtests.csv"`, `testsFile "bigtests.csv": is larger than the 4 MiB a test file may be`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := planWith(t, tc.fields)
			if r.code != 1 || !strings.Contains(r.stderr, tc.want) {
				t.Fatalf("plan with %s: exit %d, want 1 and an error saying %q\nstdout: %.2000s\nstderr: %.2000s", tc.fields, r.code, tc.want, r.stdout, r.stderr)
			}
			for _, leak := range []string{secret, "REDIRECTS_DB=", "PATH="} {
				if strings.Contains(r.stdout+r.stderr, leak) {
					t.Fatalf("plan with %s printed %q, from a file outside the folder:\n%.2000s", tc.fields, leak, r.stderr)
				}
			}
			if len(r.stderr) > 2048 {
				t.Fatalf("plan with %s printed %d bytes of error, want a short one:\n%.2000s", tc.fields, len(r.stderr), r.stderr)
			}
		})
	}
}

// TestPlanRulesFileCapIsTheImportCap: a rules file may be as large as one
// import through the management API.
func TestPlanRulesFileCapIsTheImportCap(t *testing.T) {
	if plan.MaxRulesFileSize != manage.DefaultMaxImportBytes || plan.MaxRulesFileRows != manage.MaxImportRows {
		t.Fatalf("plan's rules file cap is %d bytes, %d rules; the management API's import takes %d bytes, %d rules",
			plan.MaxRulesFileSize, plan.MaxRulesFileRows, manage.DefaultMaxImportBytes, manage.MaxImportRows)
	}
}

// TestPlanFileKeysAsDocumented: a project file's keys are spelled as
// docs/plan.md spells them and appear once per object: a case variant
// ("Deploy") is an unknown field, a repeated key is refused, each named
// with its line, and so is nesting deeper than a project file needs.
func TestPlanFileKeysAsDocumented(t *testing.T) {
	c := newCLI(t)
	_, p := c.setup()
	file := filepath.Join(t.TempDir(), "www.json")
	for _, tc := range []struct{ name, body, want string }{
		{"case variant", `{"project": %q,
  "rules": [],
  "deploy": false,
  "Deploy": true
}`, `line 4, column 3: unknown field "Deploy"`},
		{"two rules arrays", `{"project": %q,
  "rules": [{"source": "/a", "destination": "/b"}],
  "rules": []
}`, `line 3, column 3: "rules" appears twice (first on line 2)`},
		{"escaped duplicate", `{"project": %q, "rules": [], "deploy": false,
  "\u0064eploy": true}`, `line 2, column 3: "deploy" appears twice (first on line 1)`},
		{"in a rule", `{"project": %q, "rules": [
  {"source": "/a", "destination": "/b",
   "destination": "/c"}]}`, `line 3, column 4: "destination" appears twice in rules[0] (first on line 2)`},
		{"in settings", `{"project": %q, "rules": [],
  "settings": {"caseSensitive": true, "caseSensitive": false}}`, `line 2, column 39: "caseSensitive" appears twice in settings (first on line 2)`},
		{"in a test", `{"project": %q, "rules": [],
  "tests": [{"path": "/a", "Path": "/b", "statusCode": 0}]}`, `line 2, column 28: unknown field "Path" in tests[0]`},
		{"deep", "{\"project\": %q, \"rules\": [],\n\"hosts\": " + strings.Repeat("[", 100) + strings.Repeat("]", 100) + "}",
			`line 2, column 73: nested deeper than 64 levels`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			writeFile(t, file, fmt.Sprintf(tc.body, p))
			for _, cmd := range []string{"plan", "apply"} {
				r := c.exec("", cmd, "-f", file)
				if r.code != 1 || !strings.Contains(r.stderr, tc.want) {
					t.Fatalf("%s of\n%s\nexit %d, want 1 and an error saying %q\nstdout: %s\nstderr: %s", cmd, fmt.Sprintf(tc.body, p), r.code, tc.want, r.stdout, r.stderr)
				}
			}
			if n := c.deploymentCount(p); n != 0 {
				t.Fatalf("%d deployments after refused applies, want 0", n)
			}
		})
	}
}

// TestPlanHostileFilesResources drives redirects plan, the real binary,
// with project files and a rules file of about 60 to 100 MB built to make
// a reader hold or print too much: each is refused (exit 1) with an answer
// under 1 MiB, and the process's peak resident memory exceeds that of a
// plan of a small file by less than 4 times the input's size.
func TestPlanHostileFilesResources(t *testing.T) {
	if testing.Short() {
		t.Skip("writes files of 60 to 100 MB")
	}
	c := newCLI(t)
	_, p := c.setup()
	dir := t.TempDir()
	file := filepath.Join(dir, "www.json")
	run := func(t *testing.T) (result, int64) {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, binary(t), "plan", "-f", file)
		cmd.Env = append(os.Environ(), "REDIRECTS_DB="+c.db)
		var out, errb bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &errb
		err := cmd.Run()
		if _, ok := err.(*exec.ExitError); err != nil && !ok {
			t.Fatalf("running redirects plan: %v", err)
		}
		ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
		if !ok {
			t.Skip("this platform reports no peak resident memory")
		}
		return result{out.String(), errb.String(), cmd.ProcessState.ExitCode()}, ru.Maxrss << 10 // Linux: KiB
	}
	// write writes head, then pattern until the file is size bytes
	// long less len(tail), then tail.
	write := func(t *testing.T, name, head, pattern, tail string, size int) int64 {
		t.Helper()
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		chunk := []byte(strings.Repeat(pattern, (1<<20)/len(pattern)))
		n, _ := f.WriteString(head)
		for n+len(chunk) < size-len(tail) {
			m, err := f.Write(chunk)
			if err != nil {
				t.Fatal(err)
			}
			n += m
		}
		m, _ := f.WriteString(strings.TrimSuffix(strings.Repeat(pattern, (size-len(tail)-n)/len(pattern)+1), pattern) + tail)
		fi, err := f.Stat()
		if err != nil || m == 0 {
			t.Fatal(err)
		}
		return fi.Size()
	}
	writeFile(t, file, fmt.Sprintf(`{"project": %q, "rules": [], "deploy": false}`, p))
	r, base := run(t)
	if r.code != 0 {
		t.Fatalf("plan of a small file: exit %d, want 0 (no changes)\n%s", r.code, r.stderr)
	}
	const mb = 1_000_000
	rule := `{"source": "bad", "destination": "/b"},`
	for _, tc := range []struct {
		name, file, head, pattern, tail string
		size                            int
		want                            string
	}{
		{"past the cap", "www.json", fmt.Sprintf(`{"project": %q, "rules": []`, p), " ", "}", 100 * mb, "is larger than 64 MiB"},
		{"bad rules", "www.json", fmt.Sprintf(`{"project": %q, "rules": [`, p), rule, strings.TrimSuffix(rule, ",") + "]}", 60 * mb, "rules: more than 1000000 rules"},
		{"deep", "www.json", fmt.Sprintf(`{"project": %q, "rules": [], "hosts": `, p), "[", "", 60 * mb, "nested deeper than 64 levels"},
		{"long string", "www.json", fmt.Sprintf(`{"project": %q, "rules": [], "rulesFile": "`, p), "a", `"}`, 60 * mb, "a string longer than 64 KiB"},
		{"repeated keys", "www.json", fmt.Sprintf(`{"project": %q, "rules": [{"source": "/a", "destination": "/b"`, p), `, "x": 1`, "}]}", 60 * mb, `"x" appears twice in rules[0]`},
		{"bad lines beside", "rules.csv", "source,destination,statusCode,matchType\n", "bad source,/b,301,exact\n", "", 100 * mb, `rulesFile "rules.csv": line 2: `},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.file != "www.json" {
				writeFile(t, file, fmt.Sprintf(`{"project": %q, "rulesFile": %q}`, p, tc.file))
			}
			size := write(t, tc.file, tc.head, tc.pattern, tc.tail, tc.size)
			defer os.Remove(filepath.Join(dir, tc.file))
			r, rss := run(t)
			if r.code != 1 || !strings.Contains(r.stderr, tc.want) {
				t.Fatalf("plan of a %d-byte file: exit %d, want 1 and %q\n%.2000s", size, r.code, tc.want, r.stderr)
			}
			if n := len(r.stdout) + len(r.stderr); n >= 1<<20 {
				t.Fatalf("plan of a %d-byte file printed %d bytes, want under 1 MiB", size, n)
			}
			t.Logf("%d-byte file: peak resident memory %d MiB, %d MiB above a small file's; %d bytes printed", size, rss>>20, (rss-base)>>20, len(r.stdout)+len(r.stderr))
			if rss-base >= 4*size {
				t.Fatalf("plan of a %d-byte file peaked at %d MiB resident, %d MiB above a small file's: want under 4 times the input", size, rss>>20, (rss-base)>>20)
			}
		})
	}
}
