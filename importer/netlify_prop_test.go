package importer

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"

	"redirects"
	"redirects/engine"
	"redirects/internal/rulemodel"
	"redirects/internal/testreport"
)

// netlifyRef runs Netlify's own parser (a file ending in .toml read as
// netlify.toml, any other as _redirects) (netlify-redirect-parser, from
// importer/testdata/netlify, installed by `npm ci --prefix
// importer/testdata/netlify`) over files and returns, per file, the
// redirects it parsed and its errors. It skips the test when node or the
// package is absent.
func netlifyRef(t *testing.T, files []string) []refParsed {
	t.Helper()
	dir, _ := filepath.Abs("testdata/netlify")
	lib := filepath.Join(dir, "node_modules", "netlify-redirect-parser", "lib", "index.js")
	if _, err := os.Stat(lib); err != nil {
		testreport.Skip(t, testreport.NPM, "netlify-redirect-parser is not installed: run `npm ci --prefix importer/testdata/netlify`")
	}
	if _, err := exec.LookPath("node"); err != nil {
		testreport.Skip(t, testreport.NPM, "node is not installed")
	}
	testreport.Ran(t, testreport.NPM)
	script := filepath.Join(t.TempDir(), "parse.mjs")
	src := `import { parseAllRedirects } from ` + jsStringLit(lib) + `;
const out = [];
for (const f of process.argv.slice(2)) {
  const opts = f.endsWith(".toml") ? { netlifyConfigPath: f } : { redirectsFiles: [f] };
  const { redirects, errors } = await parseAllRedirects({ ...opts, minimal: true });
  out.push({ redirects, errors: errors.map((e) => e.message) });
}
process.stdout.write(JSON.stringify(out));
`
	if err := os.WriteFile(script, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("node", append([]string{script}, files...)...)
	cmd.Stderr = os.Stderr
	outb, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v", err)
	}
	var out []refParsed
	if err := json.Unmarshal(outb, &out); err != nil {
		t.Fatalf("parsing node's output: %v\n%.500s", err, outb)
	}
	return out
}

func jsStringLit(s string) string { b, _ := json.Marshal(s); return string(b) }

type refParsed struct {
	Redirects []refRedirect `json:"redirects"`
	Errors    []string      `json:"errors"`
}

// refRedirect is a redirect as netlify-redirect-parser returns it.
type refRedirect struct {
	From       string              `json:"from"`
	Query      map[string]string   `json:"query"`
	To         string              `json:"to"`
	Status     int                 `json:"status"`
	Force      bool                `json:"force"`
	Conditions map[string][]string `json:"conditions"`
}

// genNetlifyLine is one line the test's own writer wrote: its number and
// what it means, in netlify-redirect-parser's terms.
type genNetlifyLine struct {
	line int
	ref  refRedirect
}

var (
	nlDests      = []string{"/new", "/new/", "/b?x=1", "https://ex.com/p", "https://ex.com/", "/Z/"}
	nlSplatDests = []string{"/blog/", "https://ex.com/d/", "/blog/?x=1"}
	nlStatuses   = []int{0, 301, 302, 303, 307, 308, 301, 302, 200, 404, 410, 418}
)

