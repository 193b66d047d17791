package export_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"redirects/export"
	"redirects/internal/servertest"
)

// The map formats' lines for a project with extended rules (mapchain.go).
// A key or value of a map is one word or a quoted string with no '"' and
// no '\' before a quote or a backslash (nginx would end the string or
// unescape it there); an extended map's line is a regular expression and
// an answer whose only variables are the captures the renderer names.
var nginxMapShapes = []*regexp.Regexp{
	regexp.MustCompile(`^map (?:\$uri|\$args|\$request_uri|"\$host \$request_uri") \$redirect_(?:exact|prefix|exact_args|prefix_args|prefix_rule_[0-9]+|exact_extended|prefix_extended) \{$`),
	regexp.MustCompile(`^    default "[^"\\\x00-\x1f\x7f]*";$`),
	regexp.MustCompile(`^    "~\^(?:[^"\\\x00-\x1f\x7f]|\\[^"\\\x00-\x1f\x7f])*\$" "(?:c?(?:301|302|303|307|308) (?:[^\x00-\x20\x7f"'\\;{}$]|\$\{redirects_(?:c[0-9]+|rest|q)\})+|410)";$`),
	// The literal rules' lines (the fuzzed rule is extended: it is never
	// one of them).
	regexp.MustCompile(`^    (?:"[^"\\\x00-\x1f\x7f]*"|[^\s"'\\;{}]+) (?:"[^"\\\x00-\x1f\x7f]*"|[^\s"'\\;{}]+);$`),
	regexp.MustCompile(`^\}$`),
}

// haproxyMapShapes: a key (no whitespace, no '#' first) and a value of
// one or two words, or "410".
var haproxyMapShapes = []*regexp.Regexp{
	regexp.MustCompile(`^[^\s#]\S* (?:(?:30[12378] )?[^\s]+|410)$`),
}

// FuzzNginxMapExactPatterns renders random extended rules into
// nginx-map-exact: every line must have one of the map shapes, and the
// real nginx -t must load the file in the http block with the lines its
// comment quotes in a server block.
func FuzzNginxMapExactPatterns(f *testing.F) { fuzzNginxMap(f, "nginx-map-exact") }

// FuzzNginxMapPrefixPatterns is FuzzNginxMapExactPatterns for
// nginx-map-prefix.
func FuzzNginxMapPrefixPatterns(f *testing.F) { fuzzNginxMap(f, "nginx-map-prefix") }

// FuzzHAProxyMapExactPatterns renders random extended rules into
// haproxy-map-exact: every line must be a key and a value, and the real
// haproxy -c must load it with the lines its comment quotes.
func FuzzHAProxyMapExactPatterns(f *testing.F) { fuzzHAProxyMap(f, "haproxy-map-exact") }

// FuzzHAProxyMapPrefixPatterns is FuzzHAProxyMapExactPatterns for
// haproxy-map-prefix.
func FuzzHAProxyMapPrefixPatterns(f *testing.F) { fuzzHAProxyMap(f, "haproxy-map-prefix") }

func fuzzNginxMap(f *testing.F, format string) {
	addPatternSeeds(f)
	bin, err := exec.LookPath("nginx")
	f.Fuzz(func(t *testing.T, source, dest, host string, kind, opts uint8) {
		rules, set, ok := fuzzPatternRules(source, dest, host, kind, opts)
		if !ok {
			return
		}
		body, _ := export.BuildFormat(format, rules, set)
		checkLines(t, format, body, nginxMapShapes)
		if err != nil {
			return // no nginx here: the shapes alone
		}
		dir := plainTempDir(t)
		http, server := nginxMapLines(t, format, body)
		servertest.WriteFile(t, filepath.Join(dir, map[string]string{"nginx-map-exact": "redirects-exact.map", "nginx-map-prefix": "redirects-prefix.map"}[format]), body)
		conf := servertest.NginxConf(dir, http, []string{server}, []int{servertest.FreePort(t)})
		servertest.WriteFile(t, filepath.Join(dir, "nginx.conf"), []byte(conf))
		servertest.Check(t, bin, "-t", "-q", "-p", dir, "-e", "stderr", "-c", filepath.Join(dir, "nginx.conf"))
	})
}

// nginxMapLines returns the http-block and server-block lines an nginx map
// file's opening comment quotes: the comment's "#     " lines, those
// before "# In the server block" in the http block.
func nginxMapLines(t *testing.T, format string, body []byte) (http, server string) {
	t.Helper()
	inServer := false
	for line := range strings.SplitSeq(string(body), "\n") {
		if !strings.HasPrefix(line, "#") {
			break
		}
		if strings.HasPrefix(line, "# In the server block") {
			inServer = true
		}
		l, ok := strings.CutPrefix(line, "#     ")
		if !ok {
			continue
		}
		if strings.HasPrefix(l, "if (") || strings.HasPrefix(l, "set ") || strings.HasPrefix(l, "absolute_redirect") {
			server += l + "\n"
		} else if !inServer && (strings.HasPrefix(l, "map_hash_") || strings.HasPrefix(l, "include ")) {
			http += l + "\n"
		}
	}
	if !strings.Contains(http, "include ") || !strings.Contains(server, "if (") {
		t.Fatalf("%s's comment quotes no include or no server lines:\n%s", format, body)
	}
	return http, server
}

func fuzzHAProxyMap(f *testing.F, format string) {
	addPatternSeeds(f)
	bin, err := exec.LookPath("haproxy")
	f.Fuzz(func(t *testing.T, source, dest, host string, kind, opts uint8) {
		rules, set, ok := fuzzPatternRules(source, dest, host, kind, opts)
		if !ok {
			return
		}
		body, _ := export.BuildFormat(format, rules, set)
		checkLines(t, format, body, haproxyMapShapes)
		if err != nil {
			return
		}
		lines := export.HAProxyMapExactSnippet
		file := "redirects-exact.map"
		switch {
		case format == "haproxy-map-exact" && set.CaseInsensitive:
			lines = export.HAProxyMapExactFoldSnippet
		case format == "haproxy-map-prefix":
			lines, file = export.HAProxyMapPrefixSnippet+"\n"+export.HAProxyMapPrefixStatusSnippet, "redirects-prefix.map"
			if set.CaseInsensitive {
				lines = export.HAProxyMapPrefixFoldSnippet + "\n" + export.HAProxyMapPrefixStatusSnippet
			}
		}
		dir := plainTempDir(t)
		servertest.WriteFile(t, filepath.Join(dir, file), body)
		cfg := filepath.Join(dir, "haproxy.cfg")
		servertest.WriteFile(t, cfg, []byte(servertest.HAProxyHead+servertest.HAProxyFrontend("f", servertest.FreePort(t), dir, lines)))
		servertest.Check(t, bin, "-c", "-q", "-f", cfg)
	})
}

// plainTempDir is t.TempDir without the test's name in the path: a fuzz
// seed's name holds '#', which starts a comment in an HAProxy
// configuration that names the file.
func plainTempDir(t *testing.T) string {
	dir, err := os.MkdirTemp("", "redirects-fuzz-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}
