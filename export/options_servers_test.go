package export_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"redirects"
	"redirects/export"
	"redirects/internal/rulemodel"
	"redirects/internal/servertest"
)

// The options' differential tests run random projects of internal/rulemodel
// (every setting, rules with every option and status, destinations with
// queries and fragments) through real nginx and haproxy with every export,
// and hold each answer against rulemodel.Lookup, the brute-force model of
// docs/contract.md#rule-options, for the rules the server case holds. A
// path may be answered otherwise only when the file's opening comment
// declares it ("# Differs: ..." lines, and the keys nginx-map-exact leaves
// out): when the lookup API answers it with a declared rule, or a declared
// rule matches it regardless of case and trailing slash. Nothing else may
// differ.

// optionSettings are the four combinations of the settings; each test run
// renders a project for each.
var optionSettings = []redirects.Settings{
	{}, {CaseInsensitive: true}, {IgnoreTrailingSlash: true}, {CaseInsensitive: true, IgnoreTrailingSlash: true},
}

// optionProject returns a random project with settings set whose rules use
// every status, both options and a fragment (the generator is drawn again
// until they do), and the request paths to send: rulemodel.Paths without
// the fragment (clients do not send it, and the lookup API ignores it
// alike), less the paths nginx would normalize ("//", a documented
// difference of the request alone).
func optionProject(t *testing.T, rng *rand.Rand, set redirects.Settings) ([]redirects.Rule, []string) {
	t.Helper()
	for range 100 {
		rules := rulemodel.Rules(rng, 60+rng.IntN(60), set)
		rulemodel.WithQueryAfterFragment(rng, rules)
		rulemodel.WithMergeQuery(rng, rules)
		have := map[string]bool{}
		for _, r := range rules {
			have["status "+strconv.Itoa(r.StatusCode)] = true
			have["preservePath"] = have["preservePath"] || r.PreservePath
			have["preserveQuery"] = have["preserveQuery"] || r.PreserveQuery
			have["fragment"] = have["fragment"] || strings.Contains(r.Destination, "#")
			have["queryAfterFragment"] = have["queryAfterFragment"] || r.QueryAfterFragment
			have["mergeQuery"] = have["mergeQuery"] || r.MergeQuery
		}
		if len(have) < len(redirects.StatusCodes)+5 {
			continue
		}
		var paths []string
		seen := map[string]bool{}
		for _, p := range rulemodel.Paths(rng, rules, 500) {
			p, _, _ = strings.Cut(p, "#")
			d, ok := modelPath(p)
			if !ok || nginxNormalizes(d) || seen[p] {
				continue
			}
			seen[p] = true
			paths = append(paths, p)
		}
		return rules, paths
	}
	t.Fatal("rulemodel.Rules made no rule set with every status and option in 100 draws")
	return nil, nil
}

// optionCase is one server configuration: the files whose declarations
// apply, the rules it holds and what it answers when none matches.
type optionCase struct {
	name    string
	port    int
	noMatch int
	files   []string
	exact   bool
	prefix  bool
	// browser: send each path as a browser does (the haproxy format's
	// ACLs compare the path as sent; docs/exports.md#haproxy).
	browser bool
	// folds: the case's matching always ignores ASCII case (the haproxy
	// format's -i), so beyond the declarations every answer must be the
	// lookup API's for the project with caseSensitive false, the exact
	// rules in file order (source bytes), where the first of sources equal
	// up to case answers.
	folds bool
}

