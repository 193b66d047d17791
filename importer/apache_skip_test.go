package importer

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"redirects/internal/hostileimport"
	"regexp"
	"slices"
	"strings"
	"testing"

	"redirects"
	"redirects/engine"
	"redirects/internal/servertest"
)

// apacheRule is a RewriteRule of the skip model: a skip ("-" [S=n]) or
// the redirect (302 to dest), with its $2 !=text conditions.
type apacheRule struct {
	pat   string
	skip  int
	dest  string
	notEq []string
	// g is the group the conditions test (0: $2).
	g int
	// count is the skip's count as written, when not skip's digits.
	count string
	// chain is the flag C: when the rule does not match, Apache passes
	// over the rules chained to it (those after it with C, and the one
	// after them). A rule of neither skip nor dest rewrites nothing.
	chain bool
}

// group returns the group r's conditions test.
func (r apacheRule) group() int {
	if r.g == 0 {
		return 2
	}
	return r.g
}

// apacheModel answers a path as mod_rewrite does in a per-directory
// context: the pattern searched in the path without its leading '/', a
// skip jumping over the next n rules, a redirect's conditions tested
// after its pattern matched (failing, the rule does not match), a rule
// with C that does not match jumping over the rules chained to it, $N
// replaced by the group. It returns the
// Location, or "" when no rule redirects.
func apacheModel(rules []apacheRule, path string) string {
	p := strings.TrimPrefix(path, "/")
	for i := 0; i < len(rules); {
		r := rules[i]
		m := regexp.MustCompile(r.pat).FindStringSubmatch(p)
		if m != nil && r.skip == 0 && r.dest != "" {
			for _, t := range r.notEq {
				if t == `""` {
					t = "" // Apache reads ="" as the empty text
				}
				if m[r.group()] == t {
					m = nil // a condition fails: no match
					break
				}
			}
		}
		if m == nil {
			i++
			if r.chain {
				for i < len(rules) && rules[i].chain {
					i++
				}
				i++
			}
			continue
		}
		if r.skip > 0 {
			i += 1 + r.skip
			continue
		}
		if r.dest == "" {
			i++
			continue
		}
		return regexp.MustCompile(`\$[1-9]`).ReplaceAllStringFunc(r.dest, func(g string) string { return m[g[1]-'0'] })
	}
	return ""
}

func apacheRulesText(rules []apacheRule) string {
	var b strings.Builder
	b.WriteString("RewriteEngine On\n")
	for _, r := range rules {
		for _, t := range r.notEq {
			fmt.Fprintf(&b, "RewriteCond $%d !=%s\n", r.group(), t)
		}
		target, flags := r.dest, "R=302,L,NE"
		switch {
		case r.count != "":
			target, flags = "-", "S="+r.count
		case r.skip > 0:
			target, flags = "-", fmt.Sprintf("S=%d", r.skip)
		case r.dest == "":
			target, flags = "-", ""
		}
		if r.chain {
			flags = strings.TrimPrefix(flags+",C", ",")
		}
		if flags != "" {
			flags = " [" + flags + "]"
		}
		fmt.Fprintf(&b, "RewriteRule %s %s%s\n", r.pat, target, flags)
	}
	return b.String()
}

// randomSkipRules returns skips over short words and a redirect with
// $2 tests after them, mostly with windows that reach the redirect, now
// and then one that ends inside a later skip's.
func randomSkipRules(rng *rand.Rand) []apacheRule {
	word := func() string {
		var b strings.Builder
		for range 1 + rng.IntN(3) {
			b.WriteByte("abc"[rng.IntN(3)])
		}
		return b.String()
	}
	var rules []apacheRule
	nskip := rng.IntN(4)
	for k := range nskip {
		pat := `^/?(\d+)/` + word()
		switch rng.IntN(3) {
		case 0:
			pat += "/"
		case 1:
			pat += `(\.html)?`
		}
		n := nskip - k
		if rng.IntN(8) == 0 && n > 1 {
			n--
		}
		rules = append(rules, apacheRule{pat: pat, skip: n})
	}
	red := apacheRule{pat: `^/?(\d+)/([a-c]+)(\.html)?`, dest: "/$1/doc#$2"}
	if rng.IntN(3) == 0 {
		red.pat = `^/?(\d+)/([a-c]+)$`
	}
	for range rng.IntN(3) {
		red.notEq = append(red.notEq, word())
	}
	return append(rules, red)
}

