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
	"redirects/engine/pattern"
	"redirects/export"
	"redirects/internal/rulemodel"
	"redirects/internal/servertest"
)

// The pattern rules' differential tests run random projects that mix the
// literal rules of internal/rulemodel (every status and option) with
// pattern, regex, host-scoped and conditioned rules through real nginx and
// haproxy. The nginx format, which answers extended rules, is held against
// the lookup API (the pattern engine for the rule that answers and its
// destination, the options' model for the options) on requests with and
// without hosts, queries and escapes: every answer must be the API's, or
// the API's answer must come from a rule its opening comment declares.
// The other formats leave extended rules out and declare them; they are
// held against the API of the literal rules alone with compareOptions, so
// a left-out rule can change no other answer.

// patternWords are the segments of random pattern sources and the paths
// that instantiate them.
var patternWords = []string{"docs", "Docs", "en", "fr", "guide", "a", "b", "v6", "v7", "42", "x.html", "café"}

// patternHosts are rules' hosts; requestHosts are the Host headers sent
// ("" sends none but the server's address).
var (
	patternHosts = []string{"example.com", "*.example.com", "a.example.com", "*.a.example.com", "xn--caf-dma.example"}
	requestHosts = []string{"", "example.com", "A.Example.COM", "b.a.example.com:8443", "example.com.", "x.example.com", "other.org", "xn--caf-dma.example"}
	patternConds = []string{"p=123", "id=:qid", "flag", "empty=", "a+b=c%20d", "lang=en"}
	requestQuery = []string{"", "", "?p=123", "?p=124", "?id=7&p=123", "?x=1&id=a%20b", "?flag", "?flag=1", "?empty", "?empty=", "?empty=1", "?a+b=c+d", "?a%20b=c%20d", "?lang=en&lang=fr", "?lang=fr&lang=en"}
)

// patternConstraints are constraints of random patterns: with groups,
// classes, repeats, anchors, word boundaries and a case flag.
// (No '?' in them: patternPaths cuts a source at its first '?', and no
// nested group: it finds a constraint's end at its first ')'.)
var patternConstraints = []string{"(v6|v7)", `(\d+)`, "([a-z]+)", `(\w{2,3})`, `(^[a-z]\d{0,1}$)`, "(en|[Ff][Rr])", `(\bv\d)`, `([^.]+\.html)`}

// patternRegexes are the sources of random regex rules, and regexPaths
// requests for them: groups numbered and named, lazy and bounded repeats,
// alternatives whose order matters, classes of punctuation, anchors
// inside the expression, \b, (?i) and '.'.
var (
	patternRegexes = []string{
		`^/r/(\d+)$`, `/(en|fr)/old/(?P<rest>.*)`, `/docs/v[0-9]+/.*`,
		`(?i)/Shop/(?P<item>[a-z]{2,4})\b.*`, `/a+?(b*)/(x|xy)(y?)`, `/p/([^/]+)/([^/]*?)-(\d{1,3})`,
		`/q/(.)(.)?$`, `/c/([\x21-\x2e~@]+)/?`, `/(?:caf\x{e9}|cafe)/(.*)`, `^/z$|^/z/(.+)$`,
	}
	regexPaths = []string{
		"/r/12", "/r/x", "/en/old/a/b", "/fr/old/", "/docs/v6/x", "/docs/v/x",
		"/shop/ABc/x", "/Shop/abcde", "/SHOP/ab-c", "/aab/xy", "/ab/xyy", "/a/x", "/p/foo/bar-12", "/p/foo/-1234", "/p/a/b-c-7",
		"/q/a", "/q/ab", "/q/abc", "/c/!$&/", "/c/a*+,", "/c/~x", "/c/(x)", "/café/a", "/cafe/a/b", "/z", "/z/", "/z/a/b",
	}
)

// randomPattern returns a pattern source and the capture names it defines.
func randomPattern(rng *rand.Rand) (string, []string) {
	var b strings.Builder
	var names []string
	multi := false
	n := 1 + rng.IntN(3)
	for i := range n {
		b.WriteByte('/')
		name := "p" + strconv.Itoa(i)
		switch rng.IntN(10) {
		case 0, 1, 2:
			b.WriteString(patternWords[rng.IntN(len(patternWords))])
		case 3:
			b.WriteString(":" + name)
			names = append(names, name)
		case 4:
			b.WriteString(":" + name + patternConstraints[rng.IntN(len(patternConstraints))])
			if rng.IntN(4) == 0 {
				b.WriteString("?")
			}
			names = append(names, name)
		case 5:
			b.WriteString(":" + name + ".html")
			names = append(names, name)
		case 6:
			b.WriteString("v:" + name)
			if rng.IntN(3) == 0 {
				// Not at the segment's start: bounded unless it asserts
				// the start, or text follows it in the segment.
				b.WriteString(patternConstraints[rng.IntN(len(patternConstraints))])
				if rng.IntN(2) == 0 {
					b.WriteString(".html")
				}
			}
			names = append(names, name)
		case 7:
			if i == n-1 || rng.IntN(2) == 0 {
				b.WriteString(":" + name + "?")
				names = append(names, name)
			} else {
				b.WriteString("guide")
			}
		default:
			if multi {
				b.WriteString("guide")
				continue
			}
			multi = true
			switch rng.IntN(3) {
			case 0:
				b.WriteString("*")
				names = append(names, "splat")
			case 1:
				b.WriteString(":" + name + "*")
				names = append(names, name)
			default:
				b.WriteString(":" + name + "+")
				names = append(names, name)
			}
		}
	}
	return b.String(), names
}

