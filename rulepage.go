package redirects

import (
	"encoding/base64"
	"encoding/json"
	"slices"
	"strings"
	"unicode/utf8"

	"redirects/engine/pattern"
)

// RuleFilter selects draft rules of a project. The zero value selects every
// rule.
type RuleFilter struct {
	// Query, when not "", is matched against each rule's source and
	// destination, case-sensitively (paths are): a rule matches when its
	// source or its destination holds Query as a substring. A Query that
	// ends in '*' instead matches rules whose source starts with what comes
	// before the '*' ("/blog/*": everything under /blog/), which the stores
	// answer from the source index, so it stays fast on large projects. A
	// '*' anywhere else is an ordinary character.
	Query string
	// MatchType, when not nil, keeps only the rules of that match type.
	MatchType *MatchType
	// StatusCode, when not 0, keeps only the rules with that status.
	StatusCode int
	// Host, when not nil, keeps only the rules scoped to that host (its
	// host key, docs/contract.md#hosts); a pointer to "" keeps the
	// host-less rules.
	Host *string
}

// MaxQueryLen is the longest RuleFilter.Query: longer than any source or
// destination could match.
const MaxQueryLen = MaxSourceLen + 1

// Validate checks a filter and returns an EINVALID *Error naming what is
// wrong. It puts Host in its host key form, the form rules store.
func (f *RuleFilter) Validate() error {
	if len(f.Query) > MaxQueryLen {
		return Errorf(EINVALID, "search query is %d bytes long, more than the %d allowed", len(f.Query), MaxQueryLen)
	}
	if !validText(f.Query) {
		return Errorf(EINVALID, "search query %s is not valid UTF-8 or holds a NUL byte", quoteShort(f.Query))
	}
	if f.MatchType != nil && *f.MatchType > Regex {
		return Errorf(EINVALID, "matchType %d is not one of exact, starts_with, pattern, regex", *f.MatchType)
	}
	if f.Host != nil && *f.Host != "" {
		k, ok := pattern.HostKey(*f.Host)
		if !ok {
			return Errorf(EINVALID, "host %s is not a host name, or \"*.\" and a host name", quoteShort(*f.Host))
		}
		f.Host = &k
	}
	if f.StatusCode != 0 && !ValidStatus(f.StatusCode) {
		return Errorf(EINVALID, "status %d is not one of 301, 302, 303, 307, 308, 410", f.StatusCode)
	}
	return nil
}

// validText reports whether s can be stored and compared by every store:
// valid UTF-8 without NUL bytes (PostgreSQL refuses both).
func validText(s string) bool {
	return strings.IndexByte(s, 0) < 0 && utf8.ValidString(s)
}

// Prefix returns the source prefix a Query ending in '*' asks for, and
// whether it does.
func (f *RuleFilter) Prefix() (string, bool) {
	if strings.HasSuffix(f.Query, "*") {
		return f.Query[:len(f.Query)-1], true
	}
	return "", false
}

// Match reports whether r passes the filter. It is the definition that the
// stores' queries implement.
func (f *RuleFilter) Match(r *Rule) bool {
	if f.MatchType != nil && r.MatchType != *f.MatchType {
		return false
	}
	if f.StatusCode != 0 && r.StatusCode != f.StatusCode {
		return false
	}
	if f.Host != nil && r.Host != *f.Host {
		return false
	}
	if p, ok := f.Prefix(); ok {
		return strings.HasPrefix(r.Source, p)
	}
	if f.Query != "" {
		return strings.Contains(r.Source, f.Query) || strings.Contains(r.Destination, f.Query)
	}
	return true
}

// RuleSort is the order of a rule page. Every order ends with the rule ID,
// which is unique, so an order is total and a cursor names one place in it.
type RuleSort string

// The orders of a rule page. A '-' reverses an order.
const (
	// SortSource orders by source, then ID (an exact and a starts_with
	// rule may share a source). It is the default.
	SortSource     RuleSort = "source"
	SortSourceDesc RuleSort = "-source"
	// SortID orders by ID, which is creation order.
	SortID     RuleSort = "id"
	SortIDDesc RuleSort = "-id"
	// SortPriority orders by priority, then ID.
	SortPriority     RuleSort = "priority"
	SortPriorityDesc RuleSort = "-priority"
)

// ParseRuleSort parses the name of an order: source, id, priority, each
// optionally with a leading '-' for the reverse; "created" is another name
// for "id". The empty string is the default order, source.
func ParseRuleSort(s string) (RuleSort, error) {
	switch s {
	case "":
		return SortSource, nil
	case "created":
		return SortID, nil
	case "-created":
		return SortIDDesc, nil
	}
	switch o := RuleSort(s); o {
	case SortSource, SortSourceDesc, SortID, SortIDDesc, SortPriority, SortPriorityDesc:
		return o, nil
	}
	return "", Errorf(EINVALID, "sort %q is not one of source, -source, id, -id, created, -created, priority, -priority", s)
}

