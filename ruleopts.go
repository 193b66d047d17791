package redirects

import (
	"strconv"
	"strings"
)

// Rule options and project settings (docs/contract.md#rule-options): what a
// lookup answers beyond "the destination as configured", and how a path is
// compared with the sources. A project that uses none of them answers as
// docs/contract.md says, byte for byte.

// StatusGone is the status of a rule that answers "this page is gone": it
// has no destination and no options.
const StatusGone = 410

// StatusCodes lists the statuses a rule may have, in the order the API, the
// CLI and the dashboard name them.
var StatusCodes = []int{301, 302, 303, 307, 308, StatusGone}

// ValidStatus reports whether code is one of StatusCodes.
func ValidStatus(code int) bool {
	switch code {
	case 301, 302, 303, 307, 308, StatusGone:
		return true
	}
	return false
}

// Settings are a project's matching settings. The zero value is the
// default, which compares as docs/contract.md does: case sensitively, with a trailing
// slash significant. A deploy freezes the project's settings into the
// deployment, so a lookup answers with the settings of the version it
// answers from.
type Settings struct {
	// CaseInsensitive compares the ASCII letters of sources and paths
	// without regard to case (other bytes exactly). The API's caseSensitive
	// is its negation.
	CaseInsensitive bool
	// IgnoreTrailingSlash is the API's trailingSlash "ignore": an exact
	// source matches the path with and without one trailing '/' (the root
	// aside), and a starts_with source ending in '/' also matches the path
	// that is the source without it.
	IgnoreTrailingSlash bool
}

// Names of the trailingSlash setting's values.
const (
	TrailingSlashExact  = "exact"
	TrailingSlashIgnore = "ignore"
)

// CaseSensitive returns the API's caseSensitive: the negation of
// CaseInsensitive.
func (s Settings) CaseSensitive() bool { return !s.CaseInsensitive }

// TrailingSlash returns the API's trailingSlash: "exact" or "ignore".
func (s Settings) TrailingSlash() string {
	if s.IgnoreTrailingSlash {
		return TrailingSlashIgnore
	}
	return TrailingSlashExact
}

// IsDefault reports whether s are the default settings.
func (s Settings) IsDefault() bool { return s == Settings{} }

// ParseTrailingSlash parses the trailingSlash setting: "exact" or "ignore".
// It returns IgnoreTrailingSlash.
func ParseTrailingSlash(v string) (bool, error) {
	switch v {
	case TrailingSlashExact:
		return false, nil
	case TrailingSlashIgnore:
		return true, nil
	}
	return false, Errorf(EINVALID, "trailingSlash %s is not one of exact, ignore", quoteShort(v))
}

// String describes the settings for people: "caseSensitive=true
// trailingSlash=exact".
func (s Settings) String() string {
	cs := "true"
	if s.CaseInsensitive {
		cs = "false"
	}
	return "caseSensitive=" + cs + " trailingSlash=" + s.TrailingSlash()
}

// FoldCase returns p as the settings compare its letters: p with ASCII
// upper-case letters made lower-case when the settings ignore case, p itself
// otherwise. It allocates only when it changes something.
func (s Settings) FoldCase(p string) string {
	if !s.CaseInsensitive {
		return p
	}
	for i := 0; i < len(p); i++ {
		if c := p[i]; 'A' <= c && c <= 'Z' {
			b := []byte(p)
			for j := i; j < len(b); j++ {
				if c := b[j]; 'A' <= c && c <= 'Z' {
					b[j] = c + 'a' - 'A'
				}
			}
			return string(b)
		}
	}
	return p
}

// TrimSlash returns p without one trailing '/' when the settings ignore a
// trailing slash and p is longer than the root "/"; p itself otherwise.
func (s Settings) TrimSlash(p string) string {
	if s.IgnoreTrailingSlash && len(p) > 1 && p[len(p)-1] == '/' {
		return p[:len(p)-1]
	}
	return p
}

