package main_test

import (
	"strings"
	"testing"
)

// TestCLIPathForm checks the one path form of docs/contract.md#matching
// through the CLI: rule add and rule import store an escaped source
// decoded, lookup decodes the path once, and a source or path that cannot
// decode is refused with a message naming the problem.
func TestCLIPathForm(t *testing.T) {
	c := newCLI(t)
	_, p := c.setup()

	c.ok("rule", "add", "--project", p, "--source", "/caf%C3%A9", "--destination", "/cafe")
	r := c.exec("source,destination,statusCode,matchType\n/a%2fb,/ab,301,exact\n/p+q,/plus,301,exact\n", "rule", "import", "--project", p, "-")
	if r.code != 0 {
		t.Fatalf("rule import: exit %d stderr %q", r.code, r.stderr)
	}
	list := c.ok("rule", "list", "--project", p, "--json")
	for _, want := range []string{`"/café"`, `"/a/b"`, `"/p+q"`} {
		if !strings.Contains(list, want) {
			t.Errorf("rule list does not hold the stored source %s:\n%s", want, list)
		}
	}
	c.fail(1, `source "/a%20b" (decoded "/a b") holds whitespace`, "rule", "add", "--project", p, "--source", "/a%20b", "--destination", "/x")
	c.fail(1, `source "/a//b" holds an empty segment`, "rule", "add", "--project", p, "--source", "/a//b", "--destination", "/x")
	c.fail(1, "holds a malformed escape", "rule", "add", "--project", p, "--source", "/50%off", "--destination", "/x")

	c.ok("deploy", "--project", p)
	for path, dest := range map[string]string{"/café": "/cafe", "/caf%c3%a9": "/cafe", "/a%2Fb": "/ab", "/p%2Bq": "/plus"} {
		if out := c.ok("lookup", "--project", p, "--path", path); !strings.Contains(out, `"destination":"`+dest+`"`) {
			t.Errorf("lookup --path %s printed %q, want destination %s", path, out, dest)
		}
	}
	c.fail(1, "holds a malformed escape", "lookup", "--project", p, "--path", "/50%off")
}
