package sqlstore

// The deploy's write transaction: WithDeployTx, and deployTx, the
// redirects.DeployTx that service.DeployInTx reads and writes through.
// A read or write the deploy needs inside its transaction is a method of
// deployTx here.

import (
	"context"
	"fmt"
	"time"

	"redirects"
	"redirects/internal/coding"
)

// WithDeployTx runs fn in the deploy's write transaction (see
// the deploy service's Deploy, the one deploy entry, which checks and
// writes through fn).
//
// The transaction first locks the project's row (FOR NO KEY UPDATE; on
// SQLite the IMMEDIATE transaction holds the database's write lock) and
// holds it to commit, so a deploy checks, renders and stores exactly the
// rules it read, and two deploys of one project, from any process, run one
// after the other: the second reads the versions after the first has
// committed and can never pick the same number. A deploy that fails or whose
// connection dies rolls back whole, so versions have no gaps. On PostgreSQL
// the lock does not block rule edits, key creation or reads. An error of fn
// is returned as it is.
func (db *DB) WithDeployTx(ctx context.Context, fn func(tx redirects.DeployTx) error) error {
	tx, err := db.beginWrite(ctx, "deploy")
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := fn(deployTx{db, tx}); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return db.wrap("deploy", err)
	}
	return nil
}

// deployTx is the redirects.DeployTx of a write transaction.
type deployTx struct {
	db *DB
	tx *Tx
}

func (t deployTx) RecordAudit(ctx context.Context, e *redirects.AuditEntry) error {
	return t.db.recordAudit(ctx, t.tx, e)
}

// FindProject locks the project's row for the deploy, as WithDeployTx says.
func (t deployTx) FindProject(ctx context.Context, id string) (*redirects.Project, error) {
	db := t.db
	return db.findProject(ctx, t.tx, id, "FOR NO KEY UPDATE")
}

func (t deployTx) FindRules(ctx context.Context, projectID string, version int) ([]redirects.Rule, redirects.Settings, error) {
	db := t.db
	if version == 0 {
		p, err := db.findProject(ctx, t.tx, projectID, "")
		if err != nil {
			return nil, redirects.Settings{}, err
		}
		rules, err := db.findRules(ctx, t.tx, projectID)
		return rules, p.Settings, err
	}
	d, rules, err := db.findDeployment(ctx, t.tx, projectID, version, true)
	if err != nil {
		return nil, redirects.Settings{}, err
	}
	return rules, d.Settings, nil
}

// FindLiveRules returns the rules of the project's live deployment (its
// live pointer's), none when it has none.
func (t deployTx) FindLiveRules(ctx context.Context, projectID string) ([]redirects.Rule, error) {
	_, rules, err := t.db.findDeployment(ctx, t.tx, projectID, 0, true)
	return rules, err
}

// FindProjectTests returns the project's stored test file, "" when none.
func (t deployTx) FindProjectTests(ctx context.Context, projectID string) (string, error) {
	return t.db.findProjectTests(ctx, t.tx, projectID)
}

// Now is the store's clock.
func (t deployTx) Now() time.Time { return t.db.now() }

// InsertRelease numbers the release after the project's latest version and
// stores it and its exports; unless it is staged, it moves the project's
// live pointer to it and records its event. It drops r.Snapshot once the
// deployment's row holds it, and writes the exports one at a time
// (Release.EachExport), rendering those of a streaming builder as it goes.
func (t deployTx) InsertRelease(ctx context.Context, orgID string, r *redirects.Release) error {
	db := t.db
	const op = "deploy"
	d := &r.Deployment
	if err := t.tx.QueryRowContext(ctx, `SELECT COALESCE(MAX(version), 0) + 1 FROM deployments WHERE project_id = $1`, d.ProjectID).Scan(&d.Version); err != nil {
		return db.wrap(op, err)
	}
	if _, err := t.tx.ExecContext(ctx, `INSERT INTO deployments
		(project_id, version, created_at, message, from_version, exact_count, prefix_count, pattern_count, regex_count, report, rules,
		case_sensitive, trailing_slash, staged)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`,
		d.ProjectID, d.Version, d.CreatedAt.UnixNano(), d.Message, d.FromVersion, d.ExactCount, d.PrefixCount, d.PatternCount, d.RegexCount,
		d.Report, r.Snapshot, d.Settings.CaseSensitive(), d.Settings.TrailingSlash(), d.Staged); err != nil {
		return db.wrap(op, err)
	}
	// The snapshot is written: let it go before the files are rendered.
	r.Snapshot = nil
	if err := t.dropParams(ctx); err != nil {
		return err
	}
	// One file at a time: a builder that renders them as they are asked
	// for (export.Stream) has the next rendered only after this one is
	// written, so the deploy never holds more than one.
	if err := r.EachExport(func(e *redirects.Export) error {
		bodyCoding, body, gz := coding.Pack(e)
		if _, err := t.tx.ExecContext(ctx, `INSERT INTO deployment_exports (project_id, version, format, coding, body, gzip, etag) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
			d.ProjectID, d.Version, e.Format, bodyCoding, body, gz, e.ETag); err != nil {
			return db.wrap(op, err)
		}
		return t.dropParams(ctx)
	}); err != nil {
		return err
	}
	if err := db.pruneExports(ctx, t.tx, d.ProjectID, d.Version); err != nil {
		return db.wrap(op+": prune exports", err)
	}
	if d.Staged {
		return nil // not live: nothing for edge nodes to load
	}
	d.Live = true
	if err := db.setLive(ctx, t.tx, d.ProjectID, d.Version); err != nil {
		return db.wrap(op, err)
	}
	if err := db.recordEvent(ctx, t.tx, redirects.EventDeploy, orgID, d.ProjectID, d.Version, d.CreatedAt); err != nil {
		return db.wrap(op, err)
	}
	return nil
}

// dropParams runs a statement with dropParamsN small parameters. pgx
// keeps what a connection's last statement encoded: it resets its slice of
// parameter values to length 0 but keeps the array behind it, whose
// entries still point into the buffer the values were encoded in, until a
// statement with as many parameters overwrites them. After the deployment
// row that buffer holds a copy of the snapshot (100 MB at a million rules,
// in a buffer grown to twice that), after an export row a copy of its
// encodings, which the rendering of the next file would otherwise find
// still held (BENCHMARKS.md, "Deploy memory"). On SQLite it is one cheap
// statement more.
func (t deployTx) dropParams(ctx context.Context) error {
	var sum int
	if err := t.tx.QueryRowContext(ctx, dropParamsSQL, dropParamsArgs...).Scan(&sum); err != nil {
		return t.db.wrap("deploy", err)
	}
	return nil
}

// dropParamsN is at least the parameters of the deploy's largest
// statements (the deployment row's 11).
const dropParamsN = 12

var dropParamsSQL, dropParamsArgs = func() (string, []any) {
	q := "SELECT 0"
	args := make([]any, dropParamsN)
	for i := range args {
		q += fmt.Sprintf(" + CAST($%d AS INTEGER)", i+1)
		args[i] = 0
	}
	return q, args
}()