// randomMixedRules returns skips and redirects in any order: windows
// that end on a later skip, inside another's or past the last rule,
// redirects inside and after them, with tests of any of their groups
// (the empty text among them).
func randomMixedRules(rng *rand.Rand) []apacheRule {
	skipPats := []string{`^/?a`, `^/?1`, `^/?(\d+)/b`, `^/?[ab]+/c`, `c$`, `^/?ab`, `^/?(\d+)/a`, `^/?(\d+)/ab`, `b/`, `^/?a/b$`, `^/?(\d+)-`, `^/?[0-9]+/[ab]+$`}
	reds := []struct {
		pat, dest string
		groups    int
	}{
		{`^/?([a-c]+)/([a-c]+)`, "/r/$1/$2", 2},
		{`^/?(\d+)/([a-c]+)(\.html)?`, "/d/$1#$2", 2},
		{`^/?(\d+)/([a-c]+)$`, "/e/$2/$1", 2},
		{`^/?([a-c]+)-([0-9]+)`, "/f/$2", 2},
		{`^/?a(.*)$`, "/g/$1", 1},
		{`^/?(.*)$`, "/h/$1", 1},
	}
	word := func() string {
		if rng.IntN(8) == 0 {
			return `""`
		}
		var b strings.Builder
		for range 1 + rng.IntN(2) {
			b.WriteByte("abc1"[rng.IntN(4)])
		}
		return b.String()
	}
	var rules []apacheRule
	for range 2 + rng.IntN(4) {
		if rng.IntN(2) == 0 {
			rules = append(rules, apacheRule{pat: skipPats[rng.IntN(len(skipPats))], skip: 1 + rng.IntN(3)})
			continue
		}
		rd := reds[rng.IntN(len(reds))]
		r := apacheRule{pat: rd.pat, dest: rd.dest, g: 1 + rng.IntN(rd.groups)}
		if rng.IntN(2) == 0 {
			for range 1 + rng.IntN(2) {
				r.notEq = append(r.notEq, word())
			}
		}
		rules = append(rules, r)
	}
	return rules
}

// randomMixedPath returns a path of the characters the mixed rules test.
func randomMixedPath(rng *rand.Rand) string {
	var b strings.Builder
	b.WriteString("/")
	for range rng.IntN(7) {
		b.WriteByte("abc1/-."[rng.IntN(7)])
	}
	return b.String()
}

// mixedComparable reports whether every redirect of an import of
// randomMixedRules is imported, or skipped as answering no path (a claim
// the comparison tests), so that its answers can be held against the
// model's; the reason of the first other skip when not.
func mixedComparable(res *Result) (bool, string) {
	for _, l := range res.Lines {
		notes := strings.Join(l.Notes, " ")
		if l.Class != Skipped || strings.Contains(notes, "not a redirect") || strings.Contains(notes, "every path the rule matches") ||
			strings.HasPrefix(notes, "a condition of the RewriteRule") || strings.Contains(notes, "an earlier line answers every path it matches") {
			continue
		}
		return false, notes
	}
	return true, ""
}

// randomSkipPath returns a path of the shapes the skip rules test.
func randomSkipPath(rng *rand.Rand) string {
	var b strings.Builder
	b.WriteString("/")
	for range 1 + rng.IntN(2) {
		b.WriteByte("0123456789"[rng.IntN(10)])
	}
	if rng.IntN(10) > 0 {
		b.WriteByte('/')
	}
	for range rng.IntN(7) {
		b.WriteByte("abcabc/.hx1"[rng.IntN(11)])
	}
	if rng.IntN(4) == 0 {
		b.WriteString(".html")
	}
	return b.String()
}

