package sqlstore

import (
	"strconv"
	"strings"

	"redirects"
)

// Columns is a list of a table's columns, which its methods write into
// queries.
type Columns []string

// The rules table's columns of a rule's fields, declared once: every query
// of this package and of the dialects that reads or writes rules names them
// through these lists, in this order, so a new rule field is one more
// column here (before created_at; a part of the rule's key before source)
// and its value where each query reads or writes it. The row's own columns
// (id, project_id, revision, match_key) are named by each query as it needs
// them.
var (
	// RuleColumns are all of them.
	RuleColumns = Columns{"match_type", "host", "source", "destination", "status_code", "priority", "preserve_path", "preserve_query", "created_at"}
	// RuleEditable are those an update of a rule writes: all but the
	// creation time.
	RuleEditable = RuleColumns[: len(RuleColumns)-1 : len(RuleColumns)-1]
	// RuleAnswer are those an import's update of a stored rule writes:
	// what the rule answers, not the key it is found by (match type, host
	// and source), which the import matched on.
	RuleAnswer = RuleEditable[3:]
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
// a dot unless alias is "", with the match type read as a small integer
// (redirects.MatchType: 0 exact, 1 starts_with, 2 pattern, 3 regex):
// scanning it spares a string per row, which a million-rule read would
// otherwise allocate. ScanMatchType converts it.
func RuleSelect(alias string) string {
	l := RuleColumns.List(alias)
	mt := "match_type"
	if alias != "" {
		mt = alias + "." + mt
	}
	return "CASE " + mt + " WHEN 'starts_with' THEN 1 WHEN 'pattern' THEN 2 WHEN 'regex' THEN 3 ELSE 0 END" + strings.TrimPrefix(l, mt)
}

// ScanMatchType returns the match type RuleSelect read as n.
func ScanMatchType(n int64) redirects.MatchType {
	if n < 0 || n > int64(redirects.Regex) {
		return redirects.Exact
	}
	return redirects.MatchType(n)
}
