package postgres_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	neturl "net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"redirects"
	"redirects/internal/rulegen"
	"redirects/internal/testproxy"
	"redirects/postgres"
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
		t.Skipf("%s is not set; run with %s='postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable' go test ./postgres", envURL, envURL)
	}
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

func adminExec(admin, sql string) error {
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, sql)
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

func TestMigrationsIdempotent(t *testing.T) {
	ctx := context.Background()
	url := newSchema(t, newDatabase(t))
	db, err := postgres.Open(ctx, url)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	o := &redirects.Org{Name: "Acme", Tier: redirects.TierFree}
	if err := db.CreateOrg(ctx, o); err != nil {
		t.Fatalf("CreateOrg: %v", err)
	}
	v1, err := db.SchemaVersion(ctx)
	if err != nil || v1 < 1 {
		t.Fatalf("SchemaVersion = %d, %v; want >= 1", v1, err)
	}
	db.Close()

	for i := 0; i < 2; i++ {
		db, err = postgres.Open(ctx, url)
		if err != nil {
			t.Fatalf("Open again: %v", err)
		}
		if v, err := db.SchemaVersion(ctx); err != nil || v != v1 {
			t.Errorf("SchemaVersion after reopening = %d, %v; want %d", v, err, v1)
		}
		if _, err := db.FindOrgByID(ctx, o.ID); err != nil {
			t.Errorf("FindOrgByID after reopening: %v", err)
		}
		db.Close()
	}
}

