package pattern

import (
	"cmp"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"unicode/utf8"
)

// Limits of the contract (docs/contract.md#regex-rules).
const (
	maxSourceLen   = 2048  // a pattern source, conditions included
	maxRegexLen    = 1024  // a regex rule's expression
	maxRegexRules  = 10000 // regex rules in one set
	maxProgramInst = 10000 // instructions of one compiled expression
	maxCaptures    = 16    // captures of one source (placeholders, groups' names, query captures)
)

// splitRegex splits a regex rule's source into its expression and its query
// conditions: the conditions start after the first "$?" outside an escape
// and a character class.
func splitRegex(src string) (expr, q string, hasQ bool) {
	class := false
	for i := 0; i < len(src); i++ {
		switch c := src[i]; {
		case c == '\\':
			i++
		case class:
			if c == ']' {
				class = false
			}
		case c == '[':
			class = true
			if i+1 < len(src) && src[i+1] == ']' {
				i++
			}
		case c == '$' && i+1 < len(src) && src[i+1] == '?':
			return src[:i], src[i+2:], true
		}
	}
	return src, "", false
}

// parseRegex validates a regex rule's source and returns its conditions and
// capture names (numbered groups are referred to by number).
func parseRegex(src string) (*parsed, *syntax.Regexp, error) {
	const field = "source"
	if err := checkLen(field, src, maxSourceLen); err != nil {
		return nil, nil, err
	}
	if err := checkChars(field, src); err != nil {
		return nil, nil, err
	}
	expr, q, hasQ := splitRegex(src)
	if err := checkLen(field, expr, maxRegexLen); err != nil {
		return nil, nil, err
	}
	re, err := parseRE2(field, expr, 0)
	if err != nil {
		return nil, nil, err
	}
	p := &parsed{}
	groups := scanGroups(expr).captures
	for i, n := range re.CapNames() {
		if n != "" {
			// A name's error is at its group's '(' (CapNames()[i] is the
			// group opened i-th, as scanGroups counts them).
			pos := 0
			if i-1 < len(groups) {
				pos = groups[i-1]
			}
			if err := p.addName(n, pos); err != nil {
				return nil, nil, err
			}
		}
	}
	if hasQ {
		if err := p.parseConds(q, len(expr)+2); err != nil {
			return nil, nil, err
		}
	}
	return p, re, nil
}

// parseRE2 parses an RE2 expression written at offset base of field and
// checks its compiled size, naming the position of a syntax error.
func parseRE2(field, expr string, base int) (*syntax.Regexp, error) {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		pos := 0
		if se, ok := err.(*syntax.Error); ok {
			if i := indexOf(expr, se.Expr); i >= 0 {
				pos = i
			}
			// Errors Go reports for the whole expression (or none of it)
			// are placed where they are.
			g := scanGroups(expr)
			switch {
			case se.Code == syntax.ErrMissingParen && g.unclosed >= 0:
				pos = g.unclosed
			case se.Code == syntax.ErrUnexpectedParen && g.unexpected >= 0:
				pos = g.unexpected
			case se.Code == syntax.ErrTrailingBackslash && expr != "":
				pos = len(expr) - 1
			}
			return nil, errAt(field, base+pos, "invalid regular expression: %s: %q", se.Code, se.Expr)
		}
		return nil, errAt(field, base, "invalid regular expression: %v", err)
	}
	prog, err := syntax.Compile(re.Simplify())
	if err != nil {
		return nil, errAt(field, base, "invalid regular expression: %v", err)
	}
	if len(prog.Inst) > maxProgramInst {
		return nil, errAt(field, base, "the regular expression compiles to %d instructions, more than %d", len(prog.Inst), maxProgramInst)
	}
	return re, nil
}

// regexGroups is what scanGroups finds in an expression: the offset of
// each capturing group's '(' in the order RE2 numbers them, the last '('
// left unclosed and the first ')' closing nothing (-1 for none).
type regexGroups struct {
	captures             []int
	unclosed, unexpected int
}