// TestOptionsNginx runs the three nginx exports of a project of each
// settings in real nginx.
func TestOptionsNginx(t *testing.T) {
	bin := servertest.LookPath(t, "nginx")
	seed := testSeed(t, uint64(time.Now().UnixNano()))
	for i, set := range optionSettings {
		t.Run(set.String(), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, uint64(i)))
			t.Logf("REDIRECTS_TEST_SEED=%d", seed)
			rules, paths := optionProject(t, rng, set)
			files := buildFiles(t, rules, set)
			dir := t.TempDir()
			servertest.WriteFile(t, filepath.Join(dir, "redirects.conf"), files["nginx"])
			servertest.WriteFile(t, filepath.Join(dir, "redirects-exact.map"), files["nginx-map-exact"])
			servertest.WriteFile(t, filepath.Join(dir, "redirects-prefix.map"), files["nginx-map-prefix"])
			sizes := regexp.MustCompile(`(?m)^#     (map_hash_\w+ \d+;)$`).FindAllStringSubmatch(string(files["nginx-map-exact"]), -1)
			if len(sizes) != 2 {
				t.Fatalf("nginx-map-exact's comment does not give the two map_hash sizes:\n%s", files["nginx-map-exact"])
			}
			prefixLines := export.NginxMapPrefixSnippet + "\n" + export.NginxMapPrefixStatusSnippet
			cases := []optionCase{
				{"nginx", servertest.FreePort(t), 404, []string{"nginx"}, true, true, false, false},
				{"nginx-map-exact", servertest.FreePort(t), 204, []string{"nginx-map-exact"}, true, false, false, false},
				{"nginx-map-prefix", servertest.FreePort(t), 204, []string{"nginx-map-prefix"}, false, true, false, false},
				{"nginx-map-exact+nginx-map-prefix", servertest.FreePort(t), 204, []string{"nginx-map-exact", "nginx-map-prefix"}, true, true, false, false},
			}
			servers := []string{
				export.NginxAbsoluteRedirectSnippet + "\n" + export.NginxServerSnippet,
				export.NginxAbsoluteRedirectSnippet + "\n" + export.NginxMapExactSnippet + "\nreturn 204;",
				export.NginxAbsoluteRedirectSnippet + "\n" + prefixLines + "\nreturn 204;",
				export.NginxAbsoluteRedirectSnippet + "\n" + export.NginxMapExactSnippet + "\n" + prefixLines + "\nreturn 204;",
			}
			var ports []int
			for _, c := range cases {
				ports = append(ports, c.port)
			}
			http := sizes[0][1] + "\n" + sizes[1][1] + "\n" + export.NginxMapExactHTTPSnippet + "\n" + export.NginxMapPrefixHTTPSnippet
			conf := servertest.NginxConf(dir, http, servers, ports)
			servertest.WriteFile(t, filepath.Join(dir, "nginx.conf"), []byte(conf))
			args := []string{"-p", dir, "-e", "stderr", "-c", filepath.Join(dir, "nginx.conf")}
			servertest.Check(t, bin, append([]string{"-t"}, args...)...)
			servertest.Start(t, ports, bin, args...)
			compareOptions(t, set, rules, files, paths, cases)
		})
	}
}

// TestOptionsHAProxy runs the three haproxy exports of a project of each
// settings in real haproxy.
func TestOptionsHAProxy(t *testing.T) {
	bin := servertest.LookPath(t, "haproxy")
	seed := testSeed(t, uint64(time.Now().UnixNano()))
	for i, set := range optionSettings {
		t.Run(set.String(), func(t *testing.T) {
			rng := rand.New(rand.NewPCG(seed, uint64(i)))
			t.Logf("REDIRECTS_TEST_SEED=%d", seed)
			rules, paths := optionProject(t, rng, set)
			files := buildFiles(t, rules, set)
			dir := t.TempDir()
			servertest.WriteFile(t, filepath.Join(dir, "redirects-exact.map"), files["haproxy-map-exact"])
			servertest.WriteFile(t, filepath.Join(dir, "redirects-prefix.map"), files["haproxy-map-prefix"])
			// The snippets each file's comment gives: under caseSensitive
			// false the maps' keys are lower-cased, and so is the path.
			exactLines, prefixLines := export.HAProxyMapExactSnippet, export.HAProxyMapPrefixSnippet+"\n"+export.HAProxyMapPrefixStatusSnippet
			if set.CaseInsensitive {
				exactLines, prefixLines = export.HAProxyMapExactFoldSnippet, export.HAProxyMapPrefixFoldSnippet+"\n"+export.HAProxyMapPrefixStatusSnippet
			}
			for f, lines := range map[string]string{"haproxy-map-exact": exactLines, "haproxy-map-prefix": strings.SplitN(prefixLines, "\n", 2)[0]} {
				if !strings.Contains(string(files[f]), "\n#     "+strings.SplitN(lines, "\n", 2)[0]+"\n") {
					t.Fatalf("%s's comment does not give the line %s", f, strings.SplitN(lines, "\n", 2)[0])
				}
			}
			cases := []optionCase{
				{"haproxy", servertest.FreePort(t), 204, []string{"haproxy"}, true, true, true, true},
				{"haproxy-map-exact", servertest.FreePort(t), 204, []string{"haproxy-map-exact"}, true, false, false, false},
				{"haproxy-map-prefix", servertest.FreePort(t), 204, []string{"haproxy-map-prefix"}, false, true, false, false},
				{"haproxy-map-exact+haproxy-map-prefix", servertest.FreePort(t), 204, []string{"haproxy-map-exact", "haproxy-map-prefix"}, true, true, false, false},
			}
			frontends := []string{
				string(files["haproxy"]),
				exactLines,
				prefixLines,
				exactLines + "\n" + prefixLines,
			}
			var conf strings.Builder
			conf.WriteString(servertest.HAProxyHead)
			var ports []int
			for i, c := range cases {
				conf.WriteString(servertest.HAProxyFrontend("f"+strconv.Itoa(i), c.port, dir, frontends[i]))
				ports = append(ports, c.port)
			}
			cfg := filepath.Join(dir, "haproxy.cfg")
			servertest.WriteFile(t, cfg, []byte(conf.String()))
			servertest.Check(t, bin, "-c", "-f", cfg)
			servertest.Start(t, ports, bin, "-db", "-f", cfg)
			compareOptions(t, set, rules, files, paths, cases)
		})
	}
}

