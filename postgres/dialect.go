package postgres

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"net"
	"strconv"
	"strings"
	"syscall"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/stdlib"

	"redirects"
	"redirects/internal/migrations"
	"redirects/sqlstore"
)

// dialect is PostgreSQL's sqlstore.Dialect.
type dialect struct{}

var _ sqlstore.Dialect = dialect{}

func (dialect) Name() string { return "postgres" }

// Classify: a server that cannot be reached gives EUNAVAILABLE; text
// PostgreSQL refuses (invalid UTF-8 or a NUL byte, which SQLite would
// store) gives EINVALID.
func (dialect) Classify(err error) *redirects.Error {
	if unavailable(err) {
		return redirects.Errorf(redirects.EUNAVAILABLE, "the database cannot be reached")
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) && (pe.Code == "22021" || pe.Code == "22P05") {
		return redirects.Errorf(redirects.EINVALID, "a text value is not valid UTF-8 or holds a NUL byte")
	}
	return nil
}

// WriteOptions: READ COMMITTED, so each statement sees what was committed
// before it, and a statement that runs after a lock is granted sees the
// work of the lock's previous holder.
func (dialect) WriteOptions() *sql.TxOptions { return nil }

// ReadOptions: REPEATABLE READ, one snapshot for the whole transaction.
func (dialect) ReadOptions() *sql.TxOptions {
	return &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true}
}

func (dialect) Lock(clause string) string { return " " + clause }

// LockDraft takes the advisory lock on a project's draft rules, held to the
// end of the transaction.
func (dialect) LockDraft(ctx context.Context, tx *sqlstore.Tx, projectID string) error {
	h := fnv.New32a()
	h.Write([]byte(projectID))
	_, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock($1::int4, $2::int4)`, ruleLockClass, int32(h.Sum32()))
	return err
}

// RecordEvent records a change for edge nodes in the caller's transaction
// and sends NOTIFY with its ID, which PostgreSQL delivers at commit.
//
// It first takes the transaction-scoped advisory lock eventLock, held to
// commit. A sequence hands out IDs in the order transactions ask for them;
// without the lock, a transaction could take ID 5, another ID 6 and commit
// first, and a poller that saw 6 would never ask for 5. With it, the next
// event's ID is drawn only after the previous event's transaction has
// committed. The lock is taken last, after the transaction's slow work, so
// it is held for the insert and the commit only, and nothing waits for
// another lock while holding it, so it cannot deadlock.
//
// An advisory lock rather than LOCK TABLE events: it does not hold up
// VACUUM or ANALYZE of events, nor conflict with the ROW EXCLUSIVE lock
// that an INSERT parsed ahead of it takes.
func (dialect) RecordEvent(ctx context.Context, tx *sqlstore.Tx, kind, orgID, projectID string, version int, at int64) error {
	if err := advisoryLock(ctx, tx, eventLock); err != nil {
		return err
	}
	var id int64
	return tx.QueryRowContext(ctx, `WITH e AS (
			INSERT INTO events (kind, org_id, project_id, version, created_at) VALUES ($1, $2, $3, $4, $5) RETURNING id
		)
		SELECT id FROM e, pg_notify($6, id::text)`,
		kind, orgID, projectID, version, at, NotifyChannel).Scan(&id)
}

// Prefix is a LIKE pattern, which reads a range of the source index (the
// "C" collation allows it).
func (dialect) Prefix(column string, args *sqlstore.Args, prefix string) string {
	return column + ` LIKE ` + args.Add(escapeLike(prefix)+"%")
}

// Contains is a LIKE pattern on each column: a scan of the project's
// rules, or a search of trigram indexes where an operator has made them
// (see the migration 0003_rules_ops).
func (dialect) Contains(columns []string, args *sqlstore.Args, text string) string {
	n := args.Add("%" + escapeLike(text) + "%")
	var conds []string
	for _, c := range columns {
		conds = append(conds, c+" LIKE "+n)
	}
	return "(" + strings.Join(conds, " OR ") + ")"
}

// likeEscaper escapes LIKE's wildcards and its escape character, the
// backslash.
var likeEscaper = strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`)

func escapeLike(s string) string { return likeEscaper.Replace(s) }

func (dialect) Migrations() ([]migrations.Migration, error) {
	return migrations.Load(migrationsFS, "migrations")
}

// LockMigrations takes the transaction-scoped advisory lock of migrations.
func (dialect) LockMigrations(ctx context.Context, tx *sqlstore.Tx) error {
	return advisoryLock(ctx, tx, migrationLock)
}

// advisoryLock takes the transaction-scoped advisory lock key, held to the
// end of tx.
func advisoryLock(ctx context.Context, tx *sqlstore.Tx, key int64) error {
	_, err := tx.ExecContext(ctx, `SELECT pg_advisory_xact_lock($1)`, key)
	return err
}

func (dialect) MigrationsTable() string {
	return `CREATE TABLE IF NOT EXISTS schema_migrations (
		version    INTEGER PRIMARY KEY,
		name       TEXT    NOT NULL,
		applied_at BIGINT  NOT NULL,
		checksum   TEXT    NOT NULL DEFAULT ''
	)`
}

func (dialect) HasChecksum() string {
	return `SELECT EXISTS (SELECT 1 FROM pg_attribute
		WHERE attrelid = 'schema_migrations'::regclass AND attname = 'checksum' AND NOT attisdropped)`
}