// patternRules returns random extended rules after the literal ones, with
// IDs and creation times that follow theirs; each is checked by the
// pattern engine, and one per kind, host and source is kept.
func patternRules(rng *rand.Rand, literal []redirects.Rule, n int) []redirects.Rule {
	base := time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)
	seen := map[string]bool{}
	var out []redirects.Rule
	for len(out) < n {
		r := redirects.Rule{ID: int64(len(literal) + len(out) + 1), CreatedAt: base.Add(time.Duration(len(out)) * time.Second)}
		r.Priority = rng.IntN(3) * 50
		r.StatusCode = redirects.StatusCodes[rng.IntN(len(redirects.StatusCodes))]
		var names []string
		switch rng.IntN(6) {
		case 0, 1, 2:
			r.MatchType = redirects.Pattern
			r.Source, names = randomPattern(rng)
		case 3:
			r.MatchType = redirects.Regex
			r.Source = patternRegexes[rng.IntN(len(patternRegexes))]
		default:
			r.MatchType = []redirects.MatchType{redirects.Exact, redirects.StartsWith}[rng.IntN(2)]
			r.Source = "/" + patternWords[rng.IntN(len(patternWords))]
			if rng.IntN(2) == 0 {
				r.Source += "/" + patternWords[rng.IntN(len(patternWords))]
			}
		}
		if rng.IntN(3) == 0 || r.MatchType.Literal() && rng.IntN(2) == 0 {
			c := patternConds[rng.IntN(len(patternConds))]
			if r.MatchType == redirects.Regex {
				r.Source += "$?" + c
			} else {
				r.Source += "?" + c
			}
			if c == "id=:qid" {
				names = append(names, "qid")
			}
		}
		if rng.IntN(3) == 0 || r.MatchType.Literal() && !strings.Contains(r.Source, "?") && rng.IntN(3) > 0 {
			r.Host = patternHosts[rng.IntN(len(patternHosts))]
		} else if rng.IntN(3) == 0 || r.MatchType.Literal() && !strings.Contains(r.Source, "?") {
			// A literal rule without a host nor conditions is extended by
			// its exceptHosts.
			r.ExceptHosts = []string{patternHosts[rng.IntN(len(patternHosts))]}
			if h := patternHosts[rng.IntN(len(patternHosts))]; h != r.ExceptHosts[0] {
				r.ExceptHosts = append(r.ExceptHosts, h)
			}
		}
		if r.StatusCode != redirects.StatusGone {
			r.Destination = patternDestination(rng, r.MatchType, names)
			r.PreserveQuery = rng.IntN(3) == 0
			r.PreservePath = r.MatchType == redirects.StartsWith && rng.IntN(2) == 0
			r.QueryAfterFragment = r.PreserveQuery && strings.Contains(r.Destination, "#") && rng.IntN(2) == 0
			if _, q, _ := redirects.SplitDestination(r.Destination); r.PreserveQuery && !r.QueryAfterFragment && q != "" && rng.IntN(2) == 0 {
				r.MergeQuery = true
			}
		}
		key := r.MatchType.String() + " " + r.Host + " " + r.Source
		if seen[key] {
			continue
		}
		if len(r.ExceptHosts) > 0 && r.MatchType.Literal() && !strings.Contains(r.Source, "?") && slices.ContainsFunc(literal, func(l redirects.Rule) bool {
			// exceptHosts is not part of a rule's key: this rule would
			// clash with a literal one (under any settings).
			return l.MatchType == r.MatchType && strings.EqualFold(strings.TrimSuffix(l.Source, "/"), strings.TrimSuffix(r.Source, "/"))
		}) {
			continue
		}
		if _, err := pattern.Compile([]pattern.Rule{r.PatternRule()}, pattern.Settings{}); err != nil {
			continue
		}
		seen[key] = true
		out = append(out, r)
	}
	return out
}

