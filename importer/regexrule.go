package importer

import (
	"fmt"
	"regexp"
	"regexp/syntax"
	"strings"

	"redirects"
)

// Regular expressions of Apache and nginx (PCRE) as regex rules
// (docs/contract.md#regex-rules): an expression the RE2 syntax reads as
// PCRE does becomes a rule's source, anchored at both ends as the contract
// anchors it, with the platform's unanchored search written out.

// pcreRegex converts a PCRE expression that the platform searches for in
// the decoded path (unanchored unless it says ^ or $) into a regex rule's
// source, which the engine matches against the whole path. perDir says the
// platform searches the path without its leading '/' (Apache's
// per-directory RewriteRule), except that an expression starting "^/" is
// read as searching the whole path (server context) and "^/?" as either.
// ci adds (?i). It returns the source and its number of groups, or why the
// expression has no RE2 equivalent.
func pcreRegex(re string, perDir, ci bool) (src string, groups int, why string) {
	body := re
	if strings.HasPrefix(body, "(?i)") {
		ci, body = true, body[4:]
	}
	if body == "" {
		return "", 0, "the regular expression is empty"
	}
	alt := topLevelAlternation(body)
	if alt && perDir && strings.Contains(body, "^") {
		// Each branch's ^ is the start of the path without its '/',
		// which the rule's source, matching the whole path, has not.
		return "", 0, fmt.Sprintf("the regular expression %s anchors a branch of an alternation outside a group in a per-directory pattern", excerpt(re))
	}
	var b strings.Builder
	if ci {
		b.WriteString("(?i)")
	}
	begin, end := "", ""
	switch {
	case !alt && strings.HasPrefix(body, "^/?") && perDir:
		body = body[3:]
		b.WriteByte('/')
	case !alt && strings.HasPrefix(body, "^/"):
		body = body[1:]
	case !alt && strings.HasPrefix(body, "^"):
		body = body[1:]
		if perDir {
			b.WriteByte('/')
		}
	default:
		if perDir {
			b.WriteByte('/')
		}
		begin = ".*?"
	}
	if !alt && endsWithDollar(body) {
		body = body[:len(body)-1]
	} else {
		end = ".*"
	}
	conv, why := re2Bytes(body, ci)
	if why != "" {
		return "", 0, why
	}
	if begin != "" || end != "" {
		if alt || begin != "" && end != "" {
			conv = "(?:" + conv + ")"
		}
	}
	b.WriteString(begin)
	b.WriteString(conv)
	b.WriteString(end)
	src = b.String()
	if len(src) > maxRegexLen {
		return "", 0, fmt.Sprintf("the regular expression %s is longer than the %d bytes of a regex rule's expression", excerpt(re), maxRegexLen)
	}
	parsed, err := syntax.Parse(src, syntax.Perl)
	if err != nil {
		return "", 0, fmt.Sprintf("the regular expression %s uses what RE2 does not have (%v)", excerpt(re), syntaxCode(err))
	}
	if strings.Contains(src, `\v`) {
		return "", 0, fmt.Sprintf("the regular expression %s uses \\v, which PCRE and RE2 read differently", excerpt(re))
	}
	return src, parsed.MaxCap(), ""
}

// maxRegexRules is the most regex rules a project holds
// (docs/contract.md#regex-rules): a file's regex rules past it are skipped.
const maxRegexRules = redirects.MaxRegexRules

// maxRegexLen is the longest expression of a regex rule
// (docs/contract.md#regex-rules).
const maxRegexLen = 1024

// syntaxCode returns the kind of a regexp/syntax error, without the
// expression it quotes.
func syntaxCode(err error) string {
	if e, ok := err.(*syntax.Error); ok {
		return fmt.Sprintf("%s: %s", e.Code, excerpt(e.Expr))
	}
	return err.Error()
}

// topLevelAlternation reports whether re has a '|' outside groups and
// classes.
func topLevelAlternation(re string) bool {
	depth, class := 0, false
	for i := 0; i < len(re); i++ {
		switch c := re[i]; {
		case c == '\\':
			i++
		case class:
			if c == ']' {
				class = false
			}
		case c == '[':
			class = true
			if i+1 < len(re) && re[i+1] == '^' {
				i++
			}
			if i+1 < len(re) && re[i+1] == ']' {
				i++
			}
		case c == '(':
			depth++
		case c == ')':
			depth--
		case c == '|' && depth == 0:
			return true
		}
	}
	return false
}

// endsWithDollar reports whether re ends in an unescaped '$' outside a
// class.
func endsWithDollar(re string) bool {
	if !strings.HasSuffix(re, "$") {
		return false
	}
	n := 0
	for i := len(re) - 2; i >= 0 && re[i] == '\\'; i-- {
		n++
	}
	return n%2 == 0
}