// Key returns the form a decoded path or source takes in the comparisons of
// exact matching, and under which hits and misses are counted: case folded
// and one trailing slash trimmed as the settings say. Two sources of one
// match type clash when their keys are equal.
func (s Settings) Key(p string) string {
	return s.FoldCase(s.TrimSlash(p))
}

// SplitDestination splits a destination into its path part, its query (what
// follows the first '?' before the fragment, without the '?') and its
// fragment (from the first '#', the '#' included). An empty query counts as
// none, so hasQuery reports a non-empty one.
func SplitDestination(d string) (path, query, fragment string) {
	if i := strings.IndexByte(d, '#'); i >= 0 {
		d, fragment = d[:i], d[i:]
	}
	if i := strings.IndexByte(d, '?'); i >= 0 {
		d, query = d[:i], d[i+1:]
	}
	return d, query, fragment
}

// RequestQuery returns the query of a requested path in its wire form (the
// lookup's path parameter as given): what lies between its first '?' and the
// first '#' after it, "" when there is none or when a '#' comes before the
// first '?'.
func RequestQuery(wire string) string {
	q := strings.IndexByte(wire, '?')
	if q < 0 {
		return ""
	}
	if f := strings.IndexByte(wire[:q], '#'); f >= 0 {
		return ""
	}
	rest := wire[q+1:]
	if f := strings.IndexByte(rest, '#'); f >= 0 {
		rest = rest[:f]
	}
	return rest
}

// WirePath returns the path of a requested path in its wire form: wire up to
// its first '?' or '#'.
func WirePath(wire string) string {
	for i := 0; i < len(wire); i++ {
		if wire[i] == '?' || wire[i] == '#' {
			return wire[:i]
		}
	}
	return wire
}

// WireRest returns what follows the first n decoded bytes of the requested
// path, in the wire form the client sent: each %XX escape counts as the one
// byte it decodes to, so the rest starts on an escape's boundary. It is ""
// when the decoded path holds n bytes or fewer. wire may carry a query and a
// fragment; they are not part of the rest.
func WireRest(wire string, n int) string {
	p := WirePath(wire)
	i := 0
	for ; n > 0 && i < len(p); n-- {
		if p[i] == '%' && i+2 < len(p) {
			i += 3
		} else {
			i++
		}
	}
	if i >= len(p) {
		return ""
	}
	return p[i:]
}

// AppendTarget appends to b the destination a lookup answers when rule r
// matched the requested path wire (its wire form, query and fragment
// included) with a source of matched decoded bytes (docs/contract.md#rule-
// options): for a 410 nothing; with nothing to append (no preservePath rest,
// no request query to pass on) the destination as configured; otherwise the
// destination's path part, the rest of the requested path, the query (the
// destination's, '&', the request's; or either alone) and the fragment, or
// with queryAfterFragment the destination's query, the fragment and then
// the request's query (AppendAfterFragment), or with mergeQuery the
// destination's query and the request's parameters it does not name
// (AppendMergedQuery) before the fragment. An absolute destination
// without a path gets the path "/" before a rest.
func AppendTarget(b []byte, r *Rule, wire string, matched int) []byte {
	if r.StatusCode == StatusGone {
		return b
	}
	var rest, reqQuery string
	if r.PreservePath && r.MatchType == StartsWith {
		rest = WireRest(wire, matched)
	}
	if r.PreserveQuery {
		reqQuery = RequestQuery(wire)
	}
	if r.MergeQuery && reqQuery != "" {
		// No parameter to merge appends nothing.
		_, query, _ := SplitDestination(r.Destination)
		if p, _ := NextMergedParam(query, reqQuery); p == "" {
			reqQuery = ""
		}
	}
	if rest == "" && reqQuery == "" {
		return append(b, r.Destination...)
	}
	path, query, fragment := SplitDestination(r.Destination)
	b = append(b, path...)
	if rest != "" {
		if !strings.HasPrefix(path, "/") && !hasHostPath(path) {
			b = append(b, '/')
		}
		b = append(b, rest...)
	}
	if r.QueryAfterFragment {
		if query != "" {
			b = append(b, '?')
			b = append(b, query...)
		}
		b = append(b, fragment...)
		return AppendAfterFragment(b, r.Destination, reqQuery)
	}
	if r.MergeQuery {
		b = AppendMergedQuery(b, query, reqQuery)
		return append(b, fragment...)
	}
	switch {
	case query != "" && reqQuery != "":
		b = append(b, '?')
		b = append(b, query...)
		b = append(b, '&')
		b = append(b, reqQuery...)
	case query != "":
		b = append(b, '?')
		b = append(b, query...)
	case reqQuery != "":
		b = append(b, '?')
		b = append(b, reqQuery...)
	}
	return append(b, fragment...)
}

