package export_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"redirects"
	"redirects/engine"
	"redirects/export"
	"redirects/internal/rulemodel"
	"redirects/internal/servertest"
)

// The differential tests load the exports into a real nginx and a real
// haproxy on 127.0.0.1, send many requests to them and hold each answer
// (status and Location) against what the lookup API answers for the same
// path, corrected only by the differences docs/exports.md documents. They
// skip when the binary is not on PATH (apt-get install nginx-light haproxy).
//
// REDIRECTS_TEST_SEED=<n> reruns the random rule set of a failed run.

// answer is what a server or the lookup API says for a path: a status and a
// Location, or status 0 for "no rule".
type answer struct {
	code int
	loc  string
}

func (a answer) String() string {
	if a.code == 0 {
		return "no redirect"
	}
	return strconv.Itoa(a.code) + " " + a.loc
}

// behaviour describes how one server configuration matches, as
// docs/exports.md documents it: which rules it holds and where it departs
// from the lookup API.
type behaviour struct {
	exact, prefix bool
	// exactFold and prefixFold: matching ignores ASCII case (HAProxy's -i,
	// nginx's map keys). Among exact sources equal up to case, the first in
	// byte order answers (the file order of haproxy, the one nginx-map-exact
	// keeps); among prefix sources, the first in priority order.
	exactFold, prefixFold bool
	// exact301: exact answers are 301 whatever the rule (two-column maps).
	exact301 bool
	// requestLine: the request path as sent (cut at '?', not decoded) is
	// matched against each source in the form browsers send
	// (modelBrowserSource), as the haproxy format's path and path_beg do.
	requestLine bool
}

// lookup is a brute-force model of docs/contract.md#matching with the
// departures of b. rules must be in engine.SortRules order. With no
// departure it is the lookup API, which TestModelIsTheEngine holds against
// engine.Compile.
func (b behaviour) lookup(rules []redirects.Rule, path string) answer {
	sent := path
	path, ok := modelPath(path)
	if !ok {
		return answer{}
	}
	if b.requestLine {
		sent, _, _ = strings.Cut(sent, "?")
		var browser []redirects.Rule
		for _, r := range rules {
			r.Source = modelBrowserSource(r.Source)
			browser = append(browser, r)
		}
		rules, path = browser, sent
	}
	if b.exact {
		for _, r := range rules {
			if r.MatchType == redirects.Exact && (r.Source == path || b.exactFold && asciiLower(r.Source) == asciiLower(path)) {
				code := r.StatusCode
				if b.exact301 {
					code = 301
				}
				return answer{code, r.Destination}
			}
		}
	}
	if b.prefix {
		for _, r := range rules {
			if r.MatchType == redirects.StartsWith && (strings.HasPrefix(path, r.Source) ||
				b.prefixFold && strings.HasPrefix(asciiLower(path), asciiLower(r.Source))) {
				return answer{r.StatusCode, r.Destination}
			}
		}
	}
	return answer{}
}

// modelPath is the path docs/contract.md#matching matches, written apart
// from the engine's redirects.DecodePath: the request path cut at its first
// '?' or '#', then percent-decoded once ('+' stays a plus). ok is false for a
// malformed escape.
func modelPath(path string) (string, bool) {
	if i := strings.IndexAny(path, "?#"); i >= 0 {
		path = path[:i]
	}
	d, err := url.PathUnescape(path)
	return d, err == nil
}

// escape writes the request path of the decoded path p as a client might:
// each byte escaped with probability 1/n in upper or lower hex, a '/' after
// the first escaped (%2F) now and then, and non-ASCII bytes escaped nearly
// always (a raw one now and then: nginx and HAProxy take them as they are).
func escape(rng *rand.Rand, p string, n int) string {
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case i == 0,
			c == '/' && rng.IntN(4*n) != 0,
			c >= 0x80 && rng.IntN(8) == 0,
			c < 0x80 && c != '/' && rng.IntN(n) != 0:
			b.WriteByte(c)
		case rng.IntN(2) == 0:
			fmt.Fprintf(&b, "%%%02X", c)
		default:
			fmt.Fprintf(&b, "%%%02x", c)
		}
	}
	return b.String()
}

