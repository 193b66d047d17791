package importer

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"redirects"
	"redirects/internal/rulemodel"
	"redirects/internal/servertest"
)

// The shapes of the nginx reader, from the nginx documentation: location
// (https://nginx.org/en/docs/http/ngx_http_core_module.html#location: "=",
// "^~", the longest matching prefix, then regular expressions in order),
// return and rewrite (https://nginx.org/en/docs/http/ngx_http_rewrite_module.html:
// permanent, redirect, "If a replacement string includes the new request
// arguments, the previous request arguments are appended after them ...
// putting a question mark at the end of a replacement string avoids
// having them appended"), and map
// (https://nginx.org/en/docs/http/ngx_http_map_module.html).
func TestNginxShapes(t *testing.T) {
	in := `# comment
map $uri $new_uri {
    default "";
    /m1 /n1;
    ~^/m2 /n2;
    ~^/m3(.*)$ /n3$1;
    ~^/m4.x /n4;
}
server {
    listen 80;
    rewrite ^/blog/(.*)$ /news/$1 permanent;
    rewrite ^/old$ /new redirect;
    rewrite ^/q$ /r? permanent;
    rewrite ^/int$ /index.php last;
    if ($new_uri) { return 308 $new_uri; }
    location = /a { return 301 /b; }
    location ^~ /docs/ { return 302 https://docs.example.com/; }
    location /p/ { return 301 https://ex.test$request_uri; }
    location = /g { return 410; }
    location = /nf { return 404; }
    location ~ ^/re { return 301 /x; }
    location /loc/ {
        rewrite ^/loc/(.*)$ /l2/$1 permanent;
    }
    location = /args { return 307 /z$is_args$args; }
}
`
	res, err := Read(context.Background(), strings.NewReader(in), "nginx", Options{})
	if err != nil {
		t.Fatal(err)
	}
	cl, _ := classes(res)
	want := map[int]Class{
		4: Changed, // letters: map keys ignore case
		5: Changed, 6: Changed, 7: Skipped,
		11: AsIs, 12: AsIs, 13: AsIs, 14: Skipped, // 11: a regex rule since pattern rules
		16: AsIs, 17: AsIs, 18: Changed, 19: AsIs, 20: Skipped, 21: Changed, 23: Changed, 25: AsIs,
	}
	for l, c := range want {
		if cl[l] != c {
			t.Errorf("line %d: class %q, want %q (%+v)", l, cl[l], c, res.Lines)
		}
	}
	for l, c := range cl {
		if _, ok := want[l]; !ok {
			t.Errorf("line %d: class %q, want none", l, c)
		}
	}
	type q struct {
		path, dst string
		code      int
	}
	for _, c := range []q{
		{"/m1", "/n1", 308}, {"/m2x", "/n2", 308}, {"/m3/a", "/n3/a", 308},
		{"/blog/x?k=1", "/news/x?k=1", 301}, {"/old?z", "/new?z", 302}, {"/q?z", "/r", 301},
		{"/a?k", "/b", 301}, {"/a/", "", 0}, {"/docs/x", "https://docs.example.com/", 302},
		{"/p/x/y?k=1", "https://ex.test/p/x/y?k=1", 301}, {"/g", "", 410},
		{"/loc/a/b", "/l2/a/b", 301}, {"/args?u=1", "/z?u=1", 307}, {"/args", "/z", 307},
	} {
		a, ok := lookupImported(t, res, redirects.Settings{}, "", c.path)
		if c.code == 0 {
			if ok {
				t.Errorf("%s answers %+v, want nothing", c.path, a)
			}
			continue
		}
		if !ok || a.status != c.code || a.target != c.dst {
			t.Errorf("%s answers %+v %v, want %d %s", c.path, a, ok, c.code, c.dst)
		}
	}
}

// TestNginxMapFile: a map file alone reads as exact 301s, with one note on
// the status assumed.
func TestNginxMapFile(t *testing.T) {
	res, err := Read(context.Background(), strings.NewReader("/a /b;\n/c https://ex.test/d;\n~^/e /f;\n"), "nginx", Options{})
	if err != nil {
		t.Fatal(err)
	}
	cl, _ := classes(res)
	// Line 2: map keys ignore case, the project does not.
	if cl[1] != Changed || cl[2] != Changed || cl[3] != Changed {
		t.Errorf("classes %v (%+v)", cl, res.Lines)
	}
	if a, ok := rulemodel.Lookup(res.Rules, rulemodel.Settings{}, "/ex"); !ok || a.Status != 301 || a.Destination != "/f" {
		t.Errorf("/ex answers %+v %v", a, ok)
	}
	if f, _ := Detect([]byte("/a /b;\n"), "redirects.map"); f == nil || f.Name != "nginx" {
		t.Errorf("a .map file is not detected as nginx")
	}
}

