package storetest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"redirects"
	"redirects/internal/migrations"
)

// migrationRows returns what the database records of its migrations, one
// "version name checksum applied_at" line per migration in version order.
func (d *Database) migrationRows(t *testing.T) []string {
	t.Helper()
	rows, err := d.Direct.QueryContext(context.Background(),
		`SELECT CAST(version AS TEXT), name, checksum, CAST(applied_at AS TEXT) FROM schema_migrations ORDER BY schema_migrations.version`)
	if err != nil {
		t.Fatalf("read schema_migrations: %v", err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var v, name, sum, at string
		if err := rows.Scan(&v, &name, &sum, &at); err != nil {
			t.Fatalf("read schema_migrations: %v", err)
		}
		out = append(out, strings.Join([]string{v, name, sum, at}, " "))
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("read schema_migrations: %v", err)
	}
	return out
}

// exec runs statements on the database outside any store.
func (d *Database) exec(t *testing.T, query string) {
	t.Helper()
	if _, err := d.Direct.ExecContext(context.Background(), query); err != nil {
		t.Fatalf("%s: %v", query, err)
	}
}

// wantRecorded fails unless the database records exactly the program's
// migrations, each with the checksum of its SQL.
func (d *Database) wantRecorded(t *testing.T) {
	t.Helper()
	rows := d.migrationRows(t)
	if len(rows) != len(d.Migrations) {
		t.Fatalf("schema_migrations holds %d migrations %q, want %d", len(rows), rows, len(d.Migrations))
	}
	for i, m := range d.Migrations {
		want := fmt.Sprintf("%d %s %s ", m.Version, m.Name, migrations.Checksum(m.SQL))
		if !strings.HasPrefix(rows[i], want) {
			t.Errorf("schema_migrations row %d = %q, want %q and the time", i, rows[i], want)
		}
	}
}

// lastVersion is the version of the program's last migration.
func (d *Database) lastVersion() int { return d.Migrations[len(d.Migrations)-1].Version }

// testMigrationsAppliedOnce opens a database three times: the first Open
// applies every migration and records its checksum, the others apply
// nothing and the data stays.
func testMigrationsAppliedOnce(t *testing.T, d *Database) {
	ctx := context.Background()
	s, err := d.Open(ctx)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	o := &redirects.Org{Name: "Acme", Tier: redirects.TierFree}
	if err := s.CreateOrg(ctx, o); err != nil {
		t.Fatalf("CreateOrg: %v", err)
	}
	v1, err := s.SchemaVersion(ctx)
	if err != nil || v1 < 1 {
		t.Fatalf("SchemaVersion = %d, %v; want >= 1", v1, err)
	}
	if v1 != d.lastVersion() {
		t.Errorf("SchemaVersion = %d, want %d (the last migration, %s)", v1, d.lastVersion(), d.Migrations[len(d.Migrations)-1].Name)
	}
	if err := s.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	d.wantRecorded(t)
	first := d.migrationRows(t)

	for i := 0; i < 2; i++ {
		s, err = d.Open(ctx)
		if err != nil {
			t.Fatalf("Open again: %v", err)
		}
		if v, err := s.SchemaVersion(ctx); err != nil || v != v1 {
			t.Errorf("SchemaVersion after reopening = %d, %v; want %d", v, err, v1)
		}
		if _, err := s.FindOrgByID(ctx, o.ID); err != nil {
			t.Errorf("FindOrgByID after reopening: %v", err)
		}
		if err := s.Close(); err != nil {
			t.Fatalf("Close: %v", err)
		}
		// The time each was applied is still the first Open's.
		if rows := d.migrationRows(t); !slices.Equal(rows, first) {
			t.Errorf("reopening changed schema_migrations from %q to %q", first, rows)
		}
	}
}

// testMigrationsNewerSchema opens a database that a newer program migrated
// (it records one more migration than this program has): Open refuses,
// naming both versions, and changes nothing, not even the checksums it
// would otherwise record.
func testMigrationsNewerSchema(t *testing.T, d *Database) {
	ctx := context.Background()
	s := d.open(t)
	o := &redirects.Org{Name: "Acme", Tier: redirects.TierFree}
	if err := s.CreateOrg(ctx, o); err != nil {
		t.Fatalf("CreateOrg: %v", err)
	}
	s.Close()
	newer := d.lastVersion() + 1
	d.exec(t, fmt.Sprintf(`INSERT INTO schema_migrations (version, name, applied_at, checksum) VALUES (%d, '%04d_from_the_future', 1, '%s')`,
		newer, newer, migrations.Checksum("CREATE TABLE future (x INTEGER);")))
	d.exec(t, `UPDATE schema_migrations SET checksum = '' WHERE version = 1`)
	before := d.migrationRows(t)

	s2, err := d.Open(ctx)
	if err == nil {
		s2.Close()
		t.Fatalf("Open of a database with schema version %d succeeded; this program's last migration is %d", newer, d.lastVersion())
	}
	var ne *migrations.NewerError
	if !errors.As(err, &ne) || ne.Database != newer || ne.Program != d.lastVersion() {
		t.Errorf("Open = %v, want a *migrations.NewerError of versions %d and %d", err, newer, d.lastVersion())
	}
	for _, s := range []string{fmt.Sprintf("schema version %d", newer), fmt.Sprintf("this program's %d", d.lastVersion())} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("Open = %q, want it to say %q", err, s)
		}
	}
	if after := d.migrationRows(t); !slices.Equal(after, before) {
		t.Errorf("the refused Open changed schema_migrations from %q to %q", before, after)
	}
	var orgs int
	if err := d.Direct.QueryRowContext(ctx, `SELECT count(*) FROM orgs`).Scan(&orgs); err != nil || orgs != 1 {
		t.Errorf("orgs after the refused Open = %d, %v; want 1", orgs, err)
	}
}

