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
		switch ix := typ.(type) {
		case *ast.IndexExpr:
			typ = ix.X
		case *ast.IndexListExpr: // T[P, Q]
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

// moduleDecls is what the module's non-test Go files declare: each
// package's top-level names (under its package clause's name and its
// directory's), each type's methods and fields (interface methods
// included, any package's type of that name), and every function's and
// method's name.
type moduleDecls struct {
	pkgs  map[string]map[string]bool
	types map[string]map[string]bool
	funcs map[string]bool
}

// parseModule parses every non-test .go file of the module once (not the
// nested modules, testdata or hidden directories).
func parseModule(t *testing.T) *moduleDecls {
	t.Helper()
	m := &moduleDecls{pkgs: map[string]map[string]bool{}, types: map[string]map[string]bool{}, funcs: map[string]bool{}}
	add := func(set map[string]map[string]bool, key, name string) {
		if set[key] == nil {
			set[key] = map[string]bool{}
		}
		set[key][name] = true
	}
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if path == "." {
				return nil
			}
			if strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata" {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		pkgNames := []string{f.Name.Name, filepath.Base(filepath.Dir(path))}
		if filepath.Dir(path) == "." {
			pkgNames[1] = "redirects"
		}
		top := func(name string) {
			for _, p := range pkgNames {
				add(m.pkgs, p, name)
			}
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				m.funcs[d.Name.Name] = true
				if d.Recv == nil {
					top(d.Name.Name)
				} else if typ := recvType(d.Recv.List[0].Type); typ != "" {
					add(m.types, typ, d.Name.Name)
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.ValueSpec:
						for _, n := range s.Names {
							top(n.Name)
						}
					case *ast.TypeSpec:
						top(s.Name.Name)
						if m.types[s.Name.Name] == nil {
							m.types[s.Name.Name] = map[string]bool{}
						}
						var fields *ast.FieldList
						switch tt := s.Type.(type) {
						case *ast.StructType:
							fields = tt.Fields
						case *ast.InterfaceType:
							fields = tt.Methods
						}
						if fields == nil {
							continue
						}
						for _, fl := range fields.List {
							for _, n := range fl.Names {
								add(m.types, s.Name.Name, n.Name)
							}
							if len(fl.Names) == 0 { // embedded
								if n := recvType(fl.Type); n != "" {
									add(m.types, s.Name.Name, n)
								}
							}
						}
					}
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// recvType is the name of a receiver's or an embedded field's type: T of
// T, *T, T[P] or pkg.T.
func recvType(e ast.Expr) string {
	for {
		switch x := e.(type) {
		case *ast.StarExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.IndexListExpr:
			e = x.X
		case *ast.SelectorExpr:
			return x.Sel.Name
		case *ast.Ident:
			return x.Name
		default:
			return ""
		}
	}
}

// fileExts are the endings of a span such as `routes.go`, which names a
// file, not a Go name.
var fileExts = map[string]bool{"go": true, "md": true, "sql": true, "yaml": true, "yml": true, "json": true,
	"toml": true, "csv": true, "html": true, "js": true, "txt": true, "conf": true, "sh": true, "mod": true, "sum": true}

var (
	goQualified = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_]*)\.([A-Za-z_][A-Za-z0-9_]*)(\(\)?)?$`)
	goCall      = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_]*)\(\)?$`)
)

// check reports whether a code span names something the module does not
// declare, and what. The rule, kept simple:
//   - `X.Y` (or `X.Y(` / `X.Y()`): when X is a type of the module, Y must
//     be a method or field of a type of that name; else, when X is a
//     package of the module (its name or its directory's), Y must be one of
//     its top-level names; else X is outside the module (`atomic.Pointer`)
//     or not a Go name (`h.svc`, a variable), and the span is ignored. A Y
//     that is a file's ending (`routes.go`, `netlify.toml`) is a file
//     name, ignored.
//   - `Name(` or `Name()`: a function or method of that name must be
//     declared somewhere in the module.
//   - Anything else (a bare name, a path, a command line, a flag, a JSON
//     field) is ignored.
func (m *moduleDecls) check(span string) (bad bool, why string) {
	if g := goQualified.FindStringSubmatch(span); g != nil {
		x, y := g[1], g[2]
		if fileExts[y] {
			return false, ""
		}
		if members, ok := m.types[x]; ok {
			return !members[y], "no type " + x + " of the module has a method or field " + y
		}
		if names, ok := m.pkgs[x]; ok {
			return !names[y], "package " + x + " declares no " + y
		}
		return false, ""
	}
	if g := goCall.FindStringSubmatch(span); g != nil {
		return !m.funcs[g[1]], "the module declares no function or method " + g[1]
	}
	return false, ""
}

// TestArchitectureProse: every code span of the page's prose (the lines
// that are not table rows: the tables have tests of their own, and the
// deploy path's table of commit 6293847 names what was there then) that
// names a Go name of the module names something the module declares; see
// moduleDecls.check for the rule.
func TestArchitectureProse(t *testing.T) {
	m := parseModule(t)
	for i, line := range strings.Split(readArchitecture(t), "\n") {
		if strings.HasPrefix(line, "|") {
			continue
		}
		for _, s := range spans(line) {
			if bad, why := m.check(s); bad {
				t.Errorf("docs/architecture.md:%d: `%s`: %s", i+1, s, why)
			}
		}
	}
}

