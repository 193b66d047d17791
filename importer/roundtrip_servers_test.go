package importer

import (
	"bytes"
	"context"
	"math/rand/v2"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"redirects"
	"redirects/export"
	"redirects/internal/rulemodel"
	"redirects/internal/servertest"
)

// TestExportsRoundTripServers: the six server exports of random projects
// run in real nginx and haproxy (with the snippets their comments give),
// and read back; every random path is answered by the import as the real
// server answers it, but for the paths a rule the file declares as
// answered otherwise matches (regardless of case and trailing slash), the
// paths the import answers with a line it reports as changed, and, for the
// haproxy format, the paths not escaped as browsers send them (its ACLs
// match the path as sent: docs/exports.md).
func TestExportsRoundTripServers(t *testing.T) {
	nginx := servertest.LookPath(t, "nginx")
	haproxy := servertest.LookPath(t, "haproxy")
	loose := rulemodel.Settings{CaseInsensitive: true, IgnoreTrailingSlash: true}
	compared := map[string]int{}
	for seed := uint64(0); seed < 10; seed++ {
		rng := rand.New(rand.NewPCG(seed, 24))
		set, rules := rulemodel.Project(rng, 10)
		ext := !set.IsDefault()
		for i := range rules {
			ext = ext || rules[i].UsesOptions()
		}
		c, err := export.Build(rules, set)
		if err != nil {
			t.Fatal(err)
		}
		files := map[string][]byte{}
		for _, e := range c.Exports {
			files[e.Format] = e.Body
		}
		dir := t.TempDir()
		servertest.WriteFile(t, filepath.Join(dir, "redirects.conf"), files["nginx"])
		servertest.WriteFile(t, filepath.Join(dir, "redirects-exact.map"), files["nginx-map-exact"])
		servertest.WriteFile(t, filepath.Join(dir, "redirects-prefix.map"), files["nginx-map-prefix"])
		sizes := regexp.MustCompile(`(?m)^#     (map_hash_\w+ \d+;)$`).FindAllStringSubmatch(string(files["nginx-map-exact"]), -1)
		if len(sizes) != 2 {
			t.Fatalf("no map_hash sizes in nginx-map-exact")
		}
		ports := map[string]int{}
		var nports []int
		for _, f := range []string{"nginx", "nginx-map-exact", "nginx-map-prefix"} {
			ports[f] = servertest.FreePort(t)
			nports = append(nports, ports[f])
		}
		prefixLines := export.NginxMapPrefixSnippet + "\n" + export.NginxMapPrefixStatusSnippet
		servers := []string{
			export.NginxAbsoluteRedirectSnippet + "\n" + export.NginxServerSnippet,
			export.NginxAbsoluteRedirectSnippet + "\n" + export.NginxMapExactSnippet + "\nreturn 204;",
			export.NginxAbsoluteRedirectSnippet + "\n" + prefixLines + "\nreturn 204;",
		}
		http := sizes[0][1] + "\n" + sizes[1][1] + "\n" + export.NginxMapExactHTTPSnippet + "\n" + export.NginxMapPrefixHTTPSnippet
		conf := filepath.Join(dir, "nginx.conf")
		servertest.WriteFile(t, conf, []byte(servertest.NginxConf(dir, http, servers, nports)))
		args := []string{"-p", dir, "-e", "stderr", "-c", conf}
		servertest.Check(t, nginx, append([]string{"-t"}, args...)...)
		servertest.Start(t, nports, nginx, args...)

		hdir := t.TempDir()
		servertest.WriteFile(t, filepath.Join(hdir, "redirects-exact.map"), files["haproxy-map-exact"])
		servertest.WriteFile(t, filepath.Join(hdir, "redirects-prefix.map"), files["haproxy-map-prefix"])
		exactLines, hprefix := export.HAProxyMapExactSnippet, export.HAProxyMapPrefixSnippet+"\n"+export.HAProxyMapPrefixStatusSnippet
		if set.CaseInsensitive {
			exactLines, hprefix = export.HAProxyMapExactFoldSnippet, export.HAProxyMapPrefixFoldSnippet+"\n"+export.HAProxyMapPrefixStatusSnippet
		}
		var cfg strings.Builder
		cfg.WriteString(servertest.HAProxyHead)
		var hports []int
		for i, f := range []string{"haproxy", "haproxy-map-exact", "haproxy-map-prefix"} {
			ports[f] = servertest.FreePort(t)
			hports = append(hports, ports[f])
			body := []string{string(files["haproxy"]), exactLines, hprefix}[i]
			cfg.WriteString(servertest.HAProxyFrontend("f"+strconv.Itoa(i), ports[f], hdir, body))
		}
		cfgPath := filepath.Join(hdir, "haproxy.cfg")
		servertest.WriteFile(t, cfgPath, []byte(cfg.String()))
		servertest.Check(t, haproxy, "-c", "-f", cfgPath)
		servertest.Start(t, hports, haproxy, "-db", "-f", cfgPath)

		paths := rulemodel.Paths(rng, rules, 60)
		for f, port := range ports {
			res, err := Read(context.Background(), bytes.NewReader(files[f]), exportReader[f], Options{Settings: set})
			if err != nil {
				t.Fatalf("seed %d %s: %v", seed, f, err)
			}
			cl, _ := classes(res)
			isDeclared := exportDeclared(f, files[f], ext)
			for _, p := range paths {
				if strings.Contains(p, "//") {
					continue // the servers merge repeated slashes
				}
				wire, _, _ := strings.Cut(p, "#")
				wp, _, _ := strings.Cut(wire, "?")
				if dec, ok := decodePath(wp); f == "haproxy" && (!ok || string(redirects.AppendRequestPath(nil, dec)) != wp) {
					continue
				}
				got, gok := rulemodel.Lookup(res.Rules, rulemodel.Of(set), p)
				if gok && cl[res.RuleLines[got.Rule]] == Changed {
					continue
				}
				excused := false
				for i := range rules {
					if _, ok := rulemodel.Lookup(rules[i:i+1], loose, p); ok && isDeclared(&rules[i]) {
						excused = true
					}
				}
				if excused {
					continue
				}
				code, loc := ask(t, port, p)
				if code != 410 && (code < 300 || code > 399) {
					code = 0
				}
				switch {
				case code == 0 && !gok:
				case code == 410 && gok && got.Status == 410:
				case gok && code == got.Status && decodeLoose(loc) == decodeLoose(got.Destination):
				default:
					t.Fatalf("seed %d %s (%s): %s: the server answers %d %q, the import %+v %v\n%s", seed, f, set, p, code, loc, got, gok, files[f])
				}
				compared[f]++
			}
		}
	}
	for _, f := range redirects.Formats[1:] {
		if compared[f] < 200 {
			t.Errorf("%s: only %d paths compared", f, compared[f])
		}
	}
	t.Logf("paths compared: %v", compared)
}
