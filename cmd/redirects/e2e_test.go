package main_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"redirects"
	main "redirects/cmd/redirects"
	"redirects/http/evhttp"
	"redirects/internal/testreport"
)

// Most end-to-end tests run the program in process: Main with its streams,
// environment and clock set by the test, exactly as main() wires them for
// the binary. The binary is built and run as a process only where the
// process is the point (signals, kill -9, several processes on one SQLite
// file, the race detector build, the quickstart's printed commands).

var (
	binaryDir  string // where the binary is built; removed after the tests
	binaryOnce sync.Once
	binaryPath string
	binaryErr  error
)

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "redirects-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	binaryDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// binary returns the redirects binary, built on first use. With
// REDIRECTS_TEST_RACE set it is built with the race detector, and the
// process tests fail when it reports a data race.
func binary(t *testing.T) string {
	t.Helper()
	binaryOnce.Do(func() {
		path := filepath.Join(binaryDir, "redirects")
		args := []string{"build", "-o", path}
		if raceBinary() {
			args = append(args, "-race")
		}
		out, err := exec.Command("go", append(args, ".")...).CombinedOutput()
		if err != nil {
			binaryErr = fmt.Errorf("building redirects: %v\n%s", err, out)
			return
		}
		binaryPath = path
	})
	if binaryErr != nil {
		t.Fatal(binaryErr)
	}
	return binaryPath
}

func raceBinary() bool { return os.Getenv("REDIRECTS_TEST_RACE") != "" }

// engines are the edge listener's HTTP engines: every edge test runs on
// each of them.
var engines = []string{"evhttp", "net/http"}

// eachEngine runs test once per engine, as parallel subtests named
// engine=evhttp and engine=net/http, each on a database of its own.
func eachEngine(t *testing.T, test func(t *testing.T, c *cli)) {
	t.Helper()
	for _, engine := range engines {
		t.Run("engine="+engine, func(t *testing.T) {
			if engine == "evhttp" && !evhttp.Supported {
				t.Skip("this platform has no epoll engine: serve falls back to net/http")
			}
			t.Parallel()
			c := newCLI(t)
			c.engine = engine
			test(t, c)
		})
	}
}

// testClock is a settable clock for a program run in process: it runs at
// the wall's speed from the time last set, so a test can place a server in
// a minute or a month.
type testClock struct{ offset atomic.Int64 }

func newTestClock(start time.Time) *testClock {
	c := &testClock{}
	c.Set(start)
	return c
}

// Set moves the clock to t; it runs on from there.
func (c *testClock) Set(t time.Time) { c.offset.Store(int64(time.Until(t))) }

func (c *testClock) Now() time.Time {
	return time.Now().Add(time.Duration(c.offset.Load())).UTC()
}

// syncBuffer is a buffer that a running program writes while the test
// reads it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// cli runs the program against one database.
type cli struct {
	t      *testing.T
	db     string
	engine string // the edge's HTTP engine in startEdge; "" for the default
	// api, in api mode, is the management API that runs the commands the
	// database need not.
	api *apiServer
}

// newCLI returns a CLI on a database of the test's own: a SQLite file, or
// with REDIRECTS_TEST_E2E_STORE=postgres a fresh PostgreSQL database on the
// server REDIRECTS_TEST_POSTGRES names, dropped when the test ends. With
// REDIRECTS_TEST_E2E_STORE=api it is a SQLite file too, but exec runs
// every command the management API can run through it (--api, --token:
// e2eapi_test.go), on a "redirects serve --manage-addr" started on that
// file at the first such command; the few tests that check the database
// mode itself skip (skipInAPIMode).
func newCLI(t *testing.T) *cli {
	t.Helper()
	switch store := os.Getenv("REDIRECTS_TEST_E2E_STORE"); store {
	case "", "sqlite":
		return &cli{t: t, db: "sqlite:" + filepath.Join(t.TempDir(), "redirects.db")}
	case "postgres":
		return &cli{t: t, db: newPostgresDatabase(t)}
	case "api":
		return &cli{t: t, db: "sqlite:" + filepath.Join(t.TempDir(), "redirects.db"), api: &apiServer{tokens: map[string]string{}}}
	default:
		t.Fatalf("REDIRECTS_TEST_E2E_STORE=%q: want sqlite, postgres or api", store)
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
	testreport.Ran(t, testreport.Postgres)
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

// newMain returns the program wired to the test: REDIRECTS_DB and the
// given variables are its whole environment, and the wall is its clock.
// With REDIRECTS_API among them it has no REDIRECTS_DB.
func (c *cli) newMain(env map[string]string) *main.Main {
	return &main.Main{
		Stdin:  strings.NewReader(""),
		Stdout: new(bytes.Buffer),
		Stderr: new(bytes.Buffer),
		Getenv: func(name string) string {
			if name == "REDIRECTS_DB" && env["REDIRECTS_API"] == "" {
				return c.db
			}
			return env[name]
		},
		Clock: redirects.SystemClock{},
	}
}

// exec runs one command in process with the given standard input: in api
// mode through the management API unless only the database can run it.
func (c *cli) exec(stdin string, args ...string) result {
	c.t.Helper()
	return c.execOn(c.apiEnv(args), stdin, args...)
}

// execOn runs one command in process with the given environment.
func (c *cli) execOn(env map[string]string, stdin string, args ...string) result {
	c.t.Helper()
	m := c.newMain(env)
	var out, errb bytes.Buffer
	m.Stdin, m.Stdout, m.Stderr = strings.NewReader(stdin), &out, &errb
	code := m.Run(context.Background(), args)
	return result{out.String(), errb.String(), code}
}

// command returns the binary set up to run args as a process on the
// test's database.
func (c *cli) command(args ...string) *exec.Cmd {
	c.t.Helper()
	cmd := exec.Command(binary(c.t), args...)
	cmd.Env = append(os.Environ(), "REDIRECTS_DB="+c.db)
	return cmd
}

// execProcess runs one command as a process of the binary.
func (c *cli) execProcess(stdin string, args ...string) result {
	c.t.Helper()
	cmd := c.command(args...)
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