// TestApacheSkipsModel holds the import of [S=n] skips and RewriteCond
// $2 !=text tests (kafka's shape: groups of a class in the middle of the
// pattern) against mod_rewrite's reading of the same rules: random skips
// over short words, random conditions, random paths, each answered by
// the imported rules as the edge answers and by apacheModel.
func TestApacheSkipsModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(36, 7))
	imported, refused := 0, 0
	for round := range 300 {
		rules := randomSkipRules(rng)
		text := apacheRulesText(rules)
		res, err := Read(context.Background(), strings.NewReader(text), "apache", Options{})
		if err != nil {
			t.Fatalf("round %d: %v\n%s", round, err, text)
		}
		// The report lists the lines with a note or a class other than as
		// is: none when the redirect is imported as is (its query after
		// the fragment, as Apache appends it).
		var last Outcome
		if n := len(res.Lines); n > 0 && res.Lines[n-1].Line == strings.Count(text, "\n") {
			last = res.Lines[n-1]
		}
		if notes := strings.Join(last.Notes, " "); last.Class == Skipped && !strings.Contains(notes, "every path the rule matches") {
			// Only a skip inside a window that ends first is refused; a
			// rule whose paths are all left out answers none, which the
			// model then tests.
			if !strings.Contains(notes, "passes over") {
				t.Fatalf("round %d: the redirect is skipped: %q\n%s", round, last.Notes, text)
			}
			refused++
			continue
		}
		imported++
		snap, err := engine.CompileChecked(res.Rules, redirects.Settings{})
		if err != nil {
			t.Fatalf("round %d: %v\n%s", round, err, text)
		}
		for range 60 {
			path := randomSkipPath(rng)
			want := apacheModel(rules, path)
			got := ""
			if m, ok := snap.LookupHost("", path); ok {
				got = string(m.AppendTarget(nil, path))
				m.Release()
			}
			if got != want {
				t.Fatalf("round %d: %s answers %q, mod_rewrite %q\n%s\nrules: %+v", round, path, got, want, text, res.Rules)
			}
		}
	}
	if imported < 200 || refused == 0 {
		t.Errorf("%d rounds imported, %d refused: the rounds do not cover both", imported, refused)
	}
}

// TestApacheSkipsMixedModel holds the import of skips and redirects in
// any order against mod_rewrite's reading (apacheModel): a skip whose
// window ends on a later skip (that skip is not run when the first one
// matches), windows ending inside others', tests of either group, random
// paths. A round with a redirect the import refuses is not compared;
// the refusals must name a skip passing over the rule or a chain.
func TestApacheSkipsMixedModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(36, 9))
	compared, refused := 0, 0
	for round := range 3000 {
		rules := randomMixedRules(rng)
		text := apacheRulesText(rules)
		res, err := Read(context.Background(), strings.NewReader(text), "apache", Options{})
		if err != nil {
			t.Fatalf("round %d: %v\n%s", round, err, text)
		}
		snap, err := engine.CompileChecked(res.Rules, redirects.Settings{})
		if err != nil {
			t.Fatalf("round %d: %v\n%s", round, err, text)
		}
		if ok, why := mixedComparable(res); !ok {
			if !strings.Contains(why, "passes over") && !strings.Contains(why, "excludes paths") {
				t.Fatalf("round %d: a redirect is skipped: %s\n%s", round, why, text)
			}
			refused++
			continue
		}
		compared++
		for range 80 {
			path := randomMixedPath(rng)
			if strings.Contains(path, "//") {
				continue // Apache merges slashes (docs/migrate.md)
			}
			want := apacheModel(rules, path)
			got := ""
			if m, ok := snap.LookupHost("", path); ok {
				got = string(m.AppendTarget(nil, path))
				m.Release()
			}
			if got != want {
				t.Fatalf("round %d: %s answers %q, mod_rewrite %q\n%s\nrules: %+v", round, path, got, want, text, res.Rules)
			}
		}
	}
	t.Logf("%d rounds compared, %d with a redirect refused", compared, refused)
	if compared < 600 || refused == 0 {
		t.Errorf("%d rounds compared, %d refused: the rounds do not cover both", compared, refused)
	}
}