// AppendAfterFragment appends to b, which ends with a destination's
// fragment, the request's query reqQuery as queryAfterFragment puts it
// (docs/contract.md#rule-options): nothing when reqQuery is empty, else '&'
// and reqQuery when dest (the rule's destination as written, before any
// capture is inserted) holds a '?' anywhere, '?' and reqQuery otherwise, as
// nginx's rewrite appends the request's arguments.
func AppendAfterFragment(b []byte, dest, reqQuery string) []byte {
	if reqQuery == "" {
		return b
	}
	if strings.IndexByte(dest, '?') >= 0 {
		b = append(b, '&')
	} else {
		b = append(b, '?')
	}
	return append(b, reqQuery...)
}

// AppendMergedQuery appends to b the query of a mergeQuery answer
// (docs/contract.md#rule-options), its '?' included: query (the
// destination's, captures inserted, without its '?') and then, each after
// '&', the parameters of the request's query reqQuery whose names query
// does not hold, in the request's order, byte for byte. A parameter is a
// non-empty piece of a query between '&'s (empty pieces of reqQuery are
// dropped), its name its text before its first '=' (all of it without
// one), compared byte for byte as written. With query empty it is the
// kept parameters alone; with neither, nothing (no '?').
func AppendMergedQuery(b []byte, query, reqQuery string) []byte {
	sep := byte('?')
	if query != "" {
		b = append(b, '?')
		b = append(b, query...)
		sep = '&'
	}
	for reqQuery != "" {
		var p string
		p, reqQuery = NextMergedParam(query, reqQuery)
		if p == "" {
			break
		}
		b = append(b, sep)
		b = append(b, p...)
		sep = '&'
	}
	return b
}

// NextMergedParam returns the first parameter of the request's query
// reqQuery that a mergeQuery answer keeps after the destination's query
// query (AppendMergedQuery): a non-empty piece whose name query does not
// hold; and what of reqQuery follows it. param is "" when none remains.
func NextMergedParam(query, reqQuery string) (param, rest string) {
	for reqQuery != "" {
		p := reqQuery
		if i := strings.IndexByte(reqQuery, '&'); i >= 0 {
			p, reqQuery = reqQuery[:i], reqQuery[i+1:]
		} else {
			reqQuery = ""
		}
		if p != "" && !QueryHoldsName(query, ParamName(p)) {
			return p, reqQuery
		}
	}
	return "", ""
}

// ParamName returns the name of a query parameter p: its text before its
// first '=', all of it without one, as written (nothing is decoded).
func ParamName(p string) string {
	if i := strings.IndexByte(p, '='); i >= 0 {
		return p[:i]
	}
	return p
}

// QueryHoldsName reports whether query (without its '?') holds a
// non-empty parameter named name, compared byte for byte.
func QueryHoldsName(query, name string) bool {
	for query != "" {
		p := query
		if i := strings.IndexByte(query, '&'); i >= 0 {
			p, query = query[:i], query[i+1:]
		} else {
			query = ""
		}
		if p != "" && ParamName(p) == name {
			return true
		}
	}
	return false
}

