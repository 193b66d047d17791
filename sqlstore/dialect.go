package sqlstore

import (
	"context"
	"database/sql"

	"redirects"
	"redirects/internal/migrations"
)

// Dialect is what differs between the SQL engines: everything a DB does
// that cannot be one query text for both. The sqlite and postgres packages
// implement it; its methods take the caller's transaction and return raw
// errors, which the DB wraps.
type Dialect interface {
	// Name names the engine in errors: "sqlite", "postgres".
	Name() string
	// Classify returns the *redirects.Error that err stands for (an
	// unreachable server: EUNAVAILABLE; text the engine refuses:
	// EINVALID), or nil for an internal error.
	Classify(err error) *redirects.Error

	// WriteOptions and ReadOptions are the options of writing and of
	// read-only transactions.
	WriteOptions() *sql.TxOptions
	ReadOptions() *sql.TxOptions
	// Lock returns the row-locking clause to append to a SELECT that reads
	// a row the transaction will change or depends on ("FOR UPDATE", "FOR
	// NO KEY UPDATE", "FOR KEY SHARE", "FOR SHARE"), or "" where a writing
	// transaction already excludes every other writer (SQLite).
	Lock(clause string) string
	// LockDraft holds, to the end of tx, the lock that orders the writers
	// of a project's draft rules (see postgres), or does nothing.
	LockDraft(ctx context.Context, tx *Tx, projectID string) error
	// RecordEvent inserts an event row in tx (its time in unix
	// nanoseconds) so that event IDs follow commit order, and tells
	// listeners at commit where the engine can.
	RecordEvent(ctx context.Context, tx *Tx, kind, orgID, projectID string, version int, at int64) error

	// Seq names the column that orders the rows of orgs, projects, keys,
	// users, members and tokens created at the same time, in the order
	// they were inserted.
	Seq() string
	// Binary returns column in an ORDER BY that sorts its text by bytes,
	// as Go does, whatever the database's collation.
	Binary(column string) string
	// Prefix returns a condition that holds when column starts with
	// prefix, adding its arguments to args; Contains one that holds when
	// any of columns holds text, as plain text (no wildcards).
	Prefix(column string, args *Args, prefix string) string
	Contains(columns []string, args *Args, text string) string
	// Rows returns the rows of an INSERT (what follows its column list)
	// for one argument list of RowArgs, in their order, with values of
	// types (TEXT or BIGINT). Its text depends on types alone, so a
	// caller's statement is one text at every call, which stays prepared.
	Rows(types []string) string
	// RowArgs returns the argument lists that carry rows, each of
	// len(types) values (a string for TEXT, an int64 for BIGINT), in
	// order: one statement runs per list. An engine in the process
	// (SQLite) takes a row per list, bound to a prepared statement, as
	// cheap as a row can be; one across a network (PostgreSQL) takes many
	// rows per list, as arrays, so a flush is a few round trips.
	RowArgs(types []string, rows [][]any) ([][]any, error)
	// RowAtATime reports whether each argument list of RowArgs is one
	// row's values, as they are.
	RowAtATime() bool
	// HitIDs reports whether AddHits knows rule_hits rows by an integer
	// id it remembers, never reused, alone (SQLite): it appends the rows
	// it remembers as a batch under the generation it read them in
	// (rule_hit_batches, migration 0029), and writes the others by key a
	// row at a time; the driver's connection then offers
	// driver.ConnPrepareContext, and FindHits adds the pending batches to
	// what it reads. Where it is false (PostgreSQL), rows are known by id
	// and token, AddHits appends batches (migration 0025), and FindHits
	// folds them first.
	HitIDs() bool
	// HitRows returns what a query reads rule_hits' rows from, each with
	// its id, project_id, match_type, source, host, hits and last_hit: the
	// key joined with its counts (SQLite, migration 0023; PostgreSQL,
	// migration 0025).
	HitRows() string
	// RuleCountTriggers reports whether the schema's triggers keep
	// rule_counts, the number of rules of each project (PostgreSQL's, once
	// per statement). Where they do not (SQLite, where a trigger ran once
	// per row), every writer of rules adjusts it in its own transaction
	// (DB.addRuleCount, DB.setRuleCount), so it stays exact.
	RuleCountTriggers() bool
	// InsertRules inserts the draft rules of an import in their order,
	// with IDs in the same order, each at revision 1; it checks
	// rows.Stopped now and then and returns ErrStopped once it is true.
	InsertRules(ctx context.Context, tx *Tx, rows *NewRules) error
	// UpdateRules sets the destination, status code and priority of the
	// rules of projectID with the updates' IDs, and adds one to their
	// revisions.
	UpdateRules(ctx context.Context, tx *Tx, projectID string, updates []redirects.StoredMatch) error

	// Migrations returns the engine's schema migrations in version order.
	Migrations() ([]migrations.Migration, error)
	// LockMigrations holds, to the end of tx, the lock that lets one
	// process at a time migrate (nothing where tx already does).
	LockMigrations(ctx context.Context, tx *Tx) error
	// MigrationsTable is the CREATE TABLE IF NOT EXISTS statement of
	// schema_migrations (version, name, applied_at, checksum), and
	// HasChecksum a query of one boolean: whether the table has its
	// checksum column, which older programs did not add.
	MigrationsTable() string
	HasChecksum() string
}
