package redirects

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"redirects/engine/pattern"
)

// MatchType says how a rule's source is compared with a requested path.
type MatchType uint8

const (
	// Exact rules match a path equal to their source.
	Exact MatchType = iota
	// StartsWith rules match a path that begins with their source.
	StartsWith
	// Pattern rules match placeholders and splats
	// (docs/contract.md#pattern-syntax).
	Pattern
	// Regex rules match an RE2 expression (docs/contract.md#regex-rules).
	Regex
)

// MatchTypes lists the match types in the order the API documents them.
var MatchTypes = []MatchType{Exact, StartsWith, Pattern, Regex}

// String returns the name used by the API, the CLI and the exports.
func (m MatchType) String() string {
	switch m {
	case StartsWith:
		return "starts_with"
	case Pattern:
		return "pattern"
	case Regex:
		return "regex"
	}
	return "exact"
}

// Literal reports whether the match type compares the source as literal
// text: exact and starts_with.
func (m MatchType) Literal() bool { return m == Exact || m == StartsWith }

// ParseMatchType parses "exact", "starts_with", "pattern" or "regex".
func ParseMatchType(s string) (MatchType, error) {
	switch s {
	case "exact":
		return Exact, nil
	case "starts_with":
		return StartsWith, nil
	case "pattern":
		return Pattern, nil
	case "regex":
		return Regex, nil
	}
	return 0, Errorf(EINVALID, "matchType %q is not one of exact, starts_with, pattern, regex", s)
}

// Limits of a rule's fields.
const (
	MaxSourceLen    = 2048
	MaxDestLen      = 2048
	MinPriority     = 0
	MaxPriority     = 1_000_000
	DefaultPriority = 100
	DefaultStatus   = 301
	// MaxExceptHosts is the most entries a rule's exceptHosts holds.
	MaxExceptHosts = 100
)

// Rule is a draft redirect rule of a project. Drafts are edited freely; a
// deployment freezes a copy of them.
type Rule struct {
	ID          int64
	ProjectID   string
	Source      string
	Destination string
	StatusCode  int
	MatchType   MatchType
	// Priority orders starts_with rules (lower wins). It is stored for exact
	// rules too, but matching and exports ignore it there.
	Priority  int
	CreatedAt time.Time
	// Revision counts the rule's versions: 1 when it is added, one more at
	// each update, so an update or delete can name the version it was made
	// against and fail instead of overwriting a change it never saw.
	// FindRule, FindRulePage, AddRule and UpdateRule set it; FindRules and
	// deployments, which feed the engine and the exports, leave it 0.
	Revision int64
	// PreservePath (starts_with rules only) appends the rest of the
	// requested path after the source to the destination's path.
	PreservePath bool
	// PreserveQuery passes the request's query string on to the
	// destination. See docs/contract.md#rule-options for both.
	PreserveQuery bool
	// QueryAfterFragment (with PreserveQuery, for a destination with a
	// fragment) appends the request's query after the destination's
	// fragment, as Apache and nginx do, instead of joining it to the
	// destination's query before the fragment.
	QueryAfterFragment bool
	// MergeQuery (with PreserveQuery, for a destination with a query)
	// merges the request's query parameters into the destination's, as
	// Vercel does: a request parameter whose name the destination's query
	// holds is dropped, so the destination's value stands.
	MergeQuery bool
	// Host, when set, scopes the rule to lookups for that host
	// (docs/contract.md#hosts): a host name, or "*." and a host name for
	// its subdomains, stored as its host key. "" answers every host.
	Host string
	// ExceptHosts (a rule without a host only) names the hosts the rule
	// does not answer (docs/contract.md#hosts): each a host name or "*."
	// and a host name, stored as its host key, in the order written, at
	// most MaxExceptHosts. A lookup whose host key is one of them (or a
	// subdomain of a "*." one) goes on to the next rule; a lookup without
	// a host is answered. nil (or empty) excepts nothing.
	ExceptHosts []string
}