// Target returns AppendTarget's destination as a string.
func Target(r *Rule, wire string, matched int) string {
	return string(AppendTarget(nil, r, wire, matched))
}

// hasHostPath reports whether an absolute URL's path part (scheme and host
// included) has a path: a '/' after the "scheme://".
func hasHostPath(u string) bool {
	i := strings.Index(u, "://")
	if i < 0 {
		return true
	}
	return strings.IndexByte(u[i+3:], '/') >= 0
}

// Matches reports whether rule r's source matches the decoded path p under
// settings s (docs/contract.md#rule-options), and how many decoded bytes
// of p the source covers (what preservePath keeps after). It is the
// definition, by comparison with one rule; the engine answers the same with
// an index.
func (s Settings) Matches(r *Rule, p string) (matched int, ok bool) {
	if r.MatchType == StartsWith {
		src, fp := s.FoldCase(r.Source), s.FoldCase(p)
		if strings.HasPrefix(fp, src) {
			return len(src), true
		}
		if s.IgnoreTrailingSlash && len(src) > 1 && src[len(src)-1] == '/' && fp == src[:len(src)-1] {
			return len(fp), true
		}
		return 0, false
	}
	if s.Key(r.Source) == s.Key(p) {
		return len(p), true
	}
	return 0, false
}

// CheckOptions checks the fields of r that depend on each other: a 410 has
// no destination and no option, every other status a destination;
// preservePath is for starts_with rules only; queryAfterFragment goes with
// preserveQuery and a destination with a fragment; mergeQuery with
// preserveQuery and a destination with a query. The errors name the field.
func (r *Rule) CheckOptions() error {
	if r.StatusCode == StatusGone {
		switch {
		case r.Destination != "":
			return Errorf(EINVALID, "destination must be empty for statusCode 410 (Gone), got %s", quoteShort(r.Destination))
		case r.PreservePath:
			return Errorf(EINVALID, "preservePath does not apply to statusCode 410 (Gone), which has no destination")
		case r.PreserveQuery:
			return Errorf(EINVALID, "preserveQuery does not apply to statusCode 410 (Gone), which has no destination")
		case r.QueryAfterFragment:
			return Errorf(EINVALID, "queryAfterFragment does not apply to statusCode 410 (Gone), which has no destination")
		case r.MergeQuery:
			return Errorf(EINVALID, "mergeQuery does not apply to statusCode 410 (Gone), which has no destination")
		}
		return nil
	}
	if err := r.checkQueryAfterFragment(); err != nil {
		return err
	}
	if err := r.checkMergeQuery(); err != nil {
		return err
	}
	if r.PreservePath && r.MatchType != StartsWith {
		if r.MatchType == Pattern {
			return Errorf(EINVALID, "preservePath applies to starts_with rules only; this rule's matchType is pattern, where a splat (/*) keeps the rest of the path: /old/* -> /new/:splat")
		}
		return Errorf(EINVALID, "preservePath applies to starts_with rules only; this rule's matchType is %s", r.MatchType)
	}
	return nil
}

// checkQueryAfterFragment refuses queryAfterFragment where it does not
// apply: without preserveQuery, or on a destination without a fragment.
func (r *Rule) checkQueryAfterFragment() error {
	if !r.QueryAfterFragment {
		return nil
	}
	if !r.PreserveQuery {
		return Errorf(EINVALID, "queryAfterFragment applies with preserveQuery only: it says where the request's query goes, and this rule does not pass it on")
	}
	if strings.IndexByte(r.Destination, '#') < 0 {
		return Errorf(EINVALID, "queryAfterFragment applies to a destination with a fragment only; destination %s has no '#'", quoteShort(r.Destination))
	}
	if EmptyQueryBeforeFragment(r.Destination) {
		return Errorf(EINVALID, "queryAfterFragment does not apply to a destination whose query before its fragment is empty ('?#'): destination %s; remove the '?' or write a query", quoteShort(r.Destination))
	}
	return nil
}