func TestNginxBadLines(t *testing.T) {
	in := "server {\n    rewrite ^/a /b bogus;\n    return;\n    location ~~ /x { }\n    location = /y { return 301 /z }\n"
	_, err := Read(context.Background(), strings.NewReader(in), "nginx", Options{})
	be, ok := err.(*BadLinesError)
	if !ok {
		t.Fatalf("err %v, want bad lines", err)
	}
	var got []int
	for _, l := range be.Lines {
		got = append(got, l.Line)
	}
	if fmt.Sprint(got) != "[2 3 4 5 1]" {
		t.Errorf("bad lines %v: %v", got, err)
	}
}

// nginxGen writes random nginx configurations: a map in the http block and
// one server block, each destination marked /d<line>.
type nginxGen struct {
	regexLocs, plain []int // lines of regular-expression and plain prefix locations
	rng              *rand.Rand
	b                strings.Builder
	line             int
	want             map[int]Class
	sources          []redirects.Rule
	locs             map[string]bool
	keys             map[string]bool
	// prefixes are the literals of the server-level prefix rewrites: nginx
	// answers an exact location under one of them with the rewrite.
	prefixes []string
}

func (g *nginxGen) add(c Class, format string, args ...any) {
	g.line++
	fmt.Fprintf(&g.b, format+"\n", args...)
	if c != "" {
		g.want[g.line] = c
	}
}

func (g *nginxGen) lit() string {
	segs := []string{"a", "b", "docs", "x1", "café", "a+b", "v2"}
	var b strings.Builder
	for k := g.rng.IntN(2) + 1; k > 0; k-- {
		b.WriteString("/" + segs[g.rng.IntN(len(segs))])
	}
	s := b.String()
	g.sources = append(g.sources, redirects.Rule{Source: s}, redirects.Rule{Source: s + "/"})
	return s
}

func (g *nginxGen) dst() string {
	n := g.line + 1
	switch g.rng.IntN(4) {
	case 0:
		return fmt.Sprintf("/d%d", n)
	case 1:
		return fmt.Sprintf("/d%d?x=1", n)
	case 2:
		return fmt.Sprintf("http://ex.test/d%d", n)
	}
	return fmt.Sprintf("/d%d/", n)
}

// covered is the class of an exact rule of lit: changed when an earlier
// server-level prefix rewrite takes it in nginx.
func (g *nginxGen) covered(lit string) Class {
	for _, p := range g.prefixes {
		if strings.HasPrefix(lit, p) {
			return Changed
		}
	}
	return AsIs
}

func (g *nginxGen) code() int { return []int{301, 302, 303, 307, 308}[g.rng.IntN(5)] }

func (g *nginxGen) location() {
	lit := g.lit()
	if g.rng.IntN(6) == 0 {
		// A regular-expression location: a regex rule with its captures.
		g.regexLocs = append(g.regexLocs, g.line+1)
		if g.rng.IntN(2) == 0 {
			g.add(AsIs, "    location ~ ^%s/([a-z0-9]+)$ { return %d /d%d/$1$is_args$args; }", quoteRe(lit), g.code(), g.line+1)
		} else {
			g.add(AsIs, "    location ~* ^%s/(x|v)([0-9]*)$ { return %d /d%d/$2$1; }", quoteRe(lit), g.code(), g.line+1)
		}
		return
	}
	mod := []string{"=", "^~", ""}[g.rng.IntN(3)]
	if mod != "=" && g.rng.IntN(2) == 0 {
		lit += "/"
	}
	key := mod + " " + lit
	if mod == "" {
		key = "^~ " + lit
	}
	if g.locs[key] {
		return
	}
	g.locs[key] = true
	sp := ""
	if mod != "" {
		sp = " "
	}
	c := AsIs
	if mod == "=" {
		c = g.covered(lit)
	}
	if mod == "" {
		g.plain = append(g.plain, g.line+1)
	}
	switch g.rng.IntN(5) {
	case 0:
		g.add(c, "    location %s%s%s { return 410; }", mod, sp, lit)
	case 1:
		g.add(c, "    location %s%s%s { return %d /d%d$is_args$args; }", mod, sp, lit, g.code(), g.line+1)
	case 2:
		g.add(c, "    location %s%s%s { return %d http://ex.test/d%d$request_uri; }", mod, sp, lit, g.code(), g.line+1)
	default:
		g.add(c, "    location %s%s%s { return %d %s; }", mod, sp, lit, g.code(), g.dst())
	}
}

