package importer

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"redirects"
	"redirects/internal/servertest"
)

// TestNginxServerNamesAgainstNginx: the server blocks of a file scope
// their rules to their names (host-scoped rules, a leading-dot name as the
// host and its subdomains), and the imported rules answer every sampled
// host and path as real nginx answers them with the same server blocks on
// one port; regular-expression locations and server rewrites answer with
// their captures.
func TestNginxServerNamesAgainstNginx(t *testing.T) {
	bin := servertest.LookPath(t, "nginx")
	parts := []string{
		// The default server: no rules, so a host no block names gets
		// no redirect.
		"server_name _;\nabsolute_redirect off;\n",
		"server_name a.example www.a.example;\nabsolute_redirect off;\n" +
			"rewrite ^/r/(.*)$ /ar/$1 permanent;\n" +
			"location = /x { return 301 /ax; }\n" +
			"location ~ ^/p/([0-9]+)$ { return 302 /ap/$1$is_args$args; }\n" +
			"location ~* ^/(Docs|d)/?$ { return 308 /adocs; }\n",
		"server_name .b.example;\nabsolute_redirect off;\n" +
			"location = /x { return 301 /bx; }\n" +
			"location /only-b/ { return 301 /bo; }\n" +
			"rewrite /legacy/ /bl? redirect;\n",
	}
	var file strings.Builder
	for _, p := range parts {
		file.WriteString("server {\n    listen 80;\n" + p + "}\n")
	}
	res, err := Read(context.Background(), strings.NewReader(file.String()), "nginx", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Changed != 0 || res.Skipped != 0 {
		t.Fatalf("%d changed, %d skipped, want every line as is: %+v", res.Changed, res.Skipped, res.Lines)
	}
	hosts := map[string]bool{}
	for _, r := range res.Rules {
		hosts[r.Host] = true
	}
	for _, h := range []string{"a.example", "www.a.example", "b.example", "*.b.example"} {
		if !hosts[h] {
			t.Errorf("no rule of host %s: %v", h, hosts)
		}
	}
	if hosts[""] {
		t.Errorf("a rule answers every host: %+v", res.Rules)
	}

	dir := t.TempDir()
	port := servertest.FreePort(t)
	conf := filepath.Join(dir, "nginx.conf")
	servertest.WriteFile(t, conf, []byte(servertest.NginxConf(dir, "", parts, []int{port, port, port})))
	servertest.Check(t, bin, "-t", "-q", "-c", conf)
	servertest.Start(t, []int{port}, bin, "-c", conf)
	compared, answered := 0, 0
	for _, host := range []string{"a.example", "www.a.example", "A.Example", "b.example", "sub.b.example", "x.y.b.example", "c.example", "127.0.0.1"} {
		for _, p := range []string{"/x", "/x/", "/r/1/2?k=v", "/r", "/p/12", "/p/12?q=1", "/p/x", "/DOCS", "/d/", "/docs/x",
			"/only-b/z", "/only-b", "/a/legacy/b?z=1", "/legacy", "/none"} {
			code, loc := askHost(t, port, host, p)
			if code < 300 || code > 399 {
				code, loc = 0, ""
			}
			a, ok := lookupImported(t, res, redirects.Settings{}, host, p)
			if !ok && code == 0 {
				compared++
				continue
			}
			if !ok || a.status != code || decodeLoose(a.target) != decodeLoose(loc) {
				t.Errorf("%s on %s: nginx answers %d %q, the import %+v %v", p, host, code, loc, a, ok)
			}
			compared++
			answered++
		}
	}
	if answered < 20 {
		t.Errorf("only %d of %d requests redirected: the sample does not exercise the rules", answered, compared)
	}
}