// scanGroups finds the groups of an RE2 expression as RE2's parser reads
// them: '\' escapes, \Q...\E quotes, and character classes (with a
// leading ']' and [:name:] inside) hold no group.
func scanGroups(expr string) regexGroups {
	g := regexGroups{unclosed: -1, unexpected: -1}
	var open []int
	for i := 0; i < len(expr); i++ {
		switch expr[i] {
		case '\\':
			if strings.HasPrefix(expr[i:], `\Q`) {
				end := strings.Index(expr[i+2:], `\E`)
				if end < 0 {
					i = len(expr)
				} else {
					i += 2 + end + 1
				}
				continue
			}
			i++
		case '[':
			i = classEnd(expr, i)
		case '(':
			open = append(open, i)
			rest := expr[i+1:]
			if !strings.HasPrefix(rest, "?") || strings.HasPrefix(rest, "?P<") || strings.HasPrefix(rest, "?<") {
				g.captures = append(g.captures, i)
			}
		case ')':
			if len(open) == 0 {
				if g.unexpected < 0 {
					g.unexpected = i
				}
				continue
			}
			open = open[:len(open)-1]
		}
	}
	if len(open) > 0 {
		g.unclosed = open[len(open)-1]
	}
	return g
}

// classEnd returns the offset of the ']' closing the character class that
// opens at expr[i], or the last offset of expr when none does.
func classEnd(expr string, i int) int {
	j := i + 1
	if j < len(expr) && expr[j] == '^' {
		j++
	}
	if j < len(expr) && expr[j] == ']' {
		j++ // a ']' first in a class is itself
	}
	for ; j < len(expr); j++ {
		switch {
		case expr[j] == '\\':
			j++
		case strings.HasPrefix(expr[j:], "[:"):
			if end := strings.Index(expr[j+2:], ":]"); end >= 0 {
				j += 2 + end + 1
			}
		case expr[j] == ']':
			return j
		}
	}
	return len(expr) - 1
}

func indexOf(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return i
		}
	}
	return -1
}

// compileRE anchors an expression at both ends and, under caseInsensitive,
// lower-cases its ASCII letters (lowerASCII): the expression then runs on
// the path with its ASCII letters lower-cased (Match.folded), which answers
// as the expression with each of its letters also matching the letter's
// other case would on the path as it is, and keeps the program RE2 builds
// for the expression as written, its one-pass form and literal prefix
// included (never RE2's Unicode (?i), which would also fold 'K' with the
// Kelvin sign). expr is the expression as written, re its parse
// (parseRE2). Without folding, expr itself is compiled inside a group that
// captures nothing: the same expression as re anchored, and without
// syntax.Regexp.String, which costs some 125,000 case-folding lookups for
// each character class such as [^/] (milliseconds a rule, for every
// pattern rule with a placeholder). An expression holding \Q takes the
// printed parse too: a \Q that no \E closes quotes the rest of the text,
// the group's closing parenthesis included.
func compileRE(expr string, re *syntax.Regexp, fold bool) *regexp.Regexp {
	if !fold && !strings.Contains(expr, `\Q`) {
		return regexp.MustCompile(`\A(?:` + expr + `)\z`)
	}
	if fold {
		re = lowerASCII(re)
	}
	anchored := &syntax.Regexp{Op: syntax.OpConcat, Flags: re.Flags, Sub: []*syntax.Regexp{
		{Op: syntax.OpBeginText}, re, {Op: syntax.OpEndText},
	}}
	return regexp.MustCompile(anchored.String())
}