// checkMergeQuery refuses mergeQuery where it does not apply: without
// preserveQuery, with queryAfterFragment, or on a destination whose query
// (as written, before any capture is inserted) is absent or holds no
// parameter (empty, or '&'s only).
func (r *Rule) checkMergeQuery() error {
	if !r.MergeQuery {
		return nil
	}
	if !r.PreserveQuery {
		return Errorf(EINVALID, "mergeQuery applies with preserveQuery only: it says how the request's query joins the destination's, and this rule does not pass it on")
	}
	if r.QueryAfterFragment {
		return Errorf(EINVALID, "mergeQuery and queryAfterFragment do not go together: mergeQuery joins the request's query to the destination's before the fragment, queryAfterFragment puts it after the fragment")
	}
	if _, query, _ := SplitDestination(r.Destination); strings.Trim(query, "&") == "" {
		return Errorf(EINVALID, "mergeQuery applies to a destination with a query parameter only; destination %s has none to merge the request's query into (write one, as in /b?x=1)", quoteShort(r.Destination))
	}
	return nil
}

// EmptyQueryBeforeFragment reports whether destination d has a '?' right
// before its first '#' (an empty query): a queryAfterFragment rule would
// drop that '?' where Apache and nginx keep it, so the option refuses it.
func EmptyQueryBeforeFragment(d string) bool {
	i := strings.IndexByte(d, '#')
	return i > 0 && d[i-1] == '?' && strings.IndexByte(d[:i-1], '?') < 0
}

// UsesOptions reports whether r uses anything beyond docs/contract.md's basic rule: a
// status other than 301 and 302, a fragment, preservePath, preserveQuery,
// queryAfterFragment or mergeQuery.
func (r *Rule) UsesOptions() bool {
	return r.PreservePath || r.PreserveQuery || r.QueryAfterFragment || r.MergeQuery || (r.StatusCode != 301 && r.StatusCode != 302) ||
		strings.IndexByte(r.Destination, '#') >= 0
}

// Clash is two rules of one match type and host whose sources have the
// same key under some settings (Settings.RuleKey).
type Clash struct {
	A, B *Rule
}

// Clashes returns the pairs of rules that clash under settings s: rules of
// one match type and host whose sources have the same key. Each pair's A
// comes first in rules. At most limit pairs are returned (limit <= 0: all).
func Clashes(rules []Rule, s Settings, limit int) []Clash {
	first := make(map[RuleKey]*Rule, len(rules))
	var out []Clash
	for i := range rules {
		r := &rules[i]
		key := s.RuleKey(r)
		if a, ok := first[key]; ok {
			out = append(out, Clash{A: a, B: r})
			if limit > 0 && len(out) >= limit {
				break
			}
			continue
		}
		first[key] = r
	}
	return out
}

// ClashError returns the ECONFLICT error that refuses settings s because
// of clashes: it names the settings and lists each pair's IDs and sources.
func ClashError(s Settings, clashes []Clash) error {
	var b strings.Builder
	b.WriteString("the settings ")
	b.WriteString(s.String())
	b.WriteString(" would make rules clash (sources of one match type and host with the same key): ")
	for i, c := range clashes {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(c.A.MatchType.String())
		b.WriteString(" rule ")
		b.WriteString(strconv.FormatInt(c.A.ID, 10))
		b.WriteString(" ")
		b.WriteString(quoteShort(c.A.Source))
		b.WriteString(" and rule ")
		b.WriteString(strconv.FormatInt(c.B.ID, 10))
		b.WriteString(" ")
		b.WriteString(quoteShort(c.B.Source))
		if c.A.Host != "" {
			b.WriteString(" (host ")
			b.WriteString(c.A.Host)
			b.WriteString(")")
		}
	}
	return Errorf(ECONFLICT, "%s", b.String())
}
