package importer

import (
	"fmt"
	"regexp/syntax"
	"strings"
)

// nginxLookahead reads an nginx (PCRE) expression of the shape
// ^literal(?!X)R, R being .+ or .* (bare, in a group, or captured,
// optionally followed by $): a rule under a prefix that leaves out the
// paths whose rest starts with what X matches, which RE2 has no
// lookahead for. It returns the expression as a regex rule's source (the
// literal, then the rests not left out, captured: restExcluding) with the
// number of PCRE groups the destination may insert, or why not;
// handled is false when re is not of this shape.
func nginxLookahead(re string, ci bool) (src string, groups int, why string, handled bool) {
	body, ok := strings.CutPrefix(re, "^")
	i := strings.Index(body, "(?!")
	if !ok || i < 0 {
		return "", 0, "", false
	}
	lit, ok := pcreLiteral(body[:i])
	if !ok {
		return "", 0, "", false
	}
	j, ok := groupEnd(body, i)
	if !ok {
		return "", 0, "", false
	}
	x, rest := body[i+3:j], strings.TrimSuffix(body[j+1:], "$")
	var plus, capture bool
	switch rest {
	case ".+", "(?:.+)":
		plus = true
	case ".*", "(?:.*)":
	case "(.+)":
		plus, capture = true, true
	case "(.*)":
		capture = true
	default:
		return "", 0, "", false
	}
	if ci {
		return "", 0, fmt.Sprintf("the negative lookahead of %s ignores case, which the paths it leaves out cannot here", excerpt(re)), true
	}
	conv, why := re2Bytes(x, false)
	if why != "" {
		return "", 0, why, true
	}
	parsed, err := syntax.Parse(conv, syntax.Perl)
	if err != nil {
		return "", 0, fmt.Sprintf("the negative lookahead of %s uses what RE2 does not have (%v)", excerpt(re), syntaxCode(err)), true
	}
	inner := parsed.MaxCap()
	if capture && inner > 0 {
		return "", 0, fmt.Sprintf("the negative lookahead of %s captures groups, which number the rest's group otherwise", excerpt(re)), true
	}
	group := "(.*)"
	if plus {
		group = "(.+)"
	}
	src, why = excludeFromRest(literalRE(lit)+group, []string{literalRE(lit) + "(?:" + conv + ")(?s:.*)"})
	if why != "" {
		return "", 0, fmt.Sprintf("the negative lookahead of %s: %s", excerpt(re), why), true
	}
	if capture {
		groups = 1
	}
	return src, groups, "", true
}

// pcreLiteral reads s as PCRE literal text: letters, digits, / - _ ~ %
// and characters escaped with a backslash.
func pcreLiteral(s string) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\\' && i+1 < len(s) && !isAlnum(s[i+1]):
			i++
			b.WriteByte(s[i])
		case isAlnum(c) || strings.IndexByte("/-_~%", c) >= 0:
			b.WriteByte(c)
		default:
			return "", false
		}
	}
	return b.String(), true
}

// groupEnd returns the index of the ')' closing the group opening at
// s[open], skipping escapes and character classes.
func groupEnd(s string, open int) (int, bool) {
	depth := 0
	for i := open; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '[':
			i++
			if i < len(s) && s[i] == '^' {
				i++
			}
			if i < len(s) && s[i] == ']' {
				i++
			}
			for i < len(s) && s[i] != ']' {
				if s[i] == '\\' {
					i++
				}
				i++
			}
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				return i, true
			}
		}
	}
	return 0, false
}
