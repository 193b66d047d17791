package pattern

import (
	"cmp"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Kind is a rule's match type.
type Kind uint8

const (
	// Exact rules match a path with the same key.
	Exact Kind = iota
	// StartsWith rules match a path that begins with their source.
	StartsWith
	// Pattern rules match placeholders and splats (docs/contract.md#pattern-syntax).
	Pattern
	// Regex rules match an RE2 expression (docs/contract.md#regex-rules).
	Regex
)

// String returns the match type's name in the API.
func (k Kind) String() string {
	return [...]string{"exact", "starts_with", "pattern", "regex"}[k]
}

// Rule is what the engine needs of a rule: its identity and age for the
// order, its host, source and destination.
type Rule struct {
	ID        int64
	CreatedAt time.Time
	Kind      Kind
	Host      string // "" for every host; "*.example.com" for its subdomains
	// ExceptHosts (a rule without a host) are hosts, in Host's forms, the
	// rule does not answer: a lookup for one of them goes on to the next
	// rule.
	ExceptHosts []string
	Source      string
	Destination string
	Priority    int
}

// compiled is one rule ready to match.
type compiled struct {
	index    int // in the rules given to Compile
	kind     Kind
	host     string   // HostKey of the rule's host, "" for none
	except   []string // HostKey of each host the rule does not answer
	path     string   // exact, starts_with: the source's path part
	prefix   string   // the literal text before the first placeholder or metacharacter
	toks     []token
	cons     []*regexp.Regexp // per token: its constraint, compiled, or nil
	re       *regexp.Regexp
	conds    []cond
	slots    int // captures: placeholders (pattern) or groups and 0 (regex), then query captures
	qslot    int // the first query capture's slot
	dest     []destPart
	names    []string // per slot: the capture's name for explain, "" for none
	priority int
	created  time.Time
	id       int64
}

// Settings are a project's matching settings (docs/contract.md#settings),
// field for field redirects.Settings, which converts to it.
type Settings struct {
	CaseInsensitive     bool
	IgnoreTrailingSlash bool
}

// Set is a compiled rule set: exact rules by key, the others in radix trees
// by host and literal prefix. A Set is immutable and safe for concurrent
// lookups.
type Set struct {
	rules    []compiled // in the contract's order: the position is the rank
	exact    map[string][]int32
	byHost   map[string]*tree // exact hosts
	wild     map[string]*tree // "*.example.com" under ".example.com"
	any      *tree
	settings Settings
}

// RuleError is a refused rule: its index in the rules given to Compile.
type RuleError struct {
	Index int
	Err   error
}

func (e *RuleError) Error() string { return fmt.Sprintf("rule %d: %v", e.Index+1, e.Err) }
func (e *RuleError) Unwrap() error { return e.Err }

// Compile validates and compiles rules under a project's settings. It
// refuses the first invalid rule, and more than 10,000 regex rules.
func Compile(rules []Rule, st Settings) (*Set, error) {
	s := &Set{exact: map[string][]int32{}, byHost: map[string]*tree{}, wild: map[string]*tree{}, any: &tree{}, settings: st}
	s.rules = make([]compiled, 0, len(rules))
	regexes := 0
	for i := range rules {
		if rules[i].Kind == Regex {
			if regexes++; regexes > maxRegexRules {
				return nil, &RuleError{Index: i, Err: errAt("matchType", 0, "more than %d regex rules in one project", maxRegexRules)}
			}
		}
		c, err := compileRule(&rules[i], st)
		if err != nil {
			return nil, &RuleError{Index: i, Err: err}
		}
		c.index = i
		s.rules = append(s.rules, c)
	}
	slices.SortStableFunc(s.rules, compareRules)
	for rank := range s.rules {
		c := &s.rules[rank]
		if c.kind == Exact {
			k := string(s.appendKey(nil, []byte(c.path)))
			s.exact[k] = append(s.exact[k], int32(rank))
			continue
		}
		var root *tree
		switch {
		case c.host == "":
			root = s.any
		case c.host[0] == '*':
			if root = s.wild[c.host[1:]]; root == nil {
				root = &tree{}
				s.wild[c.host[1:]] = root
			}
		default:
			if root = s.byHost[c.host]; root == nil {
				root = &tree{}
				s.byHost[c.host] = root
			}
		}
		root.insert(c, s.fold, int32(rank))
	}
	return s, nil
}

// compareRules is the contract's one order (docs/contract.md#precedence):
// exact rules first; then by priority; host-scoped before host-less (an
// exact host before a wildcard, a longer wildcard before a shorter); the
// longer literal prefix; with query conditions before without; the older
// rule; the lower ID.
func compareRules(a, b compiled) int {
	if (a.kind == Exact) != (b.kind == Exact) {
		if a.kind == Exact {
			return -1
		}
		return 1
	}
	if a.kind != Exact {
		if c := cmp.Compare(a.priority, b.priority); c != 0 {
			return c
		}
	}
	if c := cmp.Compare(hostRank(a.host), hostRank(b.host)); c != 0 {
		return c
	}
	if c := cmp.Compare(len(b.prefix), len(a.prefix)); c != 0 && a.kind != Exact {
		return c
	}
	if c := cmpBool(len(a.conds) > 0, len(b.conds) > 0); c != 0 {
		return c
	}
	if c := a.created.Compare(b.created); c != 0 {
		return c
	}
	return cmp.Compare(a.id, b.id)
}

func cmpBool(a, b bool) int {
	if a == b {
		return 0
	} else if a {
		return -1
	}
	return 1
}

// hostRank orders hosts: an exact host (0), then wildcards, the longer
// first, then none.
func hostRank(h string) int {
	switch {
	case h == "":
		return 1 << 20
	case h[0] == '*':
		return 1<<10 - len(h)
	}
	return 0
}

func compileRule(r *Rule, st Settings) (compiled, error) {
	c := compiled{kind: r.Kind, priority: r.Priority, created: r.CreatedAt, id: r.ID}
	if r.Host != "" {
		h, err := RuleHost(r.Host)
		if err != nil {
			return c, err
		}
		c.host = h
	}
	for _, e := range r.ExceptHosts {
		if r.Host != "" {
			return c, errAt("exceptHosts", 0, "a rule with a host excepts no host")
		}
		h, err := RuleHost(e)
		if err != nil {
			return c, errAt("exceptHosts", 0, "%q is not a host name (or *.name)", e)
		}
		c.except = append(c.except, h)
	}
	var p *parsed
	switch r.Kind {
	case Exact, StartsWith:
		if err := checkLen("source", r.Source, maxSourceLen); err != nil {
			return c, err
		}
		path, q, hasQ := strings.Cut(r.Source, "?")
		if !strings.HasPrefix(path, "/") {
			return c, errAt("source", 0, "a source starts with /")
		}
		p = &parsed{}
		if hasQ {
			if err := p.parseConds(q, len(path)+1); err != nil {
				return c, err
			}
		}
		c.path, c.prefix = path, path
	case Pattern:
		var err error
		if p, err = parsePattern(r.Source); err != nil {
			return c, err
		}
		c.toks, c.prefix = p.tokens, p.literalPrefix()
		c.cons = make([]*regexp.Regexp, len(p.tokens))
		for i, t := range p.tokens {
			if t.constraint != "" {
				re, _ := parseRE2("source", t.constraint, t.pos)
				c.cons[i] = compileRE(t.constraint, re, st.CaseInsensitive)
			}
		}
		c.slots = len(p.names) - countQueryNames(p)
	case Regex:
		pr, re, err := parseRegex(r.Source)
		if err != nil {
			return c, err
		}
		p = pr
		expr, _, _ := splitRegex(r.Source)
		c.re = compileRE(expr, re, st.CaseInsensitive)
		c.prefix = literalPrefixOf(re)
		c.slots = c.re.NumSubexp() + 1
	default:
		return c, errAt("matchType", 0, "unknown match type %d", r.Kind)
	}
	c.conds = p.conds
	c.qslot = c.slots
	c.slots += countQueryNames(p)
	if r.Kind == Regex {
		c.names = make([]string, c.qslot)
		for g, n := range c.re.SubexpNames() {
			if g > 0 {
				c.names[g] = cmp.Or(n, strconv.Itoa(g))
			}
		}
		c.names = append(c.names, p.names[len(p.names)-countQueryNames(p):]...)
	} else {
		c.names = p.names
	}
	d, err := parseDestination(r.Destination, r.Kind, p, c)
	if err != nil {
		return c, err
	}
	c.dest = d
	return c, nil
}

// Check validates one rule as Compile does, without building a set: it
// returns the first refusal, an *Error naming the field and the position,
// or nil when Compile would take the rule. Settings do not change what is
// valid.
func Check(r Rule) error {
	_, err := compileRule(&r, Settings{})
	return err
}

// RuleHost returns a rule's host in its host key form
// (docs/contract.md#hosts): a host name, or "*." and a host name, either
// IDN form accepted. A malformed host is an *Error of the field "host".
func RuleHost(h string) (string, error) {
	k, ok := HostKey(h)
	if !ok || strings.Contains(k[min(1, len(k)):], "*") || (k[0] == '*' && !strings.HasPrefix(k, "*.")) {
		return "", errAt("host", 0, "%q is not a host name (or *.name)", h)
	}
	return k, nil
}

func countQueryNames(p *parsed) int {
	n := 0
	for _, c := range p.conds {
		if c.op == condCapture {
			n++
		}
	}
	return n
}

// fold returns s's ASCII letters lower-cased under caseInsensitive.
func (s *Set) fold(x string) string {
	if !s.settings.CaseInsensitive {
		return x
	}
	return string(appendFold(nil, []byte(x)))
}

func appendFold(dst, x []byte) []byte {
	for _, c := range x {
		if 'A' <= c && c <= 'Z' {
			c += 32
		}
		dst = append(dst, c)
	}
	return dst
}

// appendKey appends the key of a decoded path: one trailing '/' removed
// under trailingSlash ignore (the root aside), ASCII letters lower-cased
// under caseInsensitive.
func (s *Set) appendKey(dst, path []byte) []byte {
	if s.settings.IgnoreTrailingSlash && len(path) > 1 && path[len(path)-1] == '/' {
		path = path[:len(path)-1]
	}
	if s.settings.CaseInsensitive {
		return appendFold(dst, path)
	}
	return append(dst, path...)
}

// Len returns the number of rules in the set.
func (s *Set) Len() int { return len(s.rules) }
