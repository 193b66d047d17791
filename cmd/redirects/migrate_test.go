package main_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"redirects/importer"
)

// TestImportFromCLI: rule import --from reads a file by its format, reports
// every line's class and imports what it read; broken, binary and unknown
// input is refused whole and changes nothing; rule export writes the draft
// CSV that imports back to the same draft.
func TestImportFromCLI(t *testing.T) {
	c := newCLI(t)
	_, p := c.setup()
	dir := t.TempDir()
	file := filepath.Join(dir, "rules.csv")
	os.WriteFile(file, []byte("source,destination,statusCode,matchType,priority\n/a,/b,301,exact,\n/docs/,https://docs.example.com/,308,starts_with,5\n/gone,,410,exact,\n"), 0o644)

	r := c.exec("", "rule", "import", "--project", p, "--from", "auto", "--dry-run", file)
	if r.code != 0 {
		t.Fatalf("--from auto --dry-run: exit %d: %s", r.code, r.stderr)
	}
	for _, want := range []string{"format   csv (detected: its header names the columns", "as is    3 lines (lines 2-4)", "changed  0 lines", "added      3\n"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("report lacks %q:\n%s", want, r.stdout)
		}
	}
	if list := c.ok("rule", "list", "--project", p); strings.Contains(list, "/docs/") {
		t.Fatalf("a dry run wrote rules:\n%s", list)
	}
	var rep struct {
		Added     int
		UndoID    int64
		Migration struct {
			Format    string
			Detected  string
			AsIs      int
			AsIsLines [][2]int
			Lines     []struct{ Line int }
		}
	}
	c.jsonOf(&rep, "rule", "import", "--project", p, "--from", "csv", "--json", file)
	if rep.UndoID == 0 {
		t.Errorf("an applied import --json has no undoId: %+v", rep)
	}
	if rep.Added != 3 || rep.Migration.Format != "csv" || rep.Migration.Detected != "" || rep.Migration.AsIs != 3 ||
		len(rep.Migration.AsIsLines) != 1 || rep.Migration.AsIsLines[0] != [2]int{2, 4} {
		t.Fatalf("--json report %+v", rep)
	}

	// Refused whole, the draft unchanged.
	before := c.ok("rule", "list", "--project", p, "--json")
	bin := filepath.Join(dir, "x.bin")
	os.WriteFile(bin, []byte("\x00\x01\x02"), 0o644)
	c.fail(1, "binary", "rule", "import", "--project", p, "--from", "auto", bin)
	latin := filepath.Join(dir, "latin1.csv")
	os.WriteFile(latin, []byte("source,destination,statusCode,matchType\n/caf\xe9,/b,301,exact\n"), 0o644)
	c.fail(1, "not UTF-8 text (invalid byte at offset 44)", "rule", "import", "--project", p, "--from", "auto", latin)
	c.fail(1, `unknown format "nope"`, "rule", "import", "--project", p, "--from", "nope", file)
	broken := filepath.Join(dir, "broken.csv")
	os.WriteFile(broken, []byte("source,destination,statusCode,matchType\n/x,/y,999,exact\n/z,/w,301,sideways\n"), 0o644)
	r = c.exec("", "rule", "import", "--project", p, "--from", "csv", broken)
	if r.code != 1 || !strings.Contains(r.stderr, "line 2: ") || !strings.Contains(r.stderr, "line 3: ") {
		t.Fatalf("broken file: exit %d stderr %q", r.code, r.stderr)
	}
	c.fail(2, "--placeholder goes with --from", "rule", "import", "--project", p, "--placeholder", "lang=en", file)
	c.fail(2, "is not NAME=VALUE", "rule", "import", "--project", p, "--from", "auto", "--placeholder", "lang", file)
	if after := c.ok("rule", "list", "--project", p, "--json"); after != before {
		t.Fatalf("a refused import changed the draft:\n%s\n%s", before, after)
	}

	// rule export (the draft CSV) reads back into the same draft.
	out := filepath.Join(dir, "draft.csv")
	c.ok("rule", "export", "--project", p, "--out", out)
	if n := c.ok("rule", "import", "--project", p, "--replace", out); n != "3" {
		t.Fatalf("re-import printed %q", n)
	}
	strip := func(s string) string { // IDs and times change with a replace
		var keep []string
		for _, l := range strings.Split(s, "\n") {
			if !strings.Contains(l, `"id"`) && !strings.Contains(l, `"createdAt"`) {
				keep = append(keep, l)
			}
		}
		return strings.Join(keep, "\n")
	}
	if after := c.ok("rule", "list", "--project", p, "--json"); strip(after) != strip(before) {
		t.Fatalf("export then import changed the draft:\n%s\n%s", before, after)
	}
	c.fail(2, "is not one of csv", "rule", "export", "--project", p, "--to", "nope")
	c.fail(2, "--json prints the report on stdout", "rule", "export", "--project", p, "--json")
}

// TestImportEveryFormatCLI imports each registered format's example file
// through rule import --from NAME (dry run, then for real into a project
// of its own) and through --from auto: the report names the format, every
// line of the example is in one class, and the import adds what the report
// says it read.
func TestImportEveryFormatCLI(t *testing.T) {
	c := newCLI(t)
	org, _ := c.setup()
	dir := t.TempDir()
	tried := 0
	for _, f := range importer.Formats() {
		if f.Example == "" || strings.HasPrefix(f.Name, "test-") {
			continue
		}
		tried++
		p := c.ok("project", "create", "--org", org, "--name", "import-"+f.Name, "--host", "example.com")
		file := filepath.Join(dir, f.Name+".in")
		os.WriteFile(file, []byte(f.Example), 0o644)
		var dry struct {
			Added     int
			DryRun    bool
			Migration struct {
				Format                 string
				AsIs, Changed, Skipped int
			}
		}
		c.jsonOf(&dry, "rule", "import", "--project", p, "--from", f.Name, "--dry-run", "--json", "--placeholder", "lang=en,fr", file)
		m := dry.Migration
		if m.Format != f.Name || !dry.DryRun || m.AsIs+m.Changed+m.Skipped == 0 {
			t.Errorf("%s: dry run %+v", f.Name, dry)
			continue
		}
		var real struct{ Added int }
		c.jsonOf(&real, "rule", "import", "--project", p, "--from", f.Name, "--json", "--placeholder", "lang=en,fr", file)
		if real.Added != dry.Added {
			t.Errorf("%s: the import added %d rules, its dry run %d", f.Name, real.Added, dry.Added)
		}
		var rules []json.RawMessage
		c.jsonOf(&rules, "rule", "list", "--project", p, "--json")
		if len(rules) != real.Added {
			t.Errorf("%s: the draft has %d rules after adding %d", f.Name, len(rules), real.Added)
		}
		// Detection: the example is recognised as some format, with a reason.
		var auto struct {
			Migration struct{ Format, Detected string }
		}
		c.jsonOf(&auto, "rule", "import", "--project", p, "--from", "auto", "--dry-run", "--mode", "upsert", "--json", "--placeholder", "lang=en,fr", file)
		if auto.Migration.Detected == "" {
			t.Errorf("%s: --from auto gave no reason: %+v", f.Name, auto)
		}
	}
	if tried < len(importer.Formats())-1 {
		t.Errorf("only %d of %d formats have an example", tried, len(importer.Formats()))
	}
}
