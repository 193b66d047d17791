package pattern

import (
	"net/url"
	"regexp"
	"regexp/syntax"
	"strings"
)

// Info is what lint (package safety) needs to know of one rule beyond
// matching it: its literal prefix, whether it covers every path below a
// literal prefix, and a request it matches.
type Info struct {
	// Prefix is the rule's literal prefix in decoded bytes, as the
	// contract's precedence measures it (docs/contract.md#precedence):
	// every path the rule matches starts with it (or, under trailingSlash
	// ignore, with it less a final '/').
	Prefix string
	// Conditions is set when the source has query conditions.
	Conditions bool
	// Covers, when not empty, is a decoded text such that the rule matches
	// every path that starts with it (compared as the settings say): a
	// starts_with rule's source, or for a pattern whose only placeholder is
	// a final splat without a constraint ("/docs/*", "/docs/:rest*") its
	// literal text and '/'. Such a pattern also matches that text without
	// the '/', as a starts_with source ending in '/' does under
	// trailingSlash ignore. Empty for a rule with conditions.
	Covers string
	// SamplePath is a decoded path the rule's source matches and
	// SampleQuery a query (as sent, without the '?') that satisfies its
	// conditions: each placeholder is given its own name as text (or a
	// text its constraint accepts), a regex its shortest simple match.
	// Empty when no sample was found.
	SamplePath, SampleQuery string
}

// Inspect returns what Info says of rule r under settings st. Errors: the
// rule is refused (*Error).
func Inspect(r Rule, st Settings) (Info, error) {
	c, err := compileRule(&r, st)
	if err != nil {
		return Info{}, err
	}
	info := Info{Prefix: c.prefix, Conditions: len(c.conds) > 0}
	var path string
	switch r.Kind {
	case Exact, StartsWith:
		path = c.path
		if r.Kind == StartsWith && !info.Conditions {
			info.Covers = c.path
		}
	case Pattern:
		n := len(c.toks)
		if !info.Conditions && n == 2 && c.toks[0].kind == tokLiteral && c.toks[1].kind == tokStar && c.toks[1].constraint == "" {
			info.Covers = c.toks[0].lit + "/"
		}
		if !info.Conditions && n == 1 && c.toks[0].kind == tokStar && c.toks[0].constraint == "" {
			info.Covers = "/" // "/*": every path
		}
		var b strings.Builder
		for _, t := range c.toks {
			switch t.kind {
			case tokLiteral:
				b.WriteString(t.lit)
				continue
			case tokOptional, tokStar, tokPlus:
				b.WriteByte('/')
			}
			b.WriteString(sampleText(t.name, t.constraint))
		}
		path = b.String()
	case Regex:
		expr, _, _ := splitRegex(r.Source)
		re, err := syntax.Parse(expr, syntax.Perl)
		if err != nil {
			return info, nil
		}
		var b strings.Builder
		writeSample(&b, re.Simplify())
		path = b.String()
	}
	var q []string
	for _, cd := range c.conds {
		k := url.QueryEscape(cd.key)
		switch cd.op {
		case condEqual:
			q = append(q, k+"="+url.QueryEscape(cd.value))
		case condCapture:
			q = append(q, k+"="+url.QueryEscape(cd.name))
		case condPresent:
			q = append(q, k)
		case condEmpty:
			q = append(q, k+"=")
		}
	}
	query := strings.Join(q, "&")
	// The sample must be one the rule matches: a constraint or a regex may
	// refuse what was built.
	s := &Set{rules: []compiled{c}, exact: map[string][]int32{}, byHost: map[string]*tree{}, wild: map[string]*tree{}, any: &tree{}, settings: st}
	host := ""
	switch {
	case c.host == "":
	case c.host[0] == '*':
		host = "www" + c.host[1:]
	default:
		host = c.host
	}
	if c.kind == Exact {
		s.exact[string(s.appendKey(nil, []byte(c.path)))] = []int32{0}
	} else {
		root := s.any
		if host != "" {
			root = &tree{}
			if c.host[0] == '*' {
				s.wild[c.host[1:]] = root
			} else {
				s.byHost[c.host] = root
			}
		}
		root.insert(&s.rules[0], s.fold, 0)
	}
	wire := EscapePath(path)
	if query != "" {
		wire += "?" + query
	}
	var m Match
	if path != "" && s.Lookup(host, wire, &m) {
		info.SamplePath, info.SampleQuery = path, query
	}
	return info, nil
}

// EscapePath returns a decoded path as a client sends it: '%', '?', '#',
// control bytes, space and bytes outside ASCII percent-encoded.
func EscapePath(p string) string {
	const hexd = "0123456789ABCDEF"
	var b []byte
	for i := 0; i < len(p); i++ {
		c := p[i]
		if c <= ' ' || c >= 0x7f || c == '%' || c == '?' || c == '#' {
			if b == nil {
				b = append(make([]byte, 0, len(p)+8), p[:i]...)
			}
			b = append(b, '%', hexd[c>>4], hexd[c&15])
			continue
		}
		if b != nil {
			b = append(b, c)
		}
	}
	if b == nil {
		return p
	}
	return string(b)
}

// sampleText is a placeholder's sample capture: its name, or, under a
// constraint that refuses it, the constraint's shortest simple match.
func sampleText(name, constraint string) string {
	if constraint == "" {
		return name
	}
	if full, err := regexp.Compile("^(?:" + constraint + ")$"); err == nil && full.MatchString(name) {
		return name
	}
	re, err := syntax.Parse(constraint, syntax.Perl)
	if err != nil {
		return name
	}
	var b strings.Builder
	writeSample(&b, re.Simplify())
	return b.String()
}

// writeSample writes a short text re matches: literals as they are, the
// first alternative, the fewest repetitions, a class's first printable
// member other than '/', '?', '#' and '%'.
func writeSample(b *strings.Builder, re *syntax.Regexp) {
	switch re.Op {
	case syntax.OpLiteral:
		b.WriteString(string(re.Rune))
	case syntax.OpCharClass:
		b.WriteRune(classSample(re.Rune))
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		b.WriteByte('x')
	case syntax.OpCapture:
		writeSample(b, re.Sub[0])
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			writeSample(b, sub)
		}
	case syntax.OpAlternate:
		writeSample(b, re.Sub[0])
	case syntax.OpPlus:
		writeSample(b, re.Sub[0])
	case syntax.OpRepeat:
		for range re.Min {
			writeSample(b, re.Sub[0])
		}
	}
}

// classSample picks a rune of a character class (pairs of ranges).
func classSample(ranges []rune) rune {
	for _, want := range [][2]rune{{'a', 'z'}, {'0', '9'}, {'A', 'Z'}, {'!', '~'}} {
		for i := 0; i+1 < len(ranges); i += 2 {
			for r := max(ranges[i], want[0]); r <= min(ranges[i+1], want[1]); r++ {
				if r != '/' && r != '?' && r != '#' && r != '%' {
					return r
				}
			}
		}
	}
	if len(ranges) > 0 {
		return ranges[0]
	}
	return 'x'
}
