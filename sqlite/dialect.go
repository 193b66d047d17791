package sqlite

import (
	"context"
	"database/sql"
	"errors"

	driver "modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"redirects"
	"redirects/internal/migrations"
	"redirects/sqlstore"
)

// dialect is SQLite's sqlstore.Dialect. Every writing transaction begins
// IMMEDIATE (the write pool's _txlock), so it holds the database's one
// write lock from its first statement: row and draft locks are no-ops, and
// event IDs follow commit order by themselves.
type dialect struct{}

var _ sqlstore.Dialect = dialect{}

func (dialect) Name() string { return "sqlite" }

// Classify finds no domain error in SQLite's: a file that cannot be opened
// or written is the operator's to fix, not a passing outage.
func (dialect) Classify(error) *redirects.Error { return nil }

func (dialect) WriteOptions() *sql.TxOptions { return nil }

func (dialect) ReadOptions() *sql.TxOptions { return &sql.TxOptions{ReadOnly: true} }

func (dialect) Lock(string) string { return "" }

func (dialect) LockDraft(context.Context, *sqlstore.Tx, string) error { return nil }

func (dialect) RecordEvent(ctx context.Context, tx *sqlstore.Tx, kind, orgID, projectID string, version int, at int64) error {
	_, err := tx.ExecContext(ctx, `INSERT INTO events (kind, org_id, project_id, version, created_at) VALUES ($1, $2, $3, $4, $5)`,
		kind, orgID, projectID, version, at)
	return err
}

// Contains is instr(): LIKE would need the pattern's wildcards escaped and
// folds ASCII case.
func (dialect) Contains(column, arg string) string {
	return "instr(" + column + ", " + arg + ") > 0"
}

func (dialect) Migrations() ([]migrations.Migration, error) {
	return migrations.Load(migrationsFS, "migrations")
}

// LockMigrations does nothing: the IMMEDIATE transaction is the lock.
func (dialect) LockMigrations(context.Context, *sqlstore.Tx) error { return nil }

func (dialect) MigrationsTable() string {
	return `CREATE TABLE IF NOT EXISTS schema_migrations (
		version    INTEGER PRIMARY KEY,
		name       TEXT    NOT NULL,
		applied_at INTEGER NOT NULL,
		checksum   TEXT    NOT NULL DEFAULT ''
	) STRICT`
}

func (dialect) HasChecksum() string {
	return `SELECT count(*) > 0 FROM pragma_table_info('schema_migrations') WHERE name = 'checksum'`
}

// busy reports whether err is SQLite's SQLITE_BUSY, with any extended code.
func busy(err error) bool {
	var se *driver.Error
	return errors.As(err, &se) && se.Code()&0xff == sqlite3.SQLITE_BUSY
}

// cantOpen reports whether err is SQLite's SQLITE_CANTOPEN.
func cantOpen(err error) bool {
	var se *driver.Error
	return errors.As(err, &se) && se.Code()&0xff == sqlite3.SQLITE_CANTOPEN
}