// TestApacheSkipsRefused: a skip the import cannot take makes the rules
// it skips skipped too, naming it, rather than answering its paths.
func TestApacheSkipsRefused(t *testing.T) {
	for _, c := range []struct{ name, text, note string }{
		{"flags beside S", "RewriteEngine On\nRewriteRule ^/?a - [S=1,NC]\nRewriteRule ^/?(a+)/(b+) /x/$1 [R=302,L]\n", "the skip on line 2 passes over it"},
		{"a skip with conditions", "RewriteEngine On\nRewriteCond %{HTTP_HOST} ^a\\.example$\nRewriteRule ^/?a - [S=1]\nRewriteRule ^/?(a+)/(b+) /x/$1 [R=302,L]\n", "the skip on line 3 passes over it"},
		{"a test of $2 with flags", "RewriteEngine On\nRewriteCond $2 !=b [NC]\nRewriteRule ^/?(a+)/(b+) /x/$1 [R=302,L]\n", "the test of $2 has flags"},
		{"a test of a group that is no run of a class", "RewriteEngine On\nRewriteCond $1 !=ab\nRewriteRule ^/?(ab|cd)/x /x/$1 [R=302,L]\n", "excludes paths"},
		// Each rule counts toward the windows above it: a window that
		// ends on a later skip passes over that skip's pattern.
		{"a window that ends on a later skip", "RewriteEngine On\nRewriteRule ^/?x - [S=1]\nRewriteRule ^/?xa - [S=1]\nRewriteRule ^/?x(.*)$ /y/$1 [R=302,L]\n", "the skip on line 3 passes over it"},
		// A rule after one with the flag C runs only when that one
		// matched: a skip or a redirect there is no rule of its own.
		{"a chained skip", "RewriteEngine On\nRewriteRule ^/?a - [C]\nRewriteRule ^/?ab - [S=1]\nRewriteRule ^/?(.*)$ /y/$1 [R=302,L]\n", "chained to the RewriteRule on line 2"},
		{"a chained redirect", "RewriteEngine On\nRewriteRule ^/?z - [C]\nRewriteRule ^/?(.*)$ /y/$1 [R=302,L]\n", "chained to the RewriteRule on line 2"},
		{"a chain of three", "RewriteEngine On\nRewriteRule ^/?z - [C]\nRewriteRule ^/?zz - [C]\nRewriteRule ^/?(.*)$ /y/$1 [R=302,L]\n", "chained to the RewriteRule on line 3"},
		// Apache reads the count's leading digits: S=1x skips one rule.
		{"a count with text after its digits", "RewriteEngine On\nRewriteRule ^/?a - [S=1x]\nRewriteRule ^/?(a+)/(b+) /x/$1 [R=302,L]\nRewriteRule ^/?(.*)$ /y/$1 [R=302,L]\n", ""},
	} {
		res, err := Read(context.Background(), strings.NewReader(c.text), "apache", Options{})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if c.note == "" {
			continue // below
		}
		last := res.Lines[len(res.Lines)-1]
		if last.Class != Skipped || !strings.Contains(strings.Join(last.Notes, " "), c.note) {
			t.Errorf("%s: the rule is %s %q, want skipped naming %q", c.name, last.Class, last.Notes, c.note)
		}
		if len(res.Rules) != 0 {
			t.Errorf("%s: rules %+v, want none", c.name, res.Rules)
		}
	}
}

// TestApacheSkipsKafka: kafka.apache.org's skips and $2 test (the
// corpus file) read as one regex rule that answers what Apache answers,
// the paths the skips and the test leave out answering nothing.
func TestApacheSkipsKafka(t *testing.T) {
	rules := []apacheRule{
		{pat: `^/?(\d+)/generated/`, skip: 4},
		{pat: `^/?(\d+)/documentation(\.html)?`, skip: 3},
		{pat: `^/?(\d+)/javadoc`, skip: 2},
		{pat: `^/?(\d+)/images/`, skip: 1},
		{pat: `^/?(\d+)/([a-z]+)(\.html)?`, dest: "/$1/documentation#$2", notEq: []string{"protocol"}},
	}
	res, err := Read(context.Background(), strings.NewReader(apacheRulesText(rules)), "apache", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rules) != 1 || res.Rules[0].MatchType != redirects.Regex {
		t.Fatalf("rules %+v, want one regex rule", res.Rules)
	}
	snap, err := engine.CompileChecked(res.Rules, redirects.Settings{})
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{
		"/1/generated":          "/1/documentation#generated",
		"/1/generated/x":        "",
		"/1/generated.html":     "/1/documentation#generated",
		"/12/images/a.png":      "",
		"/12/images.html":       "/12/documentation#images",
		"/3/documentation.html": "",
		"/3/documentationx":     "",
		"/3/javadocs/a":         "",
		"/3/protocol.html":      "",
		"/3/protocols.html":     "/3/documentation#protocols",
		"/3/design.html":        "/3/documentation#design",
		"/3/design/x":           "/3/documentation#design",
		"/3/Design":             "",
		"/x/design":             "",
	} {
		if m := apacheModel(rules, path); m != want {
			t.Fatalf("%s: the model answers %q, the table %q", path, m, want)
		}
		got := ""
		if m, ok := snap.LookupHost("", path); ok {
			got = string(m.AppendTarget(nil, path))
			m.Release()
		}
		if got != want {
			t.Errorf("%s: %q, want %q (rule %s)", path, got, want, res.Rules[0].Source)
		}
	}
}

