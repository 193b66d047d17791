package export_test

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"redirects"
	"redirects/engine/pattern"
	"redirects/export"
	"redirects/internal/servertest"
)

// The nginx format's lines for a project with extended rules
// (nginxchain.go): the two sets, one if per rule case, the closing lines.
// A regular expression is a quoted string with no '"' and no "\\" in it
// (nginx would read the first as its end and rewrite the second); an
// answer is a status and a destination whose only variables are the
// captures the renderer names.
var chainShapes = []*regexp.Regexp{
	regexp.MustCompile(`^set \$redirects_request "\$host \$request_uri";$`),
	regexp.MustCompile(`^set \$redirects_answer "";$`),
	regexp.MustCompile(`^if \(\$redirects_request ~ "\^(?:[^"\\\x00-\x1f\x7f]|\\[^"\\\x00-\x1f\x7f])*\$"\) \{ set \$redirects_answer "(?:c?(?:301|302|303|307|308) (?:[^\x00-\x20\x7f"'\\;{}$]|\$\{redirects_(?:c[0-9]+|rest|q)\})+|410)"; set \$redirects_request ""; \}$`),
	regexp.MustCompile(`^if \(\$redirects_answer ~ "\^c\(\?<redirects_code>\[0-9\]\+\) //\+\(\?<redirects_to>\.\*\)"\) \{ set \$redirects_answer "\$\{redirects_code\} /\$\{redirects_to\}"; \}$`),
	regexp.MustCompile(`^if \(\$redirects_answer ~ "\^c\?(30[12378]) \(\?<redirects_to>\.\*\)"\) \{ return (30[12378]) \$redirects_to; \}$`),
	regexp.MustCompile(`^if \(\$redirects_answer = 410\) \{ return 410; \}$`),
}

// The haproxy format's lines for a project with extended rules
// (haproxychain.go): the set-var line, then per rule case a redirect or a
// 410 whose ACL expression is a single-quoted word and whose location is
// regsub of a double-quoted expression (backslashes doubled) into a
// double-quoted answer of destination text and \1 to \9 (a '$' is
// literal there: a regex rule's "$$"); a literal rule's case compares the
// host and the decoded path with single-quoted words holding no quote,
// backslash or whitespace, its location destination text ('%' doubled)
// and the query.
var haproxyChainShapes = []*regexp.Regexp{
	regexp.MustCompile(`^http-request set-var-fmt\(txn\.redirects_req\) '%\[req\.hdr\(host\),lower,regsub\(":\[0-9\]\*\$",""\),regsub\("\[\.\]\$",""\)\] %\[pathq\]'$`),
	regexp.MustCompile(`^http-request set-var\(txn\.redirects_host\) 'req\.hdr\(host\),lower,regsub\(":\[0-9\]\*\$",""\),regsub\("\[\.\]\$",""\)'$`),
	regexp.MustCompile(`^http-request set-var\(txn\.redirects_path\) path,url_dec$`),
	regexp.MustCompile(`^http-request (?:redirect code (?:301|302|303|307|308) location '(?:[^\x00-\x20\x7f"'\\;{}%]|%%|%\[query\])+'|return status 410) if(?: \{ (?:var\(txn\.redirects_(?:host|path)\) -m (?:str|beg|end) (?:-i )?'[^'\x00-\x20\x7f\\]+'(?: '[^'\x00-\x20\x7f\\]+')?|var\(txn\.redirects_host\) -m len [0-9]+:|query -m len 1:) \}| \|\|)+$`),
	// A literal rule's lines in docs/contract.md's shape (haproxy.go),
	// under the two section comments: an ACL whose patterns are sources as
	// browsers send them, and redirects whose location is destination
	// text ('%' doubled, '#' escaped) with the kept path and the query.
	regexp.MustCompile(`^# (?:Exact match|Prefix) redirects$`),
	regexp.MustCompile(`^acl redirect_[0-9]+ path(?:_beg)? -i /[^\x00-\x20\x7f"'\\#%{}]*(?:%[0-9A-F]{2}[^\x00-\x20\x7f"'\\#%{}]*)*(?: /[^\x00-\x20\x7f"'\\#%{}]*(?:%[0-9A-F]{2}[^\x00-\x20\x7f"'\\#%{}]*)*)?$`),
	regexp.MustCompile(`^http-request (?:redirect code (?:301|302|303|307|308) location (?:[^\x00-\x20\x7f"'\\#%]|%%|\\#|%\[path,bytes\([0-9]+\)\]|%\[query\])+|return status 410) if redirect_[0-9]+(?: \{ path,length gt [0-9]+ \})?(?: \{ query -m len gt 0 \})?$`),
	regexp.MustCompile(`^http-request (?:redirect code (?:301|302|303|307|308) location '%\[var\(txn\.redirects_req\),regsub\("\^(?:[^"'\\\x00-\x1f\x7f]|\\\\[^"'\\\x00-\x1f\x7f])*\$","(?:[^\x00-\x20\x7f"'\\;{}]|\\\\[1-9])+"\)(?:,regsub\("\^//\+","/"\))?\]'|return status 410) if \{ var\(txn\.redirects_req\) -m reg '\^[^'\x00-\x1f\x7f]*\$' \}$`),
}

