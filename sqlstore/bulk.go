package sqlstore

import (
	"context"
	"fmt"
	"strconv"
	"strings"
)

// bulkRows is how many rows one statement of bulk carries: a few thousand
// arguments, far below both engines' limits (SQLite 32766, PostgreSQL
// 65535), and few round trips for a flush of many counters.
const bulkRows = 500

// bulk runs query once per bulkRows rows, in order. Its %s stands for a
// VALUES list of those rows, each value cast to its column's type in
// types (both engines call the columns column1, column2, ...), with one
// more column, the row's position in rows, for an ORDER BY that makes
// every writer lock rows in the same order.
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