// modelBrowserSource is the decoded source src as a browser sends it on
// the request line (Chromium, seen on its requests: UTF-8 bytes outside
// ASCII and " < > \ ^ ` { | } escaped in upper-case hex, the rest as it
// is), with '%' escaped too: the form the haproxy format writes.
func modelBrowserSource(src string) string {
	var b strings.Builder
	for i := 0; i < len(src); i++ {
		if c := src[i]; c > 0x7e || c <= 0x20 || strings.IndexByte("\"<>\\^`{|}%", c) >= 0 {
			fmt.Fprintf(&b, "%%%02X", c)
		} else {
			b.WriteByte(c)
		}
	}
	return b.String()
}

// browserForm is the request path p as a browser sends it: what
// modelBrowserSource escapes, but the escapes p already holds kept as they
// are.
func browserForm(p string) string {
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		if c := p[i]; c > 0x7e || c <= 0x20 || strings.IndexByte("\"<>\\^`{|}", c) >= 0 {
			fmt.Fprintf(&b, "%%%02X", c)
		} else {
			b.WriteByte(c)
		}
	}
	return b.String()
}

// escapeNonASCII escapes each byte of p outside ASCII, as clients do.
func escapeNonASCII(p string) string {
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		if c := p[i]; c >= 0x80 {
			fmt.Fprintf(&b, "%%%02X", c)
		} else {
			b.WriteByte(c)
		}
	}
	return b.String()
}

// genRules returns a random, valid rule set shaped to make the servers'
// matching work: few segment names so sources overlap, exact and
// starts_with rules sharing sources, prefixes ending inside a segment, tied
// priorities and creation times, sources differing only in case, 301 and
// 302, and destinations with query strings, absolute URLs, '%' and what
// would be an HAProxy log-format expression if it were not escaped. Sources
// hold non-ASCII characters, '+' and reserved characters, and are given
// percent-encoded now and then (upper and lower hex, '/' as %2F), as a user
// may write them: Validate stores their decoded form, which all three
// match.
func genRules(rng *rand.Rand, n int) []redirects.Rule {
	words := []string{"blog", "Blog", "docs", "shop", "a", "b", "x1", "2019", "v2", "old-page", "item_3",
		"a.b", "c~d", "(x)", "p+q", "e*f", "[g]", "h,i", "j=k", "l@m", "n:o", "!", "&", "BLOG", "Docs",
		"café", "CAFÉ", "✓", "straße", "日本", "a+b", "+", "x%2By", "caf%C3%A9", "caf%c3%a9", "%E2%9C%93", "m%2Fn"}
	segs := func() string {
		var b strings.Builder
		for range 1 + rng.IntN(4) {
			b.WriteString("/" + words[rng.IntN(len(words))])
		}
		if rng.IntN(4) == 0 {
			return escape(rng, b.String(), 3)
		}
		return b.String()
	}
	dests := []string{"/new", "/new?q=1&r=2", "https://example.com/x?a=b", "HTTPS://Example.COM/Y",
		"/p%2Fq?s=50%25", "http://ex.org/%[src]%%x", "/archive/", "/a,b"}
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	seen := map[string]bool{}
	var rules []redirects.Rule
	for len(rules) < n {
		r := redirects.Rule{
			ID:          int64(len(rules) + 1),
			Source:      segs(),
			Destination: dests[rng.IntN(len(dests))] + strconv.Itoa(len(rules)),
			StatusCode:  301 + rng.IntN(2),
			Priority:    []int{0, 1, 50, 100, 100, 100, 200, 1000}[rng.IntN(8)],
			CreatedAt:   t0.Add(time.Duration(rng.IntN(len(rules)+1)) * time.Hour),
		}
		switch k := rng.IntN(10); {
		case k < 5:
			r.MatchType = redirects.StartsWith
			if k == 0 {
				r.Source += "/" // a prefix that stays within a segment
			} else if k == 1 && len(r.Source) > 3 {
				r.Source = r.Source[:2+rng.IntN(len(r.Source)-2)] // a prefix ending inside a segment
			}
		case k == 5 && len(rules) > 0:
			// Reuse an existing source under the other match type.
			o := rules[rng.IntN(len(rules))]
			r.Source, r.MatchType = o.Source, 1-o.MatchType
		}
		// Validate stores the decoded source; a cut inside an escape
		// leaves a malformed one, which it refuses.
		if r.Validate() != nil {
			continue
		}
		key := r.MatchType.String() + " " + r.Source
		if seen[key] || nginxNormalizes(r.Source) {
			continue
		}
		seen[key] = true
		rules = append(rules, r)
	}
	return rules
}

