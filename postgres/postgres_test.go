package postgres_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	neturl "net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	_ "github.com/jackc/pgx/v5/stdlib" // registers the "pgx" database/sql driver for the tests' direct connections

	"redirects"
	"redirects/internal/rulegen"
	"redirects/internal/testproxy"
	"redirects/internal/testreport"
	"redirects/postgres"
	"redirects/service"
	"redirects/storetest"
)

// envURL names the environment variable that holds the URL of a PostgreSQL
// server whose user may create databases. The tests create a database of
// their own on it, and drop it when they end.
const envURL = "REDIRECTS_TEST_POSTGRES"

// adminURL returns the server's URL, or skips the test when none is set.
func adminURL(t testing.TB) string {
	t.Helper()
	u := os.Getenv(envURL)
	if u == "" {
		testreport.Skip(t, testreport.Postgres, fmt.Sprintf("%s is not set; run with %s='postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable' go test ./postgres", envURL, envURL))
	}
	testreport.Ran(t, testreport.Postgres)
	return u
}

func randomName(prefix string) string {
	b := make([]byte, 8)
	rand.Read(b)
	return prefix + hex.EncodeToString(b)
}

// withParam returns the connection string u with one more setting: a query
// parameter of a URL, or a key=value pair of a keyword string.
func withParam(t testing.TB, u, key, value string) string {
	t.Helper()
	if strings.HasPrefix(u, "postgres://") || strings.HasPrefix(u, "postgresql://") {
		pu, err := neturl.Parse(u)
		if err != nil {
			t.Fatalf("%s is not a URL: %v", envURL, err)
		}
		if key == "dbname" {
			pu.Path = "/" + value
		} else {
			q := pu.Query()
			q.Set(key, value)
			pu.RawQuery = q.Encode()
		}
		return pu.String()
	}
	return u + " " + key + "=" + value
}

// testDB is the database of this test run, created by the first test that
// needs one and dropped by TestMain when the run ends. One database per
// run, not per test: CREATE and DROP DATABASE each force a checkpoint,
// which on a busy server can take seconds.
var testDB struct {
	once  sync.Once
	admin string
	name  string
	err   error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if testDB.name != "" {
		// FORCE ends connections a failed test left open.
		if err := adminExec(testDB.admin, `DROP DATABASE IF EXISTS `+pgx.Identifier{testDB.name}.Sanitize()+` WITH (FORCE)`); err != nil {
			fmt.Fprintf(os.Stderr, "drop the test database %s: %v\n", testDB.name, err)
			code = 1
		}
	}
	os.Exit(code)
}

func adminExec(admin, query string) error {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, query)
	return err
}

// newDatabase returns the URL of the run's database, redirects_test_<random>,
// so that runs never collide; tests take an empty schema of it (newSchema).
func newDatabase(t testing.TB) string {
	t.Helper()
	admin := adminURL(t)
	testDB.once.Do(func() {
		name := randomName("redirects_test_")
		if testDB.err = adminExec(admin, `CREATE DATABASE `+pgx.Identifier{name}.Sanitize()); testDB.err == nil {
			testDB.admin, testDB.name = admin, name
		}
	})
	if testDB.err != nil {
		t.Fatalf("create the test database: %v", testDB.err)
	}
	return withParam(t, admin, "dbname", testDB.name)
}

// newSchema creates an empty schema in the database at dbURL and returns a
// URL whose connections use it (search_path), so each subtest of the suite
// gets an empty store without the cost of a database.
func newSchema(t testing.TB, dbURL string) string {
	t.Helper()
	ctx := context.Background()
	name := randomName("s_")
	conn, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, `CREATE SCHEMA `+name); err != nil {
		t.Fatalf("create schema: %v", err)
	}
	return withParam(t, dbURL, "search_path", name)
}

