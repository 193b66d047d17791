package export

import (
	"cmp"
	"regexp/syntax"
	"strconv"

	"redirects/engine/pattern"
)

// A regex rule's expression and a pattern's constraints are RE2 over the
// decoded path, and the chain matches the path as sent. The two are the
// same text when the path holds no escape, so the chain writes an RE2
// expression as a PCRE one (nginx's and HAProxy's) that matches only such
// a path: the rule's expression starts with a lookahead that the path
// (up to the query) is made of plainBytes alone, and every character class
// of the expression is cut down to plainBytes. A path with an escape, or
// with a byte outside plainBytes, is not matched by the rule; the file
// declares that residue (declare.go). plainBytes holds no byte above
// 0x7F, so PCRE's bytes are RE2's runes, and none of the bytes the API
// escapes when it inserts a capture (docs/contract.md#captures-in-destinations),
// so a capture is inserted as the API inserts it.
//
// The expression is written from RE2's parse tree, never copied: every
// byte it matches is a letter, a digit or \xHH, so nothing in it can end
// nginx's or HAProxy's quoted word, and its constructs are those the two
// engines read alike (Perl's leftmost-first choice, greedy and lazy
// repeats, ASCII \b). The contract folds ASCII letters only, which is all
// a path of plainBytes holds.

// plainBytes are the bytes of a path the chain matches against an RE2
// expression: RFC 3986's unreserved and sub-delims, ':', '@' and '/',
// but for '\” (which the API escapes in a capture).
const plainBytes = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~!$&()*+,;=:@/"

// plainPathAhead asserts that the path as sent, up to its query, is of
// plainBytes only.
const plainPathAhead = `(?=[A-Za-z0-9\x2d\x2e\x5f\x7e\x21\x24\x26\x28\x29\x2a\x2b\x2c\x3b\x3d\x3a\x40\x2f]*(?:[?]|$))`

// isPlainPath reports whether a request path (up to its query) is of
// plainBytes only, the paths the chain matches against RE2 expressions.
func isPlainPath(p string) bool {
	for i := 0; i < len(p) && p[i] != '?'; i++ {
		if !isPlainByte(p[i]) {
			return false
		}
	}
	return true
}

func isPlainByte(c byte) bool {
	for i := 0; i < len(plainBytes); i++ {
		if plainBytes[i] == c {
			return true
		}
	}
	return false
}

// byteSet is a set of ASCII bytes.
type byteSet [2]uint64

func (s *byteSet) add(c byte)           { s[c>>6] |= 1 << (c & 63) }
func (s *byteSet) has(c byte) bool      { return c < 128 && s[c>>6]&(1<<(c&63)) != 0 }
func (s byteSet) and(t byteSet) byteSet { return byteSet{s[0] & t[0], s[1] & t[1]} }

// alphabet returns the plain bytes, without '/' when !slash (a
// constraint on one segment).
func alphabet(slash bool) byteSet {
	var s byteSet
	for i := 0; i < len(plainBytes); i++ {
		if slash || plainBytes[i] != '/' {
			s.add(plainBytes[i])
		}
	}
	return s
}

// pcreWriter writes an RE2 parse tree as PCRE.
type pcreWriter struct {
	alpha byteSet
	fold  bool              // caseSensitive false: ASCII letters match both cases
	begin string            // what the expression's start of text is
	end   string            // what its end of text is
	names map[string]string // capture key (name or number) -> group name; absent: not captured
}

// regexNames names the groups of a regex rule that its destination
// inserts (key: the group's name, or its number), continuing names'
// numbering; the others are written non-capturing.
func regexNames(re *syntax.Regexp, dest []pattern.DestPart, names map[string]string) {
	used := map[string]bool{}
	for _, d := range dest {
		if d.Capture != "" {
			used[d.Capture] = true
		}
	}
	var walk func(*syntax.Regexp)
	walk = func(re *syntax.Regexp) {
		if re.Op == syntax.OpCapture {
			key := cmp.Or(re.Name, strconv.Itoa(re.Cap))
			num := strconv.Itoa(re.Cap)
			if used[key] || used[num] {
				g := "redirects_c" + strconv.Itoa(len(names)+1)
				names[key], names[num] = g, g
			}
		}
		for _, s := range re.Sub {
			walk(s)
		}
	}
	walk(re)
}