// genPaths returns the request paths to probe, as a client sends them:
// every source, sources with something appended, their leading parts, case
// variants, random misses, some with a query string, each percent-encoded
// at random (escape) or sent as it is. Appended parts include an escaped
// '?', '#' and '%' (part of the path, not a query) and '+' raw and escaped.
// Paths nginx would normalize once decoded ("//", dot segments, a documented
// difference of the request alone) are left out, and so are leading parts
// that cut an escape or a UTF-8 sequence in two.
func genPaths(rng *rand.Rand, rules []redirects.Rule) []string {
	seen := map[string]bool{}
	var paths []string
	add := func(p string) {
		if rng.IntN(3) == 0 {
			p = escape(rng, p, 1+rng.IntN(4))
		}
		if rng.IntN(6) == 0 {
			p += "?q=1&src=x"
		}
		d, ok := modelPath(p)
		if !strings.HasPrefix(p, "/") || !ok || !utf8.ValidString(d) || nginxNormalizes(d) || seen[p] {
			return
		}
		seen[p] = true
		paths = append(paths, p)
	}
	extras := []string{"x", "/y", "-z", "/a/b", "/", "2", "%3Fz", "%23z", "%25", "+", "%2B", "é", "/%C3%A9", ":@!*(),&="}
	flip := func(s string) string {
		b := []byte(s)
		for i, c := range b {
			if rng.IntN(3) == 0 {
				switch {
				case 'a' <= c && c <= 'z':
					b[i] = c - 'a' + 'A'
				case 'A' <= c && c <= 'Z':
					b[i] = c - 'A' + 'a'
				}
			}
		}
		return string(b)
	}
	for _, r := range rules {
		add(r.Source)
		add(r.Source + extras[rng.IntN(len(extras))])
		add(r.Source[:1+rng.IntN(len(r.Source))])
		add(flip(r.Source))
		add(flip(r.Source) + extras[rng.IntN(len(extras))])
	}
	for range 100 {
		add("/zz" + strconv.Itoa(rng.IntN(1000)))
	}
	add("/")
	return paths
}

// nginxNormalizes reports whether nginx merges or resolves something in
// the decoded path p: "//", "." or ".." segments.
func nginxNormalizes(p string) bool {
	return strings.Contains(p, "//") || strings.Contains(p, "/./") ||
		strings.Contains(p, "/../") || strings.HasSuffix(p, "/.") || strings.HasSuffix(p, "/..")
}

// pathClasses counts the request paths of each class the differential
// tests are meant to cover, for the log and for a check that none is empty.
func pathClasses(paths []string) map[string]int {
	n := map[string]int{}
	upper := regexp.MustCompile(`%[0-9A-F]?[A-F]`)
	lower := regexp.MustCompile(`%[0-9a-f]?[a-f]`)
	for _, p := range paths {
		if i := strings.IndexByte(p, '?'); i >= 0 {
			p = p[:i]
		}
		d, _ := modelPath(p)
		for class, in := range map[string]bool{
			"non-ASCII":           strings.ContainsFunc(d, func(r rune) bool { return r >= 0x80 }),
			"raw non-ASCII":       strings.ContainsFunc(p, func(r rune) bool { return r >= 0x80 }),
			"escaped":             strings.Contains(p, "%"),
			"upper-case hex":      upper.MatchString(p),
			"lower-case hex":      lower.MatchString(p),
			"plus":                strings.Contains(d, "+"),
			"escaped plus":        strings.Contains(strings.ToUpper(p), "%2B"),
			"reserved":            strings.ContainsAny(d, ":@!*(),&=[]"),
			"escaped slash":       strings.Contains(strings.ToUpper(p), "%2F"),
			"escaped ? # or %":    strings.Contains(d, "?") || strings.Contains(d, "#") || strings.Contains(d, "%"),
			"with a query string": p != d && !strings.Contains(p, "%"),
		} {
			if in {
				n[class]++
			}
		}
	}
	return n
}

func testSeed(t *testing.T, fallback uint64) uint64 {
	if s := os.Getenv("REDIRECTS_TEST_SEED"); s != "" {
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("REDIRECTS_TEST_SEED=%q is not a number", s)
		}
		return n
	}
	return fallback
}