// Equal reports whether r and o are the same rule, field for field, as ==
// compared them before Rule held a slice (ExceptHosts): a nil and an empty
// list are the same. It names every field, without reflection, as an
// import compares every stored rule it matches (TestRuleEqualNamesEveryField
// fails when a field is added to Rule and not here).
func (r *Rule) Equal(o *Rule) bool {
	return r.ID == o.ID && r.ProjectID == o.ProjectID && r.Source == o.Source && r.Destination == o.Destination &&
		r.StatusCode == o.StatusCode && r.MatchType == o.MatchType && r.Priority == o.Priority && r.CreatedAt == o.CreatedAt &&
		r.Revision == o.Revision && r.PreservePath == o.PreservePath && r.PreserveQuery == o.PreserveQuery &&
		r.QueryAfterFragment == o.QueryAfterFragment && r.MergeQuery == o.MergeQuery && r.Host == o.Host && slices.Equal(r.ExceptHosts, o.ExceptHosts)
}

// Extended reports whether the rule uses what a literal rule does not: a
// pattern or regex match type, a host, excepted hosts, or query conditions
// in its source. A version whose rules are all not extended answers and is
// stored exactly as before pattern rules existed.
func (r *Rule) Extended() bool {
	return !r.MatchType.Literal() || r.Host != "" || len(r.ExceptHosts) > 0 || strings.IndexByte(r.Source, '?') >= 0
}

// forbiddenSource lists the characters a source may not hold, besides
// whitespace and control characters: each could end or inject into a line of
// an exported nginx or HAProxy configuration.
const forbiddenSource = "?#\"'\\;{}$"

// forbiddenDest is forbiddenSource less '?': a destination may carry a
// query. A '#' may start its fragment, once (ValidateDestination).
const forbiddenDest = "\"'\\;{}$"

// Validate checks every field of r and returns an EINVALID *Error naming the
// first field that is wrong and why (and, for a pattern, a regex, query
// conditions or captures, the byte where it is wrong). It puts r.Source and
// r.Host in the forms they are stored and matched in, so every writer
// stores those forms: an exact or starts_with source's path part in its
// canonical form (CanonicalSource), its query conditions as written; a
// pattern or regex source as written; the host as its host key. It writes
// r.Source and r.Host only when the form differs.
func (r *Rule) Validate() error {
	if r.MatchType > Regex {
		return Errorf(EINVALID, "matchType %d is not one of exact, starts_with, pattern, regex", r.MatchType)
	}
	if err := r.validateSource(); err != nil {
		return err
	}
	if err := r.normalizeHost(); err != nil {
		return err
	}
	if err := r.normalizeExceptHosts(); err != nil {
		return err
	}
	if !ValidStatus(r.StatusCode) {
		return Errorf(EINVALID, "statusCode %d is not one of 301, 302, 303, 307, 308, 410", r.StatusCode)
	}
	if r.StatusCode != StatusGone || r.Destination != "" {
		if err := r.validateDestination(); err != nil {
			return err
		}
	}
	if r.Extended() {
		// The engine checks what only it knows: the conditions, the
		// captures the destination names, the regex's compiled size.
		if err := pattern.Check(r.PatternRule()); err != nil {
			return r.patternError(err)
		}
	}
	if err := r.CheckOptions(); err != nil {
		return err
	}
	if r.Priority < MinPriority || r.Priority > MaxPriority {
		return Errorf(EINVALID, "priority %d is outside %d..%d", r.Priority, MinPriority, MaxPriority)
	}
	return nil
}

// ValidateSource checks a rule source in its stored form: it starts with
// '/', is at most MaxSourceLen bytes of valid UTF-8, holds no whitespace,
// control character or any of ? # " ' \ ; { } $ %, and no empty, "." or
// ".." segment. A source that holds escapes is valid input for Rule.Validate,
// which decodes it, but not a stored form: ValidateSource says which form to
// store.
func ValidateSource(s string) error {
	c, err := CanonicalSource(s)
	if err != nil {
		return err
	}
	if c != s {
		return Errorf(EINVALID, "source %s is not in its stored (decoded) form %s", quoteShort(s), quoteShort(c))
	}
	return nil
}

