package importer

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
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

// TestNginxDefaultServerExceptHosts: the default server block of a file of
// several (the first, or listen ... default_server) answers every host the
// other blocks do not name, and requests without a host: its rules are
// host-less with exceptHosts, and answer as real nginx does on its names,
// the other blocks' names (a wildcard's subdomains too), a host no block
// names and no host, also where blocks have the same locations. A block
// with a regular-expression name keeps the default server's rules on its
// names, changed.
func TestNginxDefaultServerExceptHosts(t *testing.T) {
	bin := servertest.LookPath(t, "nginx")
	for _, c := range []struct {
		name   string
		parts  []string
		except []string
	}{
		{"first", []string{
			"server_name www.example.com;\nlocation / { return 301 https://example.com$request_uri; }\n",
			"server_name example.com;\nabsolute_redirect off;\nlocation = /x { return 302 /ex; }\n",
			"server_name .b.example;\nabsolute_redirect off;\nlocation /old/ { return 301 /b-new/; }\n",
		}, []string{"example.com", "b.example", "*.b.example"}},
		{"default_server", []string{
			"server_name a.example;\nabsolute_redirect off;\nlocation = /x { return 301 /ax; }\n",
			"listen 127.0.0.1:PORT default_server;\nserver_name d.example;\nabsolute_redirect off;\nlocation /old/ { return 308 /d-new/; }\nlocation = /x { return 302 /dx; }\n",
		}, []string{"a.example"}},
		// The same locations in the default block and in others: each
		// block answers its own, the default one every other host.
		{"same locations", []string{
			"server_name a.example;\nabsolute_redirect off;\nlocation = /x { return 301 /ax; }\nlocation /old/ { return 301 /a-old/; }\n",
			"server_name b.example;\nabsolute_redirect off;\nlocation = /x { return 302 /bx; }\nlocation /old/ { return 308 /b-old/; }\n",
			"server_name .example.com;\nabsolute_redirect off;\nlocation = /x { return 307 /cx; }\n",
		}, []string{"b.example", "example.com", "*.example.com"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			port := servertest.FreePort(t)
			var file strings.Builder
			parts := make([]string, len(c.parts))
			for i, p := range c.parts {
				parts[i] = strings.ReplaceAll(p, "PORT", fmt.Sprint(port))
				if strings.Contains(p, "listen") {
					// NginxConf writes the listen of every block; this
					// block's own is the default_server one.
					parts[i] = strings.Replace(parts[i], "listen 127.0.0.1:"+fmt.Sprint(port)+" default_server;\n", "", 1)
					file.WriteString("server {\n    listen 80 default_server;\n" + parts[i] + "}\n")
					continue
				}
				file.WriteString("server {\n    listen 80;\n" + parts[i] + "}\n")
			}
			res, err := Read(context.Background(), strings.NewReader(file.String()), "nginx", Options{})
			if err != nil {
				t.Fatal(err)
			}
			if res.Changed != 0 || res.Skipped != 0 {
				t.Fatalf("%d changed, %d skipped, want every line as is: %+v", res.Changed, res.Skipped, res.Lines)
			}
			n := 0
			for _, r := range res.Rules {
				if r.Host == "" {
					n++
					if !slices.Equal(r.ExceptHosts, c.except) {
						t.Errorf("the default server's rule %s: exceptHosts %q, want %q", r.Source, r.ExceptHosts, c.except)
					}
				}
			}
			if n == 0 {
				t.Fatalf("no host-less rule: %+v", res.Rules)
			}
			dir := t.TempDir()
			conf := filepath.Join(dir, "nginx.conf")
			ports := make([]int, len(parts))
			for i := range ports {
				ports[i] = port
			}
			cfg := servertest.NginxConf(dir, "", parts, ports)
			if c.name == "default_server" {
				// The second block's listen is the default one.
				cfg = strings.Replace(cfg, fmt.Sprintf("listen 127.0.0.1:%d;\n        root %s/no-root;\n        server_name d.example", port, dir),
					fmt.Sprintf("listen 127.0.0.1:%d default_server;\n        root %s/no-root;\n        server_name d.example", port, dir), 1)
			}
			servertest.WriteFile(t, conf, []byte(cfg))
			servertest.Check(t, bin, "-t", "-q", "-c", conf)
			servertest.Start(t, []int{port}, bin, "-c", conf)
			answered, others := 0, 0
			for _, host := range []string{"www.example.com", "example.com", "b.example", "x.b.example", "a.example", "d.example", "undeclared.example", ""} {
				for _, p := range []string{"/", "/x", "/old/y?k=v", "/none"} {
					code, loc := askHost(t, port, host, p)
					if code < 300 || code > 399 {
						code, loc = 0, ""
					}
					a, ok := lookupImported(t, res, redirects.Settings{}, host, p)
					if !ok && code == 0 {
						continue
					}
					if !ok || a.status != code || decodeLoose(a.target) != decodeLoose(loc) {
						t.Errorf("%s on %q: nginx answers %d %q, the import %+v %v", p, host, code, loc, a, ok)
					}
					answered++
					if host == "" || host == "undeclared.example" {
						others++
					}
				}
			}
			if answered < 8 || others < 4 {
				t.Errorf("%d requests redirected, %d of them on no host or an undeclared one: the sample does not exercise the default server", answered, others)
			}
		})
	}
}