// patternDestination inserts some of the captures: after a path, after a
// host, and at the start of a path (where the API makes a leading run of
// '/' one).
func patternDestination(rng *rand.Rand, mt redirects.MatchType, names []string) string {
	if mt == redirects.Regex {
		return []string{"/num/$1", "/to/$1?x=1", "https://ex.com/$1#top", "/fixed", "/two/$2/$1", "/n/${item}$3", "/$$/${rest}"}[rng.IntN(7)]
	}
	if len(names) == 0 || rng.IntN(5) == 0 {
		return []string{"/new", "/b?x=1", "https://ex.com/p", "/c#top"}[rng.IntN(4)]
	}
	ref := func() string { return ":" + names[rng.IntN(len(names))] }
	switch rng.IntN(4) {
	case 0:
		return "/to/" + ref()
	case 1:
		return "https://ex.com/" + ref() + "?x=1"
	case 2:
		return "/" + ref() + "/end#f"
	}
	return "/" + ref()
}

var placeholderRE = regexp.MustCompile(`:[A-Za-z][A-Za-z0-9_]*(\([^)]*\))?[*+?]?|\*`)

// patternPaths returns requests for rules: pattern sources with their
// placeholders filled, literal sources with rests, each with a random query,
// some escaped, some with a doubled '/'.
func patternPaths(rng *rand.Rand, rules []redirects.Rule, n int) []string {
	var out []string
	for len(out) < n {
		r := rules[rng.IntN(len(rules))]
		src, _, _ := strings.Cut(r.Source, "?")
		var p string
		switch r.MatchType {
		case redirects.Pattern:
			if strings.Contains(src, ":p") && rng.IntN(8) == 0 {
				src = strings.Replace(src, "?", "", 1)
			}
			p = placeholderRE.ReplaceAllStringFunc(src, func(string) string {
				w := patternWords[rng.IntN(len(patternWords))]
				switch rng.IntN(5) {
				case 0:
					return w + "/" + patternWords[rng.IntN(len(patternWords))]
				case 1:
					return ""
				}
				return w
			})
			p = strings.ReplaceAll(p, "(", "")
		case redirects.Regex:
			p = regexPaths[rng.IntN(len(regexPaths))]
			// Mostly a path the expression matches, so that the test
			// sees the rule answer.
			expr := regexp.MustCompile(`^(?:` + pattern.RegexExpression(r.Source) + `)$`)
			for range 20 {
				if expr.MatchString(p) || rng.IntN(4) == 0 {
					break
				}
				p = regexPaths[rng.IntN(len(regexPaths))]
			}
		default:
			p = src
			if rng.IntN(2) == 0 {
				p += []string{"/", "x", "/a/b"}[rng.IntN(3)]
			}
		}
		// A request target starting with "//" would be sent as a
		// scheme-relative URL by the client: one '/' is enough there.
		p = "/" + strings.TrimLeft(p, "/")
		switch rng.IntN(6) {
		case 0:
			p = strings.ToUpper(p)
		case 1:
			// A doubled '/' past the first (a request target starting
			// with "//" is read as a scheme-relative URL by the client).
			if i := strings.IndexByte(p[1:], '/'); i >= 0 {
				p = p[:i+1] + "/" + p[i+1:]
			}
		}
		p = rulemodel.Escape(p, rng.IntN(3) == 0)
		if i := strings.IndexByte(p[1:], '/'); i >= 0 && rng.IntN(4) == 0 {
			p = p[:i+1] + "%2F" + p[i+2:] // a '/' past the first escaped
		}
		out = append(out, p+requestQuery[rng.IntN(len(requestQuery))])
	}
	return out
}

// patternRequest is one request: the Host header and the request target.
type patternRequest struct{ host, path string }

