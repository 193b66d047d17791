package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"redirects/internal/migrations"
)

// Migrate brings the schema of the database behind write up to date, all
// in one transaction that first takes the dialect's migration lock (on
// SQLite the transaction's IMMEDIATE write lock is that lock): a
// concurrent Migrate waits, then finds the version current and does
// nothing. Both engines' DDL is transactional, so a failed migration
// leaves no half-made schema. It refuses, changing nothing, a database
// whose schema is newer than the program's or whose applied migrations
// differ from the program's text (see migrations.Check). what names the
// database in errors.
func Migrate(ctx context.Context, write *sql.DB, d Dialect, what string) error {
	ms, err := d.Migrations()
	if err != nil {
		return fmt.Errorf("%s: %w", d.Name(), err)
	}
	fail := func(op string, err error) error { return Wrap(d, op+" "+what, err) }
	tx, err := begin(ctx, write, d.WriteOptions())
	if err != nil {
		return fail("migrate", err)
	}
	defer tx.Rollback()
	if err := d.LockMigrations(ctx, tx); err != nil {
		return fail("migrate", err)
	}
	if err := ensureMigrationsTable(ctx, tx, d); err != nil {
		return fail("migrate", err)
	}
	applied, err := appliedMigrations(ctx, tx)
	if err != nil {
		return fail("migrate", err)
	}
	plan, err := migrations.Check(ms, applied)
	if err != nil {
		return fmt.Errorf("%s: open %s: %w", d.Name(), what, err)
	}
	for _, m := range plan.Record {
		if _, err := tx.ExecContext(ctx, `UPDATE schema_migrations SET checksum = $1 WHERE version = $2`,
			migrations.Checksum(m.SQL), m.Version); err != nil {
			return fail("migration "+m.Name+": record its checksum in", err)
		}
	}
	for _, m := range plan.Apply {
		// No arguments: pgx sends the file with the simple protocol,
		// which runs several statements; SQLite runs them all.
		if _, err := tx.ExecContext(ctx, m.SQL); err != nil {
			return fail("migration "+m.Name+" of", err)
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO schema_migrations (version, name, applied_at, checksum) VALUES ($1, $2, $3, $4)`,
			m.Version, m.Name, time.Now().UnixNano(), migrations.Checksum(m.SQL)); err != nil {
			return fail("migration "+m.Name+" of", err)
		}
	}
	if err := tx.Commit(); err != nil {
		return fail("migrate", err)
	}
	return nil
}

// ensureMigrationsTable creates the table that records applied migrations,
// or adds the checksum column to one that a program older than checksums
// created; Migrate then records the checksums that are missing. It looks
// for the column first, so an up-to-date database takes no ALTER TABLE
// (on PostgreSQL, an ACCESS EXCLUSIVE lock).
func ensureMigrationsTable(ctx context.Context, tx *Tx, d Dialect) error {
	if _, err := tx.ExecContext(ctx, d.MigrationsTable()); err != nil {
		return err
	}
	var has bool
	if err := tx.QueryRowContext(ctx, d.HasChecksum()).Scan(&has); err != nil {
		return err
	}
	if !has {
		if _, err := tx.ExecContext(ctx, `ALTER TABLE schema_migrations ADD COLUMN checksum TEXT NOT NULL DEFAULT ''`); err != nil {
			return err
		}
	}
	return nil
}

// appliedMigrations returns what schema_migrations records.
func appliedMigrations(ctx context.Context, tx *Tx) ([]migrations.Applied, error) {
	rows, err := tx.QueryContext(ctx, `SELECT version, name, checksum FROM schema_migrations ORDER BY version`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []migrations.Applied
	for rows.Next() {
		var a migrations.Applied
		if err := rows.Scan(&a.Version, &a.Name, &a.Checksum); err != nil {
			return nil, err
		}
		out = append(out, a)
	}
	return out, rows.Err()
}