// TestNginxAgainstNginx: random configurations imported, and every random
// path answered by the imported rules as real nginx answers it, but for
// the paths nginx answers with a line the report lists as changed or
// skipped.
func TestNginxAgainstNginx(t *testing.T) {
	bin := servertest.LookPath(t, "nginx")
	seeds := 30
	if testing.Short() {
		seeds = 4
	}
	for seed := uint64(0); seed < uint64(seeds); seed++ {
		rng := rand.New(rand.NewPCG(seed, 22))
		g := &nginxGen{rng: rng, want: map[int]Class{}, locs: map[string]bool{}, keys: map[string]bool{}}
		useMap := rng.IntN(2) == 0
		if useMap {
			g.add("", "map $uri $new_uri {")
			g.add("", "    default \"\";")
			for range rng.IntN(5) + 1 {
				lit := g.lit()
				if g.keys[strings.ToLower(lit)] {
					continue
				}
				g.keys[strings.ToLower(lit)] = true
				switch rng.IntN(3) {
				case 0:
					// Map keys ignore case: changed when the key has a letter.
					g.add(Changed, "    %s /d%d;", lit, g.line+1)
				case 1:
					g.add(AsIs, "    ~^%s$ /d%d;", quoteRe(lit), g.line+1)
				case 2:
					// Used in the server block: it takes the exact
					// locations under it before nginx chooses a location.
					g.prefixes = append(g.prefixes, lit)
					g.add(Changed, "    ~^%s(.*)$ /d%d$1;", quoteRe(lit), g.line+1)
				}
			}
			g.add("", "}")
		}
		httpEnd := g.line
		g.add("", "server {")
		g.add("", "    absolute_redirect off;")
		for range rng.IntN(4) {
			lit := g.lit()
			switch rng.IntN(3) {
			case 0:
				g.add(g.covered(lit), "    rewrite ^%s$ %s permanent;", quoteRe(lit), g.dst())
			case 1:
				g.prefixes = append(g.prefixes, lit)
				// A regex rule since pattern rules (was changed: read
				// as starts_with with a note).
				g.add(AsIs, "    rewrite ^%s(.*)$ /d%d$1 redirect;", quoteRe(lit), g.line+1)
			case 2:
				g.add(g.covered(lit), "    rewrite ^%s/?$ /d%d? permanent;", quoteRe(lit), g.line+1)
			}
		}
		if useMap {
			g.add("", "    if ($new_uri) { return %d $new_uri; }", g.code())
		}
		for range rng.IntN(10) + 1 {
			g.location()
		}
		g.add("", "}")
		file := g.b.String()
		if len(g.regexLocs) > 0 {
			// nginx tries the regular-expression locations first: a
			// plain prefix location says so.
			for _, l := range g.plain {
				if g.want[l] == AsIs {
					g.want[l] = Changed
				}
			}
		}
		if strings.Contains(file, "location ^~") {
			// ... and prefers a ^~ location to them.
			for _, l := range g.regexLocs {
				g.want[l] = Changed
			}
		}
		res, err := Read(context.Background(), strings.NewReader(file), "nginx", Options{})
		if err != nil {
			t.Fatalf("seed %d: %v\n%s", seed, err, file)
		}
		cl, win := classes(res)
		for l, c := range g.want {
			if cl[l] != c && !(cl[l] != AsIs && win[l] != 0) {
				t.Errorf("seed %d line %d: class %q, want %q\n%+v\n%s", seed, l, cl[l], c, res.Lines, file)
			}
		}
		lines := strings.Split(file, "\n")
		httpPart := strings.Join(lines[:httpEnd], "\n")
		serverPart := strings.Join(lines[httpEnd+1:len(lines)-2], "\n")
		dir := t.TempDir()
		port := servertest.FreePort(t)
		conf := filepath.Join(dir, "nginx.conf")
		servertest.WriteFile(t, conf, []byte(servertest.NginxConf(dir, httpPart, []string{serverPart}, []int{port})))
		servertest.Check(t, bin, "-t", "-q", "-c", conf)
		servertest.Start(t, []int{port}, bin, "-c", conf)
		compared := 0
		for _, p := range rulemodel.Paths(rng, g.sources, 80) {
			if strings.Contains(p, "//") {
				continue // nginx merges repeated slashes (merge_slashes on)
			}
			code, loc := ask(t, port, p)
			theirs := 0
			if code >= 300 && code < 400 {
				theirs = markerLine(loc)
			} else if code == 410 {
				theirs = -1
			} else {
				code = 0
			}
			a, ok := lookupImported(t, res, redirects.Settings{}, "127.0.0.1", p)
			ours := a.line
			if theirs > 0 && cl[theirs] != AsIs || ours > 0 && cl[ours] != AsIs {
				continue
			}
			if theirs == -1 && ok && a.status == 410 || code == 0 && !ok {
				compared++
				continue
			}
			if !ok || a.status != code || decodeLoose(a.target) != decodeLoose(loc) {
				t.Fatalf("seed %d %s: nginx answers %d %q (line %d), the import %+v %v (line %d)\n%s", seed, p, code, loc, theirs, a, ok, ours, file)
			}
			compared++
		}
		if compared < 20 {
			t.Errorf("seed %d: only %d paths compared", seed, compared)
		}
	}
}