// FuzzHAProxyPatterns is FuzzNginxPatterns for the haproxy format, with
// haproxy -c.
func FuzzHAProxyPatterns(f *testing.F) {
	addPatternSeeds(f)
	bin, err := exec.LookPath("haproxy")
	f.Fuzz(func(t *testing.T, source, dest, host string, kind, opts uint8) {
		rules, set, ok := fuzzPatternRules(source, dest, host, kind, opts)
		if !ok {
			return
		}
		// The fuzzed source and destination as a literal rule too, when
		// validation takes them: the file writes it in docs/contract.md's
		// shape among the chain's cases.
		lit := redirects.Rule{ID: 4, CreatedAt: rules[0].CreatedAt, MatchType: redirects.MatchType(kind % 2), Source: source, Destination: dest, StatusCode: 302,
			PreserveQuery: opts&32 != 0, PreservePath: opts&64 != 0 && kind%2 == 1}
		if lit.Validate() == nil && !lit.Extended() {
			rules = append(rules, lit)
		}
		body, _ := export.BuildFormat("haproxy", rules, set)
		checkLines(t, "haproxy", body, haproxyChainShapes)
		if err != nil {
			return
		}
		dir := t.TempDir()
		cfg := filepath.Join(dir, "haproxy.cfg")
		servertest.WriteFile(t, cfg, []byte(servertest.HAProxyHead+servertest.HAProxyFrontend("f", servertest.FreePort(t), dir, string(body))))
		servertest.Check(t, bin, "-c", "-q", "-f", cfg)
	})
}

// FuzzNginxPatterns renders random extended rules, with every byte the
// pattern engine lets through in sources, hosts, conditions and
// destinations, into the nginx format; every line must have one of its
// shapes, and the real nginx -t must load the file in a server block.
func FuzzNginxPatterns(f *testing.F) {
	addPatternSeeds(f)
	bin, err := exec.LookPath("nginx")
	f.Fuzz(func(t *testing.T, source, dest, host string, kind, opts uint8) {
		rules, set, ok := fuzzPatternRules(source, dest, host, kind, opts)
		if !ok {
			return
		}
		body, _ := export.BuildFormat("nginx", rules, set)
		checkLines(t, "nginx", body, chainShapes)
		if err != nil {
			return // no nginx here: the shapes alone
		}
		dir := t.TempDir()
		servertest.WriteFile(t, filepath.Join(dir, "redirects.conf"), body)
		conf := servertest.NginxConf(dir, "", []string{export.NginxAbsoluteRedirectSnippet + "\n" + export.NginxServerSnippet}, []int{servertest.FreePort(t)})
		servertest.WriteFile(t, filepath.Join(dir, "nginx.conf"), []byte(conf))
		servertest.Check(t, bin, "-t", "-q", "-p", dir, "-e", "stderr", "-c", filepath.Join(dir, "nginx.conf"))
	})
}

