package sqlite_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"redirects"
	"redirects/internal/rulegen"
	"redirects/sqlite"
	"redirects/storetest"
)

// open returns a DB on a new file in the test's temporary directory.
func open(t testing.TB, clock redirects.Clock) *sqlite.DB {
	t.Helper()
	db, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "redirects.db"))
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	if clock != nil {
		db.Clock = clock
	}
	return db
}

func TestStore(t *testing.T) {
	storetest.Run(t, func(t *testing.T, clock redirects.Clock) redirects.Store {
		return open(t, clock)
	})
}

func TestMigrationsIdempotent(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "redirects.db")
	db, err := sqlite.Open(ctx, path)
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
	if err := db.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}

	for i := 0; i < 2; i++ {
		db, err = sqlite.Open(ctx, path)
		if err != nil {
			t.Fatalf("Open again: %v", err)
		}
		if v, err := db.SchemaVersion(ctx); err != nil || v != v1 {
			t.Errorf("SchemaVersion after reopening = %d, %v; want %d", v, err, v1)
		}
		if _, err := db.FindOrgByID(ctx, o.ID); err != nil {
			t.Errorf("FindOrgByID after reopening: %v", err)
		}
		if err := db.Close(); err != nil {
			t.Fatalf("Close: %v", err)
		}
	}
}

// TestConcurrentOpen opens one new file from many DBs at once: each must
// find the schema either absent (and apply it) or complete.
func TestConcurrentOpen(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "redirects.db")
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			db, err := sqlite.Open(ctx, path)
			if err != nil {
				errs <- err
				return
			}
			defer db.Close()
			if _, err := db.FindOrgs(ctx); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("concurrent Open: %v", err)
	}
}