// TestPatternsNginx runs the nginx exports of random projects with
// extended rules, of each settings, in real nginx.
func TestPatternsNginx(t *testing.T) {
	bin := servertest.LookPath(t, "nginx")
	seed := testSeed(t, uint64(time.Now().UnixNano()))
	// tally counts the requests answered as the lookup API by each kind of
	// extended rule, over the four projects: each kind must have answered
	// some, or the test proved nothing about it.
	tally, mapTally := map[string]int{}, map[string]int{}
	defer checkTally(t, tally, seed)
	defer checkTally(t, mapTally, seed)
	// Four projects seldom leave a kind unproven in the maps, which hold
	// fewer of the extended rules: then the same seed gives four more, up
	// to tallyRounds rounds, before checkTally calls the test too small.
	for round := 0; round < tallyRounds && (round == 0 || tallyShort(tally) || tallyShort(mapTally)); round++ {
		for i, set := range optionSettings {
			t.Run(roundName(set.String(), round), func(t *testing.T) {
				rng := rand.New(rand.NewPCG(seed, uint64(i)+100+uint64(round)*1000))
				t.Logf("REDIRECTS_TEST_SEED=%d", seed)
				literal, literalPaths := optionProject(t, rng, set)
				rules := append(literal, patternRules(rng, literal, 60)...)
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
				nginxPort := servertest.FreePort(t)
				cases := []optionCase{
					{"nginx-map-exact", servertest.FreePort(t), 204, []string{"nginx-map-exact"}, true, false, false, false},
					{"nginx-map-prefix", servertest.FreePort(t), 204, []string{"nginx-map-prefix"}, false, true, false, false},
					{"nginx-map-exact+nginx-map-prefix", servertest.FreePort(t), 204, []string{"nginx-map-exact", "nginx-map-prefix"}, true, true, false, false},
				}
				servers := []string{
					export.NginxAbsoluteRedirectSnippet + "\n" + export.NginxServerSnippet + "\nlocation / { return 404; }",
					export.NginxAbsoluteRedirectSnippet + "\n" + export.NginxMapExactSnippet + "\nreturn 204;",
					export.NginxAbsoluteRedirectSnippet + "\n" + prefixLines + "\nreturn 204;",
					export.NginxAbsoluteRedirectSnippet + "\n" + export.NginxMapExactSnippet + "\n" + prefixLines + "\nreturn 204;",
				}
				ports := []int{nginxPort}
				for _, c := range cases {
					ports = append(ports, c.port)
				}
				// The map formats with their extended maps, each file's
				// extended lines first when its comment quotes them.
				exactExt, prefixExt := export.NginxMapExactSnippet, prefixLines
				if strings.Contains(string(files["nginx-map-exact"]), "\n#     "+export.NginxMapExactExtendedSnippet[:40]) {
					exactExt = export.NginxMapExactExtendedSnippet + "\n" + exactExt
				}
				if strings.Contains(string(files["nginx-map-prefix"]), "\n#     "+export.NginxMapPrefixExtendedSnippet[:40]) {
					prefixExt = export.NginxMapPrefixExtendedSnippet + "\n" + prefixExt
				}
				mapCases := []mapCase{
					{"nginx-map-exact", servertest.FreePort(t), []string{"nginx-map-exact"}, true, false},
					{"nginx-map-prefix", servertest.FreePort(t), []string{"nginx-map-prefix"}, false, true},
					{"nginx-map-exact+nginx-map-prefix", servertest.FreePort(t), []string{"nginx-map-exact", "nginx-map-prefix"}, true, true},
				}
				for i, lines := range []string{exactExt, prefixExt, exactExt + "\n" + prefixExt} {
					servers = append(servers, export.NginxAbsoluteRedirectSnippet+"\n"+lines+"\nreturn 204;")
					ports = append(ports, mapCases[i].port)
				}
				http := sizes[0][1] + "\n" + sizes[1][1] + "\n" + export.NginxMapExactHTTPSnippet + "\n" + export.NginxMapPrefixHTTPSnippet
				conf := servertest.NginxConf(dir, http, servers, ports)
				servertest.WriteFile(t, filepath.Join(dir, "nginx.conf"), []byte(conf))
				args := []string{"-p", dir, "-e", "stderr", "-c", filepath.Join(dir, "nginx.conf")}
				servertest.Check(t, bin, append([]string{"-t"}, args...)...)
				servertest.Start(t, ports, bin, args...)

				reqs := patternRequests(rng, rules, literalPaths)
				comparePatterns(t, tally, "nginx", set, rules, files["nginx"], nginxPort, 404, reqs)
				compareOptions(t, set, literal, files, literalPaths, cases)
				compareMaps(t, mapTally, set, rules, files, mapCases, reqs)
			})
		}
	}
}

// tallyRounds bounds the rounds of four projects a test runs to prove
// every kind of extended rule (checkTally).
const tallyRounds = 4

// tallyShort reports whether some kind of extended rule answered no
// request as the lookup API yet.
func tallyShort(tally map[string]int) bool {
	for _, k := range tallyKinds {
		if tally[k] == 0 {
			return true
		}
	}
	return false
}

// roundName is a subtest's name in a round after the first.
func roundName(name string, round int) string {
	if round == 0 {
		return name
	}
	return fmt.Sprintf("%s/round%d", name, round+1)
}