// addPatternSeeds adds the seed corpus of the pattern fuzz targets:
// sources, destinations and hosts with every character that could end a
// word or start a variable, for each match type.
func addPatternSeeds(f *testing.F) {
	for _, s := range [][3]string{
		{"/:lang/docs/*", "/docs/:lang/:splat", ""},
		{"/a%22b/:x", "/q/:x?y=1#f", "example.com"},
		{"/%24x/%7B%7D/:y+", "https://ex.com/:y", "*.example.com"},
		{"/s/:q??x=1&k=:v", "/r/:v/:q", ""},
		{"/x?a%26b=c%3Dd&e+f", "/y", "xn--caf-dma.example"},
		{"/v:id(\\d+)/:rest*", "/z/:rest", ""},
		{"/é/:a.html", "/b/:a", "bücher.example"},
		{"/a\"b", "/b", ""},
		{"/a", "/b\"; return 200; #", ""},
		{"/a", "/b${x}", ""},
		{"/a\\", "/b", ""},
		{"/go/*", "/:splat", ""},
		{`^/p/(\d+)$`, "/q/$1", ""},
		{"/a?p=%22%5C%24%27", "/b", ""},
		{"/a/:b/:c/:d/:e/:f/:g/:h/:i/:j/:k", "/:k/:a", ""},
		{"/a%27b/:x", "/%27:x'", ""},
		// RE2 in regex rules and constraints: every construct, and the
		// bytes nginx and HAProxy read as quotes, escapes or variables.
		{`(?i)^/a(?P<n>[\$\{\}\x22\x27\\]+)\b.{2,5}?$|/(b|c)*?`, "/q/${n}/$2/$$", ""},
		{`/x/(\x22|\\|\$|\{|\}|\x00|\n)\z(?m:^$)`, "https://ex.com/$1", "a.example"},
		{`/(?s:.)\Q${}\E\pL\d\w\s\B[[:alpha:]]{0,3}[^a-z]+`, "/$$1", ""},
		{`/v:id([^/]{1,3})/:b(\\|\x22|\$|\{1\})?`, "/z/:id/:b", ""},
		{`/:a((?i)k|\x{212a}|[\x{80}-\x{10ffff}])/x`, "/:a", ""},
		{`^/(.{1000})(.{1000})(\w{1000}){1,9}$`, "/x/$1", ""},
	} {
		for kind := range uint8(4) {
			f.Add(s[0], s[1], s[2], kind, uint8(kind*3))
			// preserveQuery and queryAfterFragment, on a destination with
			// a fragment.
			d := s[1]
			if !strings.Contains(d, "#") {
				d += "#g"
			}
			f.Add(s[0], d, s[2], kind, uint8(kind*3)|32|128)
		}
	}
}

// fuzzPatternRules returns the fuzzed rule, if the pattern engine takes it
// and it is extended, with two literal rules, and the settings.
func fuzzPatternRules(source, dest, host string, kind, opts uint8) ([]redirects.Rule, redirects.Settings, bool) {
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	set := redirects.Settings{CaseInsensitive: opts&1 != 0, IgnoreTrailingSlash: opts&2 != 0}
	r := redirects.Rule{ID: 1, CreatedAt: t0, MatchType: redirects.MatchType(kind % 4), Source: source, Destination: dest, Host: host, StatusCode: []int{301, 302, 303, 307, 308, 410}[int(opts>>2)%6]}
	if r.StatusCode == redirects.StatusGone {
		r.Destination = ""
	}
	r.PreserveQuery = opts&32 != 0 && r.StatusCode != redirects.StatusGone
	r.PreservePath = opts&64 != 0 && r.MatchType == redirects.StartsWith && r.StatusCode != redirects.StatusGone
	r.QueryAfterFragment = r.PreserveQuery && opts&128 != 0 && strings.Contains(r.Destination, "#")
	if r.StatusCode != redirects.StatusGone && r.Destination == "" {
		return nil, set, false // refused by every writer (redirects.Rule.Validate)
	}
	if _, err := pattern.Compile([]pattern.Rule{r.PatternRule()}, set.PatternSettings()); err != nil || !r.Extended() {
		return nil, set, false
	}
	return []redirects.Rule{
		r,
		{ID: 2, CreatedAt: t0, MatchType: redirects.Exact, Source: "/old", Destination: "/new", StatusCode: 301},
		{ID: 3, CreatedAt: t0, MatchType: redirects.StartsWith, Source: "/blog/", Destination: "/news/", StatusCode: 302, PreservePath: true},
	}, set, true
}

