package redirects_test

import (
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The tables of docs/architecture.md name functions, files and imports;
// these tests fail when the code no longer has what a table says, so the
// page cannot drift from the code.

// mdTable is one Markdown table: the rows under a header whose first cell
// is first, each a slice of cells, and the line each starts on.
type mdTable struct {
	rows  [][]string
	lines []int
}

// tablesOf returns the Markdown tables of doc whose header's first cells
// are header, in order.
func tablesOf(doc string, header ...string) []mdTable {
	var out []mdTable
	var cur *mdTable
	for i, line := range strings.Split(doc, "\n") {
		if !strings.HasPrefix(line, "|") {
			cur = nil
			continue
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		for j := range cells {
			cells[j] = strings.TrimSpace(cells[j])
		}
		switch {
		case cur == nil:
			if len(cells) >= len(header) && slices.Equal(cells[:len(header)], header) {
				out = append(out, mdTable{})
				cur = &out[len(out)-1]
			} else {
				cur = &mdTable{} // another table: skipped
			}
		case strings.Trim(line, "|-: ") == "":
			// the separator line
		default:
			cur.rows = append(cur.rows, cells)
			cur.lines = append(cur.lines, i+1)
		}
	}
	return out
}

var codeSpan = regexp.MustCompile("`([^`]+)`")

// spans returns the code spans of a cell.
func spans(cell string) []string {
	var out []string
	for _, m := range codeSpan.FindAllStringSubmatch(cell, -1) {
		out = append(out, m[1])
	}
	return out
}

// declared returns the names a Go file declares at its top level: F for a
// function, T.M for a method on T (or *T), and pkg.F for a function of its
// package pkg.
func declared(t *testing.T, file string) map[string]bool {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatalf("docs/architecture.md names %s: %v", file, err)
	}
	names := map[string]bool{}
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok {
			continue
		}
		if fd.Recv == nil {
			names[fd.Name.Name] = true
			names[f.Name.Name+"."+fd.Name.Name] = true
			continue
		}
		typ := fd.Recv.List[0].Type
		if s, ok := typ.(*ast.StarExpr); ok {
			typ = s.X
		}
		if ix, ok := typ.(*ast.IndexExpr); ok {
			typ = ix.X
		}
		if id, ok := typ.(*ast.Ident); ok {
			names[id.Name+"."+fd.Name.Name] = true
		}
	}
	return names
}

func readArchitecture(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("docs/architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestArchitecturePaths: every function the lookup and deploy tables name
// is declared in a file its row names, and every file exists. A function
// cell lists Go names (F, T.M, pkg.F); a file cell lists files and may
// name the other store's directory in parentheses, which is not checked.
func TestArchitecturePaths(t *testing.T) {
	tables := tablesOf(readArchitecture(t), "#", "function", "file")
	if len(tables) != 2 {
		t.Fatalf("docs/architecture.md has %d path tables (| # | function | file |), want 2: the lookup and the deploy", len(tables))
	}
	for ti, tab := range tables {
		if len(tab.rows) == 0 {
			t.Errorf("path table %d has no rows", ti+1)
		}
		for ri, row := range tab.rows {
			line := tab.lines[ri]
			var files []string
			for _, f := range spans(row[2]) {
				if strings.HasSuffix(f, ".go") {
					files = append(files, f)
				}
			}
			if len(files) == 0 {
				t.Errorf("docs/architecture.md:%d: the row names no Go file", line)
				continue
			}
			names := map[string]bool{}
			for _, f := range files {
				// A bare file name not at the root is in the directory of
				// the row's first file with a directory.
				if _, err := os.Stat(f); err != nil && !strings.Contains(f, "/") {
					for _, g := range files {
						if strings.Contains(g, "/") {
							f = filepath.Join(filepath.Dir(g), f)
							break
						}
					}
				}
				if _, err := os.Stat(f); err != nil {
					t.Errorf("docs/architecture.md:%d: file %s does not exist", line, f)
					continue
				}
				for n := range declared(t, f) {
					names[n] = true
				}
			}
			fns := spans(row[1])
			if len(fns) == 0 {
				t.Errorf("docs/architecture.md:%d: the row names no function", line)
			}
			for _, fn := range fns {
				if !names[fn] {
					t.Errorf("docs/architecture.md:%d: %s is not declared in %s", line, fn, strings.Join(files, ", "))
				}
			}
		}
	}
}

// TestArchitecturePackageMap: the package map lists every package of the
// module but the tools (bench/, release/, deploy/), and its imports column
// names exactly the module's packages each imports (the
// root as "root") and every module outside the standard library it uses,
// each in a code span.
func TestArchitecturePackageMap(t *testing.T) {
	tables := tablesOf(readArchitecture(t), "package", "what it holds", "imports")
	if len(tables) != 1 {
		t.Fatalf("docs/architecture.md has %d package maps, want 1", len(tables))
	}
	out, err := exec.Command("go", "list", "-json", "./...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	type pkg struct {
		ImportPath string
		Imports    []string
		Standard   bool
	}
	imports := map[string][]string{}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for dec.More() {
		var p pkg
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		imports[p.ImportPath] = p.Imports
	}
	// name is how the map names a package: "root", or its directory.
	name := func(path string) string {
		if path == "redirects" {
			return "root"
		}
		return strings.TrimPrefix(path, "redirects/")
	}
	listed := map[string]bool{}
	for ri, row := range tables[0].rows {
		line := tables[0].lines[ri]
		cell := row[2]
		var want []string
		for _, s := range spans(cell) {
			want = append(want, strings.TrimSuffix(s, "/"))
		}
		for _, p := range spans(row[0]) {
			path := "redirects/" + strings.TrimSuffix(p, "/")
			if strings.HasPrefix(p, "redirects") {
				path = "redirects"
			}
			imps, ok := imports[path]
			if !ok {
				t.Errorf("docs/architecture.md:%d: package %s does not exist", line, p)
				continue
			}
			listed[path] = true
			var own, others []string
			for _, imp := range imps {
				switch {
				case imp == "redirects" || strings.HasPrefix(imp, "redirects/"):
					own = append(own, name(imp))
				case strings.Contains(strings.SplitN(imp, "/", 2)[0], "."):
					others = append(others, imp)
				}
			}
			var wantOwn, wantOthers []string
			for _, w := range want {
				if _, isOwn := imports["redirects/"+w]; isOwn || w == "root" {
					wantOwn = append(wantOwn, w)
				} else {
					wantOthers = append(wantOthers, w)
				}
			}
			slices.Sort(own)
			slices.Sort(wantOwn)
			if !slices.Equal(own, wantOwn) {
				t.Errorf("docs/architecture.md:%d: %s imports %v of the module, the map says %v", line, p, own, wantOwn)
			}
			// Every outside module is named by a part of its path; every
			// outside name in the cell is imported.
			for _, imp := range others {
				if !slices.ContainsFunc(wantOthers, func(w string) bool { return strings.Contains(imp, w) }) {
					t.Errorf("docs/architecture.md:%d: %s imports %s, which the map does not name", line, p, imp)
				}
			}
			for _, w := range wantOthers {
				if !slices.ContainsFunc(others, func(imp string) bool { return strings.Contains(imp, w) }) {
					t.Errorf("docs/architecture.md:%d: the map says %s imports %s, which it does not", line, p, w)
				}
			}
		}
	}
	for path := range imports {
		n := name(path)
		if !listed[path] && !strings.HasPrefix(n, "bench") && !strings.HasPrefix(n, "release") && n != "deploy" {
			t.Errorf("docs/architecture.md: the package map does not list %s", n)
		}
	}
}
