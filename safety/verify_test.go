package safety

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"redirects"
	"redirects/export"
	"redirects/internal/rulegen"
	"redirects/internal/servertest"
)

// verifyRules is a generated rule set with a few hand-made rules whose
// answers are easy to plant differences on.
func verifyRules(t *testing.T) []redirects.Rule {
	t.Helper()
	rules := rulegen.Rules(300, 0.3, 11)
	rules = append(rules, rs(
		"exact /planted /planted-target",
		"exact /planted-302 /elsewhere 302",
		"prefix /section/ https://example.com/section",
	)...)
	for i := range rules {
		rules[i].ID = int64(i + 1)
	}
	return rules
}

func exports(t *testing.T, rules []redirects.Rule) map[string][]byte {
	t.Helper()
	c, err := export.Render(rules)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	for _, e := range c.Exports {
		files[e.Format] = e.Body
	}
	return files
}

// TestVerifyNginx loads the project's nginx export into a real nginx, once
// as docs/exports.md says (absolute_redirect off), once without that line
// (nginx then sends absolute Locations on its own host) and once with one
// destination changed by hand, and wants Verify to find nothing in the
// first two and exactly the changed line in the third.
func TestVerifyNginx(t *testing.T) {
	bin := servertest.LookPath(t, "nginx")
	rules := verifyRules(t)
	files := exports(t, rules)
	dir := t.TempDir()
	conf := string(files["nginx"])
	line := "location = /planted { return 301 /planted-target; }"
	if !strings.Contains(conf, line) {
		t.Fatalf("the nginx export lacks %q:\n%s", line, conf)
	}
	edited := strings.Replace(conf, line, "location = /planted { return 301 /hand-edited; }", 1)
	servertest.WriteFile(t, filepath.Join(dir, "redirects.conf"), []byte(conf))
	servertest.WriteFile(t, filepath.Join(dir, "edited.conf"), []byte(edited))
	ports := []int{servertest.FreePort(t), servertest.FreePort(t), servertest.FreePort(t)}
	servers := []string{
		export.NginxAbsoluteRedirectSnippet + "\n" + export.NginxServerSnippet,
		export.NginxServerSnippet,
		export.NginxAbsoluteRedirectSnippet + "\ninclude /etc/nginx/edited.conf;",
	}
	cfg := filepath.Join(dir, "nginx.conf")
	servertest.WriteFile(t, cfg, []byte(servertest.NginxConf(dir, "", servers, ports)))
	servertest.Check(t, bin, "-t", "-p", dir, "-e", "stderr", "-c", cfg)
	servertest.Start(t, ports, bin, "-p", dir, "-e", "stderr", "-c", cfg)

	for _, port := range ports[:2] {
		m, err := Verify(context.Background(), "http://127.0.0.1:"+strconv.Itoa(port), rules, VerifyOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if len(m) != 0 {
			t.Fatalf("port %d: %d mismatches for the project's own export, first: %v", port, len(m), m[0])
		}
	}
	m, err := Verify(context.Background(), "http://127.0.0.1:"+strconv.Itoa(ports[2]), rules, VerifyOptions{Concurrency: 3})
	if err != nil {
		t.Fatal(err)
	}
	want := Mismatch{Path: "/planted", Want: Answer{StatusCode: 301, Destination: "/planted-target", RuleID: 301}, GotStatus: 301, GotLocation: "/hand-edited", Problem: "location"}
	if len(m) != 1 || m[0] != want {
		t.Fatalf("mismatches of the hand-edited config = %v, want only %v", m, want)
	}
	if s := m[0].String(); s != "/planted: location: the server answers 301 /hand-edited, the API 301 /planted-target" {
		t.Fatalf("String() = %q", s)
	}
}

// TestVerifyHAProxy loads the project's haproxy export into a real haproxy
// frontend, and a copy lacking one rule into another, and wants no
// mismatch from the first and the missing redirect from the second.
func TestVerifyHAProxy(t *testing.T) {
	bin := servertest.LookPath(t, "haproxy")
	rules := verifyRules(t)
	files := exports(t, rules)
	dir := t.TempDir()
	conf := string(files["haproxy"])
	var kept []string
	dropped := 0
	for l := range strings.SplitSeq(conf, "\n") {
		if strings.HasSuffix(l, " -i /planted-302") || strings.HasPrefix(l, "http-request redirect code 302 location /elsewhere ") {
			dropped++
			continue
		}
		kept = append(kept, l)
	}
	if dropped != 2 {
		t.Fatalf("dropped %d lines for /planted-302 from the haproxy export, want its acl and its redirect:\n%s", dropped, conf)
	}
	ports := []int{servertest.FreePort(t), servertest.FreePort(t)}
	cfg := servertest.HAProxyHead +
		servertest.HAProxyFrontend("own", ports[0], dir, conf) +
		servertest.HAProxyFrontend("edited", ports[1], dir, strings.Join(kept, "\n"))
	path := filepath.Join(dir, "haproxy.cfg")
	servertest.WriteFile(t, path, []byte(cfg))
	servertest.Check(t, bin, "-c", "-f", path)
	servertest.Start(t, ports, bin, "-db", "-f", path)

	m, err := Verify(context.Background(), "http://127.0.0.1:"+strconv.Itoa(ports[0]), rules, VerifyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(m) != 0 {
		t.Fatalf("%d mismatches for the project's own export, first: %v", len(m), m[0])
	}
	m, err = Verify(context.Background(), "http://127.0.0.1:"+strconv.Itoa(ports[1]), rules, VerifyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(m) != 1 || m[0].Path != "/planted-302" || m[0].Problem != "missing redirect" || m[0].GotStatus != 204 {
		t.Fatalf("mismatches with a rule left out = %v, want the missing redirect of /planted-302", m)
	}
}

// TestVerifyAnswers runs Verify against a small server of its own that
// answers some paths wrongly in each way Verify tells apart.
func TestVerifyAnswers(t *testing.T) {
	rules := rs("exact /ok /new", "exact /status /new", "exact /loc /new", "exact /missing /new",
		"exact /abs /new", "prefix /p/ /prefix")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/ok":
			w.Header().Set("Location", "/new")
			w.WriteHeader(301)
		case "/status":
			w.Header().Set("Location", "/new")
			w.WriteHeader(308)
		case "/loc":
			w.Header().Set("Location", "/old")
			w.WriteHeader(301)
		case "/abs":
			w.Header().Set("Location", "http://"+r.Host+"/new")
			w.WriteHeader(301)
		case "/p/_":
			w.Header().Set("Location", "/prefix")
			w.WriteHeader(301)
		default:
			w.WriteHeader(404)
		}
	}))
	defer srv.Close()
	m, err := Verify(context.Background(), srv.URL, rules, VerifyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, x := range m {
		got = append(got, x.Path+" "+x.Problem)
	}
	if want := "/loc location,/missing missing redirect,/status status"; strings.Join(got, ",") != want {
		t.Fatalf("mismatches %q, want %q", strings.Join(got, ","), want)
	}

	for _, bad := range []string{"ftp://x", "http://", "http://127.0.0.1/sub", "127.0.0.1:80"} {
		if _, err := Verify(context.Background(), bad, rules, VerifyOptions{}); redirects.ErrorCode(err) != redirects.EINVALID {
			t.Errorf("Verify(%q) = %v, want EINVALID", bad, err)
		}
	}
	srv.Close()
	_, err = Verify(context.Background(), srv.URL, rules, VerifyOptions{})
	if err == nil || !strings.Contains(err.Error(), "GET "+srv.URL+"/") {
		t.Fatalf("Verify against a closed server = %v, want an error naming the request", err)
	}
}