// checkLines fails unless every line of body after its opening comment
// has one of shapes (and a return's status is its condition's).
func checkLines(t *testing.T, format string, body []byte, shapes []*regexp.Regexp) {
	t.Helper()
	n := 0
	for i, l := range strings.Split(strings.TrimSuffix(string(body), "\n"), "\n") {
		if commentLine.MatchString(l) && n == 0 {
			continue
		}
		n++
		matched := false
		for _, re := range shapes {
			if m := re.FindStringSubmatch(l); m != nil {
				matched = len(m) < 3 || m[1] == m[2]
				break
			}
		}
		if !matched {
			t.Fatalf("%s line %d %q has none of the format's shapes\nfile:\n%s", format, i+1, l, body)
		}
	}
	if n == 0 {
		t.Fatalf("%s: no line after the comment:\n%s", format, body)
	}
}

// TestChainLeavesLongExpressionsOut: a rule whose expression or answer is
// longer than the server reads as one string (nginx: 4,096 bytes a token;
// HAProxy: regsub's argument in tune.bufsize) is left out of the chain and
// declared, so the server still loads the file; the chain writes each byte
// of a path in about nine, so a source of 2,040 bytes is far over, and one
// of 300 bytes is written.
func TestChainLeavesLongExpressionsOut(t *testing.T) {
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	rules := []redirects.Rule{
		// nginx: left out (about 18 kB); HAProxy: a literal rule, compared as a word.
		{ID: 1, CreatedAt: t0, MatchType: redirects.Exact, Host: "example.com", Source: "/" + strings.Repeat("a", 2040), Destination: "/a", StatusCode: 301},
		// nginx: left out (about 9 kB); HAProxy: written.
		{ID: 2, CreatedAt: t0, MatchType: redirects.Pattern, Source: "/p/" + strings.Repeat("b", 1000) + "/:id", Destination: "/q/:id", StatusCode: 301},
		// Both: left out (about 18 kB).
		{ID: 3, CreatedAt: t0, MatchType: redirects.Pattern, Source: "/r/" + strings.Repeat("c", 2000) + "/:id", Destination: "/s/:id", StatusCode: 302},
		// Both: written (about 2.7 kB).
		{ID: 4, CreatedAt: t0, MatchType: redirects.Exact, Host: "example.com", Source: "/" + strings.Repeat("d", 300), Destination: "/d", StatusCode: 301},
		{ID: 5, CreatedAt: t0, MatchType: redirects.Pattern, Source: "/ok/:id", Destination: "/fine/:id", StatusCode: 301},
		// A literal rule: in the nginx format's chain, left out (about 9 kB);
		// in nginx-map-exact's main map and in HAProxy's ACLs, as it is.
		{ID: 6, CreatedAt: t0, MatchType: redirects.Exact, Source: "/" + strings.Repeat("e", 1000), Destination: "/e", StatusCode: 301},
	}
	const declared = "\n# Differs: all rules with a long expression: left out, its expression or answer is longer than "
	for _, tc := range []struct {
		format  string
		n       int      // rules declared
		present []string // text of the rules written
		absent  []string // text of the rules left out
	}{
		{"nginx", 4, []string{strings.Repeat("(?:d|%64)", 300), "/fine/"}, []string{strings.Repeat("(?:a|%61)", 50), strings.Repeat("(?:b|%62)", 50), "/s/", strings.Repeat("(?:e|%65)", 50)}},
		{"nginx-map-exact", 1, []string{strings.Repeat("(?:d|%64)", 300), strings.Repeat("e", 1000)}, []string{strings.Repeat("(?:a|%61)", 50), strings.Repeat("(?:e|%65)", 50)}},
		{"nginx-map-prefix", 2, []string{"/fine/"}, []string{strings.Repeat("(?:b|%62)", 50), "/s/"}},
		{"haproxy", 1, []string{strings.Repeat("e", 1000), strings.Repeat("a", 2040), strings.Repeat("(?:b|%62)", 1000), "/q/", strings.Repeat("d", 300), "/fine/"}, []string{"/s/"}},
	} {
		body, _ := export.BuildFormat(tc.format, rules, redirects.Settings{})
		want := fmt.Sprintf("(%s, e.g. ", countRules(tc.n))
		i := strings.Index(string(body), declared)
		if i < 0 || !strings.Contains(string(body)[i:], want) {
			t.Errorf("%s does not declare %s as too long:\n%.3000s", tc.format, countRules(tc.n), body)
		}
		for _, p := range tc.present {
			if !strings.Contains(string(body), p) {
				t.Errorf("%s left out a rule under the bound (%.40s...)", tc.format, p)
			}
		}
		for _, p := range tc.absent {
			if strings.Contains(string(body), p) {
				t.Errorf("%s wrote a rule over the bound (%.40s...)", tc.format, p)
			}
		}
		checkLoads(t, tc.format, body)
	}
	for _, r := range rules {
		nginxLong, haproxyLong := r.ID <= 3 || r.ID == 6, r.ID == 3
		if got := export.ChainTooLong(r, redirects.Settings{}, "nginx"); got != nginxLong {
			t.Errorf("rule %d: ChainTooLong nginx = %v, want %v", r.ID, got, nginxLong)
		}
		if got := export.ChainTooLong(r, redirects.Settings{}, "haproxy"); got != haproxyLong {
			t.Errorf("rule %d: ChainTooLong haproxy = %v, want %v", r.ID, got, haproxyLong)
		}
	}
}

