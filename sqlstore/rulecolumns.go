package sqlstore

import (
	"strconv"
	"strings"

	"redirects"
)

// Columns is a list of a table's columns, which its methods write into
// queries.
type Columns []string

// ruleField is one column of a rule's fields: where a scan of it writes
// (into a RuleRow) and the value a write of rule r stores.
type ruleField struct {
	col  string
	dest func(w *RuleRow) any
	val  func(r *redirects.Rule) any
}

// ruleFields is the rules table's row codec, declared once: every query of
// this package and of the dialects that reads or writes a rule's fields
// names, scans and writes them through this list (RuleColumns, RuleRow,
// RuleValues, RuleAnswerValues), in this order, so a new rule field is one
// more entry here (last; a part of the rule's key before source) and its
// column in a migration. The row's own columns (id, project_id, revision,
// match_key) are named by each query as it needs them, and created_at
// follows the fields.
var ruleFields = []ruleField{
	// The match type is read as a small integer (RuleSelect).
	{"match_type", func(w *RuleRow) any { return &w.matchType }, func(r *redirects.Rule) any { return r.MatchType.String() }},
	{"host", func(w *RuleRow) any { return &w.Rule.Host }, func(r *redirects.Rule) any { return r.Host }},
	{"source", func(w *RuleRow) any { return &w.Rule.Source }, func(r *redirects.Rule) any { return r.Source }},
	{"destination", func(w *RuleRow) any { return &w.Rule.Destination }, func(r *redirects.Rule) any { return r.Destination }},
	{"status_code", func(w *RuleRow) any { return &w.Rule.StatusCode }, func(r *redirects.Rule) any { return r.StatusCode }},
	{"priority", func(w *RuleRow) any { return &w.Rule.Priority }, func(r *redirects.Rule) any { return r.Priority }},
	{"preserve_path", func(w *RuleRow) any { return &w.Rule.PreservePath }, func(r *redirects.Rule) any { return r.PreservePath }},
	{"preserve_query", func(w *RuleRow) any { return &w.Rule.PreserveQuery }, func(r *redirects.Rule) any { return r.PreserveQuery }},
	{"query_after_fragment", func(w *RuleRow) any { return &w.Rule.QueryAfterFragment }, func(r *redirects.Rule) any { return r.QueryAfterFragment }},
	{"merge_query", func(w *RuleRow) any { return &w.Rule.MergeQuery }, func(r *redirects.Rule) any { return r.MergeQuery }},
	// exceptHosts is stored as its host keys joined by a space (Done
	// splits them).
	{"except_hosts", func(w *RuleRow) any { return &w.exceptHosts }, func(r *redirects.Rule) any { return JoinHosts(r.ExceptHosts) }},
}

// ruleKeyFields is how many of ruleFields are the rule's key (match type,
// host, source): an import matches a stored rule on them and updates the
// rest (RuleAnswer).
const ruleKeyFields = 3

var (
	// RuleColumns are the columns of ruleFields, then created_at.
	RuleColumns = append(fieldColumns(ruleFields), "created_at")
	// RuleEditable are those an update of a rule writes: all but the
	// creation time.
	RuleEditable = RuleColumns[: len(RuleColumns)-1 : len(RuleColumns)-1]
	// RuleAnswer are those an import's update of a stored rule writes:
	// what the rule answers, not the key it is found by (match type, host
	// and source), which the import matched on.
	RuleAnswer = RuleEditable[ruleKeyFields:]
)

// fieldColumns returns the columns of fields, in their order.
func fieldColumns(fields []ruleField) Columns {
	c := make(Columns, len(fields))
	for i := range fields {
		c[i] = fields[i].col
	}
	return c
}

// RuleRow is where a scan of a rule's columns (RuleSelect) writes: Dests
// returns the destinations once, each scan of a row fills Rule in place,
// and Done finishes it. Scanning a million rows into one RuleRow allocates
// nothing per row but the strings. A RuleRow is not copied once Dests was
// called: the destinations point into it.
type RuleRow struct {
	Rule               redirects.Rule
	matchType, created int64
	exceptHosts        string
	dests              []any
}

// Dests returns the scan destinations of a row whose columns are lead's,
// then RuleSelect's.
func (w *RuleRow) Dests(lead ...any) []any {
	w.dests = append(w.dests[:0], lead...)
	for i := range ruleFields {
		w.dests = append(w.dests, ruleFields[i].dest(w))
	}
	w.dests = append(w.dests, &w.created)
	return w.dests
}

// Done puts the match type and the creation time scanned into Rule.
func (w *RuleRow) Done() {
	w.Rule.MatchType = ScanMatchType(w.matchType)
	w.Rule.CreatedAt = fromNanos(w.created)
	w.Rule.ExceptHosts = SplitHosts(w.exceptHosts)
}

// JoinHosts is a list of host keys (a rule's exceptHosts) as one column
// stores it: joined by a space, which no host key holds; "" for none.
func JoinHosts(hosts []string) string { return strings.Join(hosts, " ") }

// SplitHosts reverses JoinHosts: nil for "".
func SplitHosts(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, " ")
}

// RuleValues appends the values of r's RuleColumns to dst, created (the
// creation time in unix nanoseconds) last.
func RuleValues(dst []any, r *redirects.Rule, created int64) []any {
	return append(appendFields(dst, ruleFields, r), created)
}

// RuleEditableValues appends the values of r's RuleEditable (its fields,
// without the creation time) to dst.
func RuleEditableValues(dst []any, r *redirects.Rule) []any {
	return appendFields(dst, ruleFields, r)
}

// RuleAnswerValues appends the values of r's RuleAnswer to dst.
func RuleAnswerValues(dst []any, r *redirects.Rule) []any {
	return appendFields(dst, ruleFields[ruleKeyFields:], r)
}

// ruleEditableValues appends the values of r's RuleEditable to dst.
func ruleEditableValues(dst []any, r *redirects.Rule) []any {
	return appendFields(dst, ruleFields, r)
}

func appendFields(dst []any, fields []ruleField, r *redirects.Rule) []any {
	for i := range fields {
		dst = append(dst, fields[i].val(r))
	}
	return dst
}

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
	return matchTypeCase(mt) + strings.TrimPrefix(l, mt)
}

// matchTypeCase reads the match type column mt as RuleSelect does.
func matchTypeCase(mt string) string {
	return "CASE " + mt + " WHEN 'starts_with' THEN 1 WHEN 'pattern' THEN 2 WHEN 'regex' THEN 3 ELSE 0 END"
}

// ScanMatchType returns the match type RuleSelect read as n.
func ScanMatchType(n int64) redirects.MatchType {
	if n < 0 || n > int64(redirects.Regex) {
		return redirects.Exact
	}
	return redirects.MatchType(n)
}
