package pattern

import (
	"regexp"
	"regexp/syntax"
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
// folds its ASCII letters only (never RE2's Unicode (?i), which would also
// fold 'K' with the Kelvin sign).
func compileRE(re *syntax.Regexp, fold bool) *regexp.Regexp {
	if fold {
		re = foldASCII(re)
	}
	anchored := &syntax.Regexp{Op: syntax.OpConcat, Flags: re.Flags, Sub: []*syntax.Regexp{
		{Op: syntax.OpBeginText}, re, {Op: syntax.OpEndText},
	}}
	return regexp.MustCompile(anchored.String())
}

// foldASCII returns re with every ASCII letter it matches also matching the
// letter's other case, and its own Unicode case folding left as written.
func foldASCII(re *syntax.Regexp) *syntax.Regexp {
	c := *re
	c.Sub = make([]*syntax.Regexp, len(re.Sub))
	for i, s := range re.Sub {
		c.Sub[i] = foldASCII(s)
	}
	switch c.Op {
	case syntax.OpLiteral:
		if c.Flags&syntax.FoldCase != 0 {
			break
		}
		var parts []*syntax.Regexp
		for _, r := range c.Rune {
			if o, ok := otherCase(r); ok {
				parts = append(parts, &syntax.Regexp{Op: syntax.OpCharClass, Rune: []rune{r, r, o, o}})
			} else {
				parts = append(parts, &syntax.Regexp{Op: syntax.OpLiteral, Rune: []rune{r}})
			}
		}
		return &syntax.Regexp{Op: syntax.OpConcat, Sub: parts}
	case syntax.OpCharClass:
		rs := append([]rune(nil), c.Rune...)
		for i := 0; i+1 < len(c.Rune); i += 2 {
			lo, hi := c.Rune[i], c.Rune[i+1]
			for _, up := range [][2]rune{{'A', 'Z'}, {'a', 'z'}} {
				a, b := max(lo, up[0]), min(hi, up[1])
				if a <= b {
					oa, _ := otherCase(a)
					ob, _ := otherCase(b)
					rs = append(rs, oa, ob)
				}
			}
		}
		c.Rune = rs
	}
	return &c
}

func otherCase(r rune) (rune, bool) {
	switch {
	case 'a' <= r && r <= 'z':
		return r - 32, true
	case 'A' <= r && r <= 'Z':
		return r + 32, true
	}
	return r, false
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