func (w *pcreWriter) write(b []byte, re *syntax.Regexp) []byte {
	const never = "(?!)"
	switch re.Op {
	case syntax.OpNoMatch:
		return append(b, never...)
	case syntax.OpEmptyMatch:
		return append(b, "(?:)"...)
	case syntax.OpLiteral:
		for _, r := range re.Rune {
			var s byteSet
			if r < 128 {
				s.add(byte(r))
				if w.fold || re.Flags&syntax.FoldCase != 0 {
					if o, ok := otherASCIICase(byte(r)); ok {
						s.add(o)
					}
				}
			}
			b = w.class(b, s)
		}
		return b
	case syntax.OpCharClass:
		var s byteSet
		for i := 0; i+1 < len(re.Rune); i += 2 {
			for r := re.Rune[i]; r <= re.Rune[i+1] && r < 128; r++ {
				s.add(byte(r))
				if w.fold {
					if o, ok := otherASCIICase(byte(r)); ok {
						s.add(o)
					}
				}
			}
		}
		return w.class(b, s)
	case syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		return w.class(b, w.alpha)
	case syntax.OpBeginLine, syntax.OpBeginText:
		return append(b, w.begin...)
	case syntax.OpEndLine, syntax.OpEndText:
		return append(b, w.end...)
	case syntax.OpWordBoundary:
		return append(b, `\b`...)
	case syntax.OpNoWordBoundary:
		return append(b, `\B`...)
	case syntax.OpCapture:
		if g := w.names[cmp.Or(re.Name, strconv.Itoa(re.Cap))]; g != "" {
			b = append(b, "(?<"+g+">"...)
		} else {
			b = append(b, "(?:"...)
		}
		return append(w.write(b, re.Sub[0]), ')')
	case syntax.OpStar, syntax.OpPlus, syntax.OpQuest, syntax.OpRepeat:
		b = append(b, "(?:"...)
		b = append(w.write(b, re.Sub[0]), ')')
		switch re.Op {
		case syntax.OpStar:
			b = append(b, '*')
		case syntax.OpPlus:
			b = append(b, '+')
		case syntax.OpQuest:
			b = append(b, '?')
		default:
			b = append(b, '{')
			b = strconv.AppendInt(b, int64(re.Min), 10)
			if re.Max != re.Min {
				b = append(b, ',')
				if re.Max >= 0 {
					b = strconv.AppendInt(b, int64(re.Max), 10)
				}
			}
			b = append(b, '}')
		}
		if re.Flags&syntax.NonGreedy != 0 {
			b = append(b, '?')
		}
		return b
	case syntax.OpConcat:
		for _, s := range re.Sub {
			b = w.write(b, s)
		}
		return b
	case syntax.OpAlternate:
		b = append(b, "(?:"...)
		for i, s := range re.Sub {
			if i > 0 {
				b = append(b, '|')
			}
			b = w.write(b, s)
		}
		return append(b, ')')
	}
	return append(b, never...)
}

// class writes the bytes of s that the alphabet holds as a class, or a
// match of nothing when none is left.
func (w *pcreWriter) class(b []byte, s byteSet) []byte {
	s = s.and(w.alpha)
	if s == (byteSet{}) {
		return append(b, "(?!)"...)
	}
	b = append(b, '[')
	for c := 0; c < 128; c++ {
		if !s.has(byte(c)) {
			continue
		}
		d := c
		for d+1 < 128 && s.has(byte(d+1)) {
			d++
		}
		b = appendByteClass(b, byte(c))
		if d > c+1 {
			b = append(b, '-')
		}
		if d > c {
			b = appendByteClass(b, byte(d))
		}
		c = d
	}
	return append(b, ']')
}

func otherASCIICase(c byte) (byte, bool) {
	if isASCIILetter(c) {
		return c ^ 0x20, true
	}
	return c, false
}

// parseRE2 parses an expression validation accepted.
func parseRE2(expr string) (*syntax.Regexp, bool) {
	re, err := syntax.Parse(expr, syntax.Perl)
	return re, err == nil
}

// regexChainable reports whether the chain answers a regex rule: not
// under trailingSlash ignore, where the API also tries the path with a
// '/' added, which a PCRE expression cannot match against the path as
// sent.
func regexChainable(ignoreSlash bool) bool {
	return !ignoreSlash
}

// maxPCRESize bounds pcreSize of the RE2 expressions of one rule. PCRE2
// (as nginx and HAProxy build it) refuses an expression that compiles to
// more than 64 KiB, and nginx then refuses the whole file: a bounded
// repeat is compiled as that many copies ("(.{1000}){4}" is too large),
// so a rule over the bound is left out and declared instead.
const maxPCRESize = 16 << 10