func countRules(n int) string {
	if n == 1 {
		return "1 rule"
	}
	return fmt.Sprintf("%d rules", n)
}

// TestChainLeavesLargeExpressionsOut: an RE2 expression that PCRE2 would
// compile past its size limit (bounded repeats are copies) is left out of
// the nginx and haproxy chains and declared, so the servers still load the
// file; one under the bound is written.
func TestChainLeavesLargeExpressionsOut(t *testing.T) {
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	rules := []redirects.Rule{
		{ID: 1, CreatedAt: t0, MatchType: redirects.Regex, Source: `^/(.{1000})(.{1000})(.{1000})(.{1000})(\w{1000})$`, Destination: "/x/$1", StatusCode: 301},
		{ID: 2, CreatedAt: t0, MatchType: redirects.Pattern, Source: `/big/:a(.{1000}x{1000})`, Destination: "/y/:a", StatusCode: 301},
		{ID: 3, CreatedAt: t0, MatchType: redirects.Regex, Source: `^/ok/(\w{200})$`, Destination: "/z/$1", StatusCode: 301},
	}
	for _, f := range []string{"nginx", "haproxy"} {
		body, _ := export.BuildFormat(f, rules, redirects.Settings{})
		if !strings.Contains(string(body), "\n# Differs: all rules with a large RE2 expression: left out, PCRE2 could refuse it as too large") ||
			!strings.Contains(string(body), "(2 rules, e.g. ^/(.{1000})") {
			t.Errorf("%s does not declare the two large rules:\n%s", f, body)
		}
		if n := strings.Count(string(body), "{200}"); n == 0 {
			t.Errorf("%s left out the rule under the bound:\n%s", f, body)
		}
		bin, err := exec.LookPath(f)
		if err != nil {
			continue
		}
		dir := t.TempDir()
		if f == "nginx" {
			servertest.WriteFile(t, filepath.Join(dir, "redirects.conf"), body)
			conf := servertest.NginxConf(dir, "", []string{export.NginxAbsoluteRedirectSnippet + "\n" + export.NginxServerSnippet}, []int{servertest.FreePort(t)})
			servertest.WriteFile(t, filepath.Join(dir, "nginx.conf"), []byte(conf))
			servertest.Check(t, bin, "-t", "-q", "-p", dir, "-e", "stderr", "-c", filepath.Join(dir, "nginx.conf"))
		} else {
			cfg := filepath.Join(dir, "haproxy.cfg")
			servertest.WriteFile(t, cfg, []byte(servertest.HAProxyHead+servertest.HAProxyFrontend("f", servertest.FreePort(t), dir, string(body))))
			servertest.Check(t, bin, "-c", "-q", "-f", cfg)
		}
	}
}

