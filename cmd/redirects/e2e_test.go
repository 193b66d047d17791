package main_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"time"

	"encoding/json"
	"fmt"
	"github.com/jackc/pgx/v5"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// binary is the redirects binary built once for every end-to-end test.
var binary string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "redirects-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binary = filepath.Join(dir, "redirects")
	args := []string{"build", "-o", binary}
	if os.Getenv("REDIRECTS_TEST_RACE") != "" {
		args = append(args, "-race") // the server under test checks itself for data races
	}
	build := exec.Command("go", append(args, ".")...)
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building redirects:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// cli runs the built binary against one database.
type cli struct {
	t  *testing.T
	db string
}

// newCLI returns a CLI on a database of the test's own: a SQLite file, or
// with REDIRECTS_TEST_E2E_STORE=postgres a fresh PostgreSQL database on the
// server REDIRECTS_TEST_POSTGRES names, dropped when the test ends.
func newCLI(t *testing.T) *cli {
	t.Helper()
	switch store := os.Getenv("REDIRECTS_TEST_E2E_STORE"); store {
	case "", "sqlite":
		return &cli{t: t, db: "sqlite:" + filepath.Join(t.TempDir(), "redirects.db")}
	case "postgres":
		return &cli{t: t, db: newPostgresDatabase(t)}
	default:
		t.Fatalf("REDIRECTS_TEST_E2E_STORE=%q: want sqlite or postgres", store)
		return nil
	}
}

// newPostgresDatabase creates redirects_e2e_<random> and returns its URL.
func newPostgresDatabase(t *testing.T) string {
	t.Helper()
	admin := os.Getenv("REDIRECTS_TEST_POSTGRES")
	if admin == "" {
		t.Fatal("REDIRECTS_TEST_E2E_STORE=postgres needs REDIRECTS_TEST_POSTGRES (a server URL)")
	}
	b := make([]byte, 6)
	rand.Read(b)
	name := "redirects_e2e_" + hex.EncodeToString(b)
	exec := func(sql string) error {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		conn, err := pgx.Connect(ctx, admin)
		if err != nil {
			return err
		}
		defer conn.Close(ctx)
		_, err = conn.Exec(ctx, sql)
		return err
	}
	if err := exec("CREATE DATABASE " + name); err != nil {
		t.Fatalf("creating the test database: %v", err)
	}
	t.Cleanup(func() {
		if err := exec("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)"); err != nil {
			t.Errorf("dropping the test database %s: %v", name, err)
		}
	})
	u, err := url.Parse(admin)
	if err != nil {
		t.Fatalf("REDIRECTS_TEST_POSTGRES: %v", err)
	}
	u.Path = "/" + name
	return u.String()
}

type result struct {
	stdout, stderr string
	code           int
}

// exec runs the binary with REDIRECTS_DB set and the given standard input.
func (c *cli) exec(stdin string, args ...string) result {
	c.t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Env = append(os.Environ(), "REDIRECTS_DB="+c.db)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		c.t.Fatalf("running redirects %s: %v", strings.Join(args, " "), err)
	}
	return result{out.String(), errb.String(), code}
}

// ok runs a command that must succeed and returns its trimmed stdout.
func (c *cli) ok(args ...string) string {
	c.t.Helper()
	r := c.exec("", args...)
	if r.code != 0 {
		c.t.Fatalf("redirects %s: exit %d, want 0\nstderr: %s", strings.Join(args, " "), r.code, r.stderr)
	}
	return strings.TrimSpace(r.stdout)
}

// fail runs a command that must exit with code and print want on stderr.
func (c *cli) fail(code int, want string, args ...string) {
	c.t.Helper()
	r := c.exec("", args...)
	if r.code != code {
		c.t.Fatalf("redirects %s: exit %d, want %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), r.code, code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stderr, want) {
		c.t.Fatalf("redirects %s: stderr %q does not say %q", strings.Join(args, " "), r.stderr, want)
	}
	if r.stdout != "" {
		c.t.Fatalf("redirects %s failed but printed on stdout: %q", strings.Join(args, " "), r.stdout)
	}
}

// jsonOf runs a --json command and decodes its output into v.
func (c *cli) jsonOf(v any, args ...string) {
	c.t.Helper()
	out := c.ok(args...)
	if err := json.Unmarshal([]byte(out), v); err != nil {
		c.t.Fatalf("redirects %s printed invalid JSON: %v\n%s", strings.Join(args, " "), err, out)
	}
}

func mustMatch(t *testing.T, what, re, s string) {
	t.Helper()
	if !regexp.MustCompile(re).MatchString(s) {
		t.Fatalf("%s %q does not match %s", what, s, re)
	}
}

// setup creates an organization and a project and returns their IDs.
func (c *cli) setup() (org, project string) {
	c.t.Helper()
	org = c.ok("org", "create", "--name", "Acme", "--tier", "pro")
	project = c.ok("project", "create", "--org", org, "--name", "www")
	return org, project
}