// TestVerifyMapExports loads the map exports into a real nginx and a real
// haproxy, configured with the snippets of docs/exports.md, and wants no
// mismatch. The two-column exact maps answer every exact rule with 301 (a
// documented difference), so every exact rule here is a 301.
func TestVerifyMapExports(t *testing.T) {
	rules := rulegen.Rules(400, 0.4, 12)
	for i := range rules {
		if rules[i].MatchType == redirects.Exact {
			rules[i].StatusCode = 301
		}
	}
	files := exports(t, rules)
	t.Run("nginx", func(t *testing.T) {
		bin := servertest.LookPath(t, "nginx")
		dir := t.TempDir()
		servertest.WriteFile(t, filepath.Join(dir, "redirects-exact.map"), files["nginx-map-exact"])
		servertest.WriteFile(t, filepath.Join(dir, "redirects-prefix.map"), files["nginx-map-prefix"])
		sizes := regexp.MustCompile(`(?m)^#     (map_hash_\w+ \d+;)$`).FindAllStringSubmatch(string(files["nginx-map-exact"]), -1)
		if len(sizes) != 2 {
			t.Fatalf("nginx-map-exact's comment does not give the two map_hash sizes:\n%s", files["nginx-map-exact"])
		}
		http := sizes[0][1] + "\n" + sizes[1][1] + "\n" + export.NginxMapExactHTTPSnippet + "\n" + export.NginxMapPrefixHTTPSnippet
		server := export.NginxAbsoluteRedirectSnippet + "\n" + export.NginxMapExactSnippet + "\n" + export.NginxMapPrefixSnippet + "\nreturn 204;"
		ports := []int{servertest.FreePort(t)}
		cfg := filepath.Join(dir, "nginx.conf")
		servertest.WriteFile(t, cfg, []byte(servertest.NginxConf(dir, http, []string{server}, ports)))
		servertest.Check(t, bin, "-t", "-p", dir, "-e", "stderr", "-c", cfg)
		servertest.Start(t, ports, bin, "-p", dir, "-e", "stderr", "-c", cfg)
		checkNoMismatch(t, ports[0], rules)
	})
	t.Run("haproxy", func(t *testing.T) {
		bin := servertest.LookPath(t, "haproxy")
		dir := t.TempDir()
		servertest.WriteFile(t, filepath.Join(dir, "redirects-exact.map"), files["haproxy-map-exact"])
		servertest.WriteFile(t, filepath.Join(dir, "redirects-prefix.map"), files["haproxy-map-prefix"])
		ports := []int{servertest.FreePort(t)}
		cfg := filepath.Join(dir, "haproxy.cfg")
		servertest.WriteFile(t, cfg, []byte(servertest.HAProxyHead+
			servertest.HAProxyFrontend("maps", ports[0], dir, export.HAProxyMapExactSnippet+"\n"+export.HAProxyMapPrefixSnippet)))
		servertest.Check(t, bin, "-c", "-f", cfg)
		servertest.Start(t, ports, bin, "-db", "-f", cfg)
		checkNoMismatch(t, ports[0], rules)
	})
}

func checkNoMismatch(t *testing.T, port int, rules []redirects.Rule) {
	t.Helper()
	m, err := Verify(context.Background(), "http://127.0.0.1:"+strconv.Itoa(port), rules, VerifyOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(m) != 0 {
		t.Fatalf("%d mismatches for the project's own exports, first: %v", len(m), m[0])
	}
}