// TestConcurrentWriters has eight DBs, as eight processes would, write to
// one file at once: every write succeeds (IMMEDIATE transactions wait for
// the lock instead of failing), and versions have no gaps or repeats.
func TestConcurrentWriters(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "redirects.db")
	setup, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer setup.Close()
	o := &redirects.Org{Name: "Acme", Tier: redirects.TierFree}
	if err := setup.CreateOrg(ctx, o); err != nil {
		t.Fatalf("CreateOrg: %v", err)
	}
	p := &redirects.Project{OrgID: o.ID, Name: "site"}
	if err := setup.CreateProject(ctx, p); err != nil {
		t.Fatalf("CreateProject: %v", err)
	}

	const writers, rulesEach, deploysEach = 8, 50, 5
	build := func(rules []redirects.Rule) (*redirects.DeployContent, error) {
		return &redirects.DeployContent{Exports: []redirects.Export{{Format: "csv", Body: []byte(fmt.Sprint(len(rules))), ETag: `"x"`}}}, nil
	}
	var wg sync.WaitGroup
	errs := make(chan error, writers*(rulesEach+deploysEach))
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			db, err := sqlite.Open(ctx, path)
			if err != nil {
				errs <- err
				return
			}
			defer db.Close()
			for i := 0; i < rulesEach; i++ {
				r := &redirects.Rule{ProjectID: p.ID, Source: fmt.Sprintf("/w%d/r%d", w, i), Destination: "/x", StatusCode: 301, Priority: 100}
				if err := db.AddRule(ctx, r); err != nil {
					errs <- fmt.Errorf("writer %d: AddRule: %w", w, err)
				}
				if i%(rulesEach/deploysEach) == rulesEach/deploysEach-1 {
					if _, err := db.Deploy(ctx, p.ID, redirects.DeployOptions{}, build); err != nil {
						errs <- fmt.Errorf("writer %d: Deploy: %w", w, err)
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}

	rules, err := setup.FindRules(ctx, p.ID)
	if err != nil {
		t.Fatalf("FindRules: %v", err)
	}
	if len(rules) != writers*rulesEach {
		t.Errorf("FindRules = %d rules, want %d", len(rules), writers*rulesEach)
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

// TestReadDuringWrite reads while another DB holds the write lock: WAL mode
// lets readers go on.
func TestReadDuringWrite(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "redirects.db")
	w, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer w.Close()
	r, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer r.Close()
	o := &redirects.Org{Name: "Acme", Tier: redirects.TierFree}
	if err := w.CreateOrg(ctx, o); err != nil {
		t.Fatalf("CreateOrg: %v", err)
	}
	p := &redirects.Project{OrgID: o.ID, Name: "site"}
	if err := w.CreateProject(ctx, p); err != nil {
		t.Fatalf("CreateProject: %v", err)
	}

	inBuild, release := make(chan struct{}), make(chan struct{})
	done := make(chan error)
	go func() {
		_, err := w.Deploy(ctx, p.ID, redirects.DeployOptions{}, func([]redirects.Rule) (*redirects.DeployContent, error) {
			close(inBuild)
			<-release // hold the write lock
			return &redirects.DeployContent{}, nil
		})
		done <- err
	}()
	<-inBuild
	if _, err := r.FindProjectByID(ctx, p.ID); err != nil {
		t.Errorf("FindProjectByID during a deploy: %v", err)
	}
	if _, _, err := r.FindDeployment(ctx, p.ID, 0); redirects.ErrorCode(err) != redirects.ENOTFOUND {
		t.Errorf("FindDeployment during the first deploy = %v, want ENOTFOUND (not yet committed)", err)
	}
	close(release)
	if err := <-done; err != nil {
		t.Fatalf("Deploy: %v", err)
	}
	if d, _, err := r.FindDeployment(ctx, p.ID, 0); err != nil || d.Version != 1 {
		t.Errorf("FindDeployment after the deploy = %v, %v; want version 1", d, err)
	}
}

// benchProject returns a DB on a new file and a project in it.
func benchProject(b *testing.B) (*sqlite.DB, string) {
	b.Helper()
	ctx := context.Background()
	db := open(b, nil)
	o := &redirects.Org{Name: "bench", Tier: redirects.TierEnterprise}
	if err := db.CreateOrg(ctx, o); err != nil {
		b.Fatalf("CreateOrg: %v", err)
	}
	p := &redirects.Project{OrgID: o.ID, Name: "bench"}
	if err := db.CreateProject(ctx, p); err != nil {
		b.Fatalf("CreateProject: %v", err)
	}
	return db, p.ID
}

// BenchmarkImport imports generated rules, shaped like a real site's, into
// an empty project of a new file, and reports rules per second.
func BenchmarkImport(b *testing.B) {
	for _, n := range []int{100_000, 1_000_000} {
		rules := rulegen.Rules(n, 0.2, 1)
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			ctx := context.Background()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				db, projectID := benchProject(b)
				b.StartTimer()
				if _, err := db.ImportRules(ctx, projectID, rules, false); err != nil {
					b.Fatalf("ImportRules: %v", err)
				}
				b.StopTimer()
				db.Close()
				b.StartTimer()
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "rules/s")
		})
	}
}

// BenchmarkDeploy deploys a project's generated draft rules with a builder
// that renders nothing, so it measures the store: reading and sorting the
// draft, encoding the snapshot and writing it in one transaction.
func BenchmarkDeploy(b *testing.B) {
	for _, n := range []int{100_000, 1_000_000} {
		rules := rulegen.Rules(n, 0.2, 1)
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			ctx := context.Background()
			db, projectID := benchProject(b)
			defer db.Close()
			if _, err := db.ImportRules(ctx, projectID, rules, false); err != nil {
				b.Fatalf("ImportRules: %v", err)
			}
			build := func(rules []redirects.Rule) (*redirects.DeployContent, error) {
				return &redirects.DeployContent{Exports: []redirects.Export{{Format: "csv", Body: []byte(fmt.Sprint(len(rules))), ETag: `"x"`}}}, nil
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := db.Deploy(ctx, projectID, redirects.DeployOptions{}, build); err != nil {
					b.Fatalf("Deploy: %v", err)
				}
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "rules/s")
		})
	}
}

