package sqlstore

import (
	"strconv"
	"strings"
)

// Columns is a list of a table's columns, which its methods write into
// queries.
type Columns []string

// The rules table's columns of a rule's fields, declared once: every query
// of this package and of the dialects that reads or writes rules names them
// through these lists, in this order, so a new rule field is one more
// column here (before created_at) and its value where each query reads or
// writes it. The row's own columns (id, project_id, revision, match_key)
// are named by each query as it needs them.
var (
	// RuleColumns are all of them.
	RuleColumns = Columns{"match_type", "source", "destination", "status_code", "priority", "preserve_path", "preserve_query", "created_at"}
	// RuleEditable are those an update of a rule writes: all but the
	// creation time.
	RuleEditable = RuleColumns[: len(RuleColumns)-1 : len(RuleColumns)-1]
	// RuleAnswer are those an import's update of a stored rule writes:
	// what the rule answers, not the key it is found by (match type and
	// source), which the import matched on.
	RuleAnswer = RuleEditable[2:]
)

// List writes the columns comma-separated, each prefixed with alias and a
// dot unless alias is "": for a SELECT, an INSERT or a USING list.
func (c Columns) List(alias string) string {
	var b strings.Builder
	for i, col := range c {
		if i > 0 {
			b.WriteString(", ")
		}
		if alias != "" {
			b.WriteString(alias + ".")
		}
		b.WriteString(col)
	}
	return b.String()
}

// Set writes the assignments of an UPDATE of the columns from the
// parameters $first, $first+1, ...
func (c Columns) Set(first int) string {
	var b strings.Builder
	for i, col := range c {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(col + " = $" + strconv.Itoa(first+i))
	}
	return b.String()
}

// SetFrom writes the assignments of an UPDATE of the columns from the
// columns of the same names of alias (a joined table of new values).
func (c Columns) SetFrom(alias string) string {
	var b strings.Builder
	for i, col := range c {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(col + " = " + alias + "." + col)
	}
	return b.String()
}

// RuleSelect writes RuleColumns for a SELECT, each prefixed with alias and
// a dot unless alias is "", with the match type read as a boolean (true
// for starts_with): scanning it spares a string per row, which a
// million-rule read would otherwise allocate.
func RuleSelect(alias string) string {
	l := RuleColumns.List(alias)
	mt := "match_type"
	if alias != "" {
		mt = alias + "." + mt
	}
	return mt + " = 'starts_with'" + strings.TrimPrefix(l, mt)
}