// TestApacheSkipsRealApache holds apacheModel and the import against a
// real Apache httpd: random skip rule sets (kafka's shape, then skips and
// redirects in any order), and the shapes the model and the import were
// found to miss, each the .htaccess of its own directory (the pattern
// sees the path below it), asked random paths.
func TestApacheSkipsRealApache(t *testing.T) {
	bin := servertest.LookPath(t, "apache2")
	if _, err := os.Stat(filepath.Join(servertest.ApacheModules, "mod_rewrite.so")); err != nil {
		t.Skipf("no Apache modules in %s: %v", servertest.ApacheModules, err)
	}
	rng := rand.New(rand.NewPCG(36, 8))
	dir := t.TempDir()
	type set struct {
		rules []apacheRule
		paths func(i int) string
	}
	var all []set
	for range 24 {
		all = append(all, set{randomSkipRules(rng), func(int) string { return randomSkipPath(rng) }})
	}
	for range 24 {
		all = append(all, set{randomMixedRules(rng), func(int) string { return randomMixedPath(rng) }})
	}
	list := []string{"/xa", "/xab", "/xb", "/x", "/a", "/ab", "/abc", "/aa/b", "/z", "/zz", "/q", "/b/x", "/b/", "/ab/c", "/a/b"}
	fixed := func(i int) string {
		if i < len(list) {
			return list[i]
		}
		return randomMixedPath(rng)
	}
	for _, rules := range [][]apacheRule{
		// A window that ends on a later skip: /xa is redirected.
		{{pat: `^/?x`, skip: 1}, {pat: `^/?xa`, skip: 1}, {pat: `^/?x(.*)$`, dest: "/y/$1"}},
		// S=1x skips one rule, S=x none.
		{{pat: `^/?a`, skip: 1, count: "1x"}, {pat: `^/?(a+)(.*)$`, dest: "/x/$1"}, {pat: `^/?(.*)$`, dest: "/y/$1"}},
		{{pat: `^/?a`, count: "x"}, {pat: `^/?(a+)(.*)$`, dest: "/x/$1"}, {pat: `^/?(.*)$`, dest: "/y/$1"}},
		// Chains: a rule that does not match passes over those chained
		// to it.
		{{pat: `^/?z`, chain: true}, {pat: `^/?(.*)$`, dest: "/y/$1"}},
		{{pat: `^/?a`, chain: true}, {pat: `^/?ab`, skip: 1}, {pat: `^/?(.*)$`, dest: "/y/$1"}},
		// $N !="" is a test against the empty text.
		{{pat: `^/?([a-c]+)/(.*)$`, dest: "/r/$1/$2", notEq: []string{`""`}}, {pat: `^/?(.*)$`, dest: "/y/$1"}},
	} {
		all = append(all, set{rules, fixed})
	}
	for k, s := range all {
		if err := os.MkdirAll(filepath.Join(dir, "htdocs", fmt.Sprintf("s%d", k)), 0o755); err != nil {
			t.Fatal(err)
		}
		servertest.WriteFile(t, filepath.Join(dir, "htdocs", fmt.Sprintf("s%d", k), ".htaccess"), []byte(apacheRulesText(s.rules)))
	}
	port := servertest.FreePort(t)
	conf := filepath.Join(dir, "httpd.conf")
	servertest.WriteFile(t, conf, []byte(servertest.ApacheConf(dir, port, "")))
	servertest.Check(t, bin, "-t", "-f", conf)
	servertest.Start(t, []int{port}, bin, "-DFOREGROUND", "-f", conf)
	redirected, compared := 0, 0
	for k, s := range all {
		text := apacheRulesText(s.rules)
		res, err := Read(context.Background(), strings.NewReader(text), "apache", Options{})
		if err != nil {
			t.Fatal(err)
		}
		imported, _ := mixedComparable(res)
		snap, err := engine.CompileChecked(res.Rules, redirects.Settings{})
		if err != nil {
			t.Fatal(err)
		}
		for i := range 25 {
			path := s.paths(i)
			if segs := strings.Split(path, "/"); slices.Contains(segs, ".") || slices.Contains(segs, "..") || strings.Contains(path, "//") {
				// Apache merges slashes and resolves dot segments first
				// (docs/migrate.md); the edge's clients send neither.
				continue
			}
			code, loc := askRetry(t, port, "127.0.0.1", fmt.Sprintf("/s%d%s", k, path))
			theirs := ""
			if code == 302 {
				theirs = strings.TrimPrefix(loc, "http://127.0.0.1")
				redirected++
			}
			if m := apacheModel(s.rules, path); m != theirs {
				t.Errorf("set %d, %s: Apache answers %d %q, the model %q\n%s", k, path, code, loc, m, text)
			}
			if !imported {
				// A redirect refused leaves its paths to the rules
				// below: a difference its reason names.
				continue
			}
			compared++
			ours := ""
			if m, ok := snap.LookupHost("", path); ok {
				ours = string(m.AppendTarget(nil, path))
				m.Release()
			}
			if ours != theirs {
				t.Errorf("set %d, %s: Apache answers %q, the import %q\n%s", k, path, theirs, ours, text)
			}
		}
	}
	t.Logf("%d answers redirected, %d compared with the import", redirected, compared)
	if redirected == 0 || compared == 0 {
		t.Errorf("%d answers redirected, %d compared with the import: the sets test nothing", redirected, compared)
	}
}