// writeNetlifyFile writes a random _redirects file of n lines' worth, and
// returns it with what each redirect line means.
func writeNetlifyFile(rng *rand.Rand, n int) (string, []genNetlifyLine) {
	var b strings.Builder
	var gen []genNetlifyLine
	line := 0
	var prev []string
	written := map[string]bool{}
	sp := func() string {
		return []string{" ", "  ", "\t", " \t "}[rng.IntN(4)]
	}
	for len(gen) < n {
		switch rng.IntN(10) {
		case 0:
			line++
			b.WriteString("# a comment\n")
			continue
		case 1:
			line++
			b.WriteString("\n")
			continue
		}
		var r refRedirect
		src := rulemodel.Escape(randomNetlifyPath(rng), false)
		if len(prev) > 0 && rng.IntN(5) == 0 {
			src = prev[rng.IntN(len(prev))] // repeat a source: later lines are shadowed
		}
		switch k := rng.IntN(10); {
		case k < 5:
			r.From, r.To = src, nlDests[rng.IntN(len(nlDests))]
		case k < 8:
			pre := strings.TrimSuffix(src, "/") + "/"
			if rng.IntN(8) == 0 {
				pre = "/"
			}
			r.From = pre + "*"
			if rng.IntN(3) > 0 {
				d := nlSplatDests[rng.IntN(len(nlSplatDests))]
				if i := strings.IndexByte(d, '?'); i >= 0 {
					r.To = d[:i] + ":splat" + d[i:]
				} else {
					r.To = d + ":splat"
				}
			} else {
				r.To = nlDests[rng.IntN(len(nlDests))]
			}
		default:
			r.From, r.To = "/p/:lang/x", "/q/:lang/y"
			if rng.IntN(2) == 0 {
				r.From, r.To = "/p/:lang/:id", "/q/:id/:lang"
			}
		}
		prev = append(prev, src)
		r.Status = nlStatuses[rng.IntN(len(nlStatuses))]
		r.Force = r.Status != 0 && rng.IntN(4) == 0
		var parts []string
		parts = append(parts, r.From)
		if rng.IntN(12) == 0 {
			r.Query = map[string]string{"k": ":v"}
			parts = append(parts, "k=:v")
		}
		parts = append(parts, r.To)
		if r.Status != 0 {
			st := fmt.Sprint(r.Status)
			if r.Force {
				st += "!"
			}
			parts = append(parts, st)
			if rng.IntN(12) == 0 {
				r.Conditions = map[string][]string{"Country": {"us", "ca"}}
				parts = append(parts, "Country=us,ca")
			}
		}
		// Netlify's parser drops a line identical to a later one (it merges
		// _redirects with netlify.toml so): the writer writes none.
		key := strings.Join(parts, " ")
		if written[key] {
			continue
		}
		written[key] = true
		line++
		b.WriteString(strings.Join(parts, sp()))
		if rng.IntN(8) == 0 {
			b.WriteString(sp() + "# trailing comment")
		}
		b.WriteString("\n")
		gen = append(gen, genNetlifyLine{line: line, ref: r})
	}
	return b.String(), gen
}

var nlSegments = []string{"a", "b", "A", "docs", "Docs", "en-US", "café", "a+b", "v2", "p"}

func randomNetlifyPath(rng *rand.Rand) string {
	var b strings.Builder
	for k := rng.IntN(3) + 1; k > 0; k-- {
		b.WriteByte('/')
		b.WriteString(nlSegments[rng.IntN(len(nlSegments))])
	}
	if rng.IntN(3) == 0 {
		b.WriteByte('/')
	}
	return b.String()
}

// netlifyModel answers a request as Netlify's documentation says, over the
// redirects its parser read: the first line that matches (paths compared
// case sensitively once decoded, a trailing slash ignored; a splat matches
// the rest of the path, a placeholder one segment; a query condition needs
// its parameter), its :splat and placeholders substituted from the request
// in the client's escaping, and the request's query passed on. It returns
// the index of the line, the destination and status, and the placeholder
// values it matched; i < 0 when no line matches.
func netlifyModel(lines []refRedirect, wire string) (i int, dest string, status int, vals map[string]string) {
	end := strings.IndexAny(wire, "?#")
	if end < 0 {
		end = len(wire)
	}
	wpath := wire[:end]
	query := redirects.RequestQuery(wire)
	dpath, ok := decodeWire(wpath)
	if !ok {
		return -1, "", 0, nil
	}
	for i, l := range lines {
		if len(l.Query) > 0 {
			have := map[string]bool{}
			for _, kv := range strings.Split(query, "&") {
				k, _, _ := strings.Cut(kv, "=")
				have[k] = true
			}
			missing := false
			for k := range l.Query {
				if !have[k] {
					missing = true
				}
			}
			if missing {
				continue
			}
		}
		from, _ := decodeWire(l.From)
		to := l.To
		var rest string
		matched := false
		vals = map[string]string{}
		if strings.HasSuffix(from, "*") {
			pre := strings.TrimSuffix(from, "*")
			switch {
			case strings.HasPrefix(dpath, pre):
				matched = true
				rest = wireAfterBytes(wpath, len(pre))
			case dpath+"/" == pre:
				matched = true
			}
			to = strings.ReplaceAll(to, ":splat", rest)
		} else {
			fs := strings.Split(strings.TrimSuffix(from, "/"), "/")
			ps := strings.Split(strings.TrimSuffix(dpath, "/"), "/")
			ws := strings.Split(strings.TrimSuffix(wpath, "/"), "/")
			if len(fs) == len(ps) && len(ws) == len(ps) {
				matched = true
				for k := range fs {
					switch {
					case len(fs[k]) > 1 && fs[k][0] == ':':
						if ps[k] == "" {
							matched = false
						}
						vals[fs[k][1:]] = ws[k]
					case fs[k] != ps[k]:
						matched = false
					}
				}
			}
			if matched {
				to = substitutePlaceholders(to, vals)
			}
		}
		if !matched {
			continue
		}
		st := l.Status
		if st == 0 {
			st = 301
		}
		if query != "" {
			if strings.Contains(to, "?") {
				to += "&" + query
			} else {
				to += "?" + query
			}
		}
		return i, to, st, vals
	}
	return -1, "", 0, nil
}

