package importer

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"redirects"
	"redirects/engine"
)

// TestNginxDefaultServerOtherPorts: a default server block takes the hosts
// no other block names (exceptHosts) only when every block listens on its
// addresses and ports: a block on another port or address answers its own
// names there, and the names no block has (it is the default of its
// address), which a rule (it answers every address and port) would hand to
// the default block. Such a file
// keeps each block's rules scoped to its names, the default block's
// noted.
func TestNginxDefaultServerOtherPorts(t *testing.T) {
	for _, c := range []struct {
		name, file string
		asks       map[string]string // host path -> answer
	}{
		{"return on 80, a shop on 443", `server {
    listen 80;
    server_name example.com www.example.com;
    return 301 https://example.com$request_uri;
}
server {
    listen 443 ssl;
    server_name shop.example.com;
    location /old/ { return 301 /new/; }
}
`, map[string]string{"shop.example.com /old/a": "301 /new/", "www.example.com /old/a": "301 https://example.com/old/a"}},
		{"a default per port", `server {
    listen 80;
    server_name a.example;
    location = /p { return 301 /a80; }
}
server {
    listen 443 ssl;
    server_name b.example;
    location = /p { return 301 /b443; }
}
`, map[string]string{"b.example /p": "301 /b443", "a.example /p": "301 /a80"}},
		{"the same ports: the default takes the rest", `server {
    listen 80;
    listen 443 ssl;
    server_name www.example.com;
    return 301 https://example.com$request_uri;
}
server {
    listen 443 ssl;
    listen 80;
    server_name example.com;
    location = /x { return 301 /y; }
}
`, map[string]string{"other.example /a": "301 https://example.com/a", "example.com /x": "301 /y", "example.com /a": "none"}},
		{"the same port on two addresses", `server {
    listen 127.0.0.1:80 default_server;
    server_name a.example;
    location = /p { return 301 /a; }
}
server {
    listen 127.0.0.2:80;
    server_name b.example;
    location = /p { return 301 /b; }
}
`, map[string]string{"a.example /p": "301 /a", "b.example /p": "301 /b", "other.example /p": "none"}},
		{"a port and an address with it", `server {
    listen 80;
    server_name a.example;
    location = /p { return 301 /a; }
}
server {
    listen 127.0.0.1:80;
    server_name b.example;
    location = /p { return 301 /b; }
}
`, map[string]string{"a.example /p": "301 /a", "b.example /p": "301 /b", "other.example /p": "none"}},
		{"a default server on one address of two", `server {
    listen 127.0.0.1:80;
    listen 127.0.0.2:80;
    server_name b.example;
    location = /p { return 301 /b; }
}
server {
    listen 127.0.0.1:80 default_server;
    listen 127.0.0.2:80;
    server_name a.example;
    location = /p { return 301 /a; }
}
`, map[string]string{"a.example /p": "301 /a", "b.example /p": "301 /b", "other.example /p": "none"}},
		{"a default server on both addresses", `server {
    listen 127.0.0.1:80;
    listen 127.0.0.2:80;
    server_name b.example;
    location = /p { return 301 /b; }
}
server {
    listen 127.0.0.1:80 default_server;
    listen 127.0.0.2:80 default_server;
    server_name a.example;
    location = /p { return 301 /a; }
}
`, map[string]string{"a.example /p": "301 /a", "b.example /p": "301 /b", "other.example /p": "301 /a"}},
		{"one address written three ways", `server {
    listen 80;
    server_name a.example;
    location = /p { return 301 /a; }
}
server {
    listen *:80;
    server_name b.example;
    location = /p { return 301 /b; }
}
server {
    listen 0.0.0.0:80;
    server_name c.example;
    location = /p { return 301 /c; }
}
`, map[string]string{"a.example /p": "301 /a", "b.example /p": "301 /b", "other.example /p": "301 /a"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			res, err := Read(context.Background(), strings.NewReader(c.file), "nginx", Options{})
			if err != nil {
				t.Fatal(err)
			}
			for i := range res.Rules {
				res.Rules[i].ID = int64(i + 1)
			}
			snap, err := engine.CompileChecked(res.Rules, redirects.Settings{})
			if err != nil {
				t.Fatal(err)
			}
			for ask, want := range c.asks {
				host, path, _ := strings.Cut(ask, " ")
				got := "none"
				if m, ok := snap.LookupHost(host, path); ok {
					got = strconv.Itoa(m.StatusCode()) + " " + string(m.AppendTarget(nil, path))
				}
				if got != want {
					t.Errorf("%s%s: %s, want %s (rules %+v)", host, path, got, want, res.Rules)
				}
			}
			if res.Skipped != 0 {
				t.Errorf("%d lines skipped, want none", res.Skipped)
			}
		})
	}
}
