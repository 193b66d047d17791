package pattern

import (
	"strings"
)

// destPart is a piece of a destination: literal text, or a capture's slot.
type destPart struct {
	lit  string
	slot int // -1 for literal text
}

// parseDestination validates a destination for a rule of kind whose source
// parsed as p (docs/contract.md#captures-in-destinations) and splits it
// into literal text and capture references.
func parseDestination(d string, kind Kind, p *parsed, rc compiled) ([]destPart, error) {
	const field = "destination"
	if d == "" {
		return nil, nil
	}
	if len(d) > maxSourceLen {
		return nil, errAt(field, maxSourceLen, "longer than %d bytes", maxSourceLen)
	}
	if !validUTF8(d) {
		return nil, errAt(field, firstBadUTF8(d), "not valid UTF-8")
	}
	// A literal rule without captures keeps a literal destination's checks
	// (docs/contract.md#rules-and-their-validation, which the domain
	// applies): its destination is answered as written, so nothing here can
	// form a host, and a '`' or an absolute URL without a host name that
	// those checks take is taken here too.
	captures := kind == Pattern || kind == Regex || len(p.names) > 0
	authEnd := 1 // where the scheme and host end; a capture before it is refused
	lower := strings.ToLower(d)
	switch {
	case strings.HasPrefix(lower, "http://") || strings.HasPrefix(lower, "https://"):
		i := strings.Index(d, "://") + 3
		authEnd = len(d)
		if j := strings.IndexAny(d[i:], "/?#"); j >= 0 {
			authEnd = i + j
		}
		if authEnd == i && captures {
			return nil, errAt(field, i, "an absolute destination names a host")
		}
	case strings.HasPrefix(d, "//") || strings.HasPrefix(d, "/\\"):
		return nil, errAt(field, 0, "a relative destination starts with one '/'")
	case !strings.HasPrefix(d, "/"):
		return nil, errAt(field, 0, "a destination is a path starting with / or an http:// or https:// URL")
	}
	slotOf := func(name string) int {
		for i, n := range p.names {
			if n != name {
				continue
			}
			if kind == Regex && i < len(p.names)-countQueryNames(p) {
				return rc.re.SubexpIndex(name)
			}
			if kind == Regex {
				return rc.qslot + i - (len(p.names) - countQueryNames(p))
			}
			return i
		}
		return -1
	}
	var parts []destPart
	var lit strings.Builder
	ref := func(pos, slot int, name string) error {
		if slot < 0 {
			return errAt(field, pos, "the capture %s is not defined by the source", name)
		}
		if pos < authEnd {
			return errAt(field, pos, "a capture may not form the scheme or host")
		}
		if lit.Len() > 0 {
			parts = append(parts, destPart{lit: lit.String(), slot: -1})
			lit.Reset()
		}
		parts = append(parts, destPart{slot: slot})
		return nil
	}
	hashes := 0
	for i := 0; i < len(d); i++ {
		c := d[i]
		switch {
		case c <= ' ' || c == 0x7f || c == '"' || c == '\'' || c == '\\' || c == ';' || c == '`' && captures:
			return nil, errAt(field, i, "%q is not allowed", c)
		case c == '#':
			if hashes++; hashes > 1 {
				return nil, errAt(field, i, "a second '#'")
			}
			lit.WriteByte(c)
		case c == '$' && kind == Regex:
			switch {
			case i+1 < len(d) && d[i+1] == '$':
				lit.WriteByte('$')
				i++
			case i+1 < len(d) && '1' <= d[i+1] && d[i+1] <= '9':
				n := int(d[i+1] - '0')
				if n > rc.re.NumSubexp() {
					n = -1
				}
				if err := ref(i, n, d[i:i+2]); err != nil {
					return nil, err
				}
				i++
			case i+1 < len(d) && d[i+1] == '{':
				end := strings.IndexByte(d[i:], '}')
				if end < 0 {
					return nil, errAt(field, i, "'${' without its '}'")
				}
				name := d[i+2 : i+end]
				if err := ref(i, slotOf(name), "${"+name+"}"); err != nil {
					return nil, err
				}
				i += end
			default:
				return nil, errAt(field, i, "'$' must start $1 to $9, ${name} or $$")
			}
		case c == '$' || c == '{' || c == '}':
			return nil, errAt(field, i, "%q is not allowed here; write it percent-encoded", c)
		case c == ':' && captures && kind != Regex && i+1 < len(d) && isNameStart(d[i+1]):
			j := i + 1
			for j < len(d) && isNameByte(d[j]) {
				j++
			}
			if err := ref(i, slotOf(d[i+1:j]), d[i:j]); err != nil {
				return nil, err
			}
			i = j - 1
		default:
			lit.WriteByte(c)
		}
	}
	if lit.Len() > 0 {
		parts = append(parts, destPart{lit: lit.String(), slot: -1})
	}
	return parts, nil
}