// open opens a DB at url that the test closes when it ends.
func open(t testing.TB, url string) *postgres.DB {
	t.Helper()
	db, err := postgres.Open(context.Background(), url)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// newStore opens a DB on an empty schema of the run's database.
func newStore(t testing.TB) (*postgres.DB, string) {
	t.Helper()
	url := newSchema(t, newDatabase(t))
	return open(t, url), url
}

func TestStore(t *testing.T) {
	dbURL := newDatabase(t)
	storetest.Run(t, func(t *testing.T, clock redirects.Clock) redirects.Store {
		db, err := postgres.Open(context.Background(), newSchema(t, dbURL))
		if err != nil {
			t.Fatalf("Open: %v", err)
		}
		db.Clock = clock
		return db
	})
}

// TestDatabase runs the shared tests of several stores on one database and
// of the migrations, each on an empty schema.
func TestDatabase(t *testing.T) {
	dbURL := newDatabase(t)
	ms, err := postgres.LoadMigrations()
	if err != nil {
		t.Fatal(err)
	}
	storetest.RunDatabase(t, storetest.SQLDatabase("pgx", ms,
		func(t *testing.T) string { return newSchema(t, dbURL) },
		func(ctx context.Context, url string) (storetest.Store, error) { return postgres.Open(ctx, url) }))
}

// benchOpen opens a DB on an empty schema of the run's database.
func benchOpen(b *testing.B) redirects.Store {
	db, err := postgres.Open(context.Background(), newSchema(b, newDatabase(b)))
	if err != nil {
		b.Fatalf("Open: %v", err)
	}
	return db
}

func BenchmarkImport(b *testing.B) { storetest.BenchImport(b, benchOpen) }

func BenchmarkDeploy(b *testing.B) { storetest.BenchDeploy(b, benchOpen) }

// BenchmarkAddHits measures a flush of hits per row:
//
//	REDIRECTS_TEST_POSTGRES=... go test -run XXX -bench AddHits ./postgres
func BenchmarkAddHits(b *testing.B) {
	storetest.BenchAddHits(b, benchOpen, func() time.Duration { return backendsCPU(b) })
}

// backendsCPU returns the CPU time the server's backends of the run's
// database have used, read from /proc: the server must run on this
// machine, as the tests' 127.0.0.1 has it. It counts the backends alive
// now, so it is meant for a difference over a stretch in which the
// store's pool keeps its connections.
func backendsCPU(b *testing.B) time.Duration {
	b.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, newDatabase(b))
	if err != nil {
		b.Fatalf("connect: %v", err)
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, `SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`)
	if err != nil {
		b.Fatalf("list backends: %v", err)
	}
	pids, err := pgx.CollectRows(rows, pgx.RowTo[int32])
	if err != nil {
		b.Fatalf("list backends: %v", err)
	}
	var total time.Duration
	for _, pid := range pids {
		stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			b.Skipf("the database's backends are not processes of this machine: %v", err)
		}
		// Fields 14 and 15 (utime, stime) in clock ticks (USER_HZ,
		// 100 on Linux), after the
		// command name, which is in parentheses and may hold spaces.
		f := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
		for _, s := range f[11:13] {
			n, _ := strconv.ParseInt(s, 10, 64)
			total += time.Duration(n) * time.Second / 100
		}
	}
	return total
}

func newProject(t testing.TB, db *postgres.DB) *redirects.Project {
	t.Helper()
	ctx := context.Background()
	o := &redirects.Org{Name: "Acme", Tier: redirects.TierEnterprise}
	if err := db.CreateOrg(ctx, o); err != nil {
		t.Fatalf("CreateOrg: %v", err)
	}
	p := &redirects.Project{OrgID: o.ID, Name: "site"}
	if err := db.CreateProject(ctx, p); err != nil {
		t.Fatalf("CreateProject: %v", err)
	}
	return p
}

// TestNotify listens as an edge node would: each write that records an
// event sends its ID on the channel when it commits; a failed write sends
// nothing.
func TestNotify(t *testing.T) {
	ctx := context.Background()
	db, url := newStore(t)
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, `LISTEN `+postgres.NotifyChannel); err != nil {
		t.Fatalf("LISTEN: %v", err)
	}
	next := func() (string, bool) {
		t.Helper()
		wctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		defer cancel()
		n, err := conn.WaitForNotification(wctx)
		if err != nil {
			return "", false
		}
		if n.Channel != postgres.NotifyChannel {
			t.Errorf("notification on %q, want %q", n.Channel, postgres.NotifyChannel)
		}
		return n.Payload, true
	}

	p := newProject(t, db) // an org event and a project event
	if _, err := service.DeployUnchecked(ctx, db, p.ID, redirects.DeployOptions{}, func(_ []redirects.Rule, _ redirects.Settings) (*redirects.DeployContent, error) {
		return nil, errors.New("renderer broke")
	}); err == nil {
		t.Fatalf("Deploy with a failing builder succeeded")
	}
	if _, err := service.DeployUnchecked(ctx, db, p.ID, redirects.DeployOptions{}, func(_ []redirects.Rule, _ redirects.Settings) (*redirects.DeployContent, error) {
		return &redirects.DeployContent{}, nil
	}); err != nil {
		t.Fatalf("Deploy: %v", err)
	}
	evs, err := db.FindEvents(ctx, 0, 0)
	if err != nil || len(evs) != 3 {
		t.Fatalf("FindEvents = %d events, %v; want 3", len(evs), err)
	}
	for _, ev := range evs {
		got, ok := next()
		if !ok {
			t.Fatalf("no notification for event %d (%s)", ev.ID, ev.Kind)
		}
		if got != strconv.FormatInt(ev.ID, 10) {
			t.Errorf("notification payload %q, want event ID %d (%s)", got, ev.ID, ev.Kind)
		}
	}
	if got, ok := next(); ok {
		t.Errorf("extra notification %q (the failed deploy must send none)", got)
	}
}