// lowerASCII returns re with every upper-case ASCII letter it matches
// replaced by the letter's lower case, and what RE2 folds itself ((?i))
// left as written. Run on a path whose ASCII letters are lower-cased, it
// answers as re with each ASCII letter it matches also matching the
// letter's other case answers on the path as written: a character c is in
// a class C with its letters' other cases added if and only if lower(c) is
// in lowerASCII's class (C without A-Z, and the lower case of what C holds
// of A-Z); a literal RE2 folds itself holds both cases of an ASCII letter
// or neither; and lower-casing ASCII moves no byte and changes none of a
// character outside ASCII, so the groups are found at the same offsets.
func lowerASCII(re *syntax.Regexp) *syntax.Regexp {
	c := *re
	c.Sub = make([]*syntax.Regexp, len(re.Sub))
	for i, s := range re.Sub {
		c.Sub[i] = lowerASCII(s)
	}
	switch c.Op {
	case syntax.OpLiteral:
		if c.Flags&syntax.FoldCase != 0 {
			break
		}
		c.Rune = append([]rune(nil), c.Rune...)
		for i, r := range c.Rune {
			if 'A' <= r && r <= 'Z' {
				c.Rune[i] = r + 32
			}
		}
	case syntax.OpCharClass:
		var rs []rune
		for i := 0; i+1 < len(c.Rune); i += 2 {
			lo, hi := c.Rune[i], c.Rune[i+1]
			// What the range holds outside A-Z stays; what it holds of
			// A-Z moves to a-z.
			if lo < 'A' {
				rs = append(rs, lo, min(hi, 'A'-1))
			}
			if hi > 'Z' {
				rs = append(rs, max(lo, 'Z'+1), hi)
			}
			if a, b := max(lo, 'A'), min(hi, 'Z'); a <= b {
				rs = append(rs, a+32, b+32)
			}
		}
		c.Rune = mergeRanges(rs)
	}
	return &c
}

// mergeRanges sorts a character class's ranges and merges those that
// overlap or touch, as the parser leaves a class.
func mergeRanges(rs []rune) []rune {
	type rng struct{ lo, hi rune }
	var list []rng
	for i := 0; i+1 < len(rs); i += 2 {
		list = append(list, rng{rs[i], rs[i+1]})
	}
	slices.SortFunc(list, func(a, b rng) int { return cmp.Compare(a.lo, b.lo) })
	out := make([]rune, 0, len(rs))
	for _, r := range list {
		if n := len(out); n > 0 && r.lo <= out[n-1]+1 {
			out[n-1] = max(out[n-1], r.hi)
			continue
		}
		out = append(out, r.lo, r.hi)
	}
	return out
}

func validUTF8(s string) bool { return utf8.ValidString(s) }

func firstBadUTF8(s string) int {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n <= 1 {
			return i
		}
		i += n
	}
	return 0
}

// literalPrefixOf is the literal text every match of re starts with: its
// leading literals, through groups, before anything else.
func literalPrefixOf(re *syntax.Regexp) string {
	s, _ := literalPrefix(re.Simplify())
	return s
}

func literalPrefix(re *syntax.Regexp) (string, bool) {
	switch re.Op {
	case syntax.OpLiteral:
		if re.Flags&syntax.FoldCase != 0 {
			return "", false
		}
		return string(re.Rune), true
	case syntax.OpBeginText, syntax.OpBeginLine, syntax.OpEmptyMatch:
		return "", true
	case syntax.OpCapture:
		return literalPrefix(re.Sub[0])
	case syntax.OpConcat:
		out := ""
		for _, sub := range re.Sub {
			s, complete := literalPrefix(sub)
			out += s
			if !complete {
				return out, false
			}
		}
		return out, true
	}
	return "", false
}

// checkCompiles validates every constraint of a pattern.
func (p *parsed) checkCompiles() error {
	for _, t := range p.tokens {
		if t.constraint != "" {
			// The constraint starts after the name and '('.
			if _, err := parseRE2("source", t.constraint, t.pos+2+len(t.name)); err != nil {
				return err
			}
		}
	}
	return nil
}

// RegexExpression returns a regex rule's RE2 expression: its source
// without the query conditions.
func RegexExpression(src string) string {
	expr, _, _ := splitRegex(src)
	return expr
}