// apacheAnswers imports text and returns the answer of each path ("" for
// none), with the result.
func apacheAnswers(t *testing.T, text string, paths ...string) (*Result, map[string]string) {
	t.Helper()
	res, err := Read(context.Background(), strings.NewReader(text), "apache", Options{})
	if err != nil {
		t.Fatal(err)
	}
	snap, err := engine.CompileChecked(res.Rules, redirects.Settings{})
	if err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	out := map[string]string{}
	for _, p := range paths {
		if m, ok := snap.LookupHost("", p); ok {
			out[p] = string(m.AppendTarget(nil, p))
			m.Release()
		} else {
			out[p] = ""
		}
	}
	return res, out
}

// TestApacheSkipCount: Apache reads S=n's leading digits (atoi), so
// S=1x skips one rule and S=x none; the import opens the same window.
func TestApacheSkipCount(t *testing.T) {
	rules := []apacheRule{
		{pat: `^/?a`, skip: 1},
		{pat: `^/?(a+)/(b+)`, dest: "/x/$1"},
		{pat: `^/?(.*)$`, dest: "/y/$1"},
	}
	for _, c := range []struct {
		count string
		n     int
		note  string
	}{
		{"1x", 1, "Apache reads S=1x as S=1"},
		{"x", 0, "it skips no rule: Apache reads S=x as 0"},
		{"+1", 1, "Apache reads S=+1 as S=1"},
		{"0", 0, "it skips no rule"},
	} {
		text := strings.Replace(apacheRulesText(rules), "[S=1]", "[S="+c.count+"]", 1)
		res, got := apacheAnswers(t, text, "/a/b", "/aa/bb/c", "/b/c", "/a")
		if notes := strings.Join(res.Lines[0].Notes, " "); !strings.Contains(notes, c.note) {
			t.Errorf("S=%s: the skip's notes %q, want %q", c.count, notes, c.note)
		}
		model := slices.Clone(rules)
		model[0].skip = c.n
		if c.n == 0 {
			model = model[1:] // skips nothing
		}
		for p, ours := range got {
			if want := apacheModel(model, p); ours != want {
				t.Errorf("S=%s: %s answers %q, Apache %q", c.count, p, ours, want)
			}
		}
	}
}