// TestPatternsHAProxy runs the haproxy exports of random projects with
// extended rules, of each settings, in real haproxy.
func TestPatternsHAProxy(t *testing.T) {
	bin := servertest.LookPath(t, "haproxy")
	seed := testSeed(t, uint64(time.Now().UnixNano()))
	tally := map[string]int{}
	defer checkTally(t, tally, seed)
	defer func() {
		if tally["literal"] == 0 && !t.Failed() {
			t.Errorf("no request was answered as the lookup API by a literal rule in docs/contract.md's shape (REDIRECTS_TEST_SEED=%d)", seed)
		}
	}()
	// A fifth project, of the first settings, has more literal rules than
	// the haproxy format writes as ACLs (export.SetHAProxySpecMax): they
	// are chain cases, which compare case and the decoded path as the API.
	// As in TestPatternsNginx, more rounds of projects run while some kind
	// is unproven, up to tallyRounds, before checkTally calls the test too
	// small (one run in about sixty left regex rules unproven in one).
	for round := 0; round < tallyRounds && (round == 0 || tallyShort(tally)); round++ {
		for i, set := range append(slices.Clone(optionSettings), optionSettings[0]) {
			above := i == len(optionSettings)
			name := set.String()
			if above {
				name += "/above-the-ACL-bound"
			}
			t.Run(roundName(name, round), func(t *testing.T) {
				rng := rand.New(rand.NewPCG(seed, uint64(i)+200+uint64(round)*1000))
				t.Logf("REDIRECTS_TEST_SEED=%d", seed)
				literal, literalPaths := optionProject(t, rng, set)
				rules := append(literal, patternRules(rng, literal, 60)...)
				if above {
					defer export.SetHAProxySpecMax(len(literal) - 1)()
				}
				files := buildFiles(t, rules, set)
				dir := t.TempDir()
				servertest.WriteFile(t, filepath.Join(dir, "redirects-exact.map"), files["haproxy-map-exact"])
				servertest.WriteFile(t, filepath.Join(dir, "redirects-prefix.map"), files["haproxy-map-prefix"])
				exactLines, prefixLines := export.HAProxyMapExactSnippet, export.HAProxyMapPrefixSnippet+"\n"+export.HAProxyMapPrefixStatusSnippet
				if set.CaseInsensitive {
					exactLines, prefixLines = export.HAProxyMapExactFoldSnippet, export.HAProxyMapPrefixFoldSnippet+"\n"+export.HAProxyMapPrefixStatusSnippet
				}
				haproxyPort := servertest.FreePort(t)
				cases := []optionCase{
					{"haproxy-map-exact", servertest.FreePort(t), 204, []string{"haproxy-map-exact"}, true, false, false, false},
					{"haproxy-map-prefix", servertest.FreePort(t), 204, []string{"haproxy-map-prefix"}, false, true, false, false},
					{"haproxy-map-exact+haproxy-map-prefix", servertest.FreePort(t), 204, []string{"haproxy-map-exact", "haproxy-map-prefix"}, true, true, false, false},
				}
				frontends := []string{exactLines, prefixLines, exactLines + "\n" + prefixLines}
				var conf strings.Builder
				conf.WriteString(servertest.HAProxyHead)
				conf.WriteString(servertest.HAProxyFrontend("chain", haproxyPort, dir, string(files["haproxy"])))
				ports := []int{haproxyPort}
				for i, c := range cases {
					conf.WriteString(servertest.HAProxyFrontend("f"+strconv.Itoa(i), c.port, dir, frontends[i]))
					ports = append(ports, c.port)
				}
				cfg := filepath.Join(dir, "haproxy.cfg")
				servertest.WriteFile(t, cfg, []byte(conf.String()))
				servertest.Check(t, bin, "-c", "-f", cfg)
				servertest.Start(t, ports, bin, "-db", "-f", cfg)
				if above {
					if strings.Contains(string(files["haproxy"]), "\nacl redirect_") || !strings.Contains(string(files["haproxy"]), " named ACLs would make loading the file take minutes") {
						t.Fatalf("a project above the bound has ACL lines, or no comment saying why not:\n%s", files["haproxy"])
					}
				} else if n := checkSpecShape(t, files["haproxy"], rules); n == 0 {
					t.Fatal("the project has no literal rule")
				}
				reqs := patternRequests(rng, rules, literalPaths)
				comparePatterns(t, tally, "haproxy", set, rules, files["haproxy"], haproxyPort, 204, reqs)
				compareOptions(t, set, literal, files, literalPaths, cases)
				// The map formats leave the extended rules out (declared):
				// every request with a host and a query, too, is answered as
				// the API or by a rule they declare.
				var mapCases []mapCase
				for _, c := range cases {
					mapCases = append(mapCases, mapCase{c.name, c.port, c.files, c.exact, c.prefix})
				}
				compareMaps(t, map[string]int{}, set, rules, files, mapCases, reqs)
			})
		}
	}
}

// patternRequests returns the requests of a test: random hosts with
// patternPaths, and the literal project's paths without a host.
func patternRequests(rng *rand.Rand, rules []redirects.Rule, literalPaths []string) []patternRequest {
	var reqs []patternRequest
	for _, p := range patternPaths(rng, rules, 700) {
		reqs = append(reqs, patternRequest{requestHosts[rng.IntN(len(requestHosts))], p})
	}
	for _, p := range literalPaths[:min(len(literalPaths), 150)] {
		reqs = append(reqs, patternRequest{"", p})
	}
	return reqs
}

