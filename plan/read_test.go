package plan

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"redirects"
)

// readFiles writes files (the project file is redirects.json) into a
// folder of the test and reads the project file.
func readFiles(t *testing.T, files map[string]string) (*Desired, error) {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return Read(filepath.Join(dir, "redirects.json"))
}

// wantRefused fails the test unless err is EINVALID, says each of want and
// has no line longer than 1 KiB.
func wantRefused(t *testing.T, err error, want ...string) {
	t.Helper()
	if redirects.ErrorCode(err) != redirects.EINVALID {
		t.Fatalf("Read: %v, want an EINVALID error saying %q", err, want)
	}
	msg := err.Error()
	for _, w := range want {
		if !strings.Contains(msg, w) {
			t.Fatalf("Read's error does not say %q:\n%.3000s", w, msg)
		}
	}
	for _, l := range strings.Split(msg, "\n") {
		if len(l) > 1<<10 {
			t.Fatalf("Read's error has a line of %d bytes: %.300q...", len(l), l)
		}
	}
}

// TestReadRefusesWhatIsNotText: a project file or test file with a NUL
// byte or a byte that is not UTF-8 is refused at the byte's line and
// column, and an inline test holding a NUL (escaped in JSON) is refused
// too: none of them reaches the database, which would refuse it.
func TestReadRefusesWhatIsNotText(t *testing.T) {
	_, err := readFiles(t, map[string]string{"redirects.json": "{\"project\": \"p\",\n  \"rules\": [{\"source\": \"/a\xff\", \"destination\": \"/b\"}]}"})
	wantRefused(t, err, "line 2, column 27: byte 0xff, which is not UTF-8; the file must be UTF-8 text")
	_, err = readFiles(t, map[string]string{"redirects.json": `{"project": "p", "rules": [], "testsFile": "t.csv"}`,
		"t.csv": "path,status,destination\n/a,none,\n/b\x00,none,\n"})
	wantRefused(t, err, `testsFile "t.csv": line 3, column 3: a NUL byte; the file must be UTF-8 text`)
	_, err = readFiles(t, map[string]string{"redirects.json": `{"project": "p", "rules": [], "tests": [{"path": "/a", "statusCode": 0},
		{"path": "/b", "statusCode": 301, "destination": "/c\u0000"}]}`})
	wantRefused(t, err, `tests[1].destination: holds a NUL byte`)
}

// TestReadQuotesShortExcerpts: what Read quotes of a file is short and
// escaped: a header of a test file is not quoted at all, a long value of
// the project file or a bad line beside it is cut, and past 100 problems
// the error counts the rest.
func TestReadQuotesShortExcerpts(t *testing.T) {
	long := strings.Repeat("x", 100_000)
	_, err := readFiles(t, map[string]string{"redirects.json": `{"project": "p", "rules": [], "testsFile": "t.csv"}`,
		"t.csv": "HEADER-" + long + ",status,destination\n"})
	wantRefused(t, err, `testsFile "t.csv": line 1: column 1 of the header is not path`)
	if strings.Contains(err.Error(), "HEADER-") {
		t.Fatalf("the error quotes the test file's header: %.300s", err)
	}
	_, err = readFiles(t, map[string]string{"redirects.json": `{"project": "p", "rules": [{"source": "/a", "destination": "/b", "statusCode": 1` + strings.Repeat("0", 100_000) + `}]}`})
	wantRefused(t, err, "line 1, column 100080: rules[0].statusCode: a JSON number, want a whole number")
	_, err = readFiles(t, map[string]string{"redirects.json": `{"project": "p", "rulesFile": "r.csv"}`,
		"r.csv": "source,destination,statusCode,matchType\n/a,/b,301,exact\n/c,/d,999" + long[:10_000] + ",exact\n"})
	wantRefused(t, err, `rulesFile "r.csv": line 3: statusCode "999xxx`)
	if strings.Contains(err.Error(), long[:1000]) {
		t.Fatalf("the error quotes the rules file's value whole: %.300s", err)
	}
	// A line longer than a record may be is refused by its length alone.
	_, err = readFiles(t, map[string]string{"redirects.json": `{"project": "p", "rulesFile": "r.csv"}`,
		"r.csv": "source,destination,statusCode,matchType\n/a,/b,301,exact\n/c,/d,999" + long + ",exact\n"})
	wantRefused(t, err, `rulesFile "r.csv": line 3: the line is 100,015 bytes long`)
	var rules []string
	for i := range 150 {
		rules = append(rules, fmt.Sprintf(`{"source": "bad%d", "destination": "/b"}`, i))
	}
	_, err = readFiles(t, map[string]string{"redirects.json": `{"project": "p", "rules": [` + strings.Join(rules, ",\n") + `]}`})
	wantRefused(t, err, `rules[99] (source "bad99")`, "\n... and 50 more problems")
	if strings.Contains(err.Error(), "rules[100]") {
		t.Fatalf("the error lists more than 100 problems:\n%s", err)
	}
}