// re2Bytes writes the bytes a regex source may not hold (whitespace,
// control bytes, '"', '\”, ';', '#', '`') as \xHH escapes, escaped or not,
// inside a class or not. Under ci, a run of bytes outside ASCII is written
// (?-i:...): PCRE as the platforms build it (without UTF) folds ASCII
// letters only, where RE2's (?i) folds every letter; a quantifier after
// such a run (which PCRE applies to its last byte) or such a byte in a
// class is not read.
func re2Bytes(re string, ci bool) (string, string) {
	var b strings.Builder
	class := false
	for i := 0; i < len(re); i++ {
		c := re[i]
		if c >= 0x80 && (class || i > 0 && re[i-1] == '\\') {
			if class && ci {
				return "", "a character class holds a byte outside ASCII, which PCRE and RE2 read differently"
			}
			b.WriteByte(c)
			continue
		}
		if c >= 0x80 {
			j := i
			for j < len(re) && re[j] >= 0x80 {
				j++
			}
			if j < len(re) && strings.IndexByte("*+?{", re[j]) >= 0 {
				return "", "a quantifier follows a character outside ASCII, which PCRE applies to its last byte"
			}
			if ci {
				b.WriteString("(?-i:" + re[i:j] + ")")
			} else {
				b.WriteString(re[i:j])
			}
			i = j - 1
			continue
		}
		if !class && c == '[' {
			class = true
			b.WriteByte(c)
			if i+1 < len(re) && re[i+1] == '^' {
				i++
				b.WriteByte('^')
			}
			if i+1 < len(re) && re[i+1] == ']' {
				i++
				b.WriteByte(']')
			}
			continue
		}
		if class && c == ']' {
			class = false
		}
		if c == '\\' && i+1 < len(re) && forbiddenRegexByte(re[i+1]) {
			i++
			c = re[i]
		} else if c == '\\' {
			if i+1 >= len(re) {
				return "", "the regular expression ends in a lone backslash"
			}
			b.WriteByte(c)
			b.WriteByte(re[i+1])
			i++
			continue
		}
		if forbiddenRegexByte(c) {
			fmt.Fprintf(&b, `\x%02X`, c)
			continue
		}
		b.WriteByte(c)
	}
	return b.String(), ""
}

func forbiddenRegexByte(c byte) bool {
	return c <= ' ' || c == 0x7f || strings.IndexByte("\"';#`", c) >= 0
}

// pcreDestination converts a platform's substitution, where $1..$9 insert
// a group and any other '$' is itself, into a regex rule's destination
// ($N, $$). backslash says a '\' escapes the next byte (Apache). It
// returns why not when the substitution uses what a rule cannot: $0, a
// group the expression does not have, or braces.
func pcreDestination(dst string, groups int, backslash bool) (string, string) {
	var b strings.Builder
	for i := 0; i < len(dst); i++ {
		c := dst[i]
		switch {
		case backslash && c == '\\' && i+1 < len(dst):
			i++
			if dst[i] == '$' {
				b.WriteString("$$")
			} else {
				b.WriteByte(dst[i])
			}
		case c == '$' && i+1 < len(dst) && '0' <= dst[i+1] && dst[i+1] <= '9':
			n := int(dst[i+1] - '0')
			if n == 0 {
				return "", fmt.Sprintf("the destination %s inserts $0, the whole match, which a rule cannot", excerpt(dst))
			}
			if n > groups {
				return "", fmt.Sprintf("the destination %s inserts $%d, a group the expression does not have", excerpt(dst), n)
			}
			b.WriteString(dst[i : i+2])
			i++
		case c == '$':
			b.WriteString("$$")
		case c == '{' || c == '}':
			return "", fmt.Sprintf("the destination %s holds braces, which a rule's destination cannot", excerpt(dst))
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), ""
}

// earlierRegex is a regex rule of a first-match file, compiled, for the
// exact rules below it.
type earlierRegex struct {
	re   *regexp.Regexp
	host string
	line int
}

// regexAnchored returns a regex rule's expression anchored as the engine
// anchors it, folded under case-insensitive settings, or "" (which
// compiles to what matches no path) when it has query conditions.
func regexAnchored(src string, set redirects.Settings) string {
	if strings.Contains(src, "$?") {
		return `[^\x00-\x{10FFFF}]`
	}
	p := "^(?:" + src + ")$"
	if set.CaseInsensitive {
		p = "(?i)" + p
	}
	return p
}

// coveringRegex returns the line of the first earlier regex rule that
// answers every path an exact rule of host and source answers (of its host
// or of every host), or 0.
func coveringRegex(rs []earlierRegex, host, src string) int {
	path, _, _ := strings.Cut(src, "?")
	for _, e := range rs {
		if (e.host == "" || e.host == host) && e.re.MatchString(path) {
			return e.line
		}
	}
	return 0
}

// regexIndex holds the regex rules of a first-match file so far by their
// literal prefix, so that an exact rule below is tried only against those
// that can match it.
type regexIndex struct {
	byLine   map[int][]earlierRegex // by the first line of their prefix
	first    map[string]int
	prefixes *prefixSet
	bare     []earlierRegex // no literal prefix
}

func newRegexIndex() *regexIndex { return &regexIndex{byLine: map[int][]earlierRegex{}} }

func (x *regexIndex) add(e earlierRegex) {
	p, _ := e.re.LiteralPrefix()
	if p == "" {
		x.bare = append(x.bare, e)
		return
	}
	if x.prefixes == nil {
		x.prefixes, x.first = newPrefixSet(), map[string]int{}
	}
	l, ok := x.first[p]
	if !ok {
		l = e.line
		x.first[p] = l
		x.prefixes.add(p, l)
	}
	x.byLine[l] = append(x.byLine[l], e)
}

// covering returns the earliest line of a held regex rule that answers
// every path an exact rule of host and source answers, or 0.
func (x *regexIndex) covering(host, src string) int {
	path, _, _ := strings.Cut(src, "?")
	winner := coveringRegex(x.bare, host, src)
	if x.prefixes != nil {
		x.prefixes.each(path, func(l int) bool {
			if winner != 0 && l > winner {
				return true
			}
			if w := coveringRegex(x.byLine[l], host, src); w != 0 && (winner == 0 || w < winner) {
				winner = w
			}
			return true
		})
	}
	return winner
}
