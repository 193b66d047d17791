package export_test

import (
	"context"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"redirects/export"
	"redirects/internal/rulegen"
	"redirects/internal/servertest"
)

// TestLargeExports renders a million generated rules and loads the exports
// into real nginx and haproxy with the configurations of docs/exports.md:
// the configuration test (nginx -t, haproxy -c) must pass without warnings,
// then each server answers a sample of paths as documented. It takes a
// minute or more, so it runs only with REDIRECTS_TEST_LARGE=1:
//
//	REDIRECTS_TEST_LARGE=1 go test -run TestLargeExports -v -timeout 30m ./export
func TestLargeExports(t *testing.T) {
	if os.Getenv("REDIRECTS_TEST_LARGE") != "1" {
		t.Skip("set REDIRECTS_TEST_LARGE=1 to load a million rules into nginx and haproxy")
	}
	const n, seed = 1_000_000, 1
	rules := rulegen.Rules(n, 0.1, seed)
	for _, r := range rules {
		// The engine stands in for the brute-force model here, which holds
		// only while no source has an upper-case letter (case folding is a
		// documented difference the model knows and the engine does not).
		if asciiLower(r.Source) != r.Source {
			t.Fatalf("rulegen.Rules made an upper-case source %q; this test assumes none", r.Source)
		}
	}
	t0 := time.Now()
	c, err := export.Render(rules)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("rendered %d rules in %v", n, time.Since(t0))
	files := map[string][]byte{}
	for _, e := range c.Exports {
		files[e.Format] = e.Body
		t.Logf("%s: %.1f MB", e.Format, float64(len(e.Body))/1e6)
	}
	t.Logf("report:\n%s", c.Report)

	e := newEngine(rules)
	rng := rand.New(rand.NewPCG(seed, 9))
	var paths []string
	for range 300 {
		r := rules[rng.IntN(len(rules))]
		paths = append(paths, r.Source, r.Source+"x", r.Source[:1+rng.IntN(len(r.Source))])
	}
	paths = slices.DeleteFunc(paths, nginxNormalizes)
	// documented is the engine's answer with the one documented difference
	// these rules reach: the two-column exact maps answer 301.
	documented := func(e lookupEngine) func(b behaviour, p string) answer {
		return func(b behaviour, p string) answer {
			a, exact := e.lookup(b, p)
			if exact && b.exact301 {
				a.code = 301
			}
			return a
		}
	}

	t.Run("nginx-maps", func(t *testing.T) {
		bin := servertest.LookPath(t, "nginx")
		dir := t.TempDir()
		servertest.WriteFile(t, filepath.Join(dir, "redirects-exact.map"), files["nginx-map-exact"])
		servertest.WriteFile(t, filepath.Join(dir, "redirects-prefix.map"), files["nginx-map-prefix"])
		sizes := regexp.MustCompile(`(?m)^#     (map_hash_\w+ \d+;)$`).FindAllStringSubmatch(string(files["nginx-map-exact"]), -1)
		if len(sizes) != 2 {
			t.Fatal("nginx-map-exact's comment does not give the two map_hash sizes")
		}
		t.Logf("nginx-map-exact asks for %s %s", sizes[0][1], sizes[1][1])
		cases := []serverCase{
			{"nginx-map-exact+nginx-map-prefix", servertest.FreePort(t), 204, behaviour{exact: true, prefix: true, exactFold: true, exact301: true}},
		}
		conf := servertest.NginxConf(dir, sizes[0][1]+"\n"+sizes[1][1]+"\n"+export.NginxMapExactHTTPSnippet+"\n"+export.NginxMapPrefixHTTPSnippet,
			[]string{export.NginxAbsoluteRedirectSnippet + "\n" + export.NginxMapExactSnippet + "\n" + export.NginxMapPrefixSnippet + "\nreturn 204;"},
			[]int{cases[0].port})
		runNginx(t, bin, dir, conf, cases, func() { compare(t, seed, e, paths, cases, documented(e)) })
	})

	// A million locations take nginx minutes and some 8 GB to load (each
	// location carries every module's configuration), far from the maps'
	// seconds; a tenth of that shows the scale the nginx format is for.
	t.Run("nginx-100k", func(t *testing.T) {
		bin := servertest.LookPath(t, "nginx")
		rules := rulegen.Rules(100_000, 0.1, seed)
		e := newEngine(rules)
		var paths []string
		for range 300 {
			r := rules[rng.IntN(len(rules))]
			paths = append(paths, r.Source, r.Source+"x", r.Source[:1+rng.IntN(len(r.Source))])
		}
		paths = slices.DeleteFunc(paths, nginxNormalizes)
		dir := t.TempDir()
		servertest.WriteFile(t, filepath.Join(dir, "redirects.conf"), export.RenderNginx(rules))
		cases := []serverCase{{"nginx", servertest.FreePort(t), 404, behaviour{exact: true, prefix: true}}}
		conf := servertest.NginxConf(dir, "", []string{export.NginxAbsoluteRedirectSnippet + "\n" + export.NginxServerSnippet}, []int{cases[0].port})
		runNginx(t, bin, dir, conf, cases, func() { compare(t, seed, e, paths, cases, documented(e)) })
	})

	t.Run("haproxy", func(t *testing.T) {
		bin := servertest.LookPath(t, "haproxy")
		dir := t.TempDir()
		servertest.WriteFile(t, filepath.Join(dir, "redirects-exact.map"), files["haproxy-map-exact"])
		servertest.WriteFile(t, filepath.Join(dir, "redirects-prefix.map"), files["haproxy-map-prefix"])
		cases := []serverCase{
			{"haproxy-map-exact+haproxy-map-prefix", servertest.FreePort(t), 204, behaviour{exact: true, prefix: true, exact301: true}},
		}
		var conf strings.Builder
		conf.WriteString(servertest.HAProxyHead)
		conf.WriteString(servertest.HAProxyFrontend("f0", cases[0].port, dir, export.HAProxyMapExactSnippet+"\n"+export.HAProxyMapPrefixSnippet))
		cfg := filepath.Join(dir, "haproxy.cfg")
		servertest.WriteFile(t, cfg, []byte(conf.String()))
		t0 := time.Now()
		out := checkQuiet(t, bin, "-c", "-f", cfg)
		t.Logf("haproxy -c with both maps: %v\n%s", time.Since(t0), out)
		t0 = time.Now()
		pid := servertest.Start(t, []int{cases[0].port}, bin, "-db", "-f", cfg)
		t.Logf("haproxy listening after %v, resident %s", time.Since(t0), resident(pid))
		compare(t, seed, e, paths, cases, documented(e))
	})
}