// TestModelIsTheEngine holds the brute-force model, with no departure,
// against the lookup API's engine, so the differential tests compare the
// servers with the real lookup.
func TestModelIsTheEngine(t *testing.T) {
	for _, seed := range []uint64{testSeed(t, 1), uint64(time.Now().UnixNano())} {
		rng := rand.New(rand.NewPCG(seed, 7))
		rules := genRules(rng, 300)
		sorted := append([]redirects.Rule(nil), rules...)
		engine.SortRules(sorted)
		e := newEngine(rules)
		for _, b := range []behaviour{{exact: true, prefix: true}, {exact: true}, {prefix: true}} {
			for _, p := range genPaths(rng, rules) {
				if got, want := b.lookup(sorted, p), answerOf(e.lookup(b, p)); got != want {
					t.Fatalf("seed %d: %+v: path %q: model says %v, engine says %v", seed, b, p, got, want)
				}
			}
		}
	}
}

func answerOf(a answer, _ bool) answer { return a }

// TestModelIsRulemodel holds this file's model, with no departure, against
// internal/rulemodel, the model of docs/contract.md#rule-options the
// options' differential tests use, on rules of the default settings
// without options: the two models the server tests rest on agree where
// both apply (rulemodel's destination for a rule without options is the
// destination as configured).
func TestModelIsRulemodel(t *testing.T) {
	for _, seed := range []uint64{testSeed(t, 1), uint64(time.Now().UnixNano())} {
		rng := rand.New(rand.NewPCG(seed, 11))
		rules := genRules(rng, 300)
		sorted := append([]redirects.Rule(nil), rules...)
		engine.SortRules(sorted)
		b := behaviour{exact: true, prefix: true}
		for _, p := range genPaths(rng, rules) {
			var want answer
			if a, ok := rulemodel.Lookup(rules, rulemodel.Settings{}, p); ok {
				want = answer{a.Status, a.Destination}
			}
			if got := b.lookup(sorted, p); got != want {
				t.Fatalf("seed %d: path %q: this model says %v, rulemodel says %v", seed, p, got, want)
			}
		}
	}
}

// serverCase is one configuration of a server under test: the port it
// listens on, what it answers when no rule matches, and its behaviour.
type serverCase struct {
	name    string
	port    int
	noMatch int
	b       behaviour
}

// TestNginx runs the nginx, nginx-map-exact and nginx-map-prefix exports in
// one real nginx, each configured with the snippets of docs/exports.md, and
// compares its answers with the lookup API's.
func TestNginx(t *testing.T) {
	bin := servertest.LookPath(t, "nginx")
	for _, seed := range []uint64{testSeed(t, 1), uint64(time.Now().UnixNano())} {
		t.Run(fmt.Sprint("seed=", seed), func(t *testing.T) {
			rules, files, paths := renderRandom(t, seed)
			dir := t.TempDir()
			for name, body := range map[string][]byte{
				"redirects.conf":       files["nginx"],
				"redirects-exact.map":  files["nginx-map-exact"],
				"redirects-prefix.map": files["nginx-map-prefix"],
			} {
				servertest.WriteFile(t, filepath.Join(dir, name), body)
			}
			sizes := regexp.MustCompile(`(?m)^#     (map_hash_\w+ \d+;)$`).FindAllStringSubmatch(string(files["nginx-map-exact"]), -1)
			if len(sizes) != 2 {
				t.Fatalf("nginx-map-exact's comment does not give the two map_hash sizes:\n%s", files["nginx-map-exact"])
			}
			cases := []serverCase{
				{"nginx", servertest.FreePort(t), 404, behaviour{exact: true, prefix: true}},
				{"nginx-map-exact", servertest.FreePort(t), 204, behaviour{exact: true, exactFold: true, exact301: true}},
				{"nginx-map-prefix", servertest.FreePort(t), 204, behaviour{prefix: true}},
				{"nginx-map-exact+nginx-map-prefix", servertest.FreePort(t), 204, behaviour{exact: true, prefix: true, exactFold: true, exact301: true}},
			}
			http := sizes[0][1] + "\n" + sizes[1][1] + "\n" + export.NginxMapExactHTTPSnippet + "\n" + export.NginxMapPrefixHTTPSnippet
			servers := []string{
				export.NginxAbsoluteRedirectSnippet + "\n" + export.NginxServerSnippet,
				export.NginxAbsoluteRedirectSnippet + "\n" + export.NginxMapExactSnippet + "\nreturn 204;",
				export.NginxAbsoluteRedirectSnippet + "\n" + export.NginxMapPrefixSnippet + "\nreturn 204;",
				export.NginxAbsoluteRedirectSnippet + "\n" + export.NginxMapExactSnippet + "\n" + export.NginxMapPrefixSnippet + "\nreturn 204;",
			}
			var ports []int
			for _, c := range cases {
				ports = append(ports, c.port)
			}
			conf := servertest.NginxConf(dir, http, servers, ports)
			servertest.WriteFile(t, filepath.Join(dir, "nginx.conf"), []byte(conf))
			servertest.Check(t, bin, "-t", "-p", dir, "-e", "stderr", "-c", filepath.Join(dir, "nginx.conf"))
			servertest.Start(t, ports, bin, "-p", dir, "-e", "stderr", "-c", filepath.Join(dir, "nginx.conf"))
			compareSmall(t, seed, rules, paths, cases)
		})
	}
}

