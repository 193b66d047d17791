// Package pattern is the engine of pattern and regex rules
// (docs/contract.md#pattern-rules): it parses and validates a rule's source
// and destination, compiles a rule set into an index by host and by literal
// prefix, matches a request's path, query and host against it in the
// contract's one order, and expands a destination with the captures. The
// literal lookup (package engine) does not use it yet: the store and the
// lookup API take it next.
package pattern

import (
	"fmt"
	"strings"
)

// Error is a refused source, destination or host: the field, the byte
// offset in the value as written (0-based) and what is wrong there.
type Error struct {
	Field string
	Pos   int
	Msg   string
}

// Error names the field and the 0-based byte where it is wrong, as the
// domain's messages count bytes.
func (e *Error) Error() string {
	return fmt.Sprintf("%s: at byte %d, %s", e.Field, e.Pos, e.Msg)
}

func errAt(field string, pos int, format string, args ...any) *Error {
	return &Error{Field: field, Pos: pos, Msg: fmt.Sprintf(format, args...)}
}

// tokKind is the kind of one piece of a parsed pattern.
type tokKind uint8

const (
	tokLiteral  tokKind = iota // decoded text compared byte for byte (ASCII-folded under caseInsensitive)
	tokSegment                 // :name, one or more bytes within a segment
	tokOptional                // /:name?, nothing or '/' and one or more bytes within a segment
	tokStar                    // /:name* or /*, nothing or '/' and any text (none only at the end)
	tokPlus                    // /:name+, '/' and one or more bytes of any text
)

// token is one piece of a parsed pattern source. The multi-segment and
// optional kinds include the '/' written before them, which is why they
// must begin a segment.
type token struct {
	kind       tokKind
	lit        string // tokLiteral: the decoded text
	name       string // placeholders: the capture's name
	constraint string // placeholders: the RE2 constraint as written, or ""
	pos        int    // where the token starts in the source
	slot       int    // placeholders: the capture's slot
}

// parsed is a source split into its path part and its query conditions.
type parsed struct {
	tokens []token
	conds  []cond
	names  []string // capture names, placeholders then query captures, in source order
}

// condOp is what a query condition asks of a parameter.
type condOp uint8

const (
	condEqual   condOp = iota // key=value
	condCapture               // key=:name
	condPresent               // key
	condEmpty                 // key=
)

// cond is one query condition; key and value are decoded (one
// percent-decoding, '+' a space).
type cond struct {
	key, value string
	op         condOp
	name       string
}