// TestDeclarationsOneLineEach: a condition that both literal and extended
// rules meet (mergeQuery, a long expression) is declared on one line that
// counts them all, not on a line for each kind.
func TestDeclarationsOneLineEach(t *testing.T) {
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	rules := []redirects.Rule{
		{ID: 1, CreatedAt: t0, MatchType: redirects.Exact, Source: "/m", Destination: "/n?a=1", StatusCode: 301, PreserveQuery: true, MergeQuery: true},
		{ID: 2, CreatedAt: t0, MatchType: redirects.Pattern, Source: "/p/:id", Destination: "/q/:id?b=1", StatusCode: 301, PreserveQuery: true, MergeQuery: true},
		{ID: 3, CreatedAt: t0, MatchType: redirects.Exact, Source: "/" + strings.Repeat("e", 1000), Destination: "/e", StatusCode: 301},
		{ID: 4, CreatedAt: t0, MatchType: redirects.Exact, Host: "example.com", Source: "/" + strings.Repeat("f", 1000), Destination: "/f", StatusCode: 301},
	}
	body, _ := export.BuildFormat("nginx", rules, redirects.Settings{})
	for _, cond := range []string{"mergeQuery", "a long expression"} {
		head := "# Differs: all rules with " + cond + ": "
		if n := strings.Count(string(body), head); n != 1 {
			t.Errorf("%d lines declare %s, want 1:\n%.2000s", n, cond, body)
			continue
		}
		i := strings.Index(string(body), head)
		if l, _, _ := strings.Cut(string(body)[i:], "\n"); !strings.Contains(l, "(2 rules, e.g. ") {
			t.Errorf("the line does not count both rules: %.300s", l)
		}
	}
}

// TestLongExpressionEdges: a long extended rule that is the last of
// nginx-map-prefix's chain is declared (the chain ends before it), and a
// long literal rule the haproxy file writes as an ACL in
// docs/contract.md's shape, without a regsub, is written and not declared.
func TestLongExpressionEdges(t *testing.T) {
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	long := redirects.Rule{ID: 1, CreatedAt: t0, MatchType: redirects.Pattern, Source: "/p/" + strings.Repeat("b", 1000) + "/:id", Destination: "/q/:id", StatusCode: 301}
	body, _ := export.BuildFormat("nginx-map-prefix", []redirects.Rule{long}, redirects.Settings{})
	if !strings.Contains(string(body), "\n# Differs: all rules with a long expression: left out") {
		t.Errorf("nginx-map-prefix does not declare its one long rule:\n%.2000s", body)
	}
	shaped := redirects.Rule{ID: 2, CreatedAt: t0, MatchType: redirects.StartsWith, Source: "/" + strings.Repeat("a", 2000), Destination: "/kept", StatusCode: 301, PreservePath: true}
	short := redirects.Rule{ID: 3, CreatedAt: t0, MatchType: redirects.Pattern, Source: "/ok/:id", Destination: "/fine/:id", StatusCode: 301}
	body, _ = export.BuildFormat("haproxy", []redirects.Rule{shaped, short}, redirects.Settings{})
	if strings.Contains(string(body), "a long expression") {
		t.Errorf("haproxy declares a rule it writes as an ACL:\n%.3000s", body)
	}
	if !strings.Contains(string(body), "location /kept%[path,bytes(2001)]") {
		t.Errorf("haproxy did not write the long literal rule as an ACL:\n%.3000s", body)
	}
}

// TestHAProxyManyExceptHosts: a literal rule with many exceptHosts, whose
// ACLs would pass the 64 words HAProxy reads a line, is written as the
// chain's expression instead, and haproxy -c loads the file.
func TestHAProxyManyExceptHosts(t *testing.T) {
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	var exact, wild []string
	for i := range 60 {
		exact = append(exact, fmt.Sprintf("h%d.example", i))
	}
	for i := range 12 {
		wild = append(wild, fmt.Sprintf("*.w%d.example", i))
	}
	rules := []redirects.Rule{
		{ID: 1, CreatedAt: t0, MatchType: redirects.Exact, Source: "/a", Destination: "/x", StatusCode: 301, ExceptHosts: exact},
		{ID: 2, CreatedAt: t0, MatchType: redirects.StartsWith, Source: "/b/", Destination: "/y", StatusCode: 302, ExceptHosts: wild},
		{ID: 3, CreatedAt: t0, MatchType: redirects.Exact, Source: "/c", Destination: "/z", StatusCode: 301, ExceptHosts: exact[:3]},
	}
	body, _ := export.BuildFormat("haproxy", rules, redirects.Settings{})
	for _, l := range strings.Split(string(body), "\n") {
		if n := len(strings.Fields(l)); n > 60 && !strings.HasPrefix(l, "#") {
			t.Errorf("a line of %d words: %.200s", n, l)
		}
	}
	if !strings.Contains(string(body), "-m str 'h0.example' 'h1.example' 'h2.example' }") {
		t.Errorf("the rule with three exceptHosts is not written with ACLs:\n%.3000s", body)
	}
	checkLoads(t, "haproxy", body)
}

