// Package sqlstore implements redirects.Store and redirects.AccountStore
// once, over database/sql, for every SQL engine the program runs on. The
// engines' packages (sqlite, postgres) open the database, hand it to New
// with their Dialect, and keep what only their driver does (PostgreSQL's
// COPY and LISTEN through pgx's own connection, SQLite's file handling).
//
// Every query is written once, with PostgreSQL's numbered placeholders
// ($1, $2, ...), which SQLite reads too (modernc.org/sqlite binds $N to the
// N-th argument). What differs between the engines, and nothing else, is
// the Dialect: row locks, the per-project draft lock, recording an event,
// substring search, bulk writes, error classification and the migrations.
//
// Writers take the locks their change needs (see Dialect.Lock); on SQLite
// every writing transaction begins IMMEDIATE, so it holds the database's
// one write lock from its first statement and the row locks are no-ops.
// Reads of several statements run in one read-only transaction, so they
// see one snapshot.
//
// The files are named after what they store; deploy.go holds the deploy's
// transaction (redirects.DeployTx) and the deploy gate's reads.
package sqlstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"hash/maphash"
	"log/slog"
	"sync/atomic"
	"time"

	"redirects"
)

// DB is a redirects.Store and a redirects.AccountStore kept in a SQL
// database. The engines' packages embed it.
type DB struct {
	// Clock gives CreatedAt times. New sets it to redirects.SystemClock{};
	// set it before the DB is used, not while methods run.
	Clock redirects.Clock

	// write runs writing transactions, read the reads; on PostgreSQL they
	// are one pool.
	write, read *sql.DB
	d           Dialect

	// hitIDs are the rule_hits rows AddHits remembers, with their ids
	// where the dialect has them (Dialect.HitIDs).
	hitIDs hitIDs
	// droppedHits counts the batch entries folds dropped
	// (DroppedHitEntries).
	droppedHits atomic.Int64
	// logger, if set (SetLogger), takes the warnings of the folds;
	// otherwise slog's default logger does.
	logger atomic.Pointer[slog.Logger]
}

// SetLogger has the DB log its warnings (a fold that dropped batch
// entries after a restore of the database) to l.
func (db *DB) SetLogger(l *slog.Logger) { db.logger.Store(l) }

// log returns the logger of SetLogger, or slog's default.
func (db *DB) log() *slog.Logger {
	if l := db.logger.Load(); l != nil {
		return l
	}
	return slog.Default()
}

// New returns a DB that writes through write and reads through read (one
// *sql.DB may serve both), in dialect d. The caller has brought the schema
// up to date (Migrate) and closes the pools.
func New(write, read *sql.DB, d Dialect) *DB {
	return &DB{Clock: redirects.SystemClock{}, write: write, read: read, d: d, hitIDs: hitIDs{seed: maphash.MakeSeed(), seed2: maphash.MakeSeed()}}
}

// now returns the clock's time, cut to what the database keeps (unix
// nanoseconds, UTC), so the value a method sets on its argument equals the
// value a later read returns.
func (db *DB) now() time.Time {
	return time.Unix(0, db.Clock.Now().UnixNano()).UTC()
}

// Tx is a transaction on a connection of its own, so a dialect can reach
// the driver's connection under it (Raw) for what database/sql cannot say,
// such as PostgreSQL's COPY. Commit and Rollback return the connection.
type Tx struct {
	*sql.Tx
	conn *sql.Conn
}

// Commit commits the transaction and returns its connection to the pool.
func (t *Tx) Commit() error {
	defer t.conn.Close()
	return t.Tx.Commit()
}

// Rollback rolls the transaction back, unless it has ended, and returns
// its connection to the pool.
func (t *Tx) Rollback() error {
	defer t.conn.Close()
	return t.Tx.Rollback()
}

// Raw runs f with the driver's connection of the transaction.
func (t *Tx) Raw(f func(driverConn any) error) error { return t.conn.Raw(f) }

func begin(ctx context.Context, pool *sql.DB, opts *sql.TxOptions) (*Tx, error) {
	conn, err := pool.Conn(ctx)
	if err != nil {
		return nil, err
	}
	tx, err := conn.BeginTx(ctx, opts)
	if err != nil {
		conn.Close()
		return nil, err
	}
	return &Tx{Tx: tx, conn: conn}, nil
}

// beginWrite starts a writing transaction (see Dialect.WriteOptions); a
// failure is wrapped as op's.
func (db *DB) beginWrite(ctx context.Context, op string) (*Tx, error) {
	tx, err := begin(ctx, db.write, db.d.WriteOptions())
	if err != nil {
		return nil, db.wrap(op, err)
	}
	return tx, nil
}

// beginRead starts a read-only transaction, so the statements of one method
// see one snapshot of the database; a failure is wrapped as op's.
func (db *DB) beginRead(ctx context.Context, op string) (*Tx, error) {
	tx, err := begin(ctx, db.read, db.d.ReadOptions())
	if err != nil {
		return nil, db.wrap(op, err)
	}
	return tx, nil
}

// querier is what the helpers need of a transaction or a pool.
type querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// scanner is a row to scan: *sql.Row or *sql.Rows.
type scanner interface {
	Scan(dest ...any) error
}

// collect scans every row of a query's result with scan and closes the
// rows; a failure, the query's included, is wrapped as op's.
func collect[T any](db *DB, op string, rows *sql.Rows, err error, scan func(scanner) (T, error)) ([]T, error) {
	if err != nil {
		return nil, db.wrap(op, err)
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, db.wrap(op, err)
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		return nil, db.wrap(op, err)
	}
	return out, nil
}

// recordEvent records a change for edge nodes in the caller's transaction
// (see Dialect.RecordEvent).
func (db *DB) recordEvent(ctx context.Context, tx *Tx, kind, orgID, projectID string, version int, at time.Time) error {
	if err := db.d.RecordEvent(ctx, tx, kind, orgID, projectID, version, at.UnixNano()); err != nil {
		return fmt.Errorf("record %s event: %w", kind, err)
	}
	return nil
}

// wrap returns the error of a failed operation op: a domain error as it
// is, one the dialect classifies (an unreachable server, text the engine
// refuses) as that *redirects.Error still wrapping the cause, anything
// else wrapped as "<engine>: op: ...", an internal error.
func (db *DB) wrap(op string, err error) error {
	return Wrap(db.d, op, err)
}

// Wrap is DB.wrap for the engines' packages, which report errors of their
// own operations (opening, listening) the same way.
func Wrap(d Dialect, op string, err error) error {
	var re *redirects.Error
	if errors.As(err, &re) {
		return err
	}
	if de := d.Classify(err); de != nil {
		return fmt.Errorf("%s: %s: %w: %w", d.Name(), op, de, err)
	}
	return fmt.Errorf("%s: %s: %w", d.Name(), op, err)
}

// fromNanos returns the UTC time of a stored integer time.
func fromNanos(n int64) time.Time { return time.Unix(0, n).UTC() }

// SchemaVersion returns the number of the newest migration applied.
func (db *DB) SchemaVersion(ctx context.Context) (int, error) {
	var v int
	if err := db.read.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) FROM schema_migrations`).Scan(&v); err != nil {
		return 0, db.wrap("schema version", err)
	}
	return v, nil
}

// affected returns the number of rows a statement changed. Both engines'
// drivers count them, so the error is always nil.
func affected(r sql.Result) int64 {
	n, _ := r.RowsAffected()
	return n
}