// TestHAProxy runs the haproxy, haproxy-map-exact and haproxy-map-prefix
// exports in one real haproxy, one frontend per configuration of
// docs/exports.md, and compares its answers with the lookup API's.
func TestHAProxy(t *testing.T) {
	bin := servertest.LookPath(t, "haproxy")
	for _, seed := range []uint64{testSeed(t, 1), uint64(time.Now().UnixNano())} {
		t.Run(fmt.Sprint("seed=", seed), func(t *testing.T) {
			rules, files, random := renderRandom(t, seed)
			// HAProxy answers 400 to a request line holding raw non-ASCII
			// bytes, which HTTP does not allow there: clients escape them,
			// and so does this test, each path as curl sends it (only those
			// bytes escaped) and as a browser does (browserForm).
			var paths []string
			seen := map[string]bool{}
			for _, p := range random {
				for _, q := range []string{escapeNonASCII(p), browserForm(p)} {
					if !seen[q] {
						seen[q] = true
						paths = append(paths, q)
					}
				}
			}
			t.Logf("as sent to HAProxy, by class: %v", pathClasses(paths))
			dir := t.TempDir()
			servertest.WriteFile(t, filepath.Join(dir, "redirects-exact.map"), files["haproxy-map-exact"])
			servertest.WriteFile(t, filepath.Join(dir, "redirects-prefix.map"), files["haproxy-map-prefix"])
			cases := []serverCase{
				{"haproxy", servertest.FreePort(t), 204, behaviour{exact: true, prefix: true, exactFold: true, prefixFold: true, requestLine: true}},
				{"haproxy-map-exact", servertest.FreePort(t), 204, behaviour{exact: true, exact301: true}},
				{"haproxy-map-prefix", servertest.FreePort(t), 204, behaviour{prefix: true}},
				{"haproxy-map-exact+haproxy-map-prefix", servertest.FreePort(t), 204, behaviour{exact: true, prefix: true, exact301: true}},
			}
			frontends := []string{
				string(files["haproxy"]),
				export.HAProxyMapExactSnippet,
				export.HAProxyMapPrefixSnippet,
				export.HAProxyMapExactSnippet + "\n" + export.HAProxyMapPrefixSnippet,
			}
			var conf strings.Builder
			conf.WriteString(servertest.HAProxyHead)
			for i, c := range cases {
				conf.WriteString(servertest.HAProxyFrontend("f"+strconv.Itoa(i), c.port, dir, frontends[i]))
			}
			cfg := filepath.Join(dir, "haproxy.cfg")
			servertest.WriteFile(t, cfg, []byte(conf.String()))
			servertest.Check(t, bin, "-c", "-f", cfg)
			var ports []int
			for _, c := range cases {
				ports = append(ports, c.port)
			}
			servertest.Start(t, ports, bin, "-db", "-f", cfg)
			compareSmall(t, seed, rules, paths, cases)
		})
	}
}

