package rulemodel

import (
	"regexp"
	"regexp/syntax"
	"sort"
	"strconv"
	"strings"
	"time"
)

// PatternRule is a rule as docs/contract.md#pattern-rules describes it:
// any match type ("exact", "starts_with", "pattern", "regex"), a host, a
// source that may end in query conditions, a destination that may insert
// captures.
type PatternRule struct {
	ID        int64
	CreatedAt time.Time
	Kind      string
	Host      string
	// ExceptHosts (a host-less rule) are the hosts it does not answer
	// (docs/contract.md#hosts).
	ExceptHosts []string
	Source      string
	Destination string
	Priority    int
}

// PatternAnswer is which rule answered (its index in the slice given to
// LookupPatterns) and the destination with its captures inserted.
type PatternAnswer struct {
	Rule        int
	Destination string
	// Captures holds each capture by name, in the wire form it is
	// inserted in (before the escaping of the destination): a regex
	// group as "$1" and, when named, also by its name; a placeholder or a
	// query capture by its name. A group that took no part is absent.
	Captures map[string]string
}

// KnownALabels are the A-labels of the non-ASCII labels the generators use:
// the model does not implement Punycode, it looks the answer up.
var KnownALabels = map[string]string{"bücher": "xn--bcher-kva", "café": "xn--caf-dma"}

// HostKey is the contract's host key: ASCII letters lower-cased, a port and
// a trailing dot removed, labels outside ASCII in their A-label form.
func HostKey(h string) string {
	if i := strings.LastIndex(h, ":"); i >= 0 {
		if _, err := strconv.Atoi(h[i+1:]); err == nil {
			h = h[:i]
		}
	}
	h = strings.TrimSuffix(h, ".")
	labels := strings.Split(h, ".")
	for i, l := range labels {
		if a, ok := KnownALabels[strings.ToLower(l)]; ok {
			l = a
		}
		labels[i] = asciiLower(l)
	}
	return strings.Join(labels, ".")
}

// modelMatch is one way a rule matches: the captures by name.
type modelMatch struct {
	caps map[string]capText
}

// capText is a capture: a slice of the decoded path, to be given in its
// wire form, or a query value as sent.
type capText struct {
	start, end int
	query      string
	isQuery    bool
}

// LookupPatterns answers a lookup of wire (the path parameter) on host by
// trying every rule and ordering the matches as the contract's precedence
// says. ok is false when none matches.
func LookupPatterns(rules []PatternRule, s Settings, host, wire string) (PatternAnswer, bool) {
	end := len(wire)
	if i := strings.IndexAny(wire, "?#"); i >= 0 {
		end = i
	}
	wirePath, query := wire[:end], ""
	if end < len(wire) && wire[end] == '?' {
		query = wire[end+1:]
		if i := strings.Index(query, "#"); i >= 0 {
			query = query[:i]
		}
	}
	var dec []byte
	var offs []int
	for i := 0; i < len(wirePath); {
		offs = append(offs, i)
		if wirePath[i] == '%' {
			if i+2 >= len(wirePath) || !hex(wirePath[i+1]) || !hex(wirePath[i+2]) {
				return PatternAnswer{}, false
			}
			v, _ := strconv.ParseUint(wirePath[i+1:i+3], 16, 8)
			dec = append(dec, byte(v))
			i += 3
			continue
		}
		dec = append(dec, wirePath[i])
		i++
	}
	offs = append(offs, len(wirePath))
	path := string(dec)
	if !strings.HasPrefix(path, "/") {
		return PatternAnswer{}, false
	}
	hk := ""
	if host != "" {
		hk = HostKey(host)
	}

	type cand struct {
		i int
		m modelMatch
	}
	var exact, others []cand
	for i, r := range rules {
		if r.Host != "" && !hostMatch(HostKey(r.Host), hk) {
			continue
		}
		if exceptedHost(r.ExceptHosts, hk) {
			continue
		}
		pathSrc, conds := splitConditions(r)
		qcaps, ok := conditionsHold(conds, query)
		if !ok {
			continue
		}
		var m modelMatch
		switch r.Kind {
		case "exact":
			if pathKey(pathSrc, s) != pathKey(path, s) {
				continue
			}
			m.caps = map[string]capText{}
		default:
			m, ok = matchWithTwin(r.Kind, pathSrc, path, s)
			if !ok {
				continue
			}
		}
		for k, v := range qcaps {
			m.caps[k] = v
		}
		if r.Kind == "exact" {
			exact = append(exact, cand{i, m})
		} else {
			others = append(others, cand{i, m})
		}
	}
	pick := exact
	if len(pick) == 0 {
		pick = others
	}
	if len(pick) == 0 {
		return PatternAnswer{}, false
	}
	sort.SliceStable(pick, func(x, y int) bool { return before(rules[pick[x].i], rules[pick[y].i]) })
	best := pick[0]
	wireOf := func(c capText) string {
		if c.isQuery {
			return c.query
		}
		st, e := min(c.start, len(path)), min(c.end, len(path)) // an added twin '/' is not the path's
		return wirePath[offs[st]:offs[e]]
	}
	caps := map[string]string{}
	for k, c := range best.m.caps {
		caps[k] = wireOf(c)
	}
	return PatternAnswer{Rule: best.i, Destination: expand(rules[best.i], best.m, wireOf), Captures: caps}, true
}

