package export_test

import (
	"bytes"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
	"time"

	"redirects"
	"redirects/export"
	"redirects/internal/rulegen"
	"redirects/internal/servertest"
)

// patternsProject is a project of n rules of which a tenth are pattern
// rules (randomPattern's, each under a literal segment of its own, a
// third host-scoped, a fifth with a query condition), the rest
// rulegen's literal rules (a tenth starts_with).
func patternsProject(n int) []redirects.Rule {
	rules := rulegen.Rules(n-n/10, 0.1, 1)
	rng := rand.New(rand.NewPCG(7, 7))
	t0 := time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)
	for i := range n / 10 {
		src, names := randomPattern(rng)
		r := redirects.Rule{ID: int64(len(rules) + 1), CreatedAt: t0, MatchType: redirects.Pattern, StatusCode: 301,
			Source: "/s" + strconv.Itoa(i) + src, Priority: rng.IntN(3) * 50}
		if i%5 == 0 {
			r.Source += "?" + patternConds[rng.IntN(len(patternConds))]
		}
		if i%3 == 0 {
			r.Host = patternHosts[rng.IntN(len(patternHosts))]
		}
		r.Destination = "/new/" + strconv.Itoa(i)
		if len(names) > 0 {
			r.Destination += "/:" + names[0]
		}
		rules = append(rules, r)
	}
	return rules
}