// TestApacheSkipSections: Apache keeps a list of rules per virtual host
// and directory context; a skip's window reaches no rule of another.
func TestApacheSkipSections(t *testing.T) {
	for _, text := range []string{
		"<VirtualHost *:80>\nRewriteEngine On\nRewriteRule ^/?a - [S=1]\n</VirtualHost>\n<VirtualHost *:80>\nRewriteEngine On\nRewriteRule ^/?(.*)$ /y/$1 [R=302,L]\n</VirtualHost>\n",
		"RewriteEngine On\nRewriteRule ^/?a - [S=1]\n<Directory /srv>\nRewriteEngine On\nRewriteRule ^/?(.*)$ /y/$1 [R=302,L]\n</Directory>\n",
		"RewriteEngine On\nRewriteRule ^/?a - [C]\n<Directory /srv>\nRewriteEngine On\nRewriteRule ^/?(.*)$ /y/$1 [R=302,L]\n</Directory>\n",
	} {
		_, got := apacheAnswers(t, text, "/a", "/b")
		if got["/a"] != "/y/a" || got["/b"] != "/y/b" {
			t.Errorf("%v, want /a and /b answered\n%s", got, text)
		}
	}
	// Within a list, through <IfModule>, the window holds.
	text := "RewriteEngine On\n<IfModule mod_rewrite.c>\nRewriteRule ^/?a - [S=1]\n</IfModule>\nRewriteRule ^/?(.*)$ /y/$1 [R=302,L]\n"
	if _, got := apacheAnswers(t, text, "/a", "/b"); got["/a"] != "" || got["/b"] != "/y/b" {
		t.Errorf("%v, want /a left out and /b answered\n%s", got, text)
	}
}

// TestApacheGroupTestEmpty: Apache reads $N !="" as a test against the
// empty text, which a group of one character or more always passes.
func TestApacheGroupTestEmpty(t *testing.T) {
	rules := []apacheRule{{pat: `^/?(\d+)/([a-z"]+)`, dest: "/d/$1/$2", notEq: []string{`""`, "ab"}}}
	text := apacheRulesText(rules)
	paths := []string{`/1/""`, `/1/"`, "/1/ab", "/1/abc", `/1/""/x`, "/1/"}
	res, got := apacheAnswers(t, text, paths...)
	if len(res.Rules) != 1 {
		t.Fatalf("rules %+v, lines %+v: want one\n%s", res.Rules, res.Lines, text)
	}
	for _, p := range paths {
		// The edge writes a '"' of the path into the URL as %22 (a
		// URL holds none raw); the model keeps the text.
		if want := strings.ReplaceAll(apacheModel(rules, p), `"`, "%22"); got[p] != want {
			t.Errorf("%s: %q, Apache %q (rule %s)", p, got[p], want, res.Rules[0].Source)
		}
	}
}

// TestApacheGroupExcludeEscapes: the items before the split group are
// written as the others are, so the bytes a regex rule refuses raw (';',
// a quote, a blank) do not keep the rule out.
func TestApacheGroupExcludeEscapes(t *testing.T) {
	rules := []apacheRule{
		{pat: `^/?(\d+);'\x20([a-z]+)`, dest: "/d/$1/$2", notEq: []string{"ab"}},
	}
	text := apacheRulesText(rules)
	res, got := apacheAnswers(t, text, "/1;'%20ab", "/1;'%20ac", "/1;'%20abc", "/x;'%20ab")
	if len(res.Rules) != 1 {
		t.Fatalf("rules %+v, lines %+v: want one\n%s", res.Rules, res.Lines, text)
	}
	for p, want := range map[string]string{"/1;'%20ab": "", "/1;'%20ac": "/d/1/ac", "/1;'%20abc": "/d/1/abc", "/x;'%20ab": ""} {
		if got[p] != want {
			t.Errorf("%s: %q, want %q (rule %s)", p, got[p], want, res.Rules[0].Source)
		}
	}
}

