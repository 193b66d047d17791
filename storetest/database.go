package storetest

import (
	"context"
	"database/sql"
	"testing"

	"redirects"
	"redirects/internal/migrations"
)

// Store is a redirects.Store that reports the schema version of its
// database, as every store does.
type Store interface {
	redirects.Store
	// SchemaVersion returns the number of the newest migration applied.
	SchemaVersion(ctx context.Context) (int, error)
}

// Database is one database that a test opens from several stores, as
// several processes would, and reads and edits behind their backs.
type Database struct {
	// Open opens a store on the database, with the system clock. It
	// returns an error rather than failing the test, so that goroutines may
	// call it and tests may expect it to fail; the caller closes the store.
	Open func(ctx context.Context) (Store, error)
	// Direct is a connection to the database outside any store, for the
	// tests to read and edit the schema's record. Its statements take no
	// arguments, so they read the same on every database.
	Direct *sql.DB
	// Migrations are the store's embedded migrations, in version order.
	Migrations []migrations.Migration
}

// NewDatabase returns a new, empty database that exists until the test ends.
type NewDatabase func(t *testing.T) *Database

// RunDatabase runs the tests that open one database from several stores
// at once, and those of the schema's migrations, against the databases that
// newDB returns, one new database per subtest.
func RunDatabase(t *testing.T, newDB NewDatabase) {
	tests := []struct {
		name string
		fn   func(t *testing.T, d *Database)
	}{
		{"Concurrent/Open", testConcurrentOpen},
		{"Concurrent/Writers", testConcurrentWriters},
		{"Concurrent/Deploys", testConcurrentDeploys},
		{"Concurrent/Imports", testConcurrentImports},
		{"Concurrent/ReadDuringWrite", testReadDuringWrite},
		{"Concurrent/EventsInCommitOrder", testEventsInCommitOrder},
		{"Migrations/AppliedOnce", testMigrationsAppliedOnce},
		{"Migrations/NewerSchema", testMigrationsNewerSchema},
		{"Migrations/Edited", testMigrationsEdited},
		{"Migrations/ChecksumsOfAnOlderDatabase", testMigrationsChecksumsOfAnOlderDatabase},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.fn(t, newDB(t))
		})
	}
}

// SQLDatabase returns the NewDatabase of a store that driverName reaches
// at the address (a file, a URL) that next makes for each test: the suite
// reads the database through database/sql and opens stores on it with open.
func SQLDatabase(driverName string, ms []migrations.Migration, next func(t *testing.T) string,
	open func(ctx context.Context, addr string) (Store, error)) NewDatabase {
	return func(t *testing.T) *Database {
		addr := next(t)
		direct, err := sql.Open(driverName, addr)
		if err != nil {
			t.Fatalf("open %s: %v", addr, err)
		}
		t.Cleanup(func() { direct.Close() })
		return &Database{
			Open: func(ctx context.Context) (Store, error) {
				s, err := open(ctx, addr)
				if err != nil {
					return nil, err // not a Store holding a nil pointer
				}
				return s, nil
			},
			Direct:     direct,
			Migrations: ms,
		}
	}
}

// open opens a store on the database that is closed when the test ends.
func (d *Database) open(t *testing.T) Store {
	t.Helper()
	s, err := d.Open(context.Background())
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// newOrgProject makes an organization and a project in it.
func newOrgProject(t *testing.T, s redirects.Store) *redirects.Project {
	t.Helper()
	ctx := context.Background()
	o := &redirects.Org{Name: "Acme", Tier: redirects.TierEnterprise}
	if err := s.CreateOrg(ctx, o); err != nil {
		t.Fatalf("CreateOrg: %v", err)
	}
	p := &redirects.Project{OrgID: o.ID, Name: "site"}
	if err := s.CreateProject(ctx, p); err != nil {
		t.Fatalf("CreateProject: %v", err)
	}
	return p
}