// renderRandom generates the rule set of seed, renders it and the paths to
// probe. It logs the seed, so a failure can be rerun.
func renderRandom(t *testing.T, seed uint64) ([]redirects.Rule, map[string][]byte, []string) {
	t.Helper()
	t.Logf("random rule set: REDIRECTS_TEST_SEED=%d", seed)
	rng := rand.New(rand.NewPCG(seed, 7))
	rules := genRules(rng, 200+rng.IntN(300))
	c, err := export.Render(rules)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	for _, e := range c.Exports {
		files[e.Format] = e.Body
	}
	paths := genPaths(rng, rules)
	classes := pathClasses(paths)
	t.Logf("%d rules, %d request paths; by class: %v", len(rules), len(paths), classes)
	for _, class := range []string{"non-ASCII", "raw non-ASCII", "upper-case hex", "lower-case hex", "plus", "escaped plus", "reserved", "escaped slash", "escaped ? # or %"} {
		if classes[class] == 0 {
			t.Fatalf("no request path of class %q: the generator no longer covers it", class)
		}
	}
	return rules, files, paths
}

// engine answers as the lookup API does, with the compiled engine, for the
// rules a server case holds (all, exact only or starts_with only).
type lookupEngine struct{ all, prefixOnly *engine.Snapshot }

func newEngine(rules []redirects.Rule) lookupEngine {
	return lookupEngine{
		all:        engine.Compile(rules),
		prefixOnly: engine.Compile(slices.DeleteFunc(slices.Clone(rules), func(r redirects.Rule) bool { return r.MatchType == redirects.Exact })),
	}
}

// lookup returns the lookup API's answer among the rules b holds, and
// whether an exact rule gave it.
func (e lookupEngine) lookup(b behaviour, path string) (answer, bool) {
	s := e.all
	if !b.exact {
		s = e.prefixOnly
	}
	m, ok := s.Lookup(path)
	if !ok || !b.prefix && m.MatchType() == redirects.StartsWith {
		return answer{}, false
	}
	return answer{m.StatusCode(), m.Destination()}, m.MatchType() == redirects.Exact
}

// compare sends every path to every case's port and holds the answer
// against documented, the case's behaviour as docs/exports.md documents it;
// it counts where that departs from the lookup API (documented differences)
// and fails on any other mismatch.
func compare(t *testing.T, seed uint64, e lookupEngine, paths []string, cases []serverCase, documented func(behaviour, string) answer) {
	t.Helper()
	// A bare transport, not an http.Client: a client would parse the
	// Location (and refuse destinations that are not valid URLs, which
	// validation allows) even when told not to follow it.
	client := &http.Transport{MaxIdleConnsPerHost: 8, DisableCompression: true, ResponseHeaderTimeout: time.Minute}
	defer client.CloseIdleConnections()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()

	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := make([]answer, len(paths))
			errs := make([]error, len(paths))
			var wg sync.WaitGroup
			next := make(chan int)
			for range 8 {
				wg.Go(func() {
					for i := range next {
						got[i], errs[i] = ask(ctx, client, c.port, paths[i], c.noMatch)
					}
				})
			}
			for i := range paths {
				next <- i
			}
			close(next)
			wg.Wait()

			differences, bad := 0, 0
			for i, p := range paths {
				if errs[i] != nil {
					t.Fatalf("seed %d: %s: %v", seed, p, errs[i])
				}
				api, _ := e.lookup(c.b, p)
				want := documented(c.b, p)
				if got[i] != want {
					if bad++; bad <= 10 {
						t.Errorf("seed %d: %s: GET %s answered %v; documented %v; lookup API %v", seed, c.name, p, got[i], want, api)
					}
					continue
				}
				if want != api {
					differences++
				}
			}
			if bad > 0 {
				t.Fatalf("seed %d: %s: %d of %d paths answered otherwise than documented (rerun with REDIRECTS_TEST_SEED=%d)", seed, c.name, bad, len(paths), seed)
			}
			t.Logf("%s: %d paths, %d answered as the lookup API, %d with a documented difference", c.name, len(paths), len(paths)-differences, differences)
		})
	}
}

// compareSmall is compare with the brute-force model of the documented
// behaviours, for the small random rule sets.
func compareSmall(t *testing.T, seed uint64, rules []redirects.Rule, paths []string, cases []serverCase) {
	t.Helper()
	sorted := append([]redirects.Rule(nil), rules...)
	engine.SortRules(sorted)
	compare(t, seed, newEngine(rules), paths, cases, func(b behaviour, p string) answer { return b.lookup(sorted, p) })
}