// BenchmarkDeployPatterns100k renders each format of patternsProject's
// 100,000 rules (REDIRECTS_BENCH_RULES sets another size), as a deploy
// does, has the real servers load the nginx and haproxy files (nginx -t,
// haproxy -c, each in a server or a frontend with the map formats'
// snippets), and times a request no rule answers:
//
//	go test -run '^$' -bench DeployPatterns100k -benchtime 1x ./export
func BenchmarkDeployPatterns100k(b *testing.B) {
	n := 100_000
	if v, err := strconv.Atoi(os.Getenv("REDIRECTS_BENCH_RULES")); err == nil && v > 0 {
		n = v
	}
	rules := patternsProject(n)
	files := map[string][]byte{}
	for _, f := range redirects.Formats {
		// Rendered once here too, for the servers' benchmarks when
		// -bench leaves the rendering out.
		body, ok := export.BuildFormat(f, rules, redirects.Settings{})
		if !ok {
			b.Fatalf("no format %s", f)
		}
		files[f] = body
		b.Run("render/"+f, func(b *testing.B) {
			for b.Loop() {
				export.BuildFormat(f, rules, redirects.Settings{})
			}
			b.ReportMetric(float64(len(files[f]))/1e6, "MB")
		})
	}
	dir := b.TempDir()
	// Each server's files in a directory of its own: the map formats of
	// nginx and haproxy have the same names.
	ndir, hdir := filepath.Join(dir, "nginx"), filepath.Join(dir, "haproxy")
	root := b
	// The request benchmarks run after the checks, as siblings: a
	// benchmark with sub-benchmarks reports no time of its own.
	var later []func()
	defer func() {
		for _, f := range later {
			f()
		}
	}()
	for _, d := range []string{ndir, hdir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			b.Fatal(err)
		}
	}
	b.Run("nginx-t/nginx", func(b *testing.B) {
		bin := servertest.LookPath(b, "nginx")
		port := servertest.FreePort(b)
		servertest.WriteFile(b, filepath.Join(ndir, "redirects.conf"), files["nginx"])
		conf := servertest.NginxConf(ndir, "", []string{"include /etc/nginx/redirects.conf;\nlocation / { return 404; }"}, []int{port})
		path := checkServer(b, ndir, "nginx-chain.conf", conf, bin, "-t", "-q", "-p", ndir, "-e", "stderr", "-c")
		later = append(later, func() { askMiss(root, "request-miss/nginx", port, bin, "-p", ndir, "-e", "stderr", "-c", path) })
	})
	b.Run("nginx-t/nginx-map-exact+nginx-map-prefix", func(b *testing.B) {
		bin := servertest.LookPath(b, "nginx")
		servertest.WriteFile(b, filepath.Join(ndir, "redirects-exact.map"), files["nginx-map-exact"])
		servertest.WriteFile(b, filepath.Join(ndir, "redirects-prefix.map"), files["nginx-map-prefix"])
		sizes := regexp.MustCompile(`(?m)^#     (map_hash_\w+ \d+;)$`).FindAllStringSubmatch(string(files["nginx-map-exact"]), -1)
		if len(sizes) != 2 {
			b.Fatal("nginx-map-exact's comment does not give the two map_hash sizes")
		}
		http := sizes[0][1] + "\n" + sizes[1][1] + "\n" + export.NginxMapExactHTTPSnippet + "\n" + export.NginxMapPrefixHTTPSnippet
		port := servertest.FreePort(b)
		// The extended maps' lines first, when the files hold them.
		server := export.NginxMapExactSnippet + "\n"
		if bytes.Contains(files["nginx-map-exact"], []byte("$redirect_exact_extended {")) {
			server = export.NginxMapExactExtendedSnippet + "\n" + server
		}
		if bytes.Contains(files["nginx-map-prefix"], []byte("$redirect_prefix_extended {")) {
			server += export.NginxMapPrefixExtendedSnippet + "\n"
		}
		server += export.NginxMapPrefixSnippet + "\n" + export.NginxMapPrefixStatusSnippet + "\nreturn 204;"
		conf := servertest.NginxConf(ndir, http, []string{server}, []int{port})
		path := checkServer(b, ndir, "nginx-maps.conf", conf, bin, "-t", "-q", "-p", ndir, "-e", "stderr", "-c")
		later = append(later, func() {
			askMiss(root, "request-miss/nginx-map-exact+nginx-map-prefix", port, bin, "-p", ndir, "-e", "stderr", "-c", path)
		})
	})
	b.Run("haproxy-c/haproxy", func(b *testing.B) {
		bin := servertest.LookPath(b, "haproxy")
		port := servertest.FreePort(b)
		conf := servertest.HAProxyHead + servertest.HAProxyFrontend("chain", port, hdir, string(files["haproxy"]))
		path := checkServer(b, hdir, "haproxy-chain.cfg", conf, bin, "-c", "-q", "-f")
		later = append(later, func() { askMiss(root, "request-miss/haproxy", port, bin, "-db", "-f", path) })
	})
	b.Run("haproxy-c/haproxy-map-exact+haproxy-map-prefix", func(b *testing.B) {
		bin := servertest.LookPath(b, "haproxy")
		servertest.WriteFile(b, filepath.Join(hdir, "redirects-exact.map"), files["haproxy-map-exact"])
		servertest.WriteFile(b, filepath.Join(hdir, "redirects-prefix.map"), files["haproxy-map-prefix"])
		lines := export.HAProxyMapExactSnippet + "\n" + export.HAProxyMapPrefixSnippet + "\n" + export.HAProxyMapPrefixStatusSnippet
		port := servertest.FreePort(b)
		conf := servertest.HAProxyHead + servertest.HAProxyFrontend("maps", port, hdir, lines)
		path := checkServer(b, hdir, "haproxy-maps.cfg", conf, bin, "-c", "-q", "-f")
		later = append(later, func() {
			askMiss(root, "request-miss/haproxy-map-exact+haproxy-map-prefix", port, bin, "-db", "-f", path)
		})
	})
}

// checkServer writes conf as name in dir and times the server's check of
// it (args end with the flag that takes the configuration's path); it
// returns the configuration's path.
func checkServer(b *testing.B, dir, name, conf, bin string, args ...string) string {
	b.Helper()
	path := filepath.Join(dir, name)
	servertest.WriteFile(b, path, []byte(conf))
	for b.Loop() {
		servertest.Check(b, bin, append(args, path)...)
	}
	return path
}

// askMiss starts the server and times a request for a path no rule
// answers, the slowest for a chain: every expression is tried. An
// operation is ten requests, after one that warms the connection up.
func askMiss(b *testing.B, name string, port int, bin string, args ...string) {
	b.Run(name, func(b *testing.B) {
		servertest.Start(b, []int{port}, bin, args...)
		url := "http://127.0.0.1:" + strconv.Itoa(port) + "/no/rule/answers/this?x=1"
		get(b, url)
		for b.Loop() {
			for range 10 {
				get(b, url)
			}
		}
	})
}

func get(b *testing.B, url string) {
	resp, err := http.Get(url)
	if err != nil {
		b.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 404 && resp.StatusCode != 204 {
		b.Fatalf("GET %s: %s, want no redirect", url, resp.Status)
	}
}
