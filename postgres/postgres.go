// Package postgres keeps the redirects store (package sqlstore, which
// writes every query once) in PostgreSQL, through pgx v5: its connection
// pool, shared with database/sql by pgx's stdlib, COPY for imports and
// LISTEN for notices (listen.go). What PostgreSQL does its own way is its
// sqlstore.Dialect (dialect.go).
//
// Every public method is one transaction. Writers take only the locks their
// change needs:
//
//   - Deploy locks the project's row (SELECT ... FOR NO KEY UPDATE), so two
//     deploys of one project, from any number of processes, run one after
//     the other and versions have no gaps or repeats. NO KEY UPDATE rather
//     than UPDATE: it does not conflict with the KEY SHARE locks of rule
//     edits and of the foreign-key checks of new keys, so a long deploy
//     never stalls the draft.
//   - AddRule and ImportRules lock the project's row FOR KEY SHARE, in
//     place of the foreign key that the rules table lacks for speed (see
//     the schema), and take a transaction-scoped advisory lock on the
//     project's draft, so an import's check for clashes with stored rules
//     still holds when its rows go in.
//   - Every write that records an event holds an advisory lock from the
//     insert to commit (see dialect.RecordEvent), so event IDs follow commit order,
//     and sends NOTIFY on NotifyChannel with the event's ID, delivered when
//     (and only if) the transaction commits.
//
// Reads of several statements run in a read-only REPEATABLE READ
// transaction, so they see one snapshot.
//
// A server that cannot be reached comes back as a *redirects.Error with code
// redirects.EUNAVAILABLE, so the edge can answer 503 instead of 500.
//
// The schema is in migrations/*.sql, embedded in the binary and applied by
// Open. See migrations/0001_initial.sql for the tables and their meaning.
package postgres

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"net"
	neturl "net/url"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"

	"redirects"
	"redirects/sqlstore"
)

// NotifyChannel is the channel on which every write that records an event
// sends NOTIFY, with the event's ID in decimal as the payload. Edge nodes
// LISTEN on it to learn of changes at once, then read them with FindEvents;
// a notification is a hint, the events table the record.
const NotifyChannel = "redirects_events"

// DefaultConnectTimeout bounds a connection attempt when the URL sets no
// connect_timeout, so an unreachable server is reported as EUNAVAILABLE in
// seconds rather than when the operating system gives up on TCP.
const DefaultConnectTimeout = 5 * time.Second

// Advisory lock keys. The migration lock is one bigint key; the per-project
// draft lock uses the two-int4 form, whose key space is separate.
const (
	// migrationLock is "redirect" in ASCII.
	migrationLock int64 = 0x7265646972656374
	// eventLock, "events", orders event IDs (see recordEvent). It is one
	// per database, so stores in several schemas of one database share it.
	eventLock int64 = 0x6576656e7473
	// ruleLockClass is the first int4 of a project's draft lock; the
	// second is a hash of the project ID.
	ruleLockClass int32 = 0x72756c65 // "rule"
)

// migrationsFS holds the numbered schema migrations, applied in order.
//
//go:embed migrations/*.sql
var migrationsFS embed.FS

// DB is a redirects.Store kept in a PostgreSQL database.
type DB struct {
	// DB holds the methods; its Clock gives CreatedAt times. Open sets it
	// to redirects.SystemClock{}; set it before the DB is used, not while
	// methods run.
	*sqlstore.DB

	// pool is pgx's pool, which Listen takes a connection of; sql runs
	// the queries of DB over it.
	pool *pgxpool.Pool
	sql  *sql.DB
}

var _ redirects.Store = (*DB)(nil)

// Open connects to the database that url names (a postgres:// URL or a
// key=value connection string, as pgx reads them) and brings its schema up
// to date. Several processes may open one database at once: the migrations
// run under a transaction-scoped advisory lock, so exactly one of them
// applies each migration and the others then find it applied.
//
// Errors: EINVALID (a malformed url), EUNAVAILABLE (the server cannot be
// reached).
func Open(ctx context.Context, url string) (*DB, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		// The parse error may repeat a password; say only what is wrong.
		return nil, redirects.Errorf(redirects.EINVALID, "postgres: the database URL is malformed: %s", parseProblem(err))
	}
	if cfg.ConnConfig.ConnectTimeout == 0 {
		cfg.ConnConfig.ConnectTimeout = DefaultConnectTimeout
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, sqlstore.Wrap(dialect{}, "open", err)
	}
	db := &DB{pool: pool, sql: stdlib.OpenDBFromPool(pool)}
	if err := sqlstore.Migrate(ctx, db.sql, dialect{}, "the database"); err != nil {
		db.Close()
		var pe *pgconn.PgError
		if errors.As(err, &pe) && pe.Code == "3D000" { // invalid_catalog_name
			cc := cfg.ConnConfig
			return nil, fmt.Errorf("%w: %w", redirects.Errorf(redirects.ENOTFOUND, "PostgreSQL database %q does not exist on %s",
				cc.Database, net.JoinHostPort(cc.Host, strconv.Itoa(int(cc.Port)))), err)
		}
		return nil, err
	}
	db.DB = sqlstore.New(db.sql, db.sql, dialect{})
	return db, nil
}

// parseProblem returns what is wrong with a connection string. pgx's own
// message masks passwords; a URL that net/url cannot parse is quoted whole
// in its error, so only the reason is kept.
func parseProblem(err error) string {
	var ue *neturl.Error
	if errors.As(err, &ue) {
		return ue.Err.Error()
	}
	return err.Error()
}

// Close closes the connection pool, waiting for connections in use to be
// returned. It is safe to call more than once.
func (db *DB) Close() error {
	db.sql.Close()
	db.pool.Close()
	return nil
}