// ask sends GET path to 127.0.0.1:port as the raw request target (so the
// server sees the path byte for byte) and returns the redirect it answers.
func ask(ctx context.Context, client *http.Transport, port int, path string, noMatch int) (answer, error) {
	req, err := http.NewRequestWithContext(ctx, "GET", "http://127.0.0.1:"+strconv.Itoa(port)+"/", nil)
	if err != nil {
		return answer{}, err
	}
	req.URL.Opaque = path
	resp, err := client.RoundTrip(req)
	if err != nil {
		return answer{}, err
	}
	defer resp.Body.Close()
	switch resp.StatusCode {
	case 301, 302:
		return answer{resp.StatusCode, resp.Header.Get("Location")}, nil
	case noMatch:
		return answer{}, nil
	}
	return answer{}, fmt.Errorf("unexpected status %s", resp.Status)
}

// TestServersAcceptEdgeCases loads rules at the limits of validation into
// real nginx and haproxy and asks each for the longest source: 2,048-byte
// sources and destinations (nginx refuses tokens of 4,096 bytes and more, so
// a source of dots, which escaping would double, goes to nginx-map-prefix as
// \Q...\E), every punctuation character validation allows, non-ASCII
// characters and a log-format lookalike in a destination, and in HAProxy a
// request line with raw non-ASCII bytes, refused unless the frontend has
// option accept-invalid-http-request.
func TestServersAcceptEdgeCases(t *testing.T) {
	long := func(c string) string { return "/" + strings.Repeat(c, redirects.MaxSourceLen-1) }
	dots := long(".")
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	rules := []redirects.Rule{
		{Source: dots, Destination: "https://example.com/" + strings.Repeat("%", redirects.MaxDestLen-20), StatusCode: 302, MatchType: redirects.StartsWith},
		{Source: dots, Destination: long("d"), StatusCode: 301},
		{Source: long("a"), Destination: long("%"), StatusCode: 301, MatchType: redirects.StartsWith},
		{Source: "/!&()*+,-.:=@[]_~", Destination: "/%[src]%o%%?a=b&c=<d>|`^~é", StatusCode: 302},
		{Source: "/!&()*+,-.:=@[]_~", Destination: "/x", StatusCode: 301, MatchType: redirects.StartsWith},
		{Source: "/|^`<>/é", Destination: "/y", StatusCode: 301},
	}
	for i := range rules {
		rules[i].ID, rules[i].CreatedAt = int64(i+1), t0
		if err := rules[i].Validate(); err != nil {
			t.Fatalf("edge rule %d is not valid: %v", i, err)
		}
	}
	c, err := export.Render(rules)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	for _, e := range c.Exports {
		files[e.Format] = e.Body
	}
	want := answer{301, long("d")} // the exact rule of the dots wins over its prefix rule

	t.Run("nginx", func(t *testing.T) {
		bin := servertest.LookPath(t, "nginx")
		dir := t.TempDir()
		servertest.WriteFile(t, filepath.Join(dir, "redirects.conf"), files["nginx"])
		servertest.WriteFile(t, filepath.Join(dir, "redirects-exact.map"), files["nginx-map-exact"])
		servertest.WriteFile(t, filepath.Join(dir, "redirects-prefix.map"), files["nginx-map-prefix"])
		sizes := regexp.MustCompile(`(?m)^#     (map_hash_\w+ \d+;)$`).FindAllStringSubmatch(string(files["nginx-map-exact"]), -1)
		ports := []int{servertest.FreePort(t), servertest.FreePort(t)}
		conf := servertest.NginxConf(dir, sizes[0][1]+"\n"+sizes[1][1]+"\n"+export.NginxMapExactHTTPSnippet+"\n"+export.NginxMapPrefixHTTPSnippet,
			[]string{
				export.NginxAbsoluteRedirectSnippet + "\n" + export.NginxServerSnippet,
				export.NginxAbsoluteRedirectSnippet + "\n" + export.NginxMapExactSnippet + "\n" + export.NginxMapPrefixSnippet + "\nreturn 204;",
			}, ports)
		servertest.WriteFile(t, filepath.Join(dir, "nginx.conf"), []byte(conf))
		args := []string{"-p", dir, "-e", "stderr", "-c", filepath.Join(dir, "nginx.conf")}
		servertest.Check(t, bin, append([]string{"-t"}, args...)...)
		servertest.Start(t, ports, bin, args...)
		client := &http.Transport{}
		defer client.CloseIdleConnections()
		// The nginx format leaves out sources longer than 255 bytes, so
		// nothing answers the dots there; the maps keep them. nginx
		// resolves "." and ".." segments only: a segment of more dots is a
		// name like any other.
		for _, c := range []struct {
			port int
			path string
			want answer
		}{
			{ports[0], dots, answer{}},
			{ports[0], rules[3].Source, answer{302, rules[3].Destination}},
			{ports[1], dots, want},
			{ports[1], dots + "x", answer{302, rules[0].Destination}},
			{ports[1], long("a") + "/b", answer{301, rules[2].Destination}},
		} {
			noMatch := 204
			if c.port == ports[0] {
				noMatch = 404
			}
			got, err := ask(context.Background(), client, c.port, c.path, noMatch)
			if err != nil || got != c.want {
				t.Errorf("nginx port %d: GET %.30s... answered %.40v (%v), want %.40v", c.port, c.path, got, err, c.want)
			}
		}
	})

	t.Run("haproxy", func(t *testing.T) {
		bin := servertest.LookPath(t, "haproxy")
		dir := t.TempDir()
		servertest.WriteFile(t, filepath.Join(dir, "redirects-exact.map"), files["haproxy-map-exact"])
		servertest.WriteFile(t, filepath.Join(dir, "redirects-prefix.map"), files["haproxy-map-prefix"])
		ports := []int{servertest.FreePort(t), servertest.FreePort(t), servertest.FreePort(t)}
		var conf strings.Builder
		conf.WriteString(servertest.HAProxyHead)
		for i, body := range []string{string(files["haproxy"]), export.HAProxyMapExactSnippet + "\n" + export.HAProxyMapPrefixSnippet,
			"option accept-invalid-http-request\n" + string(files["haproxy"])} {
			conf.WriteString(servertest.HAProxyFrontend("f"+strconv.Itoa(i), ports[i], dir, body))
		}
		cfg := filepath.Join(dir, "haproxy.cfg")
		servertest.WriteFile(t, cfg, []byte(conf.String()))
		servertest.Check(t, bin, "-c", "-f", cfg)
		servertest.Start(t, ports, bin, "-db", "-f", cfg)
		client := &http.Transport{}
		defer client.CloseIdleConnections()
		for _, port := range ports[:2] {
			if got, err := ask(context.Background(), client, port, dots, 204); err != nil || got != want {
				t.Errorf("haproxy port %d: GET %.20s... answered %.40v (%v), want %.40v", port, dots, got, err, want)
			}
		}
		// A request line holding raw non-ASCII bytes is refused (HTTP
		// does not allow them there) unless the frontend accepts
		// invalid requests. Escaped as browsers escape it, it matches the
		// haproxy format's ACL, and in any escaping the maps, as nginx
		// and the lookup API do; raw, or escaped otherwise, it does not
		// match the ACL, which compares the path as sent (docs/exports.md).
		raw, escaped := rules[5].Source, "/%7C%5E%60%3C%3E/%C3%A9"
		for _, c := range []struct {
			port int
			path string
			want answer
			err  bool
		}{
			{ports[0], escaped, answer{301, "/y"}, false},
			{ports[0], strings.ToLower(escaped), answer{301, "/y"}, false},
			{ports[1], escaped, answer{301, "/y"}, false},
			{ports[1], "/%7c^%60<>/%c3%a9", answer{301, "/y"}, false},
			{ports[0], "/%7c^%60<>/%c3%a9", answer{}, false},
			{ports[2], raw, answer{}, false},
			{ports[0], raw, answer{}, true},
		} {
			got, err := ask(context.Background(), client, c.port, c.path, 204)
			if (err != nil) != c.err || got != c.want {
				t.Errorf("haproxy port %d: GET %s answered %v (%v), want %v (an error: %v)", c.port, c.path, got, err, c.want, c.err)
			}
		}
		// The log-format lookalike comes back as written.
		if got, err := ask(context.Background(), client, ports[0], rules[3].Source, 204); err != nil || got != (answer{302, rules[3].Destination}) {
			t.Errorf("haproxy: GET %s answered %v (%v), want 302 %s", rules[3].Source, got, err, rules[3].Destination)
		}
	})
}