// TestApacheSkipReason: a rule the paths left out cannot be written
// around names why in its own reading, not the reading of another shape.
func TestApacheSkipReason(t *testing.T) {
	res, _ := apacheAnswers(t, "RewriteEngine On\nRewriteRule ^/?1/a - [S=1]\nRewriteRule ^/?(\\d+)/([a-z]+) /d/$1/$2 [R=302,L]\n")
	last := res.Lines[len(res.Lines)-1]
	if last.Class != Skipped || !strings.Contains(strings.Join(last.Notes, " "), "depend on the text of item") {
		t.Errorf("the rule is %s %q, want skipped naming the group the paths depend on", last.Class, last.Notes)
	}
}

// TestApacheSkipsHostile: a file of skips whose windows all stay open,
// each followed by a redirect inside them all (hostileimport's
// ApacheSkips, 1 MiB), costs each rule a bounded work: past
// maxSkipWindows open windows a skip is refused, naming why, and the
// rules it covers with it; so is a rule whose skips leave out more than
// maxSkipExcluded bytes of expressions.
func TestApacheSkipsHostile(t *testing.T) {
	b, err := io.ReadAll(hostileimport.ApacheSkips().Reader(1 << 20))
	if err != nil {
		t.Fatal(err)
	}
	res, err := Read(context.Background(), bytes.NewReader(b), "apache", Options{})
	if err != nil {
		t.Fatal(err)
	}
	skips, refused, redirects, covered := 0, 0, 0, 0
	for _, l := range res.Lines {
		notes := strings.Join(l.Notes, " ")
		switch {
		case strings.Contains(notes, "not a redirect"):
			skips++
		case strings.Contains(notes, "passes over it for some paths"):
			covered++
		case strings.Contains(notes, fmt.Sprintf("more than %d skips are open at once", maxSkipWindows)):
			refused++
		case l.Class != Skipped || strings.Contains(notes, "an earlier line answers every path it matches"):
			redirects++ // imported, or answering no path left to it
		default:
			t.Fatalf("line %d: %s %q", l.Line, l.Class, l.Notes)
		}
	}
	// A redirect imported as is (its query after the fragment, as Apache
	// appends it) is in AsIsLines, not in Lines.
	for _, r := range res.AsIsLines {
		redirects += r[1] - r[0] + 1
	}
	lines := bytes.Count(b, []byte(" - [S="))
	t.Logf("%d skips: %d read, %d refused, %d redirects read, %d skipped with them", lines, skips, refused, redirects, covered)
	if skips != maxSkipWindows || redirects != maxSkipWindows || len(res.Rules) == 0 || len(res.Rules) > maxSkipWindows {
		t.Errorf("%d skips read, %d redirects read (%d rules); want %d each", skips, redirects, len(res.Rules), maxSkipWindows)
	}
	if refused+skips != lines || covered+redirects != lines || lines < 10000 {
		t.Errorf("%d skips refused, %d redirects skipped, of %d skips: want every skip past the first %d and the redirects after them", refused, covered, lines, maxSkipWindows)
	}

	// A read whose context ends stops at the reader's next read.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Read(ctx, bytes.NewReader(b), "apache", Options{}); !errors.Is(err, context.Canceled) {
		t.Errorf("a read of a cancelled context: %v, want context.Canceled", err)
	}

	// Windows of long expressions: the rule below them all is refused.
	var f strings.Builder
	f.WriteString("RewriteEngine On\n")
	for i := range maxSkipWindows {
		fmt.Fprintf(&f, "RewriteRule ^/?(\\d+)/%s%d - [S=%d]\n", strings.Repeat("a", maxSkipExcluded/maxSkipWindows), i, maxSkipWindows-i)
	}
	f.WriteString("RewriteRule ^/?(\\d+)/([a-z]+) /d/$1#$2 [R=302,L]\n")
	res, err = Read(context.Background(), strings.NewReader(f.String()), "apache", Options{})
	if err != nil {
		t.Fatal(err)
	}
	last := res.Lines[len(res.Lines)-1]
	if want := fmt.Sprintf("more than %d bytes of expressions", maxSkipExcluded); last.Class != Skipped || !strings.Contains(strings.Join(last.Notes, " "), want) || len(res.Rules) != 0 {
		t.Errorf("the rule under the skips is %s %q (%d rules); want skipped naming %q", last.Class, last.Notes, len(res.Rules), want)
	}
}