func isNameStart(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
func isNameByte(c byte) bool  { return isNameStart(c) || '0' <= c && c <= '9' || c == '_' }

func unhex(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// checkChars refuses what no source may hold: whitespace, control bytes,
// quotes, ';' and '#' (a fragment is never part of a request path), and
// bytes that are not UTF-8 text.
func checkChars(field, s string) error {
	if !validUTF8(s) {
		return errAt(field, firstBadUTF8(s), "not valid UTF-8")
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= ' ' || c == 0x7f || c == '"' || c == '\'' || c == ';' || c == '#' || c == '`' {
			return errAt(field, i, "%q is not allowed", c)
		}
	}
	return nil
}

// parsePattern parses a pattern rule's source: see docs/contract.md#pattern-syntax.
func parsePattern(src string) (*parsed, error) {
	const field = "source"
	if err := checkLen(field, src, maxSourceLen); err != nil {
		return nil, err
	}
	if err := checkChars(field, src); err != nil {
		return nil, err
	}
	// The conditions start at the first '?' that is not a placeholder's
	// optional modifier: the loop below stops there.
	pathPart, q, hasQ := src, "", false
	if !strings.HasPrefix(pathPart, "/") {
		return nil, errAt(field, 0, "a pattern starts with /")
	}
	p := &parsed{}
	var lit []byte
	litPos := 0
	flush := func() {
		if len(lit) > 0 {
			p.tokens = append(p.tokens, token{kind: tokLiteral, lit: string(lit), pos: litPos})
			lit = nil
		}
	}
	multi := -1
loop:
	for i := 0; i < len(pathPart); {
		c := pathPart[i]
		switch {
		case c == '?':
			pathPart, q, hasQ = src[:i], src[i+1:], true
			break loop
		case c == '%':
			if i+2 >= len(pathPart) {
				return nil, errAt(field, i, "'%%' must start an escape of two hexadecimal digits")
			}
			hi, ok1 := unhex(pathPart[i+1])
			lo, ok2 := unhex(pathPart[i+2])
			if !ok1 || !ok2 {
				return nil, errAt(field, i, "'%%' must start an escape of two hexadecimal digits")
			}
			if len(lit) == 0 {
				litPos = i
			}
			lit = append(lit, hi<<4|lo)
			i += 3
		case c == ':' || c == '*':
			start := i
			var t token
			t.pos = start
			if c == '*' {
				t.kind, t.name = tokStar, "splat"
				i++
			} else {
				j := i + 1
				if j >= len(pathPart) || !isNameStart(pathPart[j]) {
					return nil, errAt(field, i, "':' must start a placeholder name (a letter, then letters, digits, '_'); write a literal ':' as %%3A")
				}
				for j < len(pathPart) && isNameByte(pathPart[j]) {
					j++
				}
				t.kind, t.name = tokSegment, pathPart[i+1:j]
				i = j
				if i < len(pathPart) && pathPart[i] == '(' {
					end, err := constraintEnd(pathPart, i)
					if err != nil {
						return nil, err
					}
					t.constraint = pathPart[i+1 : end]
					if t.constraint == "" {
						return nil, errAt(field, i, "an empty constraint")
					}
					i = end + 1
				}
				if i < len(pathPart) {
					switch pathPart[i] {
					case '*':
						t.kind = tokStar
						i++
					case '+':
						t.kind = tokPlus
						i++
					case '?':
						// A '?' followed by '/', '?' or the end makes the
						// placeholder optional; any other starts the
						// conditions.
						if i+1 == len(pathPart) || pathPart[i+1] == '/' || pathPart[i+1] == '?' {
							t.kind = tokOptional
							i++
						}
					}
				}
			}
			if t.kind != tokSegment {
				// A multi-segment or optional placeholder is a whole
				// segment: it takes the '/' before it (so that it can
				// match nothing) and ends at a '/' or the end.
				if len(lit) == 0 || lit[len(lit)-1] != '/' || (start > 0 && pathPart[start-1] != '/') {
					return nil, errAt(field, start, "%s placeholder must begin a segment (follow a '/')", kindWord(t.kind))
				}
				if i < len(pathPart) && pathPart[i] != '/' && pathPart[i] != '?' {
					return nil, errAt(field, i, "%s placeholder must end its segment (be followed by '/', query conditions or the end)", kindWord(t.kind))
				}
				lit = lit[:len(lit)-1]
				if t.kind != tokOptional {
					if multi >= 0 {
						return nil, errAt(field, start, "a second multi-segment placeholder (the first is at byte %d)", multi)
					}
					multi = start
				}
			} else if n := len(p.tokens); len(lit) == 0 && n > 0 && p.tokens[n-1].kind == tokSegment {
				return nil, errAt(field, start, "two placeholders with nothing between them")
			}
			flush()
			t.slot = len(p.names)
			if err := p.addName(t.name, start); err != nil {
				return nil, err
			}
			p.tokens = append(p.tokens, t)
		case c == '(':
			return nil, errAt(field, i, "'(' must follow a placeholder name, as its constraint; write a literal '(' as %%28")
		case c == '\\' || c == '$' || c == '{' || c == '}' || c == '|':
			// Outside a constraint these bytes would only break an
			// export: a literal one is written percent-encoded.
			return nil, errAt(field, i, "%q outside a constraint; write it percent-encoded", c)
		default:
			if len(lit) == 0 {
				litPos = i
			}
			lit = append(lit, c)
			i++
		}
	}
	flush()
	if err := p.checkCompiles(); err != nil {
		return nil, err
	}
	if hasQ {
		if err := p.parseConds(q, len(pathPart)+1); err != nil {
			return nil, err
		}
	}
	return p, nil
}

func kindWord(k tokKind) string {
	switch k {
	case tokOptional:
		return "an optional"
	case tokStar:
		return "a '*'"
	}
	return "a '+'"
}

// constraintEnd returns the index of the ')' that closes the '(' at open,
// skipping escapes, character classes and nested groups.
func constraintEnd(s string, open int) (int, error) {
	if end, ok := ConstraintClose(s, open); ok {
		return end, nil
	}
	return 0, errAt("source", open, "unclosed constraint")
}

// ConstraintClose returns the index of the ')' that closes the '(' at open
// in a pattern source, skipping escapes, character classes and nested
// groups, as the engine reads a constraint; false when none closes it.
func ConstraintClose(s string, open int) (int, bool) {
	depth, class := 0, false
	for i := open; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\':
			i++
		case class:
			if c == ']' {
				class = false
			}
		case c == '[':
			class = true
			if i+1 < len(s) && s[i+1] == ']' {
				i++
			}
		case c == '(':
			depth++
		case c == ')':
			depth--
			if depth == 0 {
				return i, true
			}
		}
	}
	return 0, false
}