func buildFiles(t *testing.T, rules []redirects.Rule, set redirects.Settings) map[string][]byte {
	t.Helper()
	c, err := export.Build(rules, set)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	for _, e := range c.Exports {
		files[e.Format] = e.Body
	}
	return files
}

// declaredRules parses the declarations of a file's opening comment and
// returns the rules they name. It fails the test on a declaration it cannot
// read, so a declaration the tests do not understand cannot pass unseen.
func declaredRules(t *testing.T, format string, body []byte, rules []redirects.Rule) map[*redirects.Rule]bool {
	t.Helper()
	out := map[*redirects.Rule]bool{}
	leftOut := false
	for line := range strings.SplitSeq(string(body), "\n") {
		if !strings.HasPrefix(line, "#") {
			break
		}
		if key, ok := strings.CutPrefix(line, "#     "); ok && leftOut {
			// nginx-map-exact's keys left out: "<key> (kept <source>)".
			key, _, _ = strings.Cut(key, " (kept ")
			for i := range rules {
				r := &rules[i]
				if r.MatchType == redirects.Exact && asciiLower(strings.TrimSuffix(r.Source, "/")) == asciiLower(strings.TrimSuffix(key, "/")) {
					out[r] = true
				}
			}
			continue
		}
		leftOut = leftOut || strings.Contains(line, "left out (a request for it gets the kept source's destination)")
		decl, ok := strings.CutPrefix(line, "# Differs: ")
		if !ok {
			continue
		}
		sel, _, ok := strings.Cut(decl, ": ")
		mt, cond, ok2 := strings.Cut(sel, " rules with ")
		if !ok || !ok2 {
			t.Fatalf("%s: cannot read the declaration %q", format, line)
		}
		var match func(*redirects.Rule) bool
		switch {
		case strings.HasPrefix(cond, "statusCode "):
			var codes []int
			for _, f := range strings.FieldsFunc(strings.TrimPrefix(cond, "statusCode "), func(r rune) bool { return r == ',' || r == ' ' }) {
				if f == "or" {
					continue
				}
				c, err := strconv.Atoi(f)
				if err != nil {
					t.Fatalf("%s: cannot read the statuses of %q", format, line)
				}
				codes = append(codes, c)
			}
			match = func(r *redirects.Rule) bool { return slices.Contains(codes, r.StatusCode) }
		case cond == "preservePath":
			match = func(r *redirects.Rule) bool { return r.PreservePath }
		case cond == "preserveQuery":
			match = func(r *redirects.Rule) bool { return r.PreserveQuery }
		case cond == "mergeQuery":
			match = func(r *redirects.Rule) bool { return r.MergeQuery }
		case cond == "a letter in the source":
			match = func(r *redirects.Rule) bool {
				return strings.ContainsFunc(r.Source, func(c rune) bool { return 'a' <= c|0x20 && c|0x20 <= 'z' })
			}
		case cond == "a source ending in /":
			match = func(r *redirects.Rule) bool { return len(r.Source) > 1 && strings.HasSuffix(r.Source, "/") }
		case cond == "preservePath and a source longer than 700 bytes":
			match = func(r *redirects.Rule) bool { return r.PreservePath && len(r.Source) > 700 }
		case cond == "a source longer than 255 bytes":
			match = func(r *redirects.Rule) bool { return len(r.Source) > 255 }
		case cond == "any source":
			match = func(*redirects.Rule) bool { return true }
		case cond == "a host":
			match = func(r *redirects.Rule) bool { return r.Host != "" }
		case cond == "exceptHosts":
			match = func(r *redirects.Rule) bool { return len(r.ExceptHosts) > 0 }
		case cond == "query conditions":
			match = func(r *redirects.Rule) bool { return strings.Contains(r.Source, "?") }
		case cond == "a large RE2 expression":
			match = func(r *redirects.Rule) bool { return export.ChainTooLarge(*r) }
		case cond == "a long expression":
			// The declaration names no settings: a rule too long under
			// the defaults or under both others (longer classes, a '/' more).
			match = func(r *redirects.Rule) bool {
				return export.ChainTooLong(*r, redirects.Settings{}, format) ||
					export.ChainTooLong(*r, redirects.Settings{CaseInsensitive: true, IgnoreTrailingSlash: true}, format)
			}
		case cond == "a $ in the destination":
			match = func(r *redirects.Rule) bool { return strings.Contains(r.Destination, "$$") }
		case cond == "a constraint inside a segment":
			match = func(r *redirects.Rule) bool {
				return strings.Contains(r.Source, "(") && !export.ChainBoundsConstraints(*r)
			}
		case cond == "an escaped request path" || cond == "a constraint, for an escaped request path" || cond == haproxyEscapedCond:
			// Declared for some requests only: plainDeclared reads them.
			continue
		default:
			t.Fatalf("%s: unknown condition in the declaration %q", format, line)
		}
		n := 0
		for i := range rules {
			r := &rules[i]
			if (mt == "all" || mt == r.MatchType.String()) && match(r) {
				out[r] = true
				n++
			}
		}
		if n == 0 && !extendedDeclaration(mt, cond) {
			t.Errorf("%s: the declaration %q names no rule", format, line)
		}
	}
	return out
}