// before is the contract's precedence between two matching rules of the
// same step (both exact, or neither).
func before(a, b PatternRule) bool {
	if a.Kind != "exact" && a.Priority != b.Priority {
		return a.Priority < b.Priority
	}
	ha, hb := hostOrder(a.Host), hostOrder(b.Host)
	if ha != hb {
		return ha < hb
	}
	if a.Kind != "exact" {
		la, lb := len(LiteralPrefix(a)), len(LiteralPrefix(b))
		if la != lb {
			return la > lb
		}
	}
	_, ca := splitConditions(a)
	_, cb := splitConditions(b)
	if (len(ca) > 0) != (len(cb) > 0) {
		return len(ca) > 0
	}
	if !a.CreatedAt.Equal(b.CreatedAt) {
		return a.CreatedAt.Before(b.CreatedAt)
	}
	return a.ID < b.ID
}

// hostOrder: an exact host, then wildcards (the longer first), then none.
func hostOrder(h string) int {
	switch {
	case h == "":
		return 3000
	case strings.HasPrefix(h, "*."):
		return 1000 - len(HostKey(h))
	}
	return 0
}

// exceptedHost says whether the lookup's host key is one of a rule's
// exceptHosts, as a rule's host would match it: a rule with exceptHosts
// answers every lookup a host-less rule answers but those, and a lookup
// without a host is never excepted.
func exceptedHost(except []string, lookup string) bool {
	for _, e := range except {
		if hostMatch(HostKey(e), lookup) {
			return true
		}
	}
	return false
}

func hostMatch(rule, lookup string) bool {
	if lookup == "" {
		return false
	}
	if strings.HasPrefix(rule, "*.") {
		return strings.HasSuffix(lookup, rule[1:]) && len(lookup) > len(rule)-1
	}
	return rule == lookup
}

func pathKey(p string, s Settings) string {
	if s.IgnoreTrailingSlash && len(p) > 1 && strings.HasSuffix(p, "/") {
		p = p[:len(p)-1]
	}
	if s.CaseInsensitive {
		p = asciiLower(p)
	}
	return p
}

// matchWithTwin matches the path, or else (under trailingSlash ignore) its
// slash twin, keeping the captures within the path.
func matchWithTwin(kind, src, path string, s Settings) (modelMatch, bool) {
	if m, ok := matchKind(kind, src, path, s); ok {
		return m, true
	}
	if !s.IgnoreTrailingSlash || path == "/" {
		return modelMatch{}, false
	}
	twin := path + "/"
	if strings.HasSuffix(path, "/") {
		twin = path[:len(path)-1]
	}
	return matchKind(kind, src, twin, s)
}

func matchKind(kind, src, path string, s Settings) (modelMatch, bool) {
	fold := func(x string) string {
		if s.CaseInsensitive {
			return asciiLower(x)
		}
		return x
	}
	m := modelMatch{caps: map[string]capText{}}
	switch kind {
	case "starts_with":
		return m, strings.HasPrefix(fold(path), fold(src))
	case "regex":
		re := regexp.MustCompile(`^(?:` + foldRegex(src, s.CaseInsensitive) + `)$`)
		idx := re.FindStringSubmatchIndex(path)
		if idx == nil {
			return m, false
		}
		for g, name := range re.SubexpNames() {
			if g == 0 || idx[2*g] < 0 {
				continue
			}
			c := capText{start: idx[2*g], end: idx[2*g+1]}
			m.caps["$"+strconv.Itoa(g)] = c
			if name != "" {
				m.caps[name] = c
			}
		}
		return m, true
	case "pattern":
		return matchPattern(parsePatternModel(src), path, s)
	}
	return m, false
}

// foldRegex rewrites an expression so that, under caseInsensitive, every
// ASCII letter it matches also matches the letter's other case.
func foldRegex(expr string, ci bool) string {
	if !ci {
		return expr
	}
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		panic(err)
	}
	var walk func(r *syntax.Regexp)
	walk = func(r *syntax.Regexp) {
		for _, sub := range r.Sub {
			walk(sub)
		}
		if r.Op == syntax.OpLiteral && r.Flags&syntax.FoldCase == 0 {
			var subs []*syntax.Regexp
			for _, c := range r.Rune {
				cls := []rune{c, c}
				if l := []rune(asciiLower(string(c)))[0]; l != c {
					cls = append(cls, l, l)
				} else if u := []rune(strings.ToUpper(string(c)))[0]; u != c && c < 0x80 {
					cls = append(cls, u, u)
				}
				subs = append(subs, &syntax.Regexp{Op: syntax.OpCharClass, Rune: cls})
			}
			*r = syntax.Regexp{Op: syntax.OpConcat, Sub: subs}
		}
		if r.Op == syntax.OpCharClass {
			var extra []rune
			for i := 0; i+1 < len(r.Rune); i += 2 {
				for c := max(r.Rune[i], 'A'); c <= min(r.Rune[i+1], 'z'); c++ {
					switch {
					case 'A' <= c && c <= 'Z':
						extra = append(extra, c+32, c+32)
					case 'a' <= c && c <= 'z':
						extra = append(extra, c-32, c-32)
					}
				}
			}
			r.Rune = append(r.Rune, extra...)
		}
	}
	walk(re)
	return re.String()
}