// unavailable reports whether err says that the server cannot be reached or
// cannot serve: a failed connection attempt, a connection lost mid-way, or
// the server shutting down, starting up or out of connection slots. A
// context that was cancelled is the caller giving up, not the server.
func unavailable(err error) bool {
	if errors.Is(err, context.Canceled) {
		return false
	}
	var ce *pgconn.ConnectError
	if errors.As(err, &ce) {
		return true
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		switch {
		case strings.HasPrefix(pe.Code, "08"): // connection_exception
			return true
		case pe.Code == "57P01", pe.Code == "57P02", pe.Code == "57P03": // shutdown, crash, starting up
			return true
		case pe.Code == "53300": // too_many_connections
			return true
		}
		return false
	}
	if errors.Is(err, context.DeadlineExceeded) {
		// A slow statement, not an unreachable server (a connection
		// attempt that timed out is a ConnectError, above).
		return false
	}
	if pgconn.SafeToRetry(err) {
		return true
	}
	var ne net.Error
	if errors.As(err, &ne) {
		return true
	}
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, driver.ErrBadConn) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.EPIPE)
}

// updateBatch is how many rules one UPDATE statement of UpdateRules
// changes, its values sent as arrays.
const updateBatch = 10_000

// UpdateRules updates the rules updateBatch at a time, each batch one
// UPDATE joined to the arrays of its values: one array of the IDs, and one
// for each column of sqlstore.RuleAnswer, typed after its values.
func (dialect) UpdateRules(ctx context.Context, tx *sqlstore.Tx, projectID string, updates []redirects.StoredMatch) error {
	for start := 0; start < len(updates); start += updateBatch {
		part := updates[start:min(start+updateBatch, len(updates))]
		ids := make([]int64, len(part))
		var cols []answerArray
		var vals []any
		for i := range part {
			ids[i] = part[i].ID
			vals = sqlstore.RuleAnswerValues(vals[:0], &part[i].Rule)
			if cols == nil {
				cols = make([]answerArray, len(vals))
			}
			for j, v := range vals {
				if err := cols[j].set(i, len(part), v); err != nil {
					return err
				}
			}
		}
		args := []any{ids}
		unnest := "$1::bigint[]"
		for j := range cols {
			args = append(args, cols[j].values)
			unnest += ", $" + strconv.Itoa(j+2) + "::" + cols[j].sqlType + "[]"
		}
		args = append(args, projectID)
		if _, err := tx.ExecContext(ctx, `UPDATE rules AS r SET `+sqlstore.RuleAnswer.SetFrom("u")+`, revision = r.revision + 1
			FROM unnest(`+unnest+`) AS u(id, `+sqlstore.RuleAnswer.List("")+`)
			WHERE r.id = u.id AND r.project_id = $`+strconv.Itoa(len(args)), args...); err != nil {
			return err
		}
	}
	return nil
}

// answerArray is the array of one column's values of an UpdateRules
// batch, typed after the first value: text, int or bool.
type answerArray struct {
	values  any
	sqlType string
}

// set puts v at i of an array of n values, which it makes at first.
func (a *answerArray) set(i, n int, v any) error {
	if a.values == nil {
		switch v.(type) {
		case string:
			a.values, a.sqlType = make([]string, n), "text"
		case int:
			a.values, a.sqlType = make([]int32, n), "int"
		case bool:
			a.values, a.sqlType = make([]bool, n), "bool"
		default:
			return fmt.Errorf("update rules: no array type for a %T column", v)
		}
	}
	switch vs := a.values.(type) {
	case []string:
		vs[i] = v.(string)
	case []int32:
		vs[i] = int32(v.(int))
	case []bool:
		vs[i] = v.(bool)
	}
	return nil
}

// InsertRules inserts the rules with COPY, on pgx's connection under the
// transaction; the ID sequence numbers them in their order.
func (dialect) InsertRules(ctx context.Context, tx *sqlstore.Tx, rows *sqlstore.NewRules) error {
	return tx.Raw(func(driverConn any) error {
		conn := driverConn.(*stdlib.Conn).Conn()
		_, err := conn.CopyFrom(ctx, pgx.Identifier{"rules"},
			append([]string{"project_id", "match_key"}, sqlstore.RuleColumns...),
			&ruleSource{rows: rows, k: -1})
		return err
	})
}

// ruleSource is the pgx.CopyFromSource of InsertRules. Values reuses one
// slice: pgx encodes a row before it asks for the next.
type ruleSource struct {
	rows *sqlstore.NewRules
	k    int
	row  []any
	err  error
}

func (s *ruleSource) Next() bool {
	s.k++
	if s.k%1024 == 0 && s.rows.Stopped() {
		s.err = sqlstore.ErrStopped
		return false
	}
	return s.k < s.rows.Len()
}

func (s *ruleSource) Values() ([]any, error) {
	r := s.rows.Rule(s.k)
	s.row = sqlstore.RuleValues(append(s.row[:0], s.rows.ProjectID, s.rows.MatchKey(s.k)), r, s.rows.CreatedAt)
	return s.row, nil
}

func (s *ruleSource) Err() error { return s.err }

// Binary is the column in the "C" collation, byte order.
func (dialect) Binary(column string) string { return column + ` COLLATE "C"` }

// Seq is the seq column, filled from a sequence (see the schema).
func (dialect) Seq() string { return "seq" }
