package sqlite

import (
	"fmt"
	"strings"
)

// Rows is one row of arguments, a VALUES list of one: SQLite runs in the
// process, so a row bound to a prepared statement costs no round trip,
// and binding values costs less than any encoding of many rows in one
// argument (a VALUES list to parse, or JSON to decode value by value).
// A one-row INSERT also needs no statement journal, which an INSERT ...
// SELECT writes, a page per statement, before its first change.
func (dialect) Rows(types []string) string {
	var b strings.Builder
	b.WriteString("VALUES (")
	for i := range types {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "$%d", i+1)
	}
	b.WriteString(")")
	return b.String()
}

// RowAtATime is true: RowArgs gives the rows themselves.
func (dialect) RowAtATime() bool { return true }

// HitIDs is true: rule_hits.id is an AUTOINCREMENT key (migration 0018).
func (dialect) HitIDs() bool { return true }

// HitRows joins rule_hits' keys with their counts, in a narrow table of
// their own (migration 0023) that a fold of the flushes' batches
// rewrites (migration 0029).
func (dialect) HitRows() string { return `rule_hits JOIN rule_hit_counts USING (id)` }

// RuleCountTriggers is false: rule_counts is kept by the writers of rules
// (migration 0022 dropped the per-row triggers).
func (dialect) RuleCountTriggers() bool { return false }

// RowArgs returns the rows themselves, one argument list each.
func (dialect) RowArgs(types []string, rows [][]any) ([][]any, error) {
	for i, row := range rows {
		for j, v := range row {
			switch v.(type) {
			case string, int64:
			default:
				return nil, fmt.Errorf("row %d column %d (%s): unsupported value %T", i, j+1, types[j], v)
			}
		}
	}
	return rows, nil
}