// decodeWire decodes a wire path's escapes; ok is false for a malformed
// one.
func decodeWire(p string) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		if p[i] == '%' {
			if i+2 >= len(p) || !isHexDigit(p[i+1]) || !isHexDigit(p[i+2]) {
				return "", false
			}
			b.WriteByte(hexValue(p[i+1])<<4 | hexValue(p[i+2]))
			i += 2
			continue
		}
		b.WriteByte(p[i])
	}
	return b.String(), true
}

func isHexDigit(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func hexValue(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c <= 'F':
		return c - 'A' + 10
	}
	return c - 'a' + 10
}

// wireAfterBytes returns the wire path after its first n decoded bytes.
func wireAfterBytes(w string, n int) string {
	i := 0
	for ; n > 0 && i < len(w); n-- {
		if w[i] == '%' {
			i += 3
		} else {
			i++
		}
	}
	return w[i:]
}

// TestNetlifyPropertyReference: random _redirects files, written by the
// test's own writer, are parsed by Netlify's own parser (the reference for
// what each line means) and by ours; the imported rules answer every
// request as Netlify's documented matching over the reference's parse
// does, except on lines the report names changed or skipped (and a
// placeholder line answers as Netlify does for the values given).
func TestNetlifyPropertyReference(t *testing.T) { testNetlifyProperty(t, false, true) }

// TestNetlifyPatternPropertyReference: the same without --placeholder
// values: placeholder lines become pattern rules, as is.
func TestNetlifyPatternPropertyReference(t *testing.T) { testNetlifyProperty(t, false, false) }

// TestNetlifyTOMLPropertyReference: the same for netlify.toml files, their
// [[redirects]] tables written from the same random lines.
func TestNetlifyTOMLPropertyReference(t *testing.T) { testNetlifyProperty(t, true, true) }

