//go:build unix

package plan

import (
	"crypto/rand"
	"encoding/hex"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"unicode/utf8"

	"redirects"
)

// fuzzFolder makes the folders FuzzRead reads in: a secret one level above
// the project file's folder, and beside the project file a rules CSV, a
// test file, a link to the secret, a link to /dev/zero, a named pipe and a
// folder. It returns the project file's path and the secret.
func fuzzFolder(tb testing.TB) (file, secret string) {
	tb.Helper()
	b := make([]byte, 12)
	rand.Read(b)
	secret = "secret-" + hex.EncodeToString(b)
	root := tb.TempDir()
	dir := filepath.Join(root, "project")
	for name, body := range map[string]string{
		"secret.csv":          "path,status,destination\n/" + secret + ",none,\n",
		"project/rules.csv":   "source,destination,statusCode,matchType\n/old,/new,301,exact\n/docs/,/d/,308,starts_with\n",
		"project/tests.csv":   "path,status,destination\n/old,301,/new\n/x,none,\n",
		"project/sub/a.csv":   "source,destination,statusCode,matchType\n/a,/b,301,exact\n",
		"project/badtest.csv": "source,destination\n/a,/b\n",
	} {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			tb.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	for link, to := range map[string]string{"up.csv": "../secret.csv", "abs.csv": filepath.Join(root, "secret.csv"), "zero.csv": "/dev/zero"} {
		if err := os.Symlink(to, filepath.Join(dir, link)); err != nil {
			tb.Fatal(err)
		}
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe.csv"), 0o644); err != nil {
		tb.Fatal(err)
	}
	return filepath.Join(dir, "redirects.json"), secret
}

// fuzzSeeds are project files: the docs' examples, and hostile ones.
func fuzzSeeds(tb testing.TB) []string {
	tb.Helper()
	doc, err := os.ReadFile("../docs/plan.md")
	if err != nil {
		tb.Fatal(err)
	}
	var seeds []string
	for _, m := range regexp.MustCompile("(?s)```json\n(.*?)```").FindAllStringSubmatch(string(doc), -1) {
		seeds = append(seeds, m[1])
	}
	if len(seeds) == 0 {
		tb.Fatal("docs/plan.md has no json example")
	}
	up := strings.Repeat("../", 30)
	seeds = append(seeds,
		`{"project": "prj_1", "rulesFile": "rules.csv", "testsFile": "tests.csv"}`,
		`{"project": "prj_1", "rulesFile": "sub/a.csv", "testsFile": "./tests.csv", "deploy": false}`,
		`{"project": "prj_1", "rulesFile": "../secret.csv"}`,
		`{"project": "prj_1", "rules": [], "testsFile": "../secret.csv"}`,
		`{"project": "prj_1", "rules": [], "testsFile": "`+up+`proc/self/environ"}`,
		`{"project": "prj_1", "rules": [], "testsFile": "`+up+`dev/zero"}`,
		`{"project": "prj_1", "rules": [], "testsFile": "/dev/zero"}`,
		`{"project": "prj_1", "rulesFile": "up.csv"}`,
		`{"project": "prj_1", "rules": [], "testsFile": "abs.csv"}`,
		`{"project": "prj_1", "rulesFile": "zero.csv"}`,
		`{"project": "prj_1", "rules": [], "testsFile": "pipe.csv"}`,
		`{"project": "prj_1", "rulesFile": "sub"}`,
		`{"project": "prj_1", "rules": [], "testsFile": "badtest.csv"}`,
		`{"project": "prj_1", "rulesFile": "sub/../../secret.csv"}`,
		`{"project": "prj_1", "rules": [], "deploy": false, "Deploy": true}`,
		`{"project": "prj_1", "rules": [{"source": "/a", "destination": "/b"}], "rules": []}`,
		`{"project": "prj_1", "rules": [], "\u0064eploy": true, "deploy": false}`,
		`{"project": "prj_1", "rules": [{"source": "/a", "destination": "/b", "Source": "/c"}]}`,
		`{"project": "prj_1", "rules": [], "settings": {"caseSensitive": true, "caseSensitive": false}}`,
		`{"project": "prj_1", "rules": [], "tests": [{"path": "/a\u0000", "statusCode": 0}]}`,
		`{"project": "prj_1", "rules": [], "hosts": `+strings.Repeat("[", 70)+strings.Repeat("]", 70)+`}`,
		`{"project": "prj_1", "rules": [], "x": `+strings.Repeat(`{"a":`, 70)+`1`+strings.Repeat("}", 70)+`}`,
		`{"project": "prj_1", "rules": [{"source": "/`+strings.Repeat("a", 5000)+`", "destination": "/b"}]}`,
		`{"project": "prj_1", "rules": [{"source": "/a", "destination": "/b", "statusCode": 1`+strings.Repeat("0", 500)+`}]}`,
		"{\"project\": \"prj_\xff\", \"rules\": []}",
		`{"project": "prj_1", "rules": []} {"project": "prj_2"}`,
		`[1, 2]`,
		``,
		`{"project": "prj_1", "rules": {"source": "/a"}}`,
		`{"project": "prj_1", "rules": [{"source": "/a", "destination": "/b", "statusCode": "301"}, {"source": "/c", "priority": 1.5}]}`,
		`{"project": "prj_1", "rules": [], "hosts": ["`+strings.Repeat("h", MaxStringLen+1)+`"]}`,
	)
	return seeds
}

// FuzzRead holds Read against any project file, beside files that stay in
// its folder and files that do not: it never panics, returns a Desired or
// an error, and the error is UTF-8, each of its lines short, and never
// holds a byte of a file outside the folder.
func FuzzRead(f *testing.F) {
	for _, s := range fuzzSeeds(f) {
		f.Add([]byte(s))
	}
	file, secret := fuzzFolder(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(file, data, 0o644); err != nil {
			t.Fatal(err)
		}
		d, err := Read(file)
		if (d == nil) == (err == nil) {
			t.Fatalf("Read returned %v and %v: want one of a Desired and an error", d, err)
		}
		planted := strings.Contains(string(data), secret)
		if err != nil {
			msg := err.Error()
			if redirects.ErrorCode(err) != redirects.EINVALID {
				t.Fatalf("error code %s, want EINVALID: %s", redirects.ErrorCode(err), msg)
			}
			if !utf8.ValidString(msg) {
				t.Fatalf("the error is not UTF-8: %q", msg)
			}
			lines := strings.Split(msg, "\n")
			if len(lines) > maxProblems+1 {
				t.Fatalf("the error has %d lines, more than %d", len(lines), maxProblems+1)
			}
			for _, l := range lines {
				if len(l) > 1<<10+len(file) {
					t.Fatalf("an error line is %d bytes long: %.200q...", len(l), l)
				}
			}
			if !planted && strings.Contains(msg, secret) {
				t.Fatalf("the error quotes a file outside the folder: %q", msg)
			}
			return
		}
		if planted {
			return
		}
		if strings.Contains(d.Tests, secret) {
			t.Fatalf("the tests were read from a file outside the folder: %q", d.Tests)
		}
		for _, r := range d.Rules {
			if strings.Contains(r.Source+r.Destination, secret) {
				t.Fatalf("a rule was read from a file outside the folder: %+v", r)
			}
		}
	})
}
