package redirects

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"redirects/engine/pattern"
)

// PatternRule returns what the pattern engine needs of r
// (docs/contract.md#pattern-rules): its identity and age for the order, its
// kind, host, source, destination and priority. The rule options are not
// the engine's: the caller applies them to the destination it expands.
func (r *Rule) PatternRule() pattern.Rule {
	return pattern.Rule{
		ID:          r.ID,
		CreatedAt:   r.CreatedAt,
		Kind:        pattern.Kind(r.MatchType),
		Host:        r.Host,
		ExceptHosts: r.ExceptHosts,
		Source:      r.Source,
		Destination: r.Destination,
		Priority:    r.Priority,
	}
}

// PatternSettings converts the project's settings to the pattern engine's.
func (s Settings) PatternSettings() pattern.Settings { return pattern.Settings(s) }

// forbiddenConditions lists what a literal rule's query conditions may not
// hold as written, besides whitespace and control characters: the source's
// forbidden characters less '%', which starts an escape there (a '?', '&',
// '=' or '+' inside a key or value is written %3F, %26, %3D, %2B).
const forbiddenConditions = "?#\"'\\;{}$"

// validateSource checks r.Source for its match type and puts it in its
// stored form (docs/contract.md#pattern-rules): an exact or starts_with
// source is a canonical path (CanonicalSource), optionally followed by '?'
// and query conditions kept as written; a pattern or regex source is kept
// as written, and the engine (Rule.Validate) checks its syntax.
func (r *Rule) validateSource() error {
	if !r.MatchType.Literal() {
		if r.Source == "" {
			return Errorf(EINVALID, "source is empty")
		}
		// The engine refuses the bytes no source may hold; whitespace and
		// control characters outside ASCII are refused here, as in every
		// other source.
		return checkChars("source", r.Source, "")
	}
	path, conds, hasQ := strings.Cut(r.Source, "?")
	if path == "" {
		path = r.Source
	}
	src, err := CanonicalSource(path)
	if err != nil {
		return err
	}
	if hasQ {
		if err := checkConditions(r.Source, len(path)+1); err != nil {
			return err
		}
		src += "?" + conds
	}
	if src != r.Source {
		r.Source = src
	}
	return nil
}

// checkConditions refuses whitespace, control characters and the
// characters of forbiddenConditions in the query conditions of a literal
// source, which start at byte start of it. The engine checks their syntax.
func checkConditions(source string, start int) error {
	if i := InvalidUTF8At(source[start:]); i >= 0 {
		return Errorf(EINVALID, "source %s is not valid UTF-8 at byte %d", quoteShort(source), start+i)
	}
	for i, c := range source[start:] {
		switch {
		case unicode.IsSpace(c) || unicode.IsControl(c):
			return Errorf(EINVALID, "source %s: at byte %d, its query conditions hold whitespace or a control character (%U)", quoteShort(source), start+i, c)
		case c < utf8.RuneSelf && containsByte(forbiddenConditions, byte(c)):
			return Errorf(EINVALID, "source %s: at byte %d, its query conditions hold the forbidden character %q; write it percent-encoded", quoteShort(source), start+i, c)
		}
	}
	return nil
}

// capturingConditions reports whether r's source has a query condition
// that captures (key=:name), whose capture its destination may insert.
func (r *Rule) capturingConditions() bool {
	_, q, ok := strings.Cut(r.Source, "?")
	if !ok {
		return false
	}
	for part := range strings.SplitSeq(q, "&") {
		if _, v, ok := strings.Cut(part, "="); ok && strings.HasPrefix(v, ":") {
			return true
		}
	}
	return false
}

// validateDestination checks r.Destination. A literal rule without
// capturing conditions keeps the checks of a literal destination
// (ValidateDestination); any other rule's destination may insert captures,
// which the engine checks (Rule.Validate) after the checks of every value
// here.
func (r *Rule) validateDestination() error {
	if r.MatchType.Literal() && !r.capturingConditions() {
		return ValidateDestination(r.Destination)
	}
	d := r.Destination
	if d == "" {
		return Errorf(EINVALID, "destination is empty")
	}
	if len(d) > MaxDestLen {
		return Errorf(EINVALID, "destination is %d bytes long, more than the %d allowed", len(d), MaxDestLen)
	}
	return checkChars("destination", d, "")
}

// normalizeHost checks r.Host and puts it in its host key form
// (docs/contract.md#hosts): either IDN form, upper-case letters, a trailing
// dot or a port are taken and stored as the key.
func (r *Rule) normalizeHost() error {
	if r.Host == "" {
		return nil
	}
	h, err := pattern.RuleHost(r.Host)
	if err != nil {
		return Errorf(EINVALID, "host %s is not a host name (labels of letters, digits and '-' joined by '.', an IDN in either form, at most 253 bytes) nor \"*.\" and a host name", quoteShort(r.Host))
	}
	if h != r.Host {
		r.Host = h
	}
	return nil
}