// pcreSize estimates, from above, the bytes PCRE2 compiles re's writing
// to: a class is a 32-byte bitmap, and a repeat {n,m} copies its
// expression m times (n+1 when unbounded).
func pcreSize(re *syntax.Regexp) int {
	n := 8
	for _, s := range re.Sub {
		n += pcreSize(s)
	}
	switch re.Op {
	case syntax.OpLiteral:
		n += 40 * len(re.Rune)
	case syntax.OpCharClass, syntax.OpAnyChar, syntax.OpAnyCharNotNL:
		n += 40
	case syntax.OpRepeat:
		copies := max(re.Min, re.Max, 1)
		if re.Max < 0 {
			copies = re.Min + 1
		}
		n = n * copies
	}
	return min(n, 1<<30)
}

// ruleTooLarge reports whether the RE2 expressions of a rule, its regex
// or its constraints, are over maxPCRESize together.
func ruleTooLarge(v pattern.View, source string) bool {
	size := 0
	exprs := []string{}
	if v.Kind == pattern.Regex {
		exprs = append(exprs, pattern.RegexExpression(source))
	}
	for _, p := range v.Pieces {
		if p.Constraint != "" {
			exprs = append(exprs, p.Constraint)
		}
	}
	for _, e := range exprs {
		re, ok := parseRE2(e)
		if !ok {
			return true
		}
		size += pcreSize(re)
	}
	return size > maxPCRESize
}

// constraintsBounded reports whether each constraint of a pattern is on a
// placeholder that ends its segment (:name or :name? followed by '/', the
// conditions or the end): its capture is then the whole segment, which a
// lookahead checks against the constraint. Elsewhere the capture is the
// shortest text that lets the rest match and the constraint hold, which a
// PCRE lookahead cannot try length by length.
func constraintsBounded(pieces []pattern.Piece) bool {
	for i, p := range pieces {
		if p.Constraint == "" {
			continue
		}
		if p.Kind != pattern.PieceSegment && p.Kind != pattern.PieceOptional {
			return false
		}
		re, ok := parseRE2(p.Constraint)
		if !ok {
			return false
		}
		// A segment placeholder after text in its segment: RE2 sees the
		// start of the capture as the start of text, PCRE the byte before.
		if p.Kind == pattern.PieceSegment && !startsSegment(pieces, i) && startAssertions(re) {
			return false
		}
		if i+1 < len(pieces) {
			n := pieces[i+1]
			if n.Kind == pattern.PieceLiteral && (n.Text == "" || n.Text[0] != '/') {
				return false
			}
			if n.Kind == pattern.PieceSegment {
				return false
			}
		}
	}
	return true
}

// startsSegment reports whether piece i starts right after a '/'.
func startsSegment(pieces []pattern.Piece, i int) bool {
	if i == 0 {
		return false
	}
	p := pieces[i-1]
	return p.Kind == pattern.PieceLiteral && len(p.Text) > 0 && p.Text[len(p.Text)-1] == '/'
}

// startAssertions reports whether re asserts something of the start of
// its text: ^, \b or \B.
func startAssertions(re *syntax.Regexp) bool {
	switch re.Op {
	case syntax.OpBeginLine, syntax.OpBeginText, syntax.OpWordBoundary, syntax.OpNoWordBoundary:
		return true
	}
	for _, s := range re.Sub {
		if startAssertions(s) {
			return true
		}
	}
	return false
}

// hasConstraints reports whether a pattern's pieces hold a constraint.
func hasConstraints(pieces []pattern.Piece) bool {
	for _, p := range pieces {
		if p.Constraint != "" {
			return true
		}
	}
	return false
}

// appendConstraintAhead writes the lookahead that the segment starting
// here is, as a whole, matched by constraint.
func appendConstraintAhead(b []byte, constraint string, fold bool) []byte {
	re, ok := parseRE2(constraint)
	if !ok {
		return append(b, "(?!)"...)
	}
	// The capture starts after a '/' or text of its segment that
	// constraintsBounded checked the constraint asserts nothing of, and
	// ends where the segment does.
	const end = "(?=/|[?]|$)"
	w := &pcreWriter{alpha: alphabet(false), fold: fold, begin: "(?<=/)", end: end}
	b = append(b, "(?=(?:"...)
	b = w.write(b, re)
	return append(b, ")"+end+")"...)
}

// appendRegexPath matches the path as sent against a regex rule's
// expression, anchored at both ends of the path.
func appendRegexPath(b []byte, expr string, fold bool, names map[string]string) []byte {
	re, ok := parseRE2(expr)
	if !ok {
		return append(b, "(?!)"...)
	}
	const end = "(?=[?]|$)"
	// The path starts after the space that follows the host.
	w := &pcreWriter{alpha: alphabet(true), fold: fold, begin: `(?<=\x20)`, end: end, names: names}
	b = append(b, plainPathAhead+"(?:"...)
	b = w.write(b, re)
	return append(b, ")"+end...)
}