// tallyKinds are the kinds of extended rule a test must prove.
var tallyKinds = []string{"pattern", "constraint", "regex", "host", "query conditions", "exceptHosts", "excepted"}

// checkTally fails a test in which some kind of extended rule answered no
// request as the lookup API over its four projects: it proved nothing
// about that kind.
func checkTally(t *testing.T, tally map[string]int, seed uint64) {
	for _, k := range tallyKinds {
		if tally[k] == 0 && !t.Failed() {
			t.Errorf("no request was answered as the lookup API by a rule with %s: the test tests too little (REDIRECTS_TEST_SEED=%d)", k, seed)
		}
	}
}

// apiAnswer is the lookup API's answer to a request for wire on host: the
// pattern engine picks the rule and expands its destination, and the
// options' model applies its status and options to it. rule is the index
// of the rule that answers, or -1.
func apiAnswer(t *testing.T, ps *pattern.Set, rules []redirects.Rule, model rulemodel.Settings, host, wire string) (answer, int) {
	var m pattern.Match
	if !ps.Lookup(host, wire, &m) {
		return answer{}, -1
	}
	r := rules[m.Rule()]
	c := r
	c.Host, c.Destination = "", string(m.AppendDestination(nil))
	if r.StatusCode == redirects.StatusGone {
		c.Destination = ""
	}
	if r.MatchType == redirects.StartsWith {
		c.Source, _, _ = strings.Cut(r.Source, "?")
	} else {
		d, _ := modelPath(wire)
		c.MatchType, c.Source, c.PreservePath = redirects.Exact, d, false
	}
	a, ok := rulemodel.Lookup([]redirects.Rule{c}, model, wire)
	if !ok {
		t.Fatalf("the options' model does not match %s with %s %q, which the pattern engine matched (rule %s %q)", wire, c.MatchType, c.Source, r.MatchType, r.Source)
	}
	return answer{a.Status, a.Destination}, m.Rule()
}

// comparePatterns sends every request to the server on port and holds each
// answer against apiAnswer, allowing a difference only where the API's
// answer comes from a rule the file declares.
func comparePatterns(t *testing.T, tally map[string]int, format string, set redirects.Settings, rules []redirects.Rule, body []byte, port, noMatch int, reqs []patternRequest) {
	t.Helper()
	comparePatternsWith(t, tally, format, set, rules, body, port, noMatch, reqs, false)
}