// TestLongPreservePathSources: a preservePath rule whose source is over
// 700 bytes is left out of nginx-map-prefix and of the nginx format with
// options, and declared: the count of bytes its rest starts after
// compiles in PCRE2 as that many copies, which nginx refuses past about
// 790; nginx -t loads both files, and a rule of 600 bytes is written.
func TestLongPreservePathSources(t *testing.T) {
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	rules := []redirects.Rule{
		{ID: 1, CreatedAt: t0, MatchType: redirects.StartsWith, Source: "/" + strings.Repeat("a.", 1023) + "a", Destination: "/d", StatusCode: 301, PreservePath: true, PreserveQuery: true},
		{ID: 2, CreatedAt: t0, MatchType: redirects.StartsWith, Source: "/" + strings.Repeat("b", 600), Destination: "/e", StatusCode: 301, PreservePath: true},
	}
	for _, tc := range []struct {
		format string
		set    redirects.Settings
	}{{"nginx-map-prefix", redirects.Settings{}}, {"nginx", redirects.Settings{CaseInsensitive: true}}} {
		body, _ := export.BuildFormat(tc.format, rules, tc.set)
		if !strings.Contains(string(body), "\n# Differs: starts_with rules with preservePath and a source longer than 700 bytes: left out") ||
			strings.Contains(string(body), "a\\.a\\.a\\.") {
			t.Errorf("%s does not leave the long rule out, declared:\n%.1500s", tc.format, body)
		}
		if !strings.Contains(string(body), strings.Repeat("b", 600)) {
			t.Errorf("%s left out the rule of 600 bytes", tc.format)
		}
		checkLoads(t, tc.format, body)
	}
}

// checkLoads fails unless the real server loads body, a file of format:
// nginx -t with the nginx format in a server block or a map format with
// the lines its comment quotes, haproxy -c with the haproxy format in a
// frontend. Without the server's binary it checks nothing.
func checkLoads(t *testing.T, format string, body []byte) {
	t.Helper()
	server := "nginx"
	if format == "haproxy" {
		server = "haproxy"
	}
	bin, err := exec.LookPath(server)
	if err != nil {
		return
	}
	dir := plainTempDir(t)
	switch format {
	case "haproxy":
		cfg := filepath.Join(dir, "haproxy.cfg")
		servertest.WriteFile(t, cfg, []byte(servertest.HAProxyHead+servertest.HAProxyFrontend("f", servertest.FreePort(t), dir, string(body))))
		servertest.Check(t, bin, "-c", "-q", "-f", cfg)
		return
	case "nginx":
		servertest.WriteFile(t, filepath.Join(dir, "redirects.conf"), body)
		conf := servertest.NginxConf(dir, "", []string{export.NginxAbsoluteRedirectSnippet + "\n" + export.NginxServerSnippet}, []int{servertest.FreePort(t)})
		servertest.WriteFile(t, filepath.Join(dir, "nginx.conf"), []byte(conf))
	default:
		http, server := nginxMapLines(t, format, body)
		servertest.WriteFile(t, filepath.Join(dir, map[string]string{"nginx-map-exact": "redirects-exact.map", "nginx-map-prefix": "redirects-prefix.map"}[format]), body)
		conf := servertest.NginxConf(dir, http, []string{server}, []int{servertest.FreePort(t)})
		servertest.WriteFile(t, filepath.Join(dir, "nginx.conf"), []byte(conf))
	}
	servertest.Check(t, bin, "-t", "-q", "-p", dir, "-e", "stderr", "-c", filepath.Join(dir, "nginx.conf"))
}