// recipes are the headings of the page's recipes, each followed by its
// table.
var recipes = []string{"Add a rule field", "Add a management route", "Add an import format"}

// TestArchitectureRecipes: each recipe has one table (| file | names |
// change |) whose rows name files that exist and, in a Go file (test files
// included), names it declares at its top level (F, T, V, T.M, pkg.F); in
// any other file, strings it contains.
func TestArchitectureRecipes(t *testing.T) {
	doc := readArchitecture(t)
	lines := strings.Split(doc, "\n")
	tables := tablesOf(doc, "file", "names", "change")
	// heading returns the recipe heading above line n (1-based).
	heading := func(n int) string {
		for i := n - 1; i >= 0; i-- {
			if h, ok := strings.CutPrefix(lines[i], "### "); ok {
				return h
			}
			if strings.HasPrefix(lines[i], "## ") {
				return ""
			}
		}
		return ""
	}
	seen := map[string]int{}
	for _, tab := range tables {
		if len(tab.rows) == 0 {
			t.Errorf("a recipe table has no rows")
			continue
		}
		h := heading(tab.lines[0])
		if !slices.Contains(recipes, h) {
			t.Errorf("docs/architecture.md:%d: a recipe table under %q, which is not a recipe (%q)", tab.lines[0], h, recipes)
			continue
		}
		seen[h]++
		for ri, row := range tab.rows {
			line := tab.lines[ri]
			files := spans(row[0])
			names := spans(row[1])
			if len(files) == 0 || len(names) == 0 {
				t.Errorf("docs/architecture.md:%d: a recipe row names no file or no name", line)
				continue
			}
			have := map[string]bool{}
			var text strings.Builder
			for _, f := range files {
				if _, err := os.Stat(f); err != nil {
					t.Errorf("docs/architecture.md:%d: file %s does not exist", line, f)
					continue
				}
				if strings.HasSuffix(f, ".go") {
					for n := range declaredNames(t, f) {
						have[n] = true
					}
					continue
				}
				b, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				text.Write(b)
			}
			for _, n := range names {
				if !have[n] && !strings.Contains(text.String(), n) {
					t.Errorf("docs/architecture.md:%d: %s is not declared in (or found in) %s", line, n, strings.Join(files, ", "))
				}
			}
		}
	}
	for _, r := range recipes {
		if seen[r] != 1 {
			t.Errorf("docs/architecture.md: recipe %q has %d tables (| file | names | change |), want 1", r, seen[r])
		}
	}
}

// declaredNames is declared's names and the file's top-level types,
// variables and constants (T, pkg.T).
func declaredNames(t *testing.T, file string) map[string]bool {
	t.Helper()
	names := declared(t, file)
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok {
			continue
		}
		for _, s := range g.Specs {
			switch s := s.(type) {
			case *ast.TypeSpec:
				names[s.Name.Name] = true
				names[f.Name.Name+"."+s.Name.Name] = true
			case *ast.ValueSpec:
				for _, n := range s.Names {
					names[n.Name] = true
					names[f.Name.Name+"."+n.Name] = true
				}
			}
		}
	}
	return names
}

// doorDirs are the packages that encode, decode or print the management
// API's JSON: its shapes are declared in api/, not there.
var doorDirs = []string{"manage", "remote", "ui", "service", "cmd/redirects"}

// doorJSONExceptions are the JSON-tagged structs of the doors that are not
// shapes of the management API, each with why ("file name", name the type
// or, for an anonymous struct, the function it is in).
var doorJSONExceptions = map[string]string{
	"cmd/redirects/remote.go profile": "the command line's login profile, a file it keeps in the user's " +
		"configuration directory: no route takes or answers it",
}

// TestArchitectureShapesInAPI: no door declares a JSON-tagged struct (a
// named type, or an anonymous struct in a function or a variable) but
// the exceptions: the management API's shapes are declared once, in api/.
func TestArchitectureShapesInAPI(t *testing.T) {
	found := map[string]bool{}
	for _, dir := range doorDirs {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, file := range files {
			if strings.HasSuffix(file, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.SkipObjectResolution)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range f.Decls {
				where := "(top level)"
				if fd, ok := d.(*ast.FuncDecl); ok {
					where = fd.Name.Name
					if fd.Recv != nil {
						where = recvType(fd.Recv.List[0].Type) + "." + where
					}
				}
				ast.Inspect(d, func(n ast.Node) bool {
					switch n := n.(type) {
					case *ast.TypeSpec:
						if st, ok := n.Type.(*ast.StructType); ok && jsonTagged(st) {
							found[file+" "+n.Name.Name] = true
							return false
						}
					case *ast.StructType:
						if jsonTagged(n) {
							found[file+" "+where] = true
							return false
						}
					}
					return true
				})
			}
		}
	}
	for key := range found {
		if doorJSONExceptions[key] == "" {
			t.Errorf("%s declares a JSON-tagged struct: declare the management API's shapes in api/ (or, if it is not one, list it in doorJSONExceptions with why)", key)
		}
	}
	for key := range doorJSONExceptions {
		if !found[key] {
			t.Errorf("doorJSONExceptions lists %s, which declares no JSON-tagged struct any more", key)
		}
	}
}

// jsonTagged reports whether a field of st has a json tag.
func jsonTagged(st *ast.StructType) bool {
	for _, f := range st.Fields.List {
		if f.Tag != nil && strings.Contains(f.Tag.Value, `json:"`) {
			return true
		}
	}
	return false
}