// testMigrationsEdited opens a database whose record of an applied
// migration has another checksum than the program's SQL, as when the
// migration file was edited after the database applied it: Open refuses,
// naming the migration, and changes nothing.
func testMigrationsEdited(t *testing.T, d *Database) {
	ctx := context.Background()
	d.open(t).Close()
	m := d.Migrations[len(d.Migrations)-1]
	recorded := migrations.Checksum(m.SQL + "\n-- an edit\n")
	d.exec(t, fmt.Sprintf(`UPDATE schema_migrations SET checksum = '%s' WHERE version = %d`, recorded, m.Version))
	before := d.migrationRows(t)

	s, err := d.Open(ctx)
	if err == nil {
		s.Close()
		t.Fatalf("Open of a database whose migration %s has another checksum succeeded", m.Name)
	}
	var ce *migrations.ChecksumError
	if !errors.As(err, &ce) || ce.Name != m.Name || ce.Want != recorded || ce.Got != migrations.Checksum(m.SQL) {
		t.Errorf("Open = %v, want a *migrations.ChecksumError of %s", err, m.Name)
	}
	if !strings.Contains(err.Error(), "migration "+m.Name) {
		t.Errorf("Open = %q, want it to name migration %s", err, m.Name)
	}
	if after := d.migrationRows(t); !slices.Equal(after, before) {
		t.Errorf("the refused Open changed schema_migrations from %q to %q", before, after)
	}
}

// testMigrationsChecksumsOfAnOlderDatabase opens a database that a program
// older than checksums made (its schema_migrations has no checksum
// column): Open adds the column, records the checksum of every applied
// migration, and keeps the data; a later Open finds them and changes
// nothing.
func testMigrationsChecksumsOfAnOlderDatabase(t *testing.T, d *Database) {
	ctx := context.Background()
	s := d.open(t)
	o := &redirects.Org{Name: "Acme", Tier: redirects.TierFree}
	if err := s.CreateOrg(ctx, o); err != nil {
		t.Fatalf("CreateOrg: %v", err)
	}
	s.Close()
	d.exec(t, `ALTER TABLE schema_migrations DROP COLUMN checksum`)

	for i := 0; i < 2; i++ {
		s, err := d.Open(ctx)
		if err != nil {
			t.Fatalf("Open #%d of a database without checksums: %v", i+1, err)
		}
		if v, err := s.SchemaVersion(ctx); err != nil || v != d.lastVersion() {
			t.Errorf("SchemaVersion = %d, %v; want %d", v, err, d.lastVersion())
		}
		if _, err := s.FindOrgByID(ctx, o.ID); err != nil {
			t.Errorf("FindOrgByID: %v", err)
		}
		s.Close()
		d.wantRecorded(t)
	}
}
