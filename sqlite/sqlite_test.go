package sqlite_test

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"redirects"
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

// TestDatabase runs the shared tests of several stores on one file and of
// the migrations.
func TestDatabase(t *testing.T) {
	ms, err := sqlite.LoadMigrations()
	if err != nil {
		t.Fatal(err)
	}
	storetest.RunDatabase(t, storetest.SQLDatabase("sqlite", ms,
		func(t *testing.T) string { return filepath.Join(t.TempDir(), "redirects.db") },
		func(ctx context.Context, path string) (storetest.Store, error) { return sqlite.Open(ctx, path) }))
}

func BenchmarkImport(b *testing.B) {
	storetest.BenchImport(b, func(b *testing.B) redirects.Store { return open(b, nil) })
}

func BenchmarkDeploy(b *testing.B) {
	storetest.BenchDeploy(b, func(b *testing.B) redirects.Store { return open(b, nil) })
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

// TestOpenExisting opens a database only where one is: a missing file is
// reported as such and not created, and a file that exists opens with its
// data.
func TestOpenExisting(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing.db")
	db, err := sqlite.OpenExisting(ctx, missing)
	if err == nil {
		db.Close()
		t.Fatalf("OpenExisting(%q) of a missing file succeeded", missing)
	}
	if !errors.Is(err, fs.ErrNotExist) || redirects.ErrorCode(err) != redirects.ENOTFOUND {
		t.Errorf("OpenExisting of a missing file: %v (code %s), want ENOTFOUND wrapping fs.ErrNotExist", err, redirects.ErrorCode(err))
	}
	if want := "database file " + missing + " does not exist"; !strings.Contains(redirects.ErrorMessage(err), want) {
		t.Errorf("OpenExisting error %q does not say %q", redirects.ErrorMessage(err), want)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("OpenExisting of a missing file left %d files behind, first %q", len(entries), entries[0].Name())
	}

	path := filepath.Join(dir, "redirects.db")
	db, err = sqlite.Open(ctx, path)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	org := &redirects.Org{Name: "Acme", Tier: redirects.TierFree}
	if err := db.CreateOrg(ctx, org); err != nil {
		t.Fatalf("CreateOrg: %v", err)
	}
	db.Close()
	db, err = sqlite.OpenExisting(ctx, path)
	if err != nil {
		t.Fatalf("OpenExisting of an existing file: %v", err)
	}
	defer db.Close()
	orgs, err := db.FindOrgs(ctx)
	if err != nil || len(orgs) != 1 || orgs[0].ID != org.ID {
		t.Fatalf("FindOrgs after OpenExisting = %v, %v; want the one org %s", orgs, err, org.ID)
	}
}

// BenchmarkAddHits measures a flush of hits per row:
//
//	go test -run XXX -bench AddHits ./sqlite
func BenchmarkAddHits(b *testing.B) {
	storetest.BenchAddHits(b, func(b *testing.B) redirects.Store { return open(b, nil) }, nil)
}
