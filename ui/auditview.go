package ui

import (
	"bytes"
	"encoding/json"
	"slices"
)

// fieldChange is one field of an audit entry's change, as the audit page
// shows it: the value before and after, as text, and which sides exist.
type fieldChange struct {
	Field             string
	Before, After     string
	HasBefore, HasAft bool
}

// auditChanges turns an audit entry's before and after (JSON objects of the
// fields the change touched, or null) into one line per field, in name
// order: a created object has only after values, a deleted one only before
// values. A string is shown as it is, anything else as compact JSON.
func auditChanges(before, after json.RawMessage) []fieldChange {
	var b, a map[string]json.RawMessage
	json.Unmarshal(before, &b)
	json.Unmarshal(after, &a)
	var names []string
	for k := range b {
		names = append(names, k)
	}
	for k := range a {
		if _, ok := b[k]; !ok {
			names = append(names, k)
		}
	}
	slices.Sort(names)
	out := make([]fieldChange, 0, len(names))
	for _, k := range names {
		c := fieldChange{Field: k}
		if v, ok := b[k]; ok {
			c.Before, c.HasBefore = auditValue(v), true
		}
		if v, ok := a[k]; ok {
			c.After, c.HasAft = auditValue(v), true
		}
		out = append(out, c)
	}
	return out
}

// auditValue is a JSON value as text: a string unquoted, null and the
// empty string as "none", anything else compact.
func auditValue(v json.RawMessage) string {
	var s string
	if json.Unmarshal(v, &s) == nil {
		if s == "" {
			return "none"
		}
		return s
	}
	if string(v) == "null" {
		return "none"
	}
	var buf bytes.Buffer
	if json.Compact(&buf, v) == nil {
		return buf.String()
	}
	return string(v)
}