// normalizeExceptHosts checks r.ExceptHosts and puts each entry in its
// host key form (docs/contract.md#hosts): only on a rule without a host,
// each entry a host as a rule's host is, no two with the same key, at most
// MaxExceptHosts. The order is kept as written; an empty list is stored as
// none (nil).
func (r *Rule) normalizeExceptHosts() error {
	if len(r.ExceptHosts) == 0 {
		r.ExceptHosts = nil
		return nil
	}
	if r.Host != "" {
		return Errorf(EINVALID, "exceptHosts applies to a rule without a host only; this rule's host is %s: a rule with a host answers that host alone", quoteShort(r.Host))
	}
	if len(r.ExceptHosts) > MaxExceptHosts {
		return Errorf(EINVALID, "exceptHosts holds %d hosts, more than the limit of %d", len(r.ExceptHosts), MaxExceptHosts)
	}
	var keys []string
	for i, h := range r.ExceptHosts {
		k, err := pattern.RuleHost(h)
		if err != nil {
			return Errorf(EINVALID, "exceptHosts[%d] %s is not a host name (labels of letters, digits and '-' joined by '.', an IDN in either form, at most 253 bytes) nor \"*.\" and a host name", i, quoteShort(h))
		}
		for j, o := range keys {
			if o == k {
				return Errorf(EINVALID, "exceptHosts[%d] %s is exceptHosts[%d] again (host key %s)", i, quoteShort(h), j, k)
			}
		}
		keys = append(keys, k)
	}
	if !slices.Equal(keys, r.ExceptHosts) {
		r.ExceptHosts = keys
	}
	return nil
}

// patternError turns the engine's refusal of r into an EINVALID *Error that
// names the field, quotes its value and gives the 0-based byte where it is
// wrong: `source "/:a:b": at byte 3, two placeholders with nothing between
// them`.
func (r *Rule) patternError(err error) error {
	var e *pattern.Error
	if !errors.As(err, &e) {
		return Errorf(EINVALID, "%v", err)
	}
	var v string
	switch e.Field {
	case "source":
		v = r.Source
	case "destination":
		v = r.Destination
	case "host":
		v = r.Host
	default:
		return Errorf(EINVALID, "%s: %s", e.Field, e.Msg)
	}
	return Errorf(EINVALID, "%s %s: at byte %d, %s", e.Field, quoteTyped(v), e.Pos, e.Msg)
}

// RuleKey is what a project holds one rule of (docs/contract.md#keys): a
// match type, a host key and a source key.
type RuleKey struct {
	MatchType MatchType
	Host      string
	Source    string
}

// RuleKey returns r's key under the settings (Settings.SourceKey). r is
// validated: its host is in its key form.
func (s Settings) RuleKey(r *Rule) RuleKey {
	return RuleKey{MatchType: r.MatchType, Host: r.Host, Source: s.SourceKey(r.MatchType, r.Source)}
}

// SourceKey returns the key of a source of match type mt under the settings
// (docs/contract.md#keys): of an exact or starts_with source, the key of
// its path part (Settings.Key) followed by its query conditions as written;
// of a pattern or regex source, the source as written. Two rules of one
// match type and host clash when their source keys are equal. Under the
// default settings every source is its own key.
func (s Settings) SourceKey(mt MatchType, source string) string {
	if !mt.Literal() {
		return source
	}
	if i := strings.IndexByte(source, '?'); i >= 0 {
		return s.Key(source[:i]) + source[i:]
	}
	return s.Key(source)
}

// MaxRegexRules is the most regex rules a project holds
// (docs/contract.md#regex-rules): each one a lookup may try is an RE2 match.
const MaxRegexRules = 10_000

// CheckRegexLimit returns nil when a project may hold n regex rules, and an
// EINVALID naming the limit otherwise.
func CheckRegexLimit(n int) error {
	if n > MaxRegexRules {
		return Errorf(EINVALID, "matchType regex: a project holds at most %d regex rules, and this would make %d; use pattern or starts_with rules where they do", MaxRegexRules, n)
	}
	return nil
}

// CountRegex returns how many of rules are regex rules.
func CountRegex(rules []Rule) int {
	n := 0
	for i := range rules {
		if rules[i].MatchType == Regex {
			n++
		}
	}
	return n
}

// canonicalize puts r's source and host in the forms Validate stores, where
// it can, and leaves them as they are where it cannot (for Validate to
// report): an import does it before it validates its rules concurrently
// with the store's writes, so that Validate rewrites nothing then.
func (r *Rule) canonicalize() {
	if r.MatchType.Literal() && strings.IndexByte(r.Source, '%') >= 0 {
		path, conds, hasQ := strings.Cut(r.Source, "?")
		if c, err := CanonicalSource(path); err == nil {
			if hasQ {
				c += "?" + conds
			}
			r.Source = c
		}
	}
	if r.Host != "" {
		if h, err := pattern.RuleHost(r.Host); err == nil {
			r.Host = h
		}
	}
}

// quoteTyped quotes a pattern, regex or host as it was typed: between double
// quotes, a '"' escaped and control bytes and invalid UTF-8 written as Go
// escapes, but a '\\' kept single, so that a regex's `\d` reads as written and
// the byte positions of a message count in what the reader sees.
func quoteTyped(s string) string {
	tail := ""
	if len(s) > 80 {
		s, tail = s[:80], fmt.Sprintf("... (%d bytes)", len(s))
	}
	var b strings.Builder
	b.WriteByte('"')
	for i, c := range s {
		switch {
		case c == '"':
			b.WriteString(`\"`)
		case c == utf8.RuneError && !strings.HasPrefix(s[i:], "\uFFFD"):
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case unicode.IsControl(c) || unicode.IsSpace(c):
			b.WriteString(strings.Trim(strconv.QuoteRune(c), "'"))
		default:
			b.WriteRune(c)
		}
	}
	b.WriteByte('"')
	return b.String() + tail
}
