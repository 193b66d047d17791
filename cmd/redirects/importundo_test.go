package main_test

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// TestRuleUndoImportCLI imports over a draft, finds the import's undoId in
// its audit entry, and undoes it: the draft is back byte for byte, a second
// undo is refused, and an undo after an edit is refused and changes nothing.
func TestRuleUndoImportCLI(t *testing.T) {
	c := newCLI(t)
	_, p := c.setup()
	c.ok("rule", "add", "--project", p, "--source", "/old", "--destination", "/new")
	c.ok("rule", "add", "--project", p, "--source", "/docs/", "--destination", "/guide/", "--match", "starts_with", "--preserve-path")
	before := c.ok("rule", "list", "--project", p, "--json")
	file := filepath.Join(t.TempDir(), "rules.csv")
	os.WriteFile(file, []byte("source,destination,statusCode,matchType\n/old,/newer,302,exact\n/x,/y,301,exact\n"), 0o644)
	undoID := func() string {
		t.Helper()
		var entries []struct{ After map[string]any }
		c.jsonOf(&entries, "audit", "--project", p, "--action", "rule.import", "--json")
		id, ok := entries[0].After["undoId"].(float64)
		if !ok {
			t.Fatalf("the import's audit entry names no undoId: %+v", entries[0])
		}
		return strconv.FormatFloat(id, 'f', -1, 64)
	}

	c.ok("rule", "import", "--project", p, "--mode", "replace", file)
	id := undoID()
	if c.ok("rule", "list", "--project", p, "--json") == before {
		t.Fatal("the replace changed nothing")
	}
	var out struct{ Import, Rules int }
	c.jsonOf(&out, "rule", "undo-import", "--project", p, "--import", id, "--json")
	if strconv.Itoa(out.Import) != id || out.Rules != 2 {
		t.Errorf("undo-import --json = %+v, want import %s and 2 rules", out, id)
	}
	if after := c.ok("rule", "list", "--project", p, "--json"); after != before {
		t.Fatalf("draft after the undo:\n%s\nwant:\n%s", after, before)
	}
	c.fail(1, "cannot be undone", "rule", "undo-import", "--project", p, "--import", id)

	c.ok("rule", "import", "--project", p, "--mode", "upsert", file)
	id = undoID()
	c.ok("rule", "add", "--project", p, "--source", "/later", "--destination", "/z")
	edited := c.ok("rule", "list", "--project", p, "--json")
	c.fail(1, "the draft changed since import "+id+"; undo is no longer possible", "rule", "undo-import", "--project", p, "--import", id)
	if got := c.ok("rule", "list", "--project", p, "--json"); got != edited {
		t.Fatalf("a refused undo changed the draft:\n%s", got)
	}
	c.fail(2, "--import", "rule", "undo-import", "--project", p)
	if n := c.ok("rule", "delete", "--project", p, "--all-matching", "--search", "/later", "--yes"); n != "1" {
		t.Fatalf("rule delete printed %q", n)
	}
}