func (p *parsed) addName(name string, pos int) error {
	for _, n := range p.names {
		if n == name {
			return errAt("source", pos, "the capture %q is defined twice", name)
		}
	}
	if len(p.names) >= maxCaptures {
		return errAt("source", pos, "more than %d captures", maxCaptures)
	}
	p.names = append(p.names, name)
	return nil
}

// parseConds parses the query conditions q, which start at offset base of
// the source.
func (p *parsed) parseConds(q string, base int) error {
	if q == "" {
		return errAt("source", base-1, "a '?' must be followed by query conditions")
	}
	off := base
	for _, part := range strings.Split(q, "&") {
		if part == "" {
			return errAt("source", off, "an empty query condition")
		}
		k, v, hasV := strings.Cut(part, "=")
		key, err := decodeQueryPart(k, off)
		if err != nil {
			return err
		}
		if key == "" {
			return errAt("source", off, "a query condition without a key")
		}
		c := cond{key: key, op: condPresent}
		switch {
		case !hasV:
		case v == "":
			c.op = condEmpty
		case v[0] == ':':
			vpos := off + len(k) + 1
			if len(v) < 2 || !isNameStart(v[1]) {
				return errAt("source", vpos, "':' must start a capture name; write a literal ':' as %%3A")
			}
			for i := 1; i < len(v); i++ {
				if !isNameByte(v[i]) {
					return errAt("source", vpos+i, "%q in a capture name", v[i])
				}
			}
			c.op, c.name = condCapture, v[1:]
			if err := p.addName(c.name, vpos); err != nil {
				return err
			}
		default:
			val, err := decodeQueryPart(v, off+len(k)+1)
			if err != nil {
				return err
			}
			c.op, c.value = condEqual, val
		}
		p.conds = append(p.conds, c)
		off += len(part) + 1
	}
	return nil
}

// decodeQueryPart decodes a query key or value once, '+' read as a space.
func decodeQueryPart(s string, base int) (string, error) {
	if strings.IndexByte(s, '%') < 0 && strings.IndexByte(s, '+') < 0 {
		return s, nil
	}
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '+':
			b = append(b, ' ')
		case '%':
			if i+2 >= len(s) {
				return "", errAt("source", base+i, "'%%' must start an escape of two hexadecimal digits")
			}
			hi, ok1 := unhex(s[i+1])
			lo, ok2 := unhex(s[i+2])
			if !ok1 || !ok2 {
				return "", errAt("source", base+i, "'%%' must start an escape of two hexadecimal digits")
			}
			b = append(b, hi<<4|lo)
			i += 2
		default:
			b = append(b, s[i])
		}
	}
	return string(b), nil
}

// literalPrefix is the decoded literal text before the first placeholder.
func (p *parsed) literalPrefix() string {
	if len(p.tokens) > 0 && p.tokens[0].kind == tokLiteral {
		return p.tokens[0].lit
	}
	return ""
}

func checkLen(field, s string, max int) error {
	if len(s) > max {
		return errAt(field, max, "longer than %d bytes", max)
	}
	if s == "" {
		return errAt(field, 0, "empty")
	}
	return nil
}
