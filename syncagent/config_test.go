package syncagent

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const goodKey = "redir_live_0123456789abcdefABCDEF0123456789"

// TestReadConfig reads a config file with defaults, two sections and a key
// file.
func TestReadConfig(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "www.key"), []byte(goodKey+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := ReadConfig(strings.NewReader(`# defaults
edge = https://edge.example.com
key-file = www.key
project = prj_a
check = nginx -t
metrics-addr = 127.0.0.1:9465

[exact]
format = nginx-map-exact
out = /etc/nginx/redirects/exact.map
reload = nginx -s reload

[shop]
key = `+goodKey+`
key-file =
project = prj_b
format = haproxy-map-exact
out = /etc/haproxy/shop.map
check =
haproxy-socket = /run/haproxy/admin.sock
`), dir)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.MetricsAddr != "127.0.0.1:9465" || len(cfg.Targets) != 2 {
		t.Fatalf("config: %+v", cfg)
	}
	a, b := cfg.Targets[0], cfg.Targets[1]
	if a.Name != "exact" || a.Edge != "https://edge.example.com" || a.Key != goodKey || a.Project != "prj_a" ||
		a.Format != "nginx-map-exact" || a.Check != "nginx -t" || a.Reload != "nginx -s reload" {
		t.Errorf("first target: %+v", a)
	}
	if b.Name != "shop" || b.Project != "prj_b" || b.Check != "" || b.HAProxySocket != "/run/haproxy/admin.sock" || b.mapName() != "/etc/haproxy/shop.map" {
		t.Errorf("second target (its own values over the defaults): %+v", b)
	}
}

// TestReadConfigRefuses holds the config file's errors: each names the
// line or the target and what is wrong.
func TestReadConfigRefuses(t *testing.T) {
	base := "edge = https://edge.example.com\nkey = " + goodKey + "\nproject = prj_a\n"
	for _, c := range []struct{ file, want string }{
		{base + "format = csv\n", "target (unnamed): missing out"},
		{base + "[a]\nformat = csv\nout = /x\n[a]\n", "line 7: section [a] appears twice"},
		{base + "colour = blue\n", `line 4: unknown setting "colour"`},
		{base + "just words\n", `line 4: want name = value, got "just words"`},
		{base + "[a\n", `line 4: a section is [NAME], got "[a"`},
		{base + "[a]\nformat = csv\nformat = nginx\n", "line 6: format is set twice"},
		{base + "[a]\nmetrics-addr = :1\n", "line 5: metrics-addr belongs before the first section"},
		{base + "format = gif\nout = /x\n", `format "gif" is not one of csv, nginx`},
		{"edge = ftp://x\nkey = " + goodKey + "\nproject = p\nformat = csv\nout = /x\n", `edge "ftp://x" is not an http:// or https:// URL`},
		{"edge = https://x\nkey = nope\nproject = p\nformat = csv\nout = /x\n", "key is not an API key"},
		{base + "format = nginx\nout = /x\nhaproxy-socket = /s\n", "haproxy-socket needs the format haproxy-map-exact or haproxy-map-prefix"},
		{base + "format = haproxy-map-exact\nout = /x\nhaproxy-socket = /s\nreload = x\n", "swapped without a reload: drop reload"},
		{base + "format = csv\nout = /x\nhaproxy-map = m\n", "haproxy-map needs haproxy-socket"},
		{base + "format = csv\n[a]\nout = /x\n[b]\nout = /x/../x\n", "targets a and b both write /x/../x"},
		{"edge = https://x\nkey-file = missing.key\nproject = p\nformat = csv\nout = /x\n", "key-file"},
		{base + "key-file = k\nformat = csv\nout = /x\n", "key and key-file both set"},
	} {
		_, err := ReadConfig(strings.NewReader(c.file), t.TempDir())
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("config:\n%s\nerror %v, want one saying %q", c.file, err, c.want)
		}
	}
}