func testNetlifyProperty(t *testing.T, toml, expand bool) {
	const seeds = 150
	format, name := "netlify", "_redirects"
	if toml {
		format, name = "netlify-toml", "netlify.toml"
	}
	dir := t.TempDir()
	files := make([]string, seeds)
	texts := make([]string, seeds)
	gens := make([][]genNetlifyLine, seeds)
	for s := range files {
		rng := rand.New(rand.NewPCG(uint64(s), 21))
		texts[s], gens[s] = writeNetlifyFile(rng, 4+rng.IntN(20))
		if toml {
			texts[s] = writeNetlifyTOML(rng, gens[s])
		}
		files[s] = filepath.Join(dir, fmt.Sprintf("r%d", s), name)
		os.MkdirAll(filepath.Dir(files[s]), 0o755)
		if err := os.WriteFile(files[s], []byte(texts[s]), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	refs := netlifyRef(t, files)
	set := redirects.Settings{IgnoreTrailingSlash: true}
	o := Options{Settings: set}
	if expand {
		o.Placeholders = map[string][]string{"lang": {"en", "fr"}, "id": {"a", "b"}}
	}
	asserted := 0
	for s := range files {
		gen, ref := gens[s], refs[s]
		if len(ref.Errors) > 0 || len(ref.Redirects) != len(gen) {
			t.Fatalf("seed %d: the reference parsed %d redirects (errors %q) of the %d written\n%s", s, len(ref.Redirects), ref.Errors, len(gen), texts[s])
		}
		// The reference reads each line as the writer meant it.
		for i, g := range gen {
			if !sameRef(g.ref, ref.Redirects[i]) {
				t.Fatalf("seed %d line %d: the reference read %+v, the writer meant %+v", s, g.line, ref.Redirects[i], g.ref)
			}
		}
		res, err := Read(context.Background(), strings.NewReader(texts[s]), format, o)
		if err != nil {
			t.Fatalf("seed %d: %v\n%s", s, err, texts[s])
		}
		classes := classesByLine(res)
		// Every redirect line has the class its shape gives (a line an
		// earlier one shadows is skipped naming the winner); no other line
		// has one.
		for _, g := range gen {
			if want := netlifyWantClass(g.ref, expand); classes[g.line] != want {
				o := outcomeAt(res, g.line)
				shadowed := classes[g.line] == Skipped && o.Winner > 0 && o.Winner < g.line
				// A later exact line answers some of its paths here (with a
				// query or on a host), which the notes of both lines say.
				stolen := classes[g.line] == Changed && want == AsIs
				for _, n := range o.Notes {
					stolen = stolen && (strings.Contains(n, ", later, answers ") || strings.Contains(n, "on the source platform; here this line does") ||
						strings.Contains(n, "on the source platform without a redirect; here this line redirects it"))
				}
				if !shadowed && !stolen {
					t.Fatalf("seed %d: line %d is %q %q, its shape gives %q\n%s", s, g.line, classes[g.line], o.Notes, want, texts[s])
				}
			}
		}
		if len(classes) != len(gen) {
			t.Fatalf("seed %d: %d lines classed, %d redirect lines", s, len(classes), len(gen))
		}
		var pseudo []redirects.Rule
		for _, g := range gen {
			p, _ := decodeWire(strings.TrimSuffix(g.ref.From, "*"))
			p = strings.ReplaceAll(strings.ReplaceAll(p, ":lang", []string{"en", "fr", "de"}[len(pseudo)%3]), ":id", "b")
			pseudo = append(pseudo, redirects.Rule{Source: p})
		}
		rng := rand.New(rand.NewPCG(uint64(s), 22))
		for _, p := range rulemodel.Paths(rng, pseudo, 80) {
			wi, wdest, wst, vals := netlifyModel(ref.Redirects, p)
			gl, gdest, gst, ok := engineAnswer(t, res, set, "", p)
			if wi < 0 {
				if ok {
					t.Fatalf("seed %d: %q answers %q %d (line %d), Netlify answers nothing\n%s", s, p, gdest, gst, gl, texts[s])
				}
				continue
			}
			wl := gen[wi].line
			c := classes[wl]
			if c == Changed && !placeholderOnly(res, wl, vals, o.Placeholders) {
				continue
			}
			if c == Skipped {
				// A line Netlify answers without a redirect (a rewrite, a
				// custom 404 page) that a later line answers here: the
				// later line's report names it.
				if r := gen[wi].ref; ok && gl > wl && (r.Status == 200 || r.Status == 404) && len(r.Conditions) == 0 && len(r.Query) == 0 {
					want := fmt.Sprintf("line %d, earlier, answers ", wl)
					if !slices.ContainsFunc(outcomeAt(res, gl).Notes, func(n string) bool { return strings.HasPrefix(n, want) }) {
						t.Fatalf("seed %d: %q answers from line %d here, from line %d (no redirect) on Netlify; line %d's notes %q do not name it\n%s", s, p, gl, wl, gl, outcomeAt(res, gl).Notes, texts[s])
					}
					asserted++
				}
				continue
			}
			asserted++
			if !ok || gl != wl || gdest != wdest || gst != wst {
				t.Fatalf("seed %d: %q answers %q %d from line %d (%v); Netlify answers %q %d from line %d\n%s", s, p, gdest, gst, gl, ok, wdest, wst, wl, texts[s])
			}
		}
	}
	if asserted < seeds*10 {
		t.Errorf("only %d answers compared", asserted)
	}
}

// placeholderOnly reports whether line's only note is its placeholder
// expansion, and the values matched are among those given.
func placeholderOnly(res *Result, line int, vals map[string]string, given map[string][]string) bool {
	o := outcomeAt(res, line)
	if len(o.Notes) != 1 || !strings.HasPrefix(o.Notes[0], "placeholder ") || len(vals) == 0 {
		return false
	}
	for k, v := range vals {
		found := false
		for _, g := range given[k] {
			found = found || g == v
		}
		if !found {
			return false
		}
	}
	return true
}

func sameRef(a, b refRedirect) bool {
	if a.From != b.From || a.To != b.To || a.Status != b.Status || a.Force != b.Force || len(a.Query) != len(b.Query) || len(a.Conditions) != len(b.Conditions) {
		return false
	}
	for k, v := range a.Query {
		if b.Query[k] != v {
			return false
		}
	}
	for k, v := range a.Conditions {
		x, y := append([]string(nil), v...), append([]string(nil), b.Conditions[k]...)
		sort.Strings(x)
		sort.Strings(y)
		if strings.Join(x, ",") != strings.Join(y, ",") {
			return false
		}
	}
	return true
}

// writeNetlifyTOML writes the lines gen means as a netlify.toml with
// other tables around, and sets each line's number to its [[redirects]]
// header.
func writeNetlifyTOML(rng *rand.Rand, gen []genNetlifyLine) string {
	var b strings.Builder
	n := 0
	w := func(s string) {
		b.WriteString(s + "\n")
		n++
	}
	w("# netlify.toml")
	w("[build]")
	w(`  command = "make site" # a comment`)
	w(`  publish = "public"`)
	for i := range gen {
		r := gen[i].ref
		w("")
		w("[[redirects]]")
		gen[i].line = n
		w("  from = " + jsStringLit(r.From))
		w("  to = '" + r.To + "'")
		if r.Status != 0 {
			w(fmt.Sprintf("  status = %d", r.Status))
		}
		if r.Force {
			w("  force = true")
		}
		// Keys after a sub-table header belong to it: inline values first.
		qSub, cSub := rng.IntN(2) == 0, rng.IntN(2) == 0
		if len(r.Query) > 0 && !qSub {
			w(`  query = {k = ":v"}`)
		}
		if len(r.Conditions) > 0 && !cSub {
			w(`  conditions = {Country = ["us", "ca"]}`)
		}
		if len(r.Query) > 0 && qSub {
			w("  [redirects.query]")
			w(`    k = ":v"`)
		}
		if len(r.Conditions) > 0 && cSub {
			w("  [redirects.conditions]")
			w(`    Country = ["us",`)
			w(`      "ca"]`)
		}
	}
	w("")
	w("[[plugins]]")
	w(`  package = "@netlify/plugin-sitemap"`)
	return b.String()
}

// netlifyWantClass is the class a line's shape gives, written from the
// rules of docs/migrate.md's Netlify table: not a redirect (200, 404,
// 418) or a condition: skipped; a placeholder expanded (expand), a 410
// or a 307: changed; the rest (query conditions, placeholders and splats
// as patterns) as is.
func netlifyWantClass(r refRedirect, expand bool) Class {
	switch {
	case r.Status == 200 || r.Status == 404 || r.Status == 418 || len(r.Conditions) > 0:
		return Skipped
	case expand && strings.Contains(r.From, "/:") || r.Status == 410 || r.Status == 307:
		return Changed
	}
	return AsIs
}

// answerCache holds the last result engineAnswer compiled.
var answerCache struct {
	sync.Mutex
	res  *Result
	set  redirects.Settings
	snap *engine.Snapshot
	prs  []rulemodel.PatternRule
}

// engineAnswer looks wire up on host among res's rules as the edge does
// (the engine, for the target and status) and names the line of the rule
// that answers (the contract's model, rulemodel.LookupPatterns).
func engineAnswer(t *testing.T, res *Result, set redirects.Settings, host, wire string) (line int, target string, status int, ok bool) {
	t.Helper()
	answerCache.Lock()
	defer answerCache.Unlock()
	c := &answerCache
	if c.res != res || c.set != set {
		snap, err := engine.CompileChecked(res.Rules, set)
		if err != nil {
			t.Fatal(err)
		}
		prs := make([]rulemodel.PatternRule, len(res.Rules))
		for i, r := range res.Rules {
			prs[i] = rulemodel.PatternRule{Kind: r.MatchType.String(), Host: r.Host, ExceptHosts: r.ExceptHosts, Source: r.Source, Destination: r.Destination, Priority: r.Priority, ID: int64(i + 1)}
		}
		c.res, c.set, c.snap, c.prs = res, set, snap, prs
	}
	snap, prs := c.snap, c.prs
	m, ok := snap.LookupHost(host, wire)
	if !ok {
		return -1, "", 0, false
	}
	a, mok := rulemodel.LookupPatterns(prs, rulemodel.Of(set), host, wire)
	if !mok {
		t.Fatalf("%q: the engine answers, the contract's model does not", wire)
	}
	return res.RuleLines[a.Rule], string(m.AppendTarget(nil, wire)), m.StatusCode(), true
}