// declaredMerge reports whether declared holds a rule of r's match type
// and source with mergeQuery (declared holds pointers into another slice).
func declaredMerge(declared map[*redirects.Rule]bool, r *redirects.Rule) bool {
	for d := range declared {
		if d.MergeQuery && d.MatchType == r.MatchType && d.Source == r.Source && d.Host == r.Host {
			return true
		}
	}
	return false
}

// extendedDeclaration reports whether a declaration is about extended
// rules, which compareOptions leaves out of the rules it holds (it holds a
// file against the API of the literal rules alone).
func extendedDeclaration(mt, cond string) bool {
	return mt == "pattern" || mt == "regex" || cond == "a host" || cond == "exceptHosts" || cond == "query conditions"
}

// compareOptions sends every path to every case and holds each answer
// against rulemodel.Lookup, allowing a difference only where declared.
func compareOptions(t *testing.T, set redirects.Settings, rules []redirects.Rule, files map[string][]byte, paths []string, cases []optionCase) {
	t.Helper()
	client := &http.Transport{MaxIdleConnsPerHost: 8, DisableCompression: true, ResponseHeaderTimeout: time.Minute}
	defer client.CloseIdleConnections()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	model := rulemodel.Of(set)
	relaxed := rulemodel.Settings{CaseInsensitive: true, IgnoreTrailingSlash: true}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var held []redirects.Rule
			for _, r := range rules {
				if r.MatchType == redirects.Exact && c.exact || r.MatchType == redirects.StartsWith && c.prefix {
					held = append(held, r)
				}
			}
			declared := map[*redirects.Rule]bool{}
			for _, f := range c.files {
				for r := range declaredRules(t, f, files[f], held) {
					declared[r] = true
				}
			}
			sent := paths
			if c.browser {
				sent = nil
				for _, p := range paths {
					path, query, hasQuery := strings.Cut(p, "?")
					d, _ := modelPath(path)
					if strings.ContainsAny(d, "?#") {
						continue
					}
					b := modelBrowserSource(d)
					if hasQuery {
						b += "?" + query
					}
					sent = append(sent, b)
				}
			}
			got := make([]answer, len(sent))
			errs := make([]error, len(sent))
			var wg sync.WaitGroup
			next := make(chan int)
			for range 8 {
				wg.Go(func() {
					for i := range next {
						got[i], errs[i] = askAny(ctx, client, c.port, sent[i], c.noMatch)
					}
				})
			}
			for i := range sent {
				next <- i
			}
			close(next)
			wg.Wait()

			folded := slices.Clone(held)
			slices.SortStableFunc(folded, func(a, b redirects.Rule) int {
				if a.MatchType != b.MatchType {
					return int(a.MatchType) - int(b.MatchType)
				}
				if a.MatchType == redirects.Exact {
					return strings.Compare(a.Source, b.Source)
				}
				return 0
			})
			foldModel := rulemodel.Settings{CaseInsensitive: true, IgnoreTrailingSlash: set.IgnoreTrailingSlash}
			// The folded rules as the file declares its mergeQuery rules
			// answer: the request's query appended whole (preserveQuery).
			foldedWhole := slices.Clone(folded)
			for i := range foldedWhole {
				foldedWhole[i].MergeQuery = false
			}
			same, differ, bad := 0, 0, 0
			for i, p := range sent {
				if errs[i] != nil {
					t.Fatalf("%s: GET %s: %v", c.name, p, errs[i])
				}
				var want answer
				a, ok := rulemodel.Lookup(held, model, p)
				if ok {
					want = answer{a.Status, a.Destination}
				}
				if c.folds {
					var fold answer
					if a, ok := rulemodel.Lookup(folded, foldModel, p); ok {
						fold = answer{a.Status, a.Destination}
					}
					var whole answer
					if a, ok := rulemodel.Lookup(foldedWhole, foldModel, p); ok && folded[a.Rule].MergeQuery && declaredMerge(declared, &folded[a.Rule]) {
						whole = answer{a.Status, a.Destination}
					}
					if got[i] != fold && got[i] != whole {
						if bad++; bad <= 10 {
							t.Errorf("%s (%s): GET %s answered %v; the lookup API with caseSensitive false answers %v", c.name, set, p, got[i], fold)
						}
						continue
					}
				}
				if got[i] == want {
					same++
					continue
				}
				allowed := ok && declared[&held[a.Rule]]
				for r := range declared {
					if _, m := rulemodel.Lookup([]redirects.Rule{*r}, relaxed, p); m && !allowed {
						allowed = true
					}
				}
				if allowed {
					differ++
					continue
				}
				if bad++; bad <= 10 {
					rule := "no rule"
					if ok {
						r := held[a.Rule]
						rule = fmt.Sprintf("%s %s -> %d %q pp=%v pq=%v qaf=%v mq=%v", r.MatchType, r.Source, r.StatusCode, r.Destination, r.PreservePath, r.PreserveQuery, r.QueryAfterFragment, r.MergeQuery)
					}
					t.Errorf("%s (%s): GET %s answered %v; the lookup API answers %v (%s), and no declaration covers it", c.name, set, p, got[i], want, rule)
				}
			}
			if bad > 0 {
				t.Fatalf("%s: %d of %d paths answered otherwise than the lookup API without a declaration", c.name, bad, len(sent))
			}
			if same == 0 {
				t.Fatalf("%s: no path answered as the lookup API: the case tests nothing", c.name)
			}
			t.Logf("%s: %d rules (%d declared), %d paths: %d answered as the lookup API, %d differently where declared",
				c.name, len(held), len(declared), len(sent), same, differ)
		})
	}
}

// askAny is ask for every status a rule may have: a redirect with its
// Location, or 410 with none.
func askAny(ctx context.Context, client *http.Transport, port int, path string, noMatch int) (answer, error) {
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
	case 301, 302, 303, 307, 308:
		return answer{resp.StatusCode, resp.Header.Get("Location")}, nil
	case 410:
		return answer{code: 410}, nil
	case noMatch:
		return answer{}, nil
	}
	return answer{}, fmt.Errorf("unexpected status %s", resp.Status)
}
