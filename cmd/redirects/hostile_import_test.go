package main_test

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"redirects/internal/servertest"
)

// TestDeepNetlifyTOMLThroughServe: a netlify.toml nested 1.9 million
// levels deep (3.8 MB; it once ended serve in "fatal error: stack
// overflow", edge included) sent by an editor token to a real serve, as
// netlify-toml and as auto with the file's name, in a dry run: each is
// refused with one short error, and the node still answers lookups. The
// CLI's rule import --from auto refuses the same file with exit 1.
func TestDeepNetlifyTOMLThroughServe(t *testing.T) {
	c := newCLI(t)
	org, project, key := deployed(t, c)
	token := c.ok("token", "create", "--org", org, "--role", "editor", "--name", "importer")
	addr := "127.0.0.1:" + strconv.Itoa(servertest.FreePort(t))
	s := startServeProcess(t, c, "--manage-addr", addr)
	api := "http://" + addr + "/manage/v1/projects/" + project + "/imports?dry_run=true&"
	hc := &http.Client{Timeout: 60 * time.Second}
	deep := "[[redirects]]\nfrom = \"/a\"\nto = \"/b\"\nx = " + strings.Repeat("[", 1_900_000) + strings.Repeat("]", 1_900_000) + "\n"
	deepLines := "[[redirects]]\nfrom = \"/a\"\nto = \"/b\"\nx = " + strings.Repeat("[\n", 1_900_000) + strings.Repeat("]\n", 1_900_000)
	for _, tc := range []struct{ q, body, want string }{
		{"from=netlify-toml", deep, "line 4 is 3800004 bytes long"},
		{"from=auto&filename=netlify.toml", deep, "line 4 is 3800004 bytes long"},
		{"from=netlify-toml", deepLines, "nested more than 64 levels deep"},
		{"from=auto&filename=netlify.toml", deepLines, "nested more than 64 levels deep"},
	} {
		req, _ := http.NewRequest("POST", api+tc.q, strings.NewReader(tc.body))
		req.Header.Set("Content-Type", "application/octet-stream")
		req.Header.Set("Authorization", "Bearer "+token)
		res, err := hc.Do(req)
		if err != nil {
			t.Fatalf("%s: %v; serve's logs:\n%.3000s", tc.q, err, s.logs.String())
		}
		b, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(string(b), tc.want) || len(b) > 4096 {
			t.Errorf("%s: %d %.500s (%d bytes), want 422 INVALID_IMPORT saying %q in a short answer", tc.q, res.StatusCode, b, len(b), tc.want)
		}
		if r := s.get(lookupURL(project, "/old"), key); r.status != 200 {
			t.Fatalf("%s: after the import a lookup answered %d, want 200; serve's logs:\n%.3000s", tc.q, r.status, s.logs.String())
		}
	}
	file := filepath.Join(t.TempDir(), "netlify.toml")
	for _, tc := range []struct{ body, want string }{{deep, "line 4 is 3800004 bytes long"}, {deepLines, "nested more than 64 levels deep"}} {
		os.WriteFile(file, []byte(tc.body), 0o644)
		r := c.execProcess("", "rule", "import", "--project", project, "--from", "auto", "--dry-run", file)
		if r.code != 1 || !strings.Contains(r.stderr, tc.want) || len(r.stderr) > 4096 {
			t.Errorf("rule import --from auto: exit %d, stderr %.500q (%d bytes), want exit 1 saying %q", r.code, r.stderr, len(r.stderr), tc.want)
		}
	}
}