// AppendDestination appends the answering rule's destination with its
// captures inserted in the wire form the request used: bytes that could
// change how a client reads the URL (control bytes, space, '"', '\”, '<',
// '>', '\\', '`') percent-encoded, a computed relative destination's
// leading run of '/' made one, so that no capture can name another host.
func (m *Match) AppendDestination(dst []byte) []byte {
	c := &m.set.rules[m.rank]
	start := len(dst)
	for _, p := range c.dest {
		if p.slot < 0 {
			dst = append(dst, p.lit...)
			continue
		}
		dst = appendEscaped(dst, m.captureText(p.slot))
	}
	if len(dst)-start >= 2 && dst[start] == '/' && dst[start+1] == '/' {
		j := start + 1
		for j < len(dst) && dst[j] == '/' {
			j++
		}
		dst = append(dst[:start+1], dst[j:]...)
	}
	return dst
}

// captureText is a capture in its wire form: a slice of the path or query
// parameter as sent.
func (m *Match) captureText(slot int) string {
	if slot >= len(m.caps) {
		return ""
	}
	sp := m.caps[slot]
	if !sp.set {
		return ""
	}
	if sp.query {
		return m.query[sp.start:sp.end]
	}
	s, e := min(int(sp.start), m.n), min(int(sp.end), m.n) // an added twin '/' is not the path's
	return m.wirePath[m.wireOffset(s):m.wireOffset(e)]
}

// wireOffset maps an offset in the decoded path to the wire path.
func (m *Match) wireOffset(k int) int {
	w := m.wirePath
	i := 0
	for ; k > 0 && i < len(w); k-- {
		if w[i] == '%' {
			i += 3
		} else {
			i++
		}
	}
	return i
}

func appendEscaped(dst []byte, s string) []byte {
	const hexd = "0123456789ABCDEF"
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= ' ' || c == 0x7f || c == '"' || c == '\'' || c == '<' || c == '>' || c == '\\' || c == '`' {
			dst = append(dst, '%', hexd[c>>4], hexd[c&15])
			continue
		}
		dst = append(dst, c)
	}
	return dst
}

// Captures calls fn with each capture's name and its text in wire form, in
// source order (regex rules' numbered groups as "1", "2", ...), for explain.
func (m *Match) Captures(fn func(name, value string)) {
	c := &m.set.rules[m.rank]
	for slot, name := range c.names {
		if name != "" {
			fn(name, m.captureText(slot))
		}
	}
}

// condsHold says whether the request's query satisfies every condition of
// c, recording query captures.
func (m *Match) condsHold(c *compiled) bool {
	q := m.query
	k := c.qslot
	for _, cd := range c.conds {
		found := false
		for off := 0; off <= len(q) && !found; {
			end := off
			for end < len(q) && q[end] != '&' {
				end++
			}
			param := q[off:end]
			rawK, rawV := param, ""
			hasEq := false
			for i := 0; i < len(param); i++ {
				if param[i] == '=' {
					rawK, rawV, hasEq = param[:i], param[i+1:], true
					break
				}
			}
			if param != "" && decodedEquals(rawK, cd.key) {
				switch cd.op {
				case condPresent:
					found = true
				case condEmpty:
					found = rawV == ""
				case condEqual:
					found = decodedEquals(rawV, cd.value)
				case condCapture:
					found = true
					vs := off + len(rawK)
					if hasEq {
						vs++
					}
					m.caps[k] = span{start: int32(vs), end: int32(end), query: true, set: true}
				}
			}
			off = end + 1
		}
		if !found {
			return false
		}
		if cd.op == condCapture {
			k++
		}
	}
	return true
}

// decodedEquals says whether raw, percent-decoded once with '+' a space (a
// '%' that starts no escape kept as it is), is want.
func decodedEquals(raw, want string) bool {
	j := 0
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		switch c {
		case '+':
			c = ' '
		case '%':
			if i+2 < len(raw) {
				hi, ok1 := unhex(raw[i+1])
				lo, ok2 := unhex(raw[i+2])
				if ok1 && ok2 {
					c = hi<<4 | lo
					i += 2
				}
			}
		}
		if j >= len(want) || want[j] != c {
			return false
		}
		j++
	}
	return j == len(want)
}