// TestImportLarge imports enough rules to take the parallel paths of
// ImportRules (sorting halves, validating while inserting) and checks what
// comes back, and that one bad rule among many stops everything.
func TestImportLarge(t *testing.T) {
	ctx := context.Background()
	db := open(t, nil)
	defer db.Close()
	o := &redirects.Org{Name: "Acme", Tier: redirects.TierFree}
	if err := db.CreateOrg(ctx, o); err != nil {
		t.Fatalf("CreateOrg: %v", err)
	}
	newProject := func() string {
		p := &redirects.Project{OrgID: o.ID, Name: "site"}
		if err := db.CreateProject(ctx, p); err != nil {
			t.Fatalf("CreateProject: %v", err)
		}
		return p.ID
	}

	const n = 50_000
	rules := rulegen.Rules(n, 0.3, 7)
	p := newProject()
	if got, err := db.ImportRules(ctx, p, rules, false); err != nil || got != n {
		t.Fatalf("ImportRules = %d, %v; want %d, nil", got, err, n)
	}
	stored, err := db.FindRules(ctx, p)
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

	// Importing the same rules again clashes with every one of them.
	_, err = db.ImportRules(ctx, p, rules, false)
	if code := redirects.ErrorCode(err); code != redirects.ECONFLICT {
		t.Fatalf("ImportRules(again) = %v, want ECONFLICT", err)
	}
	if lines := strings.Count(redirects.ErrorMessage(err), "\n") + 1; lines != n {
		t.Errorf("ImportRules(again) reports %d clashes, want %d", lines, n)
	}

	bad := slices.Clone(rules)
	bad[n-7].Destination = "/a b"
	q := newProject()
	_, err = db.ImportRules(ctx, q, bad, false)
	if redirects.ErrorCode(err) != redirects.EINVALID || !strings.HasPrefix(redirects.ErrorMessage(err), fmt.Sprintf("rule %d: destination", n-6)) ||
		strings.Contains(redirects.ErrorMessage(err), "\n") {
		t.Fatalf("ImportRules(one bad rule) = %v, want one EINVALID line for rule %d", err, n-6)
	}
	if got, err := db.FindRules(ctx, q); err != nil || len(got) != 0 {
		t.Errorf("FindRules after a failed import = %d rules, %v; want none", len(got), err)
	}
}

// TestOpenOddPath opens a file whose name holds characters that mean
// something in a URI: the file created is the one named.
func TestOpenOddPath(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "a b?c#d%20e.db")
	db, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatalf("Open(%q): %v", path, err)
	}
	if err := db.CreateOrg(ctx, &redirects.Org{Name: "Acme", Tier: redirects.TierFree}); err != nil {
		t.Fatalf("CreateOrg: %v", err)
	}
	if err := db.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if err := db.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Errorf("the database is not at %q: %v", path, err)
	}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), "a b?c#d%20e.db") {
			t.Errorf("Open created %q besides %q", e.Name(), filepath.Base(path))
		}
	}
}

// TestSecretNotStored looks for a key's secret in every byte of the
// database files: only its hash may be there.
func TestSecretNotStored(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "redirects.db")
	db, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	o := &redirects.Org{Name: "Acme", Tier: redirects.TierFree}
	if err := db.CreateOrg(ctx, o); err != nil {
		t.Fatalf("CreateOrg: %v", err)
	}
	p := &redirects.Project{OrgID: o.ID, Name: "site"}
	if err := db.CreateProject(ctx, p); err != nil {
		t.Fatalf("CreateProject: %v", err)
	}
	k, secret := redirects.NewKey(p.ID, "ci", false, time.Now())
	if err := db.CreateKey(ctx, k); err != nil {
		t.Fatalf("CreateKey: %v", err)
	}
	if _, err := db.RevokeKey(ctx, p.ID, secret); err != nil {
		t.Fatalf("RevokeKey(secret): %v", err)
	}
	if err := db.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	hashSeen := false
	for _, suffix := range []string{"", "-wal", "-shm"} {
		b, err := os.ReadFile(path + suffix)
		if os.IsNotExist(err) {
			continue
		} else if err != nil {
			t.Fatal(err)
		}
		// The random part alone, so no encoding of the prefix hides it.
		if bytes.Contains(b, []byte(secret[len(redirects.LiveKeyPrefix):])) {
			t.Errorf("%s holds the key's secret", filepath.Base(path+suffix))
		}
		hashSeen = hashSeen || bytes.Contains(b, []byte(redirects.HashKey(secret)))
	}
	if !hashSeen {
		t.Errorf("no database file holds the key's hash: the test looked in the wrong place")
	}
}