// ValidateDestination checks a rule destination: a path starting with '/' or
// an absolute http:// or https:// URL, at most MaxDestLen bytes of valid
// UTF-8, with no whitespace, control character or any of " ' \ ; { } $, and
// at most one '#', which starts its fragment.
func ValidateDestination(d string) error {
	if d == "" {
		return Errorf(EINVALID, "destination is empty")
	}
	if len(d) > MaxDestLen {
		return Errorf(EINVALID, "destination is %d bytes long, more than the %d allowed", len(d), MaxDestLen)
	}
	switch {
	case d[0] == '/':
		if len(d) > 1 && d[1] == '/' {
			return Errorf(EINVALID, "destination %s must not start with '//' (a scheme-relative URL); write http:// or https://", quoteShort(d))
		}
	case hasPrefixFold(d, "http://") && len(d) > len("http://"):
	case hasPrefixFold(d, "https://") && len(d) > len("https://"):
	default:
		return Errorf(EINVALID, "destination %s must be a path starting with '/' or an http:// or https:// URL", quoteShort(d))
	}
	if err := checkChars("destination", d, forbiddenDest); err != nil {
		return err
	}
	if i := strings.IndexByte(d, '#'); i >= 0 {
		if j := strings.IndexByte(d[i+1:], '#'); j >= 0 {
			return Errorf(EINVALID, "destination %s holds a second '#' at byte %d: only its fragment may follow the first '#', and a fragment holds no '#'", quoteShort(d), i+1+j)
		}
	}
	return nil
}

func checkChars(field, s, forbidden string) error {
	if asciiClean(s, forbidden) {
		return nil
	}
	if i := InvalidUTF8At(s); i >= 0 {
		return Errorf(EINVALID, "%s %s is not valid UTF-8 at byte %d", field, quoteShort(s), i)
	}
	for i, c := range s {
		switch {
		case unicode.IsSpace(c) || unicode.IsControl(c):
			return Errorf(EINVALID, "%s %s holds whitespace or a control character (%U) at byte %d", field, quoteShort(s), c, i)
		case c < 0x80 && containsByte(forbidden, byte(c)):
			return Errorf(EINVALID, "%s %s holds the forbidden character %q at byte %d", field, quoteShort(s), c, i)
		}
	}
	return nil
}

// asciiClean reports whether s holds only printable ASCII characters
// other than the space and those of forbidden: the common value, which the
// checks of each character (UTF-8, unicode.IsSpace and IsControl, the
// forbidden characters) would all pass, and which a million-rule import
// checks in one pass of a bit set instead.
func asciiClean(s, forbidden string) bool {
	// Bytes 0x00-0x20 (the controls and the space) and 0x7f (DEL).
	bad := [2]uint64{1<<33 - 1, 1 << (0x7f - 64)}
	for i := 0; i < len(forbidden); i++ {
		if c := forbidden[i]; c < 0x80 {
			bad[c>>6] |= 1 << (c & 63)
		}
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 0x80 || bad[c>>6]&(1<<(c&63)) != 0 {
			return false
		}
	}
	return true
}

func containsByte(s string, b byte) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == b {
			return true
		}
	}
	return false
}

func hasPrefixFold(s, prefix string) bool {
	if len(s) < len(prefix) {
		return false
	}
	for i := 0; i < len(prefix); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != prefix[i] {
			return false
		}
	}
	return true
}

// quoteShort quotes s for an error message, cut to a readable length.
func quoteShort(s string) string {
	if len(s) > 80 {
		return strconv.Quote(s[:80]) + fmt.Sprintf("... (%d bytes)", len(s))
	}
	return strconv.Quote(s)
}