// TestUnavailable opens a server nobody listens at: the error is
// EUNAVAILABLE, so the edge answers 503. It needs no server, so it runs
// without REDIRECTS_TEST_POSTGRES too.
func TestUnavailable(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err := postgres.Open(ctx, "postgres://postgres@127.0.0.1:1/postgres?sslmode=disable")
	if code := redirects.ErrorCode(err); code != redirects.EUNAVAILABLE {
		t.Fatalf("Open(127.0.0.1:1) = %v (code %q), want code %q", err, code, redirects.EUNAVAILABLE)
	}
	if msg := redirects.ErrorMessage(err); !strings.Contains(msg, "cannot be reached") {
		t.Errorf("ErrorMessage = %q, want it to say the database cannot be reached", msg)
	}

	_, err = postgres.Open(ctx, "postgres://postgres@127.0.0.1:5432/postgres?sslmode=nonsense")
	if code := redirects.ErrorCode(err); code != redirects.EINVALID {
		t.Errorf("Open(bad sslmode) = %v (code %q), want %q", err, code, redirects.EINVALID)
	}
}

// TestUnavailableAfterOpen loses the server after Open, through a TCP proxy
// that the test closes: reads and writes then fail with EUNAVAILABLE.
func TestUnavailableAfterOpen(t *testing.T) {
	ctx := context.Background()
	url := newSchema(t, newDatabase(t))
	pu, err := neturl.Parse(url)
	if err != nil {
		t.Skipf("%s is not a URL; the proxy test needs one", envURL)
	}
	px := testproxy.Start(t, "127.0.0.1:0", pu.Host)
	pu.Host = px.Addr()
	db := open(t, pu.String())
	p := newProject(t, db)

	px.Close()
	if _, err := db.FindProjectByID(ctx, p.ID); redirects.ErrorCode(err) != redirects.EUNAVAILABLE {
		t.Errorf("FindProjectByID with the server gone = %v, want code %q", err, redirects.EUNAVAILABLE)
	}
	if err := db.CreateOrg(ctx, &redirects.Org{Name: "B", Tier: redirects.TierFree}); redirects.ErrorCode(err) != redirects.EUNAVAILABLE {
		t.Errorf("CreateOrg with the server gone = %v, want code %q", err, redirects.EUNAVAILABLE)
	}
	if _, _, err := db.FindExport(ctx, p.ID, 0, "csv"); redirects.ErrorCode(err) != redirects.EUNAVAILABLE {
		t.Errorf("FindExport with the server gone = %v, want code %q", err, redirects.EUNAVAILABLE)
	}
}

// TestTextPostgresRefuses stores an organization name that SQLite would
// keep but PostgreSQL's text cannot hold: the error is EINVALID, not an
// internal failure.
func TestTextPostgresRefuses(t *testing.T) {
	ctx := context.Background()
	db, _ := newStore(t)
	for _, name := range []string{"a\x00b", "a\xffb"} {
		err := db.CreateOrg(ctx, &redirects.Org{Name: name, Tier: redirects.TierFree})
		if code := redirects.ErrorCode(err); code != redirects.EINVALID {
			t.Errorf("CreateOrg(%q) = %v (code %q), want %q", name, err, code, redirects.EINVALID)
		}
	}
}

// TestDeleteProjectCascades deletes a project by hand, as an operator
// would: its rules go with it (rules has a trigger instead of a foreign
// key), and so do its keys and deployments.
func TestDeleteProjectCascades(t *testing.T) {
	ctx := context.Background()
	db, url := newStore(t)
	p := newProject(t, db)
	keep := newProject(t, db)
	for _, id := range []string{p.ID, keep.ID} {
		if _, err := db.ImportRules(ctx, id, rulegen.Rules(100, 0.5, 1), false); err != nil {
			t.Fatalf("ImportRules: %v", err)
		}
	}
	if _, err := service.DeployUnchecked(ctx, db, p.ID, redirects.DeployOptions{}, func(_ []redirects.Rule, _ redirects.Settings) (*redirects.DeployContent, error) {
		return &redirects.DeployContent{Exports: []redirects.Export{{Format: "csv", Body: []byte("x\n"), ETag: `"x"`}}}, nil
	}); err != nil {
		t.Fatalf("Deploy: %v", err)
	}
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer conn.Close(ctx)
	// Another search_path: the trigger must still find the rules.
	if _, err := conn.Exec(ctx, `SET search_path = pg_catalog`); err != nil {
		t.Fatalf("SET search_path: %v", err)
	}
	schema := ""
	if pu, err := neturl.Parse(url); err == nil {
		schema = pu.Query().Get("search_path")
	}
	if schema == "" {
		t.Skip("the test URL names no schema")
	}
	if _, err := conn.Exec(ctx, `DELETE FROM `+pgx.Identifier{schema, "projects"}.Sanitize()+` WHERE id = $1`, p.ID); err != nil {
		t.Fatalf("DELETE project: %v", err)
	}
	for _, table := range []string{"rules", "deployments", "deployment_exports", "keys"} {
		var n int
		if err := conn.QueryRow(ctx, `SELECT count(*) FROM `+pgx.Identifier{schema, table}.Sanitize()+` WHERE project_id = $1`, p.ID).Scan(&n); err != nil {
			t.Fatalf("count %s: %v", table, err)
		}
		if n != 0 {
			t.Errorf("%d %s of the deleted project remain", n, table)
		}
	}
	if rules, err := db.FindRules(ctx, keep.ID); err != nil || len(rules) != 100 {
		t.Errorf("FindRules(other project) = %d rules, %v; want 100", len(rules), err)
	}
}

