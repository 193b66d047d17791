// Package sqlite keeps the redirects store (package sqlstore, which writes
// every query once) in an embedded SQLite database, through the pure-Go
// driver modernc.org/sqlite (no cgo). What SQLite does its own way is its
// sqlstore.Dialect (dialect.go).
//
// The database runs in WAL mode: readers never block the writer and the
// writer never blocks readers. Every writing transaction starts with BEGIN
// IMMEDIATE, so it takes the write lock up front and waits for it under the
// busy timeout, instead of starting as a reader and failing with SQLITE_BUSY
// when it tries to upgrade while another connection writes. Several
// processes (or several DBs in one process) may therefore share one file.
//
// The schema is in migrations/*.sql, embedded in the binary and applied by
// Open. See migrations/0001_initial.sql for the tables and their meaning.
package sqlite

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" database/sql driver

	"redirects"
	"redirects/sqlstore"
)

// BusyTimeout is how long a transaction waits for the write lock that
// another connection holds before it fails with SQLITE_BUSY. It is generous
// because a deploy of a million rules may hold the lock for several seconds,
// and waiting is better than failing an operator's command.
const BusyTimeout = 60 * time.Second

// migrationsFS holds the numbered schema migrations, applied in order.
//
//go:embed migrations/*.sql
var migrationsFS embed.FS

// DB is a redirects.Store kept in one SQLite file.
type DB struct {
	// DB holds the methods; its Clock gives CreatedAt times. Open sets it
	// to redirects.SystemClock{}; set it before the DB is used, not while
	// methods run.
	*sqlstore.DB

	path string
	// write has a single connection, so the writers of one process queue in
	// database/sql instead of polling SQLite's busy handler; its
	// transactions begin IMMEDIATE.
	write *sql.DB
	// read is a pool of read-only connections, so lookups of deployments,
	// exports and events run while a long deploy holds the write lock.
	read *sql.DB
}

var _ redirects.Store = (*DB)(nil)

// Open opens (creating it if needed) the SQLite database at path and brings
// its schema up to date. Several processes may open the same new file at
// once: the migrations run in an IMMEDIATE transaction that re-reads the
// schema version, so exactly one of them applies each migration.
func Open(ctx context.Context, path string) (*DB, error) {
	return open(ctx, path, true)
}

// OpenExisting opens the SQLite database at path like Open, but never
// creates it: a path where no file is gives an ENOTFOUND error that wraps
// fs.ErrNotExist, and leaves no file behind. A command that only reads uses
// it, so a mistyped path is reported instead of answered from a new, empty
// database.
func OpenExisting(ctx context.Context, path string) (*DB, error) {
	return open(ctx, path, false)
}

func open(ctx context.Context, path string, create bool) (*DB, error) {
	if path == "" {
		return nil, redirects.Errorf(redirects.EINVALID, "sqlite: database path is empty")
	}
	if strings.HasPrefix(path, "file:") || path == ":memory:" {
		// A URI or a memory database would silently break the assumptions
		// below (one file shared by a write and a read pool).
		return nil, redirects.Errorf(redirects.EINVALID, "sqlite: %q is not a file path", path)
	}
	db := &DB{path: path}

	// synchronous=NORMAL in WAL mode: COMMIT returns once the transaction
	// is in the WAL, without an fsync. A crash of the process loses nothing
	// committed; a power loss or OS crash may roll back the last commits
	// before the WAL was synced (at the next checkpoint), but never leaves
	// the database inconsistent or a deployment half written. FULL would
	// fsync every commit, usage flushes included.
	common := url.Values{}
	common.Set("_busy_timeout", strconv.FormatInt(BusyTimeout.Milliseconds(), 10))
	common.Set("_foreign_keys", "on")
	common.Set("_synchronous", "NORMAL")
	if !create {
		if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
			return nil, notExist(path)
		}
		// mode=rw makes SQLite itself refuse to create the file, should it
		// be removed between the check above and the first connection.
		common.Set("mode", "rw")
	}

	w := url.Values{}
	for k, v := range common {
		w[k] = v
	}
	w.Set("_journal_mode", "WAL")
	w.Set("_txlock", "immediate")
	// The page cache may grow to 64 MiB (SQLite's default is 2 MiB), so a
	// large import or deploy spills fewer dirty pages to the WAL before it
	// commits; pages are allocated only as they are used.
	w.Add("_pragma", "cache_size(-65536)")
	// After a checkpoint, a WAL that a large transaction grew is cut back to
	// 64 MiB instead of keeping its size on disk for ever.
	w.Add("_pragma", "journal_size_limit(67108864)")
	// 16 KiB pages make the B-trees of a large project shallower and split
	// less often: a million-rule import runs about 15% faster than with the
	// default 4 KiB. The setting takes effect only when the file is created
	// (the driver applies it before switching to WAL); later it is a no-op.
	w.Add("_pragma", "page_size(16384)")
	var err error
	if db.write, err = sql.Open("sqlite", dsn(path, w)); err != nil {
		return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	db.write.SetMaxOpenConns(1)
	db.write.SetMaxIdleConns(1)
	db.write.SetConnMaxIdleTime(0)
	db.write.SetConnMaxLifetime(0)

	r := url.Values{}
	for k, v := range common {
		r[k] = v
	}
	r.Set("_query_only", "1")
	if db.read, err = sql.Open("sqlite", dsn(path, r)); err != nil {
		db.write.Close()
		return nil, fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	n := max(4, runtime.NumCPU())
	db.read.SetMaxOpenConns(n)
	db.read.SetMaxIdleConns(n)

	if err := db.migrateRetrying(ctx); err != nil {
		db.Close()
		if !create && cantOpen(err) {
			if _, serr := os.Stat(path); errors.Is(serr, fs.ErrNotExist) {
				return nil, notExist(path)
			}
		}
		return nil, err
	}
	db.DB = sqlstore.New(db.write, db.read, dialect{})
	return db, nil
}

// notExist is OpenExisting's error for a path where no file is.
func notExist(path string) error {
	return fmt.Errorf("%w: %w", redirects.Errorf(redirects.ENOTFOUND, "sqlite: database file %s does not exist", path), fs.ErrNotExist)
}

// migrateRetrying runs migrate, again after a short pause while it fails
// with SQLITE_BUSY, for up to BusyTimeout. While a new file is still in
// rollback-journal mode, before the first connection has switched it to WAL,
// SQLite answers some lock conflicts between connections with SQLITE_BUSY at
// once, without waiting in the busy handler, because waiting could deadlock;
// its documented remedy is to try again. Several processes that open a new
// file together meet that.
func (db *DB) migrateRetrying(ctx context.Context) error {
	deadline := time.Now().Add(BusyTimeout)
	for pause := time.Millisecond; ; pause = min(2*pause, 100*time.Millisecond) {
		err := sqlstore.Migrate(ctx, db.write, dialect{}, db.path)
		if err == nil || !busy(err) || time.Now().After(deadline) {
			return err
		}
		select {
		case <-ctx.Done():
			return err
		case <-time.After(pause):
		}
	}
}

// dsn returns the driver's name for the file at path with the given
// parameters. It uses a file: URI with the path escaped, so a path holding
// '?', '#' or '%' names the file it says.
func dsn(path string, params url.Values) string {
	u := url.URL{Path: path}
	return "file:" + u.EscapedPath() + "?" + params.Encode()
}

// Close closes the database. It is safe to call more than once, but not
// while other methods run.
func (db *DB) Close() error {
	if err := errors.Join(db.read.Close(), db.write.Close()); err != nil {
		return fmt.Errorf("sqlite: close %s: %w", db.path, err)
	}
	return nil
}
