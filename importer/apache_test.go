package importer

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"redirects"
	"redirects/internal/rulemodel"
	"redirects/internal/servertest"
)

// The shapes of the Apache reader, from the httpd 2.4 documentation:
// mod_alias (https://httpd.apache.org/docs/2.4/mod/mod_alias.html#redirect:
// "Redirect [status] [URL-path] URL", "the remainder of the path is
// appended", status keywords permanent, temp, seeother, gone;
// RedirectMatch's regular expression and $N) and mod_rewrite's flags
// (https://httpd.apache.org/docs/2.4/rewrite/flags.html: R, R=301, L, NC,
// QSA, QSD, G; "the query string is passed through unchanged by default").
func TestApacheShapes(t *testing.T) {
	in := `# comment
Redirect /a http://ex.test/b
Redirect permanent /docs/ /guide/
RedirectPermanent /p /q?x=1
RedirectTemp /t /u
Redirect seeother /s /s2
Redirect gone /g
Redirect 308 /e /f
RedirectMatch 301 ^/m$ /n
RedirectMatch ^/o/?$ /oo
RedirectMatch 301 ^/blog/(.*)$ /news/$1
RedirectMatch 301 /anywhere /x
RedirectMatch 301 ^/x.y$ /z
<IfModule mod_rewrite.c>
RewriteEngine On
RewriteRule ^shop/?$ /store [R=301,L]
RewriteRule ^/cart(.*)$ /basket$1 [R=308,L,QSA]
RewriteRule ^q$ /r?k=v [R=302,L,QSA]
RewriteRule ^nc$ /ncd [R=301,L,NC]
RewriteRule ^internal$ /index.php [L]
RewriteCond %{HTTP_HOST} ^www\.example\.com$ [NC]
RewriteRule ^host$ /h [R=301,L]
RewriteCond %{QUERY_STRING} ^id=1$
RewriteRule ^cond$ /c [R=301,L]
RewriteRule ^old$ - [G]
RewriteRule ^nol$ /x2 [R=301]
</IfModule>
<VirtualHost *:80>
Redirect /vh /vh2
</VirtualHost>
<If "%{HTTP_HOST} == 'a'">
Redirect /if /if2
</If>
<Location /loc>
Redirect 301 /loc2
</Location>
<Location /lg>
Redirect gone
</Location>
`
	res, err := Read(context.Background(), strings.NewReader(in), "apache", Options{})
	if err != nil {
		t.Fatal(err)
	}
	cl, _ := classes(res)
	want := map[int]Class{
		2: AsIs, 3: AsIs, 4: AsIs, 5: AsIs, 6: AsIs, 7: AsIs, 8: AsIs, 9: AsIs, 10: AsIs,
		// Regex rules since pattern rules: a capture (11, 17), an
		// unanchored expression (12), a literal dot (13, an exact rule),
		// [NC] (19) and a host condition (22, a host-scoped rule; its
		// RewriteCond line 21 makes no rule of its own) are as is.
		11: AsIs, 12: AsIs, 13: AsIs,
		16: AsIs, 17: AsIs, 18: Changed, 19: AsIs, 20: Skipped,
		// 24: a query condition (^id=1$, which Apache tests against the
		// whole query string) since query conditions: changed, noted;
		// its RewriteCond line 23 makes no rule of its own.
		22: AsIs, 24: Changed, 25: AsIs, 26: Changed,
		29: Changed, 32: Skipped, 35: AsIs, 38: AsIs,
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
		{"/a", "http://ex.test/b", 302}, {"/a/x?k=1", "http://ex.test/b/x?k=1", 302}, {"/ab", "", 0},
		{"/docs/x/y", "/guide/x/y", 301}, {"/docs", "", 0},
		{"/p?z=2", "/q?x=1", 301}, {"/p/r", "/q?x=1/r", 301}, // as Apache
		{"/s", "/s2", 303}, {"/g", "", 410}, {"/g/h", "", 410}, {"/e?y", "/f?y", 308},
		{"/m", "/n", 301}, {"/m/", "", 0}, {"/o/", "/oo", 302}, {"/o", "/oo", 302},
		{"/blog/2020/x?a=b", "/news/2020/x?a=b", 301},
		{"/shop/", "/store", 301}, {"/cart/1?z", "/basket/1?z", 308},
		{"/q?w=1", "/r?k=v&w=1", 302}, {"/host", "/h", 301}, {"/old", "", 410}, {"/cond", "", 0}, {"/cond?id=1", "/c?id=1", 301},
		{"/anywhere", "/x", 301}, {"/in/anywhere/x", "/x", 301}, {"/x.y", "/z", 301}, {"/NC", "/ncd", 301},
		{"/internal", "", 0}, {"/if", "", 0},
		// A Redirect without its URL-path in <Location>: checked against
		// Apache 2.4 (the location's paths, no rest appended).
		{"/loc", "/loc2", 301}, {"/loc/a?q=1", "/loc2?q=1", 301}, {"/loca", "", 0}, {"/lg/h", "", 410},
	} {
		a, ok := lookupImported(t, res, redirects.Settings{}, "www.example.com", c.path)
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
	// The host condition's rule answers its host only.
	if a, ok := lookupImported(t, res, redirects.Settings{}, "example.com", "/host"); ok {
		t.Errorf("/host on example.com answers %+v, want nothing", a)
	}
}

func TestApacheBadLines(t *testing.T) {
	in := "Redirect /only-one\nRedirect 301 /a\nRewriteRule ^a$ /b [R=301,X]\nRedirect gone /g /h\n</IfModule>\nRewriteEngine maybe\nRedirect /a b\n<Directory /x>\n"
	_, err := Read(context.Background(), strings.NewReader(in), "apache", Options{})
	be, ok := err.(*BadLinesError)
	if !ok {
		t.Fatalf("err %v, want bad lines", err)
	}
	var got []int
	for _, l := range be.Lines {
		got = append(got, l.Line)
	}
	if fmt.Sprint(got) != "[1 2 3 4 5 6 7 8]" {
		t.Errorf("bad lines %v, want 1..8: %v", got, err)
	}
}

func TestApacheDetect(t *testing.T) {
	f, why := Detect([]byte("# x\nRewriteEngine On\nRewriteRule ^a$ /b [R=301,L]\n"), ".htaccess")
	if f == nil || f.Name != "apache" {
		t.Fatalf("detected %v %s", f, why)
	}
	for _, other := range []string{"/a /b 301\n", "location = /a { return 301 /b; }\n", "source,destination,matchType\n", "Redirect from,Redirect to\n/a,/b\n"} {
		if f, _ := Detect([]byte(other), ""); f != nil && f.Name == "apache" {
			t.Errorf("%q detected as apache", other)
		}
	}
}

// apacheGen writes random Apache rule sets: each line's destination
// carries the marker /d<line>, so that the real server's Location names
// the line that answered. It returns the file and the class each line must
// have (a line that an earlier one shadows may be skipped instead).
type apacheGen struct {
	rng     *rand.Rand
	b       strings.Builder
	line    int
	want    map[int]Class
	sources []redirects.Rule
	perDir  bool
}

func (g *apacheGen) add(c Class, format string, args ...any) {
	g.line++
	fmt.Fprintf(&g.b, format+"\n", args...)
	if c != "" {
		g.want[g.line] = c
	}
}

func (g *apacheGen) lit() string {
	segs := []string{"a", "b", "Docs", "x1", "café", "a+b", "v2"}
	var b strings.Builder
	for k := g.rng.IntN(2) + 1; k > 0; k-- {
		b.WriteString("/" + segs[g.rng.IntN(len(segs))])
	}
	s := b.String()
	g.sources = append(g.sources, redirects.Rule{Source: s}, redirects.Rule{Source: s + "/"})
	return s
}

func (g *apacheGen) dst() string {
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

// quoteRe escapes a literal for a regular expression.
func quoteRe(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if strings.IndexByte(`.+*?()[]{}|^$\`, s[i]) >= 0 {
			b.WriteByte('\\')
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func (g *apacheGen) code() int { return []int{301, 302, 303, 307, 308}[g.rng.IntN(5)] }

func (g *apacheGen) rewritePattern(lit string) string {
	if g.perDir {
		return "^" + quoteRe(lit[1:])
	}
	return "^" + quoteRe(lit)
}

// rewrite adds a RewriteRule. One below the Redirect lines answers first
// all the same (mod_rewrite runs before mod_alias), and is read so.
func (g *apacheGen) rewrite() {
	c := AsIs
	lit := g.lit()
	switch g.rng.IntN(8) {
	case 0:
		g.add(c, "RewriteRule %s$ %s [R=%d,L]", g.rewritePattern(lit), g.dst(), []int{301, 302, 303, 307, 308}[g.rng.IntN(5)])
	case 1:
		g.add(AsIs, "RewriteRule %s(.*)$ /d%d$1 [R=301,L,QSA]", g.rewritePattern(lit), g.line+1)
	case 2:
		// Changed: Apache escapes the appended query again (without NE).
		g.add(Changed, "RewriteRule %s/?$ /d%d?k=v [R=302,L,QSA]", g.rewritePattern(lit), g.line+1)
	case 3:
		g.add(c, "RewriteRule %s$ /d%d [R=301,L,QSD]", g.rewritePattern(lit), g.line+1)
	case 4:
		// A query condition: a parameter test is as is; a test of the
		// whole query string is changed.
		if g.rng.IntN(2) == 0 {
			g.add("", "RewriteCond %%{QUERY_STRING} (^|&)k=v(&|$)")
			g.add(AsIs, "RewriteRule %s$ /d%d [R=301,L]", g.rewritePattern(lit), g.line+1)
		} else {
			g.add("", "RewriteCond %%{QUERY_STRING} ^k=v$")
			g.add(Changed, "RewriteRule %s$ /d%d [R=301,L]", g.rewritePattern(lit), g.line+1)
		}
	case 5:
		// A host condition: a rule of that host (the requests are asked
		// on 127.0.0.1 and on www.other.example).
		h := []string{`^127\.0\.0\.1$`, `^(www\.)?other\.example$`, `=www.other.example`}[g.rng.IntN(3)]
		g.add("", "RewriteCond %%{HTTP_HOST} %s [NC]", h)
		g.add(AsIs, "RewriteRule %s$ /d%d [R=301,L]", g.rewritePattern(lit), g.line+1)
	case 6:
		d := g.dst()
		g.add(AsIs, "RewriteRule %s$ %s [R=301,L,NC]", g.rewritePattern(lit), d)
	case 7:
		// An alternation and a character class, two groups.
		g.add(AsIs, "RewriteRule %s/(x|v)([0-9]*)/?$ /d%d/$2/$1 [R=302,L]", g.rewritePattern(lit), g.line+1)
	}
}

func (g *apacheGen) alias() {
	lit := g.lit()
	if !g.perDir && g.rng.IntN(10) == 0 {
		// <Location> is not allowed in .htaccess.
		g.add("", "<Location %s>", lit)
		if g.rng.IntN(3) == 0 {
			g.add(AsIs, "    Redirect gone")
		} else {
			g.add(AsIs, "    Redirect %d /d%d", g.code(), g.line+1)
		}
		g.add("", "</Location>")
		return
	}
	switch g.rng.IntN(9) {
	case 0:
		st := []string{"", "301 ", "permanent ", "temp ", "seeother ", "307 ", "308 "}[g.rng.IntN(7)]
		d := g.dst()
		g.add(AsIs, "Redirect %s%s %s", st, lit, d) // a query in d too: the rest follows it, as on Apache
	case 1:
		g.add(AsIs, "RedirectPermanent %s/ /d%d/", lit, g.line+1)
	case 2:
		d := g.dst()
		g.add(AsIs, "RedirectTemp %s %s", lit, d)
	case 3:
		g.add(AsIs, "RedirectMatch 301 ^%s$ %s", quoteRe(lit), g.dst())
	case 4:
		g.add(AsIs, "RedirectMatch 302 ^%s/?$ %s", quoteRe(lit), g.dst())
	case 5:
		g.add(AsIs, "RedirectMatch 301 ^%s(.*)$ /d%d$1", quoteRe(lit), g.line+1)
	case 6:
		g.add(AsIs, "RedirectMatch 301 %s /d%d", quoteRe(lit), g.line+1)
	case 7:
		g.add(AsIs, "RedirectMatch 308 ^%s /d%d", quoteRe(lit), g.line+1)
	case 8:
		g.add(AsIs, "Redirect gone %s", lit)
	}
}

// TestApacheAgainstApache: random rule sets written as an Apache server
// configuration (or an .htaccess file), imported, and every random path
// answered by the imported rules as real Apache httpd answers it, but for
// the paths that Apache answers with a line the report lists as changed or
// skipped.
func TestApacheAgainstApache(t *testing.T) {
	bin := servertest.LookPath(t, "apache2")
	if _, err := os.Stat(filepath.Join(servertest.ApacheModules, "mod_rewrite.so")); err != nil {
		t.Skipf("no Apache modules in %s: %v", servertest.ApacheModules, err)
	}
	seeds := 20
	if testing.Short() {
		seeds = 4
	}
	for seed := uint64(0); seed < uint64(seeds); seed++ {
		rng := rand.New(rand.NewPCG(seed, 21))
		g := &apacheGen{rng: rng, want: map[int]Class{}, perDir: seed%2 == 1}
		g.add("", "RewriteEngine On")
		for range rng.IntN(6) + 1 {
			g.rewrite()
		}
		for range rng.IntN(10) + 1 {
			g.alias()
		}
		if rng.IntN(2) == 0 {
			g.rewrite()
		}
		file := g.b.String()
		res, err := Read(context.Background(), strings.NewReader(file), "apache", Options{})
		if err != nil {
			t.Fatalf("seed %d: %v\n%s", seed, err, file)
		}
		cl, win := classes(res)
		for l, c := range g.want {
			// A line another one shadows (wholly or in part) is skipped
			// or changed, naming that line: an earlier one, or a
			// RewriteRule below a Redirect, which Apache tries first.
			if cl[l] != c && !(cl[l] != AsIs && win[l] != 0 && win[l] != l) {
				t.Errorf("seed %d line %d: class %q, want %q\n%+v\n%s", seed, l, cl[l], c, res.Lines, file)
			}
		}

		dir := t.TempDir()
		os.Mkdir(filepath.Join(dir, "htdocs"), 0o755)
		port := servertest.FreePort(t)
		body := file
		if g.perDir {
			servertest.WriteFile(t, filepath.Join(dir, "htdocs", ".htaccess"), []byte(file))
			body = ""
		}
		conf := filepath.Join(dir, "httpd.conf")
		servertest.WriteFile(t, conf, []byte(servertest.ApacheConf(dir, port, body)))
		servertest.Check(t, bin, "-t", "-f", conf)
		servertest.Start(t, []int{port}, bin, "-DFOREGROUND", "-f", conf)
		compared := 0
		for i, p := range rulemodel.Paths(rng, g.sources, 80) {
			if strings.Contains(p, "//") {
				// Apache merges repeated slashes (MergeSlashes On);
				// docs/migrate.md says so.
				continue
			}
			// Every other path is asked on another host, which the
			// rules of a host condition do not answer; some carry the
			// parameter query conditions test.
			host := []string{"127.0.0.1", "www.other.example"}[i%2]
			switch i % 3 {
			case 1:
				if strings.Contains(p, "?") {
					p = strings.Replace(p, "?", "?k=v&", 1)
				} else {
					p += "?k=v"
				}
			case 2:
				if !strings.Contains(p, "?") {
					p += "?a=1&k=v"
				}
			}
			code, loc := askHost(t, port, host, p)
			loc = strings.TrimPrefix(loc, "http://"+host)
			theirs := 0
			if code >= 300 && code < 400 || code == 410 {
				theirs = markerLine(loc)
				if code == 410 {
					theirs = -1
				}
			} else {
				code = 0
			}
			a, ok := lookupImported(t, res, redirects.Settings{}, host, p)
			ours := a.line
			if theirs > 0 && cl[theirs] != AsIs || ours > 0 && cl[ours] != AsIs {
				continue // declared as answering otherwise
			}
			if theirs == -1 && ok && a.status == 410 {
				compared++
				continue
			}
			if code == 0 && !ok {
				compared++
				continue
			}
			if !ok || a.status != code || decodeLoose(a.target) != decodeLoose(loc) {
				t.Fatalf("seed %d %s on %s: Apache answers %d %q (line %d), the import %+v %v (line %d)\n%s", seed, p, host, code, loc, theirs, a, ok, ours, file)
			}
			compared++
		}
		if compared < 20 {
			t.Errorf("seed %d: only %d paths compared", seed, compared)
		}
	}
}