// TestDeployLeavesDraftFree runs rule edits and reads while a deploy of the
// same project holds its lock in the builder: none of them waits for it.
func TestDeployLeavesDraftFree(t *testing.T) {
	ctx := context.Background()
	db, url := newStore(t)
	other := open(t, url)
	p := newProject(t, db)
	first := &redirects.Rule{ProjectID: p.ID, Source: "/a", Destination: "/x", StatusCode: 301, Priority: 100}
	if err := db.AddRule(ctx, first); err != nil {
		t.Fatalf("AddRule: %v", err)
	}
	_, err := service.DeployUnchecked(ctx, db, p.ID, redirects.DeployOptions{}, func(rules []redirects.Rule, _ redirects.Settings) (*redirects.DeployContent, error) {
		wctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		if err := other.AddRule(wctx, &redirects.Rule{ProjectID: p.ID, Source: "/b", Destination: "/x", StatusCode: 301, Priority: 100}); err != nil {
			t.Errorf("AddRule during a deploy: %v", err)
		}
		if _, err := other.ImportRules(wctx, p.ID, rulegen.Rules(10, 0.5, 3), false); err != nil {
			t.Errorf("ImportRules during a deploy: %v", err)
		}
		if err := other.DeleteRule(wctx, p.ID, first.ID); err != nil {
			t.Errorf("DeleteRule during a deploy: %v", err)
		}
		k, _ := redirects.NewKey(p.ID, "ci", false, time.Now())
		if err := other.CreateKey(wctx, k); err != nil {
			t.Errorf("CreateKey during a deploy: %v", err)
		}
		if _, _, err := other.FindDeployment(wctx, p.ID, 0); redirects.ErrorCode(err) != redirects.ENOTFOUND {
			t.Errorf("FindDeployment during the first deploy = %v, want ENOTFOUND (not yet committed)", err)
		}
		return &redirects.DeployContent{}, nil
	})
	if err != nil {
		t.Fatalf("Deploy: %v", err)
	}
	_, rules, err := db.FindDeployment(ctx, p.ID, 1)
	if err != nil || len(rules) != 1 || rules[0].Source != "/a" {
		t.Errorf("version 1 = %v, %v; want the one rule read before the builder ran", sources(rules), err)
	}
}

func sources(rules []redirects.Rule) []string {
	var out []string
	for _, r := range rules {
		out = append(out, r.MatchType.String()+" "+r.Source)
	}
	return out
}

// TestOpenUnknownDatabase names a database the server does not have as
// such, instead of calling the server unreachable.
func TestOpenUnknownDatabase(t *testing.T) {
	admin := adminURL(t)
	name := randomName("redirects_nosuch_")
	u := withParam(t, admin, "dbname", name)
	db, err := postgres.Open(context.Background(), u)
	if err == nil {
		db.Close()
		t.Fatalf("Open of the missing database %s succeeded", name)
	}
	if code := redirects.ErrorCode(err); code != redirects.ENOTFOUND {
		t.Errorf("Open of a missing database: code %s, want %s (%v)", code, redirects.ENOTFOUND, err)
	}
	msg := redirects.ErrorMessage(err)
	mustSay := fmt.Sprintf("PostgreSQL database %q does not exist on ", name)
	if !strings.HasPrefix(msg, mustSay) {
		t.Fatalf("Open of a missing database says %q, want it to start with %q", msg, mustSay)
	}
	cfg, perr := pgx.ParseConfig(admin)
	if perr != nil {
		t.Fatalf("%s: %v", envURL, perr)
	}
	if hp := cfg.Host + ":" + strconv.Itoa(int(cfg.Port)); !strings.HasSuffix(msg, hp) {
		t.Errorf("Open of a missing database says %q, want it to name the server %s", msg, hp)
	}
}
