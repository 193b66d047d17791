package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"strconv"
	"strings"

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

// Prefix is a range of the column, which an index serves: SQLite compares
// TEXT of the BINARY collation as bytes, so [prefix, prefixEnd(prefix)) is
// exactly the strings that start with prefix.
func (dialect) Prefix(column string, args *sqlstore.Args, prefix string) string {
	cond := column + ` >= ` + args.Add(prefix)
	if upper, ok := prefixEnd(prefix); ok {
		cond += ` AND ` + column + ` < ` + args.Add(upper)
	}
	return cond
}

// prefixEnd returns the least string that is greater than every string
// starting with p, in byte order, and false when there is none (p is all
// 0xff bytes).
func prefixEnd(p string) (string, bool) {
	b := []byte(p)
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] < 0xff {
			b[i]++
			return string(b[:i+1]), true
		}
	}
	return "", false
}

// Contains is instr() on each column, a scan of the rows (SQLite has no
// index for substrings), which a page ends as soon as it has its rules.
// LIKE would fold ASCII case and need the wildcards escaped.
func (dialect) Contains(columns []string, args *sqlstore.Args, text string) string {
	n := args.Add(text)
	var conds []string
	for _, c := range columns {
		conds = append(conds, "instr("+c+", "+n+") > 0")
	}
	return "(" + strings.Join(conds, " OR ") + ")"
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

// UpdateRules updates each rule by its ID with one prepared statement.
func (dialect) UpdateRules(ctx context.Context, tx *sqlstore.Tx, projectID string, updates []redirects.StoredMatch) error {
	n := len(sqlstore.RuleAnswer)
	stmt, err := tx.PrepareContext(ctx, `UPDATE rules SET `+sqlstore.RuleAnswer.Set(1)+`, revision = revision + 1
		WHERE id = $`+strconv.Itoa(n+1)+` AND project_id = $`+strconv.Itoa(n+2))
	if err != nil {
		return err
	}
	defer stmt.Close()
	var args []any
	for i := range updates {
		u := &updates[i]
		args = append(sqlstore.RuleAnswerValues(args[:0], &u.Rule), u.ID, projectID)
		if _, err := stmt.ExecContext(ctx, args...); err != nil {
			return err
		}
	}
	return nil
}

// insertVars is how many values one INSERT statement of InsertRules binds
// at most, below SQLite's limit of 32766: about 3,000 rules. Fewer
// statements mean fewer trips through database/sql and the driver, and
// fewer copies of pages to the statement journal: each statement of a
// multi-row INSERT may abort alone, so SQLite first copies every page it
// changes that an earlier statement of the transaction wrote (the right
// edge of each B-tree: a dozen 16 KiB pages per statement). 3,000 rows a
// statement take about 0.5 s of CPU off a million-rule import that 512
// took.
const insertVars = 32000

// InsertRules inserts the rules insertBatch to a statement, with explicit
// IDs in their order, starting above every ID handed out before. Both
// B-trees of the rules table, the table by ID and the UNIQUE index by key,
// then grow at one place instead of at random ones, which makes a large
// import about twice as fast as inserting in the order of the caller's
// rules.
//
// What every row of a statement shares is bound once: the project (?1) and
// the creation time (?2), and match_key is NULL in the statement's text
// under the default settings; the driver copies each text value it binds,
// so a row costs less the fewer values it carries.
func (dialect) InsertRules(ctx context.Context, tx *sqlstore.Tx, rows *sqlstore.NewRules) error {
	// sqlite_sequence holds the largest ID the AUTOINCREMENT table ever
	// had, deleted rules included; explicit IDs above it keep IDs unique
	// for ever, and SQLite moves the sequence past them.
	var next int64
	if err := tx.QueryRowContext(ctx, `SELECT MAX(
		COALESCE((SELECT seq FROM sqlite_sequence WHERE name = 'rules'), 0),
		COALESCE((SELECT MAX(id) FROM rules), 0)) + 1`).Scan(&next); err != nil {
		return err
	}
	rows.FirstID = next
	keyed := rows.Keyed()
	key := "NULL"
	if keyed {
		key = "?"
	}
	row := "(?1, ?2, ?, " + key + strings.Repeat(", ?", len(sqlstore.RuleEditable)) + ")"
	prepare := func(n int) (*sql.Stmt, error) {
		return tx.PrepareContext(ctx, `INSERT INTO rules (project_id, created_at, id, match_key, `+sqlstore.RuleEditable.List("")+`) VALUES `+
			strings.Repeat(row+", ", n-1)+row)
	}
	perRow := 3 + len(sqlstore.RuleEditable)
	if !keyed {
		perRow--
	}
	insertBatch := insertVars / perRow
	n := rows.Len()
	full, err := prepare(min(insertBatch, n))
	if err != nil {
		return err
	}
	defer full.Close()
	args := make([]any, 0, 2+perRow*insertBatch)
	for start := 0; start < n; start += insertBatch {
		if rows.Stopped() {
			return sqlstore.ErrStopped
		}
		end := min(start+insertBatch, n)
		args = append(args[:0], rows.ProjectID, rows.CreatedAt)
		for k := start; k < end; k++ {
			args = append(args, next+int64(k))
			if keyed {
				args = append(args, rows.MatchKey(k))
			}
			args = sqlstore.RuleEditableValues(args, rows.Rule(k))
		}
		stmt := full
		if end-start < insertBatch {
			if stmt, err = prepare(end - start); err != nil {
				return err
			}
			defer stmt.Close()
		}
		if _, err := stmt.ExecContext(ctx, args...); err != nil {
			return err
		}
	}
	return nil
}

// Binary is the column itself: SQLite's default collation, BINARY, is
// byte order.
func (dialect) Binary(column string) string { return column }

// Seq is the rowid, which grows with each insert.
func (dialect) Seq() string { return "rowid" }
