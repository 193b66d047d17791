package importer

import (
	"fmt"
	"strings"

	"redirects"
)

// regexShape is what a source regular expression of Apache or nginx
// (PCRE) is, when it has an exact equivalent among our rules: an anchored
// literal, with an optional trailing slash, or a prefix with one trailing
// capture of the rest.
type regexShape struct {
	lit string
	// exact: the expression ends in '$' (the literal, and with optSlash the
	// literal plus '/'); otherwise it matches every path that starts with
	// lit, and capture says the rest is captured as $1.
	exact    bool
	optSlash bool
	capture  bool
	// ci: the expression starts with (?i).
	ci bool
}

// parseRegexShape reads re as one of the shapes of regexShape, or returns
// why it has no exact equivalent. leadingSlash prefixes a '/' to the
// literal (Apache's per-directory patterns see the path without it);
// "^/?" is read as the path's own '/' either way.
func parseRegexShape(re string, perDir bool) (regexShape, string) {
	return parseShape(re, perDir, false)
}

// parseLiteralDotShape is parseRegexShape reading an unescaped '.' that no
// quantifier follows as itself: the anchored literals of Apache files
// (^/who.html$) where the '.' is meant as the dot it almost always meets
// (docs/migrate.md "Apache").
func parseLiteralDotShape(re string, perDir bool) (regexShape, string) {
	return parseShape(re, perDir, true)
}

func parseShape(re string, perDir, dot bool) (regexShape, string) {
	var s regexShape
	if strings.HasPrefix(re, "(?i)") {
		s.ci = true
		re = re[4:]
	}
	if !strings.HasPrefix(re, "^") {
		return s, fmt.Sprintf("the regular expression %s is not anchored with ^: it matches anywhere in the path", excerpt(re))
	}
	re = re[1:]
	var b strings.Builder
	switch {
	case strings.HasPrefix(re, "/?"):
		re = re[2:]
		b.WriteByte('/')
	case perDir && !strings.HasPrefix(re, "/"):
		b.WriteByte('/')
	}
	i := 0
loop:
	for i < len(re) {
		c := re[i]
		switch {
		case c == '\\':
			if i+1 >= len(re) {
				return s, "the regular expression ends in a lone backslash"
			}
			n := re[i+1]
			if isAlnum(n) {
				return s, "the regular expression uses the class or escape \\" + string(n)
			}
			b.WriteByte(n)
			i += 2
		case dot && c == '.' && (i+1 >= len(re) || strings.IndexByte("*+?{", re[i+1]) < 0):
			b.WriteByte(c)
			i++
		case strings.IndexByte(".[]()*+?{}|$^", c) >= 0:
			break loop
		default:
			b.WriteByte(c)
			i++
		}
	}
	s.lit = b.String()
	rest := re[i:]
	if strings.HasPrefix(rest, "?") && strings.HasSuffix(s.lit, "/") && len(s.lit) > 1 && (i == 0 || re[i-1] == '/') {
		// "/?" after the literal: an optional trailing slash.
		s.lit, rest = s.lit[:len(s.lit)-1], "/"+rest
	}
	switch rest {
	case "":
	case "$":
		s.exact = true
	case "/?$":
		s.exact, s.optSlash = true, true
	case "(.*)$", "(.*)":
		s.capture = true
	default:
		return s, fmt.Sprintf("the regular expression %s has no exact equivalent (only anchored literals, an optional trailing slash /?$ and one trailing (.*) are read)", excerpt(re))
	}
	if s.lit == "" || s.lit[0] != '/' {
		return s, "the regular expression does not start with a path (/...)"
	}
	if s.optSlash && strings.HasSuffix(s.lit, "/") {
		return s, fmt.Sprintf("the regular expression %s has no exact equivalent", excerpt(re))
	}
	return s, ""
}

func isAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

// shapeRules returns the rules of a regex shape whose destination is dst
// (with $1 standing for the capture), status code, or why there are none;
// note, when set, says how they answer otherwise.
func shapeRules(s regexShape, dst string, code int, set redirects.Settings) (rules []redirects.Rule, note, skip string) {
	uses := strings.Count(dst, "$")
	switch {
	case uses == 0:
	case s.capture && uses == 1 && strings.HasSuffix(dst, "$1"):
	default:
		return nil, "", fmt.Sprintf("the destination %s uses a reference other than one $1 at its end", excerpt(dst))
	}
	switch {
	case s.exact:
		rs := []redirects.Rule{{Source: s.lit, MatchType: redirects.Exact, Destination: dst, StatusCode: code}}
		if s.optSlash && !set.IgnoreTrailingSlash {
			rs = append(rs, redirects.Rule{Source: s.lit + "/", MatchType: redirects.Exact, Destination: dst, StatusCode: code})
		}
		return rs, "", ""
	case s.capture && uses == 1:
		d := strings.TrimSuffix(dst, "$1")
		if !strings.HasPrefix(d, "/") && !hasURLPath(d) {
			note = fmt.Sprintf("the destination %s has no path: here a '/' joins it to the rest of the path", excerpt(d))
		}
		return []redirects.Rule{{Source: s.lit, MatchType: redirects.StartsWith, Destination: d, StatusCode: code, PreservePath: true}}, note, ""
	default:
		return []redirects.Rule{{Source: s.lit, MatchType: redirects.StartsWith, Destination: dst, StatusCode: code}}, "", ""
	}
}

// hasURLPath reports whether an absolute URL has a path: a '/' after its
// "scheme://".
func hasURLPath(u string) bool {
	i := strings.Index(u, "://")
	return i < 0 || strings.IndexByte(u[i+3:], '/') >= 0
}