// runNginx tests and starts nginx with conf, logging the time each takes
// and the server's size, then runs probe.
func runNginx(t *testing.T, bin, dir, conf string, cases []serverCase, probe func()) {
	t.Helper()
	servertest.WriteFile(t, filepath.Join(dir, "nginx.conf"), []byte(conf))
	args := []string{"-p", dir, "-e", "stderr", "-c", filepath.Join(dir, "nginx.conf")}
	t0 := time.Now()
	out := checkQuiet(t, bin, append([]string{"-t"}, args...)...)
	t.Logf("nginx -t: %v\n%s", time.Since(t0), out)
	var ports []int
	for _, c := range cases {
		ports = append(ports, c.port)
	}
	t0 = time.Now()
	pid := servertest.Start(t, ports, bin, args...)
	t.Logf("nginx listening after %v, resident %s", time.Since(t0), resident(pid))
	probe()
}

// resident returns the resident memory of a process, from /proc.
func resident(pid int) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return "unknown"
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			return strings.TrimSpace(v)
		}
	}
	return "unknown"
}

// checkQuiet is check that also fails on a warning, such as nginx's
// "could not build optimal map_hash": the sizes the files ask for must be
// enough.
func checkQuiet(t *testing.T, bin string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, bin, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", bin, strings.Join(args, " "), err, out)
	}
	if strings.Contains(strings.ToLower(string(out)), "warn") {
		t.Fatalf("%s %s warns:\n%s", bin, strings.Join(args, " "), out)
	}
	return string(out)
}