// TestReadFilesInsideTheFolder: rulesFile and testsFile may be in a folder
// below the project file's, through a symbolic link that stays inside.
func TestReadFilesInsideTheFolder(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "csv"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, body := range map[string]string{
		"redirects.json": `{"project": "p", "rulesFile": "csv/rules.csv", "testsFile": "./csv/../csv-tests.csv"}`,
		"csv/rules.csv":  "source,destination,statusCode,matchType\n/a,/b,301,exact\n",
		"csv/tests.csv":  "path,status,destination\n/a,301,/b\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	_, err := Read(filepath.Join(dir, "redirects.json"))
	wantRefused(t, err, `testsFile "./csv/../csv-tests.csv": has a ".." element`)
	if err := os.Symlink("csv/tests.csv", filepath.Join(dir, "tests.csv")); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "redirects.json"), []byte(`{"project": "p", "rulesFile": "csv/rules.csv", "testsFile": "tests.csv"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	d, err := Read(filepath.Join(dir, "redirects.json"))
	if err != nil || len(d.Rules) != 1 || len(d.Cases) != 1 || d.Rules[0].Source != "/a" || d.Cases[0].Destination != "/b" {
		t.Fatalf("Read: %v, %+v; want the rule /a and the case /a", err, d)
	}
}

// TestReadRulesOneByOne: inline rules are decoded one at a time, so a
// value of the wrong type is named by its rule's index and the rules after
// it are still checked; rules that are not an array, and a string longer
// than any value of a project file, are refused where they are.
func TestReadRulesOneByOne(t *testing.T) {
	_, err := readFiles(t, map[string]string{"redirects.json": `{"project": "p", "rules": [
  {"source": "/a", "destination": "/b", "statusCode": "301"},
  {"source": "/c", "destination": "/d", "priority": 1.5},
  {"source": "e", "destination": "/f"}]}`})
	wantRefused(t, err, "line 2, column 59: rules[0].statusCode: a JSON string, want a whole number",
		"line 3, column 58: rules[1].priority: a JSON number, want a whole number",
		`rules[2] (source "e"): `)
	_, err = readFiles(t, map[string]string{"redirects.json": `{"project": "p",
  "rules": {"source": "/a"}}`})
	wantRefused(t, err, "line 2, column 12: rules: a JSON object, want an array")
	_, err = readFiles(t, map[string]string{"redirects.json": `{"project": "p", "rules": [],
  "hosts": ["` + strings.Repeat("h", MaxStringLen+1) + `"]}`})
	wantRefused(t, err, "line 2, column 13: a string longer than 64 KiB")
}

// TestReadNamesFieldsAsWritten: a value of the wrong type is named by its
// field as the file spells it (deploy, hosts, settings.caseSensitive), and
// an inline test by its index, as a rule is.
func TestReadNamesFieldsAsWritten(t *testing.T) {
	for body, want := range map[string]string{
		`{"project": "p", "rules": [], "deploy": "yes"}`:                  "line 1, column 45: deploy: a JSON string, want true or false",
		`{"project": "p", "rules": [], "hosts": "www.example.com"}`:       "line 1, column 56: hosts: a JSON string, want an array",
		`{"project": "p", "rules": [], "settings": {"caseSensitive": 1}}`: "line 1, column 61: settings.caseSensitive: a JSON number, want true or false",
	} {
		_, err := readFiles(t, map[string]string{"redirects.json": body})
		wantRefused(t, err, want)
		if strings.Contains(err.Error(), "File.") {
			t.Fatalf("the error names a Go type:\n%s", err)
		}
	}
	_, err := readFiles(t, map[string]string{"redirects.json": `{"project": "p", "rules": [], "tests": [
  {"path": "/a", "statusCode": 0},
  {"path": 2, "statusCode": 0},
  {"path": "/c", "statusCode": "none"}]}`})
	wantRefused(t, err, "line 3, column 15: tests[1].path: a JSON number, want a string",
		"line 4, column 40: tests[2].statusCode: a JSON string, want a whole number")
	if strings.Contains(err.Error(), "File.") {
		t.Fatalf("the error names a Go type:\n%s", err)
	}
}

// TestReadCapsInlineTests: inline tests whose test file would be longer
// than a project's test file may be are refused by Read, as a testsFile
// that long is, before apply changes anything; so are more hosts than a
// project declares.
func TestReadCapsInlineTests(t *testing.T) {
	test := `{"path": "/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "statusCode": 0}`
	n := redirects.MaxTestsLen/len("/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa,none,,\n") + 1
	_, err := readFiles(t, map[string]string{"redirects.json": `{"project": "p", "rules": [], "tests": [` + strings.TrimSuffix(strings.Repeat(test+",", n), ",") + `]}`})
	// The header takes the room of one test more.
	wantRefused(t, err, fmt.Sprintf("tests[%d]: the tests make a test file longer than the 4 MiB", n-2))
	_, err = readFiles(t, map[string]string{"redirects.json": `{"project": "p", "rules": [], "hosts": [` + strings.TrimSuffix(strings.Repeat(`"a.example",`, redirects.MaxProjectHosts+1), ",") + `]}`})
	wantRefused(t, err, fmt.Sprintf("hosts: more than %d hosts, the most a project declares", redirects.MaxProjectHosts))
}

// TestReadSkipsValuesOfNoShape: a value of the wrong type, or under an
// unknown key, is skipped rather than walked key by key, and what follows
// it is checked as before: a repeated key, broken JSON, nesting too deep,
// each where it is.
func TestReadSkipsValuesOfNoShape(t *testing.T) {
	for body, want := range map[string]string{
		"{\"project\": \"p\", \"rules\": [], \"hosts\": [{\"a\": [1, {\"b\": \"}]\\\"\"}]}, \"x\"],\n  \"deploy\": true, \"deploy\": false}":  `line 2, column 19: "deploy" appears twice (first on line 2)`,
		"{\"project\": \"p\", \"x\": {\"a\": 1, \"a\": 2}, \"rules\": [{\"source\": \"/a\", \"destination\": \"/b\",\n \"source\": \"/c\"}]}": `line 2, column 2: "source" appears twice in rules[0] (first on line 1)`,
		`{"project": "p", "rules": [], "hosts": [{"a": 1}] "deploy": true}`:                                                                   `line 1, column 50: invalid character '"' after object key:value pair`,
		`{"project": "p", "rules": [], "hosts": ["abcdef"] "deploy": true}`:                                                                   `line 1, column 50: invalid character '"' after object key:value pair`,
		`{"project": "p", "rules": [], "hosts": [{"a": 1}], "deploy": true`:                                                                   `unexpected end of JSON input`,
		`{"project": "p", "rules": [], "x": ` + strings.Repeat("[", 63) + strings.Repeat("]", 63) + `}`:                                       `unknown field "x"`,
		`{"project": "p", "rules": [], "x": ` + strings.Repeat("[", 64) + strings.Repeat("]", 64) + `}`:                                       `line 1, column 99: nested deeper than 64 levels`,
		`{"project": "p", "rules": [], "x": {"a": ` + strings.Repeat("[", 100):                                                                `line 1, column 104: nested deeper than 64 levels`,
	} {
		_, err := readFiles(t, map[string]string{"redirects.json": body})
		wantRefused(t, err, want)
	}
}

// TestReadKeepsATestsHost: an inline test's host becomes the test file's
// host column; a file whose tests name none has no such column.
func TestReadKeepsATestsHost(t *testing.T) {
	d, err := readFiles(t, map[string]string{"redirects.json": `{"project": "p", "rules": [], "tests": [
		{"path": "/a", "statusCode": 301, "destination": "/b", "host": "old.example"},
		{"path": "/c", "statusCode": 0}]}`})
	if err != nil {
		t.Fatal(err)
	}
	if want := "path,status,destination,final_destination,host\n/a,301,/b,,old.example\n/c,none,,,\n"; d.Tests != want {
		t.Fatalf("test file %q, want %q", d.Tests, want)
	}
	d, err = readFiles(t, map[string]string{"redirects.json": `{"project": "p", "rules": [], "tests": [{"path": "/c", "statusCode": 0}]}`})
	if err != nil {
		t.Fatal(err)
	}
	if want := "path,status,destination,final_destination\n/c,none,,\n"; d.Tests != want {
		t.Fatalf("test file without hosts %q, want %q", d.Tests, want)
	}
}
