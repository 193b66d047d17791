package main

import (
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

func TestReadConfig(t *testing.T) {
	env := map[string]string{
		"REDIRECTS_DB": "sqlite:env.db", "REDIRECTS_ADDR": ":1", "REDIRECTS_ADMIN_ADDR": ":2",
		"REDIRECTS_MANAGE_ADDR": ":3", "REDIRECTS_TLS_CERT": "c.pem", "REDIRECTS_TLS_KEY": "k.pem",
		"REDIRECTS_REDIS": "redis://r", "REDIRECTS_REDIS_PREFIX": "p:", "REDIRECTS_LOG_LEVEL": "debug",
		"REDIRECTS_LOG_FORMAT": "json", "REDIRECTS_ENGINE": "net/http", "REDIRECTS_LOGIN_KEY": "k", "USER": "ada", "SUDO_USER": "bob",
		"GOMEMLIMIT": "700MiB", "REDIRECTS_API": "https://admin.example.com", "REDIRECTS_TOKEN": "redir_mgmt_x",
		"XDG_CONFIG_HOME": "/cfg", "HOME": "/home/ada", "CI": "true",
	}
	var asked []string
	cf := readConfig(func(k string) string { asked = append(asked, k); return env[k] })
	want := config{envDB: "sqlite:env.db", addr: ":1", adminAddr: ":2", manageAddr: ":3", tlsCert: "c.pem", tlsKey: "k.pem",
		redis: "redis://r", redisPrefix: "p:", logLevel: "debug", logFormat: "json", engine: "net/http", loginKey: "k", goMemLimit: "700MiB", user: "ada", sudoUser: "bob",
		envAPI: "https://admin.example.com", envToken: "redir_mgmt_x", configHome: "/cfg", home: "/home/ada", ci: true}
	if cf != want {
		t.Errorf("readConfig = %+v, want %+v", cf, want)
	}
	if len(asked) != len(env) {
		t.Errorf("readConfig asked for %q, want each of the %d variables once", asked, len(env))
	}
	for _, tc := range []struct{ flag, env, want string }{
		{"", "", DefaultDB}, {"", "sqlite:env.db", "sqlite:env.db"}, {"sqlite:flag.db", "sqlite:env.db", "sqlite:flag.db"},
	} {
		cf := config{db: tc.flag, envDB: tc.env}
		if got := cf.databaseURL(); got != tc.want {
			t.Errorf("databaseURL with --db %q and REDIRECTS_DB %q = %q, want %q", tc.flag, tc.env, got, tc.want)
		}
	}
}

// TestEnvironmentReadOnce: readConfig is the only code of the binary that
// reads the environment (Main.Getenv, os.Getenv), so a setting cannot be
// read in two places that disagree.
func TestEnvironmentReadOnce(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		// Files of a build tag the binary is not built with (cpuprofile:
		// a benchmarking build) are not the program.
		if ok, err := build.Default.MatchFile(".", name); err != nil || !ok {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if ok && fn.Name.Name == "readConfig" {
				continue
			}
			ast.Inspect(d, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				if sel, ok := call.Fun.(*ast.SelectorExpr); ok {
					switch sel.Sel.Name {
					case "Getenv", "LookupEnv", "Environ":
						t.Errorf("%s: %s reads the environment outside readConfig", fset.Position(sel.Pos()), sel.Sel.Name)
					}
				}
				return true
			})
		}
	}
}
