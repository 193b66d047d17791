package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"
)

// batch runs upsert for rows, in order, in the caller's transaction. Its
// %s stands for the dialect's rows of an INSERT (Dialect.Rows), in the
// order given, so every writer that sorts its rows the same way locks them
// in the same order. The statement is prepared once and run once per
// argument list of Dialect.RowArgs; its text is the same at every call, so
// the engine parses neither a statement per flush nor a VALUES list per
// row.
//
// update, if not "", changes one existing row, its values $1, $2, ... in
// the order of types, as upsert's conflict clause would. Where the dialect
// runs a row at a time (SQLite), each row tries update first and upsert
// only when no row changed: the rows a flush counts mostly exist, and an
// UPDATE finds its row once where an upsert looks for the conflict and
// then again for its update, which on SQLite costs twice the row.
func (db *DB) batch(ctx context.Context, tx *Tx, upsert, update string, types []string, rows [][]any) error {
	for i, row := range rows {
		if len(row) != len(types) {
			return fmt.Errorf("batch row %d has %d values for %d columns", i, len(row), len(types))
		}
	}
	if len(rows) == 0 {
		return nil
	}
	lists, err := db.d.RowArgs(types, rows)
	if err != nil {
		return err
	}
	upsert = fmt.Sprintf(upsert, db.d.Rows(types))
	if !db.d.RowAtATime() {
		update = ""
	}
	if len(lists) == 1 && update == "" {
		_, err := tx.ExecContext(ctx, upsert, lists[0]...)
		return err
	}
	ins, err := tx.PrepareContext(ctx, upsert)
	if err != nil {
		return err
	}
	defer ins.Close()
	var upd *sql.Stmt
	if update != "" {
		if upd, err = tx.PrepareContext(ctx, update); err != nil {
			return err
		}
		defer upd.Close()
	}
	// Each run goes without ctx's cancellation, which ctx.Err() checks
	// between the runs instead: a driver watches a cancellable context in a
	// goroutine of its own for each statement (modernc.org/sqlite does),
	// which on SQLite's one-row runs cost as much as the row.
	quiet := context.WithoutCancel(ctx)
	for _, args := range lists {
		if err := ctx.Err(); err != nil {
			return err
		}
		if upd != nil {
			res, err := upd.ExecContext(quiet, args...)
			if err != nil {
				return err
			}
			if affected(res) > 0 {
				continue
			}
		}
		if _, err := ins.ExecContext(quiet, args...); err != nil {
			return err
		}
	}
	return nil
}

// knownProjects returns which of ids (sorted) are projects, with the lock
// that keeps them from being deleted before tx ends (Dialect.Lock), so
// the rows a batch writes for them satisfy their foreign keys.
func (db *DB) knownProjects(ctx context.Context, tx *Tx, ids []string) (map[string]bool, error) {
	known := make(map[string]bool, len(ids))
	for start := 0; start < len(ids); start += bulkRows {
		part := ids[start:min(start+bulkRows, len(ids))]
		args := make([]any, len(part))
		for i, id := range part {
			args[i] = id
		}
		rows, err := tx.QueryContext(ctx, `SELECT id FROM projects WHERE id IN (`+placeholders(1, len(part))+`) ORDER BY id`+db.d.Lock("FOR KEY SHARE"), args...)
		found, err := collect(db, "find projects", rows, err, func(s scanner) (string, error) {
			var id string
			return id, s.Scan(&id)
		})
		if err != nil {
			return nil, err
		}
		for _, id := range found {
			known[id] = true
		}
	}
	return known, nil
}

// bulkRows is how many rows one statement of bulk carries: a few thousand
// arguments, far below both engines' limits (SQLite 32766, PostgreSQL
// 65535).
const bulkRows = 500

// bulk runs query once per bulkRows rows, in order. Its %s stands for a
// VALUES list of those rows, each value cast to its column's type in
// types (both engines call the columns column1, column2, ...), with one
// more column, the row's position in rows, for an ORDER BY that makes
// every writer lock rows in the same order. Its text changes with the
// number of rows, and it carries one argument per value, so it costs a
// parse per call and several microseconds per row: counters flushed often
// go through batch instead.
func bulk(ctx context.Context, q querier, query string, types []string, rows [][]any) error {
	for start := 0; start < len(rows); start += bulkRows {
		part := rows[start:min(start+bulkRows, len(rows))]
		var b strings.Builder
		args := make([]any, 0, len(part)*len(types))
		for i, row := range part {
			if len(row) != len(types) {
				return fmt.Errorf("bulk row %d has %d values for %d columns", start+i, len(row), len(types))
			}
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteByte('(')
			for j, v := range row {
				args = append(args, v)
				fmt.Fprintf(&b, "CAST($%d AS %s), ", len(args), types[j])
			}
			b.WriteString(strconv.Itoa(start + i))
			b.WriteByte(')')
		}
		if _, err := q.ExecContext(ctx, fmt.Sprintf(query, b.String()), args...); err != nil {
			return err
		}
	}
	return nil
}

// placeholders returns "$first, $first+1, ..." for n arguments, for an IN
// list.
func placeholders(first, n int) string {
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("$" + strconv.Itoa(first+i))
	}
	return b.String()
}