// Desc reports whether the order is descending.
func (o RuleSort) Desc() bool { return strings.HasPrefix(string(o), "-") }

// Key returns the order's first key, "source", "id" or "priority": also the
// name of the column the stores sort on.
func (o RuleSort) Key() string { return strings.TrimPrefix(string(o), "-") }

// Less reports whether a comes before b in the order.
func (o RuleSort) Less(a, b *Rule) bool {
	var c int
	switch o.Key() {
	case "source":
		c = strings.Compare(a.Source, b.Source)
	case "priority":
		c = cmpInt(int64(a.Priority), int64(b.Priority))
	}
	if c == 0 {
		c = cmpInt(a.ID, b.ID)
	}
	if o.Desc() {
		return c > 0
	}
	return c < 0
}

// MergeRules merges lists of rules, each in order o, into the first n
// rules in order o. Stores use it to answer the source order from the
// source index of each match type.
func MergeRules(o RuleSort, n int, lists ...[]Rule) []Rule {
	var out []Rule
	for _, l := range lists {
		out = append(out, l...)
	}
	slices.SortFunc(out, func(a, b Rule) int {
		if o.Less(&a, &b) {
			return -1
		} else if o.Less(&b, &a) {
			return 1
		}
		return 0
	})
	if len(out) > n {
		out = out[:n]
	}
	return out
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Page sizes of a rule page.
const (
	DefaultRuleLimit = 50
	MaxRuleLimit     = 1000
)

// RulePageQuery asks for one page of a project's draft rules.
type RulePageQuery struct {
	Filter RuleFilter
	// Sort is the order; "" is SortSource.
	Sort RuleSort
	// Limit is the most rules on the page: 0 is DefaultRuleLimit, and it
	// may not exceed MaxRuleLimit.
	Limit int
	// After is the Next of the previous page, or "" for the first page.
	After string
}

// Normalize checks a query and fills in its defaults: the sort, the limit,
// and the decoded cursor. Errors: EINVALID naming what is wrong.
func (q *RulePageQuery) Normalize() (*RuleCursor, error) {
	if err := q.Filter.Validate(); err != nil {
		return nil, err
	}
	sort, err := ParseRuleSort(string(q.Sort))
	if err != nil {
		return nil, err
	}
	q.Sort = sort
	switch {
	case q.Limit == 0:
		q.Limit = DefaultRuleLimit
	case q.Limit < 0 || q.Limit > MaxRuleLimit:
		return nil, Errorf(EINVALID, "limit %d is outside 1..%d", q.Limit, MaxRuleLimit)
	}
	if q.After == "" {
		return nil, nil
	}
	return DecodeRuleCursor(q.After, q.Sort)
}

// RulePage is one page of draft rules.
type RulePage struct {
	Rules []Rule
	// Next is the cursor of the following page, or "" when this page is the
	// last.
	Next string
	// Total counts every rule that the filter selects, on every page.
	Total int
	// Hits are the hits of the page's rules that have any, by match type
	// and source (see HitIndex): the service layer reads them with the
	// page (RuleService.FindRulePage); a store leaves them nil.
	Hits []RuleHits
}

// RuleCursor is a decoded page cursor: the sort keys of the last rule of a
// page. A page after it holds the rules that come strictly after that rule
// in the cursor's order, so rules added or deleted between two requests
// never make a page repeat or skip a rule that was there all along.
type RuleCursor struct {
	Sort RuleSort
	// Source is the last rule's source, for the source orders.
	Source string
	// Priority is the last rule's priority, for the priority orders.
	Priority int
	// ID is the last rule's ID.
	ID int64
}

// cursorJSON is a cursor's encoded form, before base64.
type cursorJSON struct {
	Sort     RuleSort `json:"o"`
	Source   string   `json:"s,omitempty"`
	Priority int      `json:"p,omitempty"`
	ID       int64    `json:"i"`
}

// CursorAfter returns the cursor of the page that follows r in order o.
func CursorAfter(o RuleSort, r *Rule) string {
	c := cursorJSON{Sort: o, ID: r.ID}
	switch o.Key() {
	case "source":
		c.Source = r.Source
	case "priority":
		c.Priority = r.Priority
	}
	b, _ := json.Marshal(c) // cannot fail: strings and numbers only
	return base64.RawURLEncoding.EncodeToString(b)
}

// DecodeRuleCursor decodes a cursor made by CursorAfter for order o.
// Errors: EINVALID when the cursor is malformed or was made for another
// order.
func DecodeRuleCursor(s string, o RuleSort) (*RuleCursor, error) {
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || len(s) > 4*MaxSourceLen {
		return nil, Errorf(EINVALID, "cursor %s is malformed: pass the next cursor of a previous page unchanged", quoteShort(s))
	}
	var c cursorJSON
	if err := json.Unmarshal(b, &c); err != nil || c.ID <= 0 || !validText(c.Source) {
		return nil, Errorf(EINVALID, "cursor %s is malformed: pass the next cursor of a previous page unchanged", quoteShort(s))
	}
	if c.Sort != o {
		return nil, Errorf(EINVALID, "cursor %s was made for sort %q, not %q: start again without a cursor", quoteShort(s), c.Sort, o)
	}
	return &RuleCursor{Sort: c.Sort, Source: c.Source, Priority: c.Priority, ID: c.ID}, nil
}

// RuleUpdate lists the fields of a draft rule to change; nil leaves a field
// as it is.
type RuleUpdate struct {
	Source      *string
	Destination *string
	StatusCode  *int
	MatchType   *MatchType
	Priority    *int
	// PreservePath and PreserveQuery, when set, change the rule's options
	// (docs/contract.md#rule-options); nil keeps them, so a client that
	// does not know them changes nothing it does not name.
	PreservePath  *bool
	PreserveQuery *bool
	// QueryAfterFragment, when set, changes the rule's queryAfterFragment;
	// nil keeps it.
	QueryAfterFragment *bool
	// MergeQuery, when set, changes the rule's mergeQuery; nil keeps it.
	MergeQuery *bool
	// Host, when set, changes the host the rule is scoped to
	// (docs/contract.md#hosts); a pointer to "" makes it answer every host.
	Host *string
	// ExceptHosts, when set, changes the rule's exceptHosts
	// (docs/contract.md#hosts); a pointer to an empty list clears them.
	ExceptHosts *[]string
	// Revision, when not 0, is the revision the caller last read: the
	// update is made only if the rule is still at that revision, and fails
	// with EREVISION otherwise (optimistic concurrency).
	Revision int64
}

// Empty reports whether u changes no field.
func (u *RuleUpdate) Empty() bool {
	return u.Source == nil && u.Destination == nil && u.StatusCode == nil && u.MatchType == nil && u.Priority == nil &&
		u.PreservePath == nil && u.PreserveQuery == nil && u.QueryAfterFragment == nil && u.MergeQuery == nil && u.Host == nil &&
		u.ExceptHosts == nil
}

// Apply changes r as u says. It neither validates r nor touches its revision.
func (u *RuleUpdate) Apply(r *Rule) {
	if u.Source != nil {
		r.Source = *u.Source
	}
	if u.Destination != nil {
		r.Destination = *u.Destination
	}
	if u.StatusCode != nil {
		r.StatusCode = *u.StatusCode
	}
	if u.MatchType != nil {
		r.MatchType = *u.MatchType
	}
	if u.Priority != nil {
		r.Priority = *u.Priority
	}
	if u.PreservePath != nil {
		r.PreservePath = *u.PreservePath
	}
	if u.PreserveQuery != nil {
		r.PreserveQuery = *u.PreserveQuery
	}
	if u.QueryAfterFragment != nil {
		r.QueryAfterFragment = *u.QueryAfterFragment
	}
	if u.MergeQuery != nil {
		r.MergeQuery = *u.MergeQuery
	}
	if u.Host != nil {
		r.Host = *u.Host
	}
	if u.ExceptHosts != nil {
		r.ExceptHosts = slices.Clone(*u.ExceptHosts)
	}
}

// RuleChanges returns the update that turns cur into want: each field of
// a rule's that want has otherwise than cur (its revision left 0).
func RuleChanges(cur, want *Rule) RuleUpdate {
	var u RuleUpdate
	if want.Source != cur.Source {
		u.Source = &want.Source
	}
	if want.Destination != cur.Destination {
		u.Destination = &want.Destination
	}
	if want.StatusCode != cur.StatusCode {
		u.StatusCode = &want.StatusCode
	}
	if want.MatchType != cur.MatchType {
		u.MatchType = &want.MatchType
	}
	if want.Priority != cur.Priority {
		u.Priority = &want.Priority
	}
	if want.PreservePath != cur.PreservePath {
		u.PreservePath = &want.PreservePath
	}
	if want.PreserveQuery != cur.PreserveQuery {
		u.PreserveQuery = &want.PreserveQuery
	}
	if want.QueryAfterFragment != cur.QueryAfterFragment {
		u.QueryAfterFragment = &want.QueryAfterFragment
	}
	if want.MergeQuery != cur.MergeQuery {
		u.MergeQuery = &want.MergeQuery
	}
	if want.Host != cur.Host {
		u.Host = &want.Host
	}
	if !slices.Equal(want.ExceptHosts, cur.ExceptHosts) {
		hs := slices.Clone(want.ExceptHosts)
		if hs == nil {
			hs = []string{}
		}
		u.ExceptHosts = &hs
	}
	return u
}

// CheckRevision returns nil if a rule at revision current may be changed
// by a caller that expects revision want (0: any), else an EREVISION error.
func CheckRevision(ruleID, current, want int64) error {
	if want < 0 {
		return Errorf(EINVALID, "revision %d is not a positive whole number", want)
	}
	if want != 0 && want != current {
		return Errorf(EREVISION, "rule %d is at revision %d, not %d: it changed since it was read; read it again", ruleID, current, want)
	}
	return nil
}