// TestConcurrentOpen opens one empty schema from many DBs at once: the
// advisory lock lets one apply the migrations, and the others find them
// applied.
func TestConcurrentOpen(t *testing.T) {
	ctx := context.Background()
	url := newSchema(t, newDatabase(t))
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for i := 0; i < 8; i++ {
		wg.Go(func() {
			db, err := postgres.Open(ctx, url)
			if err != nil {
				errs <- err
				return
			}
			defer db.Close()
			if _, err := db.FindOrgs(ctx); err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("concurrent Open: %v", err)
	}
}

// TestConcurrentDeploys has eight DBs, as eight processes would, deploy one
// project five times each at once: the project row lock makes the versions
// exactly 1..40, and the event lock puts the deploy events in
// version (commit) order.
func TestConcurrentDeploys(t *testing.T) {
	ctx := context.Background()
	setup, url := newStore(t)
	p := newProject(t, setup)
	if _, err := setup.ImportRules(ctx, p.ID, rulegen.Rules(1000, 0.5, 1), false); err != nil {
		t.Fatalf("ImportRules: %v", err)
	}

	const writers, deploysEach = 8, 5
	build := func(rules []redirects.Rule) (*redirects.DeployContent, error) {
		return &redirects.DeployContent{Exports: []redirects.Export{{Format: "csv", Body: []byte(fmt.Sprint(len(rules))), ETag: `"x"`}}}, nil
	}
	var wg sync.WaitGroup
	errs := make(chan error, writers*deploysEach)
	for w := 0; w < writers; w++ {
		wg.Go(func() {
			db, err := postgres.Open(ctx, url)
			if err != nil {
				errs <- err
				return
			}
			defer db.Close()
			for i := 0; i < deploysEach; i++ {
				if _, err := db.Deploy(ctx, p.ID, redirects.DeployOptions{Message: fmt.Sprintf("writer %d #%d", w, i)}, build); err != nil {
					errs <- fmt.Errorf("writer %d: Deploy: %w", w, err)
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}

	ds, err := setup.FindDeployments(ctx, p.ID)
	if err != nil {
		t.Fatalf("FindDeployments: %v", err)
	}
	if len(ds) != writers*deploysEach {
		t.Errorf("FindDeployments = %d, want %d", len(ds), writers*deploysEach)
	}
	for i, d := range ds {
		if d.Version != i+1 {
			t.Fatalf("deployment %d has version %d: versions have a gap or repeat", i, d.Version)
		}
		if d.ExactCount+d.PrefixCount != 1000 {
			t.Errorf("version %d holds %d rules, want 1000", d.Version, d.ExactCount+d.PrefixCount)
		}
	}
	evs, err := setup.FindEvents(ctx, 0, 0)
	if err != nil {
		t.Fatalf("FindEvents: %v", err)
	}
	deploys := 0
	for _, ev := range evs {
		if ev.Kind == redirects.EventDeploy {
			deploys++
			if ev.Version != deploys {
				t.Errorf("deploy event %d names version %d: events are not in commit order", deploys, ev.Version)
			}
		}
	}
	if deploys != writers*deploysEach {
		t.Errorf("%d deploy events, want %d", deploys, writers*deploysEach)
	}
}

// TestEventsInCommitOrder makes transactions that record events commit in
// the opposite order of their start, many at once: every poller that has
// seen event N must find every later event above N, so the IDs must follow
// commit order.
func TestEventsInCommitOrder(t *testing.T) {
	ctx := context.Background()
	db, url := newStore(t)
	o := &redirects.Org{Name: "Acme", Tier: redirects.TierFree}
	if err := db.CreateOrg(ctx, o); err != nil {
		t.Fatalf("CreateOrg: %v", err)
	}
	stop := make(chan struct{})
	var polled []int64
	pollDone := make(chan error, 1)
	go func() {
		// Poll as an edge node does, remembering every ID seen. The poll
		// after stop is closed starts after every commit, so it is the last.
		var after int64
		for {
			stopping := false
			select {
			case <-stop:
				stopping = true
			default:
			}
			evs, err := db.FindEvents(ctx, after, 0)
			if err != nil {
				pollDone <- err
				return
			}
			for _, ev := range evs {
				polled = append(polled, ev.ID)
				after = ev.ID
			}
			if stopping {
				pollDone <- nil
				return
			}
		}
	}()
	var wg sync.WaitGroup
	for w := 0; w < 8; w++ {
		wg.Go(func() {
			w, err := postgres.Open(ctx, url)
			if err != nil {
				t.Error(err)
				return
			}
			defer w.Close()
			// Projects of one organization: nothing else orders these
			// transactions (UpdateOrg would, through the org's row lock).
			for i := 0; i < 25; i++ {
				if err := w.CreateProject(ctx, &redirects.Project{OrgID: o.ID, Name: fmt.Sprint(i)}); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	close(stop)
	if err := <-pollDone; err != nil {
		t.Fatalf("FindEvents: %v", err)
	}
	all, err := db.FindEvents(ctx, 0, 0)
	if err != nil {
		t.Fatalf("FindEvents: %v", err)
	}
	// The poller's last read came after every commit, so it must have seen
	// every event.
	var ids []int64
	for _, ev := range all {
		ids = append(ids, ev.ID)
	}
	if !slices.Equal(polled, ids) {
		t.Errorf("the poller saw %d events, the table holds %d: a poller missed events committed below an ID it had seen", len(polled), len(ids))
	}
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
	if _, err := db.Deploy(ctx, p.ID, redirects.DeployOptions{}, func([]redirects.Rule) (*redirects.DeployContent, error) {
		return nil, errors.New("renderer broke")
	}); err == nil {
		t.Fatalf("Deploy with a failing builder succeeded")
	}
	if _, err := db.Deploy(ctx, p.ID, redirects.DeployOptions{}, func([]redirects.Rule) (*redirects.DeployContent, error) {
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

// TestImportLarge imports enough rules to take the parallel paths of
// ImportRules and checks what comes back, that importing them again reports
// every clash, and that one bad rule among many stops everything.
func TestImportLarge(t *testing.T) {
	ctx := context.Background()
	db, _ := newStore(t)
	p := newProject(t, db)

	const n = 50_000
	rules := rulegen.Rules(n, 0.3, 7)
	if got, err := db.ImportRules(ctx, p.ID, rules, false); err != nil || got != n {
		t.Fatalf("ImportRules = %d, %v; want %d, nil", got, err, n)
	}
	stored, err := db.FindRules(ctx, p.ID)
	if err != nil {
		t.Fatalf("FindRules: %v", err)
	}
	if len(stored) != n {
		t.Fatalf("FindRules = %d rules, want %d", len(stored), n)
	}
	type key struct {
		m redirects.MatchType
		s string
	}
	want := make(map[key]redirects.Rule, n)
	for _, r := range rules {
		want[key{r.MatchType, r.Source}] = r
	}
	for _, r := range stored {
		w, ok := want[key{r.MatchType, r.Source}]
		if !ok || r.Destination != w.Destination || r.StatusCode != w.StatusCode || r.Priority != w.Priority {
			t.Fatalf("stored rule %+v, want %+v", r, w)
		}
	}

	_, err = db.ImportRules(ctx, p.ID, rules, false)
	if code := redirects.ErrorCode(err); code != redirects.ECONFLICT {
		t.Fatalf("ImportRules(again) = %v, want ECONFLICT", err)
	}
	if lines := strings.Count(redirects.ErrorMessage(err), "\n") + 1; lines != n {
		t.Errorf("ImportRules(again) reports %d clashes, want %d", lines, n)
	}

	bad := slices.Clone(rules)
	bad[n-7].Destination = "/a\x00b" // PostgreSQL would refuse it too
	q := newProject(t, db)
	_, err = db.ImportRules(ctx, q.ID, bad, false)
	if redirects.ErrorCode(err) != redirects.EINVALID || !strings.HasPrefix(redirects.ErrorMessage(err), fmt.Sprintf("rule %d: destination", n-6)) ||
		strings.Contains(redirects.ErrorMessage(err), "\n") {
		t.Fatalf("ImportRules(one bad rule) = %v, want one EINVALID line for rule %d", err, n-6)
	}
	if got, err := db.FindRules(ctx, q.ID); err != nil || len(got) != 0 {
		t.Errorf("FindRules after a failed import = %d rules, %v; want none", len(got), err)
	}

	// Replacing a large draft with itself stores the same rules anew.
	if got, err := db.ImportRules(ctx, p.ID, rules, true); err != nil || got != n {
		t.Fatalf("ImportRules(replace) = %d, %v; want %d, nil", got, err, n)
	}
}

// BenchmarkImport imports generated rules into an empty project and
// reports rules per second.
func BenchmarkImport(b *testing.B) {
	dbURL := newDatabase(b)
	for _, n := range []int{100_000, 1_000_000} {
		rules := rulegen.Rules(n, 0.5, 1)
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			ctx := context.Background()
			db := open(b, newSchema(b, dbURL))
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				p := newProject(b, db)
				b.StartTimer()
				if _, err := db.ImportRules(ctx, p.ID, rules, false); err != nil {
					b.Fatalf("ImportRules: %v", err)
				}
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "rules/s")
		})
	}
}

// BenchmarkDeploy deploys a project's generated draft rules with a builder
// that renders nothing, so it measures the store: reading and sorting the
// draft, encoding the snapshot and writing it in one transaction.
func BenchmarkDeploy(b *testing.B) {
	dbURL := newDatabase(b)
	for _, n := range []int{100_000, 1_000_000} {
		rules := rulegen.Rules(n, 0.5, 1)
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			ctx := context.Background()
			db := open(b, newSchema(b, dbURL))
			p := newProject(b, db)
			if _, err := db.ImportRules(ctx, p.ID, rules, false); err != nil {
				b.Fatalf("ImportRules: %v", err)
			}
			build := func(rules []redirects.Rule) (*redirects.DeployContent, error) {
				return &redirects.DeployContent{Exports: []redirects.Export{{Format: "csv", Body: []byte(fmt.Sprint(len(rules))), ETag: `"x"`}}}, nil
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := db.Deploy(ctx, p.ID, redirects.DeployOptions{}, build); err != nil {
					b.Fatalf("Deploy: %v", err)
				}
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "rules/s")
		})
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
	if _, err := db.Deploy(ctx, p.ID, redirects.DeployOptions{}, func([]redirects.Rule) (*redirects.DeployContent, error) {
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
	_, err := db.Deploy(ctx, p.ID, redirects.DeployOptions{}, func(rules []redirects.Rule) (*redirects.DeployContent, error) {
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

// TestConcurrentImports imports the same rules into one project from two
// DBs at once: the draft lock lets one in, and the other then reports every
// rule as a clash, instead of failing on the UNIQUE index.
func TestConcurrentImports(t *testing.T) {
	ctx := context.Background()
	db, url := newStore(t)
	other := open(t, url)
	p := newProject(t, db)
	const n = 2000
	rules := rulegen.Rules(n, 0.5, 5)
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for i, s := range []*postgres.DB{db, other} {
		wg.Go(func() { _, errs[i] = s.ImportRules(ctx, p.ID, rules, false) })
	}
	wg.Wait()
	ok, clash := 0, 0
	for _, err := range errs {
		switch {
		case err == nil:
			ok++
		case redirects.ErrorCode(err) == redirects.ECONFLICT && strings.Count(redirects.ErrorMessage(err), "\n")+1 == n:
			clash++
		default:
			t.Errorf("ImportRules = %.200v, want success or ECONFLICT naming all %d rules", err, n)
		}
	}
	if ok != 1 || clash != 1 {
		t.Errorf("%d imports succeeded and %d clashed, want 1 and 1", ok, clash)
	}
	if got, err := db.FindRules(ctx, p.ID); err != nil || len(got) != n {
		t.Errorf("FindRules = %d rules, %v; want %d", len(got), err, n)
	}
}