// comparePatternsWith is comparePatterns; with relaxed, a difference is
// also allowed where a declared literal rule matches the path regardless
// of case and trailing slash (the map formats' keys ignore case, as
// compareOptions allows).
func comparePatternsWith(t *testing.T, tally map[string]int, format string, set redirects.Settings, rules []redirects.Rule, body []byte, port, noMatch int, reqs []patternRequest, relaxed bool) {
	t.Helper()
	prs := make([]pattern.Rule, len(rules))
	for i := range rules {
		prs[i] = rules[i].PatternRule()
	}
	ps, err := pattern.Compile(prs, set.PatternSettings())
	if err != nil {
		t.Fatal(err)
	}
	declared := declaredRules(t, format, body, rules)
	// The haproxy format writes the literal rules in docs/contract.md's
	// shape (an ACL of the path as sent, -i): what it declares of them is
	// about requests only, a case the source does not have (specCase) and
	// a path not escaped as browsers do (browser), not about every
	// request the rule answers.
	spec := format == "haproxy"
	browser := browserDeclared(t, format, body, rules)
	if spec {
		for r := range declared {
			// mergeQuery's declaration is about every request with a
			// query the rule answers, not a request's spelling.
			if !r.Extended() && !r.MergeQuery {
				delete(declared, r)
			}
		}
	}
	if relaxed {
		// The map formats' declarations about literal rules (statuses,
		// case) are about their main map: an extended rule is declared
		// only by a declaration about extended rules.
		ext := declaredRules(t, format, extendedLines(body), rules)
		for r := range declared {
			if r.Extended() && !ext[r] {
				delete(declared, r)
			}
		}
	}
	plain := plainDeclared(t, format, body, rules)
	// The first map of a map format: the literal rules without host or
	// conditions, which nginx matches against $uri.
	var lit []redirects.Rule
	var litIndex []int
	for i := range rules {
		if !rules[i].Extended() {
			lit = append(lit, rules[i])
			litIndex = append(litIndex, i)
		}
	}
	litRules := make([]pattern.Rule, len(lit))
	for i := range lit {
		litRules[i] = lit[i].PatternRule()
	}
	litSet, err := pattern.Compile(litRules, set.PatternSettings())
	if err != nil {
		t.Fatal(err)
	}
	// The rules without their exceptHosts: where they answer otherwise, an
	// excepted host made the difference (the tally's "excepted").
	noExcept := make([]pattern.Rule, len(rules))
	for i := range rules {
		noExcept[i] = rules[i].PatternRule()
		noExcept[i].ExceptHosts = nil
	}
	noExceptSet, err := pattern.Compile(noExcept, set.PatternSettings())
	if err != nil {
		t.Fatal(err)
	}
	client := &http.Transport{MaxIdleConnsPerHost: 8, DisableCompression: true, ResponseHeaderTimeout: time.Minute}
	defer client.CloseIdleConnections()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	got := make([]answer, len(reqs))
	errs := make([]error, len(reqs))
	var wg sync.WaitGroup
	next := make(chan int)
	for range 8 {
		wg.Go(func() {
			for i := range next {
				got[i], errs[i] = askHost(ctx, client, port, reqs[i], noMatch)
			}
		})
	}
	for i := range reqs {
		next <- i
	}
	close(next)
	wg.Wait()
	model := rulemodel.Of(set)
	same, differ, bad := 0, 0, 0
	kinds := map[string]int{}
	for i, q := range reqs {
		if errs[i] != nil {
			t.Fatalf("%s: GET %s (Host %s): %v", format, q.path, q.host, errs[i])
		}
		host := q.host
		if host == "" {
			host = "127.0.0.1:" + strconv.Itoa(port)
		}
		want, w := apiAnswer(t, ps, rules, model, host, q.path)
		if got[i] == want {
			same++
			if w >= 0 && rules[w].Extended() {
				kinds[extendedKind(&rules[w])]++
			} else if w >= 0 && spec {
				kinds["literal"]++
			}
			if w >= 0 && len(rules[w].ExceptHosts) > 0 {
				kinds["exceptHosts"]++
			}
			if _, w2 := apiAnswer(t, noExceptSet, rules, model, host, q.path); w2 != w {
				kinds["excepted"]++
			}
			continue
		}
		if w >= 0 && declared[&rules[w]] {
			differ++
			continue
		}
		if w >= 0 && plain[&rules[w]] && !export.IsPlainPath(q.path) {
			differ++
			continue
		}
		if w >= 0 && browser[&rules[w]] && !sentAsBrowser(q.path) {
			differ++
			continue
		}
		if spec && specCase(t, format, body, rules, set, q.path) {
			differ++
			continue
		}
		if relaxed && relaxedDeclared(declared, q.path) {
			differ++
			continue
		}
		if relaxed && strings.HasPrefix(format, "nginx") {
			// nginx's $uri, which docs/contract.md's map reads, is the
			// path decoded with runs of '/' merged (docs/exports.md): a
			// request whose merged path a literal rule without host or
			// conditions answers, among those alone, may get that rule's
			// status (its rest is taken from the path as sent), or any
			// answer when that rule is declared or a declared one matches
			// the merged path regardless of case and trailing slash.
			if m := mergedWire(q.path); m != q.path {
				a, w := apiAnswer(t, litSet, lit, model, host, m)
				if w >= 0 && (a.code == got[i].code || declared[&rules[litIndex[w]]]) || relaxedDeclared(declared, m) {
					differ++
					continue
				}
			}
		}
		if bad++; bad <= 10 {
			rule := "no rule"
			if w >= 0 {
				r := rules[w]
				rule = fmt.Sprintf("%s %s%s -> %d %q pp=%v pq=%v qaf=%v mq=%v", r.MatchType, r.Host, r.Source, r.StatusCode, r.Destination, r.PreservePath, r.PreserveQuery, r.QueryAfterFragment, r.MergeQuery)
			}
			t.Errorf("%s (%s): GET %s (Host %q) answered %v; the lookup API answers %v (%s), and no declaration covers it", format, set, q.path, q.host, got[i], want, rule)
		}
	}
	if bad > 0 {
		t.Fatalf("%s: %d of %d requests answered otherwise than the lookup API without a declaration", format, bad, len(reqs))
	}
	for k, n := range kinds {
		tally[k] += n
	}
	t.Logf("%s: %d rules (%d declared), %d requests: %d answered as the lookup API (by extended rules: %v), %d differently where declared",
		format, len(rules), len(declared), len(reqs), same, kinds, differ)
}

