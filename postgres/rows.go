package postgres

import (
	"fmt"
	"strings"
)

// Rows reads the rows from one array argument per column with unnest,
// in their order (WITH ORDINALITY numbers them): pgx sends the arrays in
// binary, with no statement text per row, and its statement cache keeps
// the statement prepared.
func (dialect) Rows(types []string) string {
	var b strings.Builder
	b.WriteString("SELECT ")
	for i := range types {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "u.c%d", i+1)
	}
	b.WriteString(" FROM unnest(")
	for i, t := range types {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "$%d::%s[]", i+1, t)
	}
	b.WriteString(") WITH ORDINALITY AS u(")
	for i := range types {
		fmt.Fprintf(&b, "c%d, ", i+1)
	}
	b.WriteString("n) ORDER BY u.n")
	return b.String()
}

// arrayRows is how many rows one argument list of RowArgs carries: a
// flush of many counters is a few round trips, and none of them holds its
// row locks long.
const arrayRows = 10_000

// RowAtATime is false: RowArgs gives arrays of many rows.
func (dialect) RowAtATime() bool { return false }

// HitIDs is false: a flush sends arrays of keys (Rows), and an id would
// save the backends nothing of what an UPDATE costs them (a new row
// version and its WAL).
func (dialect) HitIDs() bool { return false }

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
