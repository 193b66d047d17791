package postgres

import (
	"fmt"
	"strings"
)

// Rows reads the rows from one array argument per column, each column's
// unnest in the select list: they run side by side, row by row, in the
// arrays' order, as the rows go into the statement, so every writer that
// sorts its rows the same way locks them in the same order. pgx sends the
// arrays in binary, with no statement text per row, and its statement
// cache keeps the statement prepared. (unnest in FROM, WITH ORDINALITY
// and an ORDER BY, did the same at more of the backend's CPU: a function
// in FROM stores all its rows first, spilling past work_mem to a
// temporary file, and the ORDER BY sorted them again.)
func (dialect) Rows(types []string) string {
	var b strings.Builder
	b.WriteString("SELECT ")
	for i, t := range types {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "unnest($%d::%s[])", i+1, t)
	}
	return b.String()
}

// arrayRows is how many rows one argument list of RowArgs carries: a
// flush of many counters is a few round trips, and none of them holds its
// row locks long.
const arrayRows = 10_000

// RowAtATime is false: RowArgs gives arrays of many rows.
func (dialect) RowAtATime() bool { return false }

// HitIDs is false: a flush of rows a node has flushed before appends
// them as one batch (rule_hit_batches, migration 0025) that a fold adds
// to rule_hits later, each row once for many batches; the others are
// upserted by key (sqlstore.addHitsByBatch). An UPDATE of each row at
// each flush cost the backends a new row version and its WAL per row and
// flush.
func (dialect) HitIDs() bool { return false }

// HitRows joins rule_hits' keys with their counts, which a fold rewrites
// in a narrow table of their own (migration 0025; FindHits folds the
// pending batches first).
func (dialect) HitRows() string { return `rule_hits JOIN rule_hit_counts USING (id)` }

// RuleCountTriggers is true: statement-level triggers keep rule_counts
// (migration 0003).
func (dialect) RuleCountTriggers() bool { return true }

// RowArgs turns each arrayRows rows into one slice per column: []string
// for TEXT, []int64 for BIGINT.
func (d dialect) RowArgs(types []string, rows [][]any) ([][]any, error) {
	var lists [][]any
	for start := 0; start < len(rows); start += arrayRows {
		args, err := d.arrays(types, rows[start:min(start+arrayRows, len(rows))], start)
		if err != nil {
			return nil, err
		}
		lists = append(lists, args)
	}
	return lists, nil
}

func (dialect) arrays(types []string, rows [][]any, first int) ([]any, error) {
	args := make([]any, len(types))
	for j, t := range types {
		switch t {
		case "TEXT":
			col := make([]string, len(rows))
			for i, row := range rows {
				s, ok := row[j].(string)
				if !ok {
					return nil, fmt.Errorf("row %d column %d (TEXT): unsupported value %T", first+i, j+1, row[j])
				}
				col[i] = s
			}
			args[j] = col
		case "BIGINT":
			col := make([]int64, len(rows))
			for i, row := range rows {
				switch v := row[j].(type) {
				case int64:
					col[i] = v
				default:
					return nil, fmt.Errorf("row %d column %d (BIGINT): unsupported value %T", first+i, j+1, row[j])
				}
			}
			args[j] = col
		default:
			return nil, fmt.Errorf("column %d: unsupported type %s", j+1, t)
		}
	}
	return args, nil
}