// plainDeclared returns the rules the chain matches only against a path
// sent without escapes (export.IsPlainPath), which its declarations "an
// escaped request path" name: a request with another path may be answered
// otherwise when the API answers it with one of them.
func plainDeclared(t *testing.T, format string, body []byte, rules []redirects.Rule) map[*redirects.Rule]bool {
	t.Helper()
	out := map[*redirects.Rule]bool{}
	for line := range strings.SplitSeq(string(body), "\n") {
		if !strings.HasPrefix(line, "#") {
			break
		}
		var match func(*redirects.Rule) bool
		switch {
		case strings.HasPrefix(line, "# Differs: regex rules with an escaped request path: "):
			match = func(r *redirects.Rule) bool { return r.MatchType == redirects.Regex }
		case strings.HasPrefix(line, "# Differs: pattern rules with a constraint, for an escaped request path: "):
			match = func(r *redirects.Rule) bool {
				return r.MatchType == redirects.Pattern && strings.Contains(r.Source, "(") && export.ChainBoundsConstraints(*r)
			}
		default:
			continue
		}
		for i := range rules {
			if match(&rules[i]) {
				out[&rules[i]] = true
			}
		}
	}
	return out
}

// extendedKind names what makes a rule extended, for the test's tally.
func extendedKind(r *redirects.Rule) string {
	switch {
	case r.MatchType == redirects.Pattern && strings.Contains(r.Source, "("):
		return "constraint"
	case r.MatchType == redirects.Pattern:
		return "pattern"
	case r.MatchType == redirects.Regex:
		return "regex"
	case r.Host != "":
		return "host"
	}
	return "query conditions"
}

// askHost is askAny with a Host header.
func askHost(ctx context.Context, client *http.Transport, port int, q patternRequest, noMatch int) (answer, error) {
	req, err := http.NewRequestWithContext(ctx, "GET", "http://127.0.0.1:"+strconv.Itoa(port)+"/", nil)
	if err != nil {
		return answer{}, err
	}
	req.URL.Opaque = q.path
	if q.host != "" {
		req.Host = q.host
	}
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

// mapCase is a server of TestPatternsNginx or TestPatternsHAProxy that
// serves map formats with their extended lines: it holds the exact rules,
// the others, or both.
type mapCase struct {
	name          string
	port          int
	files         []string
	exact, prefix bool
}

// compareMaps holds each map case against the lookup API of the rules its
// files hold, with the declarations of their opening comments.
func compareMaps(t *testing.T, tally map[string]int, set redirects.Settings, rules []redirects.Rule, files map[string][]byte, cases []mapCase, reqs []patternRequest) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var held []redirects.Rule
			for _, r := range rules {
				if r.MatchType == redirects.Exact && c.exact || r.MatchType != redirects.Exact && c.prefix {
					held = append(held, r)
				}
			}
			var head []byte
			for _, f := range c.files {
				head = append(head, commentHead(files[f])...)
			}
			comparePatternsWith(t, tally, c.name, set, held, head, c.port, 204, reqs, true)
		})
	}
}

// commentHead returns the opening comment lines of a file.
func commentHead(body []byte) []byte {
	var out []byte
	for line := range strings.SplitSeq(string(body), "\n") {
		if !strings.HasPrefix(line, "#") {
			break
		}
		out = append(out, line+"\n"...)
	}
	return out
}

// relaxedDeclared reports whether a declared literal rule without a host
// or conditions matches wire regardless of case and trailing slash.
func relaxedDeclared(declared map[*redirects.Rule]bool, wire string) bool {
	relaxed := rulemodel.Settings{CaseInsensitive: true, IgnoreTrailingSlash: true}
	for r := range declared {
		if r.Extended() {
			continue
		}
		if _, m := rulemodel.Lookup([]redirects.Rule{*r}, relaxed, wire); m {
			return true
		}
	}
	return false
}

// mergedWire returns a request's path with each %2F made '/' and runs of
// '/' merged, as nginx's $uri has it, and its query as it is.
func mergedWire(wire string) string {
	path, query, hasQuery := strings.Cut(wire, "?")
	path = strings.NewReplacer("%2F", "/", "%2f", "/").Replace(path)
	for strings.Contains(path, "//") {
		path = strings.ReplaceAll(path, "//", "/")
	}
	if hasQuery {
		return path + "?" + query
	}
	return path
}

// extendedLines returns the opening comment lines of body that declare
// extended rules: by their match type (pattern, regex) or by a condition
// only extended rules meet.
func extendedLines(body []byte) []byte {
	var out []byte
	for line := range strings.SplitSeq(string(body), "\n") {
		if !strings.HasPrefix(line, "#") {
			break
		}
		decl, ok := strings.CutPrefix(line, "# Differs: ")
		if !ok {
			continue
		}
		sel, _, _ := strings.Cut(decl, ": ")
		mt, cond, _ := strings.Cut(sel, " rules with ")
		switch {
		case extendedDeclaration(mt, cond), cond == "a large RE2 expression", cond == "a long expression", cond == "a $ in the destination", cond == "a constraint inside a segment",
			cond == "mergeQuery":
			out = append(out, line+"\n"...)
		}
	}
	return out
}
