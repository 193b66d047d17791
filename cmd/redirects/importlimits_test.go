package main_test

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"redirects/internal/hostileimport"
)

// editorImport sets up an organization, a project and an editor token of
// it, and starts serve with the management API on them.
func editorImport(t *testing.T, c *cli) (s *manageProcess, project, token string) {
	t.Helper()
	org := c.ok("org", "create", "--name", "Acme", "--tier", "enterprise")
	project = c.ok("project", "create", "--org", org, "--name", "www")
	token = c.ok("token", "create", "--org", org, "--role", "editor", "--name", "imports")
	return startManageProcess(t, c, nil), project, token
}

// postImport sends body to the import route of project with the query
// given, and returns the status and at most limit bytes of the answer,
// with the whole answer's size.
func postImport(t *testing.T, s *manageProcess, project, token, query string, body io.Reader, limit int64) (status int, reply string, size int64) {
	t.Helper()
	req, err := http.NewRequest("POST", s.manage+"/manage/v1/projects/"+project+"/imports?"+query, body)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "text/csv")
	res, err := (&http.Client{Timeout: 5 * time.Minute}).Do(req)
	if err != nil {
		t.Fatalf("POST .../imports?%s: no answer: %v", query, err)
	}
	defer res.Body.Close()
	var sb strings.Builder
	n, _ := io.Copy(&sb, io.LimitReader(res.Body, limit))
	rest, _ := io.Copy(io.Discard, res.Body)
	return res.StatusCode, sb.String(), n + rest
}

// hugeHeader is a draft CSV whose one-line header holds a column name of n
// bytes, then a good rule.
func hugeHeader(n int) string {
	return "source,destination,statusCode,matchType," + strings.Repeat("x", n) + "\n/a,/b,301,exact\n"
}

// TestImportHugeCSVHeaderThroughTheAPI (issue #31, finding 5): a draft CSV
// with a 20 MB one-line header, and a file of 100 lines that each hold a
// 60 KB status code, are refused through the management API with a reply
// of a few KiB that names the line, not one that quotes the header or the
// values whole (it used to quote them: a 199 MB header made an 834 MB
// reply), and nothing is imported.
func TestImportHugeCSVHeaderThroughTheAPI(t *testing.T) {
	c := newCLI(t)
	s, p, token := editorImport(t, c)
	status, reply, size := postImport(t, s, p, token, "mode=append", strings.NewReader(hugeHeader(20<<20)), 1<<20)
	t.Logf("20 MB header: %d, %d bytes: %.300s", status, size, reply)
	if status != 422 || size > 1<<20 || !strings.Contains(reply, `"line":1`) || !strings.Contains(reply, "65,536") {
		t.Errorf("a 20 MB header: %d with %d bytes; want 422 INVALID_IMPORT under 1 MiB naming line 1 and the 65,536-byte line limit", status, size)
	}

	var many strings.Builder
	many.WriteString("source,destination,statusCode,matchType\n")
	for range 100 {
		many.WriteString("/a,/b," + strings.Repeat("3", 60000) + ",exact\n")
	}
	status, reply, size = postImport(t, s, p, token, "mode=append", strings.NewReader(many.String()), 1<<20)
	t.Logf("100 lines of 60 KB values: %d, %d bytes", status, size)
	if status != 422 || size > 64<<10 || !strings.Contains(reply, `"errorCount":100`) || !strings.Contains(reply, `(60000 bytes)`) {
		t.Errorf("100 lines with a 60 KB statusCode: %d with %d bytes; want 422 under 64 KiB, each value cut to an excerpt that gives its size: %.400s", status, size, reply)
	}

	var listed []json.RawMessage
	c.jsonOf(&listed, "rule", "list", "--project", p, "--json")
	if len(listed) != 0 {
		t.Errorf("the draft holds %d rules after refused imports; want none", len(listed))
	}
}

// TestImportHugeCSVHeaderOnTheCommandLine (issue #31, finding 5): redirects
// rule import of a draft CSV with a 20 MB one-line header exits 1 with an
// error under 1 MiB that names line 1, and imports nothing.
func TestImportHugeCSVHeaderOnTheCommandLine(t *testing.T) {
	c := newCLI(t)
	org := c.ok("org", "create", "--name", "Acme", "--tier", "enterprise")
	p := c.ok("project", "create", "--org", org, "--name", "www")
	file := filepath.Join(t.TempDir(), "rules.csv")
	if err := os.WriteFile(file, []byte(hugeHeader(20<<20)), 0o600); err != nil {
		t.Fatal(err)
	}
	r := c.execProcess("", "rule", "import", "--project", p, file)
	t.Logf("exit %d, stderr %d bytes: %.300s", r.code, len(r.stderr), r.stderr)
	if r.code != 1 || len(r.stderr) > 1<<20 || !strings.Contains(r.stderr, "line 1") || !strings.Contains(r.stderr, "65,536") {
		t.Errorf("rule import of a 20 MB header: exit %d, %d bytes on stderr; want exit 1 with an error under 1 MiB naming line 1 and the 65,536-byte line limit", r.code, len(r.stderr))
	}
	var listed []json.RawMessage
	c.jsonOf(&listed, "rule", "list", "--project", p, "--json")
	if len(listed) != 0 {
		t.Errorf("the draft holds %d rules after a refused import; want none", len(listed))
	}
}

// TestImportRefusedEarlyStillAnswers: a 100 MiB draft CSV refused at its
// second line (a quote left open), sent as fast as loopback takes it, is
// answered 422 with its report, five times over: the node reads the rest
// of the body before it answers, where it used to close the connection
// while the client still sent, and the client often got a reset instead
// of the answer.
func TestImportRefusedEarlyStillAnswers(t *testing.T) {
	c := newCLI(t)
	s, p, token := editorImport(t, c)
	var shape hostileimport.Shape
	for _, sh := range hostileimport.Shapes(nil) {
		if sh.Name == "draft/open-quote" {
			shape = sh
		}
	}
	for i := range 5 {
		r := hostileimport.Send(hostileimport.Node{PID: s.pid, Manage: s.manage, Project: p, Token: token}, shape, 100<<20, hostileimport.Options{})
		if r.Status != 422 || !strings.Contains(r.Excerpt, "is a quote left open?") {
			t.Fatalf("try %d: %d %.300s (%v); want 422 naming the open quote", i+1, r.Status, r.Excerpt, r.Err)
		}
	}
}
