package pattern

// maxPath is the longest path the lookup API accepts.
const maxPath = 2048

// span is where a capture's text is: in the decoded path (to be mapped to
// its wire form) or in the request's query as sent.
type span struct {
	start, end int32
	query      bool
	set        bool
}

// Match is a lookup's answer and its scratch space: reuse one per goroutine
// so that a lookup allocates nothing (a regex hit allocates its group
// indexes).
type Match struct {
	set      *Set
	rank     int32
	wire     string // the path parameter as given
	wirePath string // wire up to its first '?' or '#'
	query    string // the request's query, as sent
	n        int    // decoded path length
	view     int    // length of the view that matched: n, or the slash twin's
	buf      [maxPath + 2]byte
	key      [maxPath + 1]byte
	folded   [maxPath + 2]byte
	hostBuf  [256]byte
	host     []byte
	hasHost  bool
	caps     []span
	skip     []int32            // per (token, position) of the pattern being tried: 0, or how far the next position not known to fail is
	width    int                // positions per token in skip
	slash    [maxPath + 2]int16 // per position of the view slashFor long: where its segment ends
	slashFor int
	cands    [][]int32
	cur      []int
}

// Rule returns the index, in the rules given to Compile, of the rule that
// answered.
func (m *Match) Rule() int { return m.set.rules[m.rank].index }

// Kind returns the answering rule's match type.
func (m *Match) Kind() Kind { return m.set.rules[m.rank].kind }

// Lookup finds the rule answering a request for wire (the lookup API's
// path parameter: the request path as sent, with its query) on host (""
// for none: only host-less rules answer; a malformed host, which the API
// refuses, counts as none). ok is false when no rule answers or wire's
// path holds a malformed escape.
func (s *Set) Lookup(host, wire string, m *Match) bool {
	m.set = s
	m.wire, m.wirePath, m.query = wire, wire, ""
	for i := 0; i < len(wire); i++ {
		if wire[i] == '?' || wire[i] == '#' {
			m.wirePath = wire[:i]
			if wire[i] == '?' {
				m.query = wire[i+1:]
				for j := 0; j < len(m.query); j++ {
					if m.query[j] == '#' {
						m.query = m.query[:j]
						break
					}
				}
			}
			break
		}
	}
	if !m.decode() || m.n == 0 || m.buf[0] != '/' {
		return false
	}
	m.hasHost = false
	if host != "" {
		h, ok := appendHostKey(m.hostBuf[:0], host)
		m.host, m.hasHost = h, ok && !containsStar(h)
	}
	path := m.buf[:m.n]
	m.slashFor = -1

	// Exact rules: one hash lookup on the path's key.
	if len(s.exact) > 0 {
		k := s.appendKey(m.key[:0], path)
		for _, rank := range s.exact[string(k)] {
			c := &s.rules[rank]
			if c.host != "" && (!m.hasHost || !hostMatches(c.host, m.host)) {
				continue
			}
			if len(c.except) > 0 && excepted(c.except, m.host, m.hasHost) {
				continue
			}
			m.resetCaps(c.slots)
			if m.condsHold(c) {
				m.rank, m.view = rank, m.n
				return true
			}
		}
	}

	// The other kinds: walk the trees that can hold a rule for this host
	// along the path (and its slash twin's extra '/'), then try their
	// rules in rank order.
	walk := path
	if s.settings.IgnoreTrailingSlash && (m.n == 0 || path[m.n-1] != '/') {
		m.buf[m.n] = '/'
		walk = m.buf[:m.n+1]
	}
	fold := s.settings.CaseInsensitive
	folded := walk
	if fold {
		folded = appendFold(m.folded[:0], walk)
	}
	m.cands = m.cands[:0]
	if m.hasHost {
		m.cands = s.byHost[string(m.host)].walk(walk, folded, fold, m.cands)
		if len(s.wild) > 0 {
			for i := 1; i < len(m.host); i++ {
				if m.host[i] == '.' {
					m.cands = s.wild[string(m.host[i:])].walk(walk, folded, fold, m.cands)
				}
			}
		}
	}
	m.cands = s.any.walk(walk, folded, fold, m.cands)
	m.cur = m.cur[:0]
	for range m.cands {
		m.cur = append(m.cur, 0)
	}
	for {
		best, bi := int32(-1), -1
		for i, l := range m.cands {
			if m.cur[i] < len(l) && (best < 0 || l[m.cur[i]] < best) {
				best, bi = l[m.cur[i]], i
			}
		}
		if bi < 0 {
			return false
		}
		m.cur[bi]++
		if m.try(&s.rules[best]) {
			m.rank = best
			return true
		}
	}
}

func containsStar(h []byte) bool {
	for _, c := range h {
		if c == '*' {
			return true
		}
	}
	return false
}

// decode percent-decodes wirePath once into buf.
func (m *Match) decode() bool {
	w := m.wirePath
	if len(w) > maxPath {
		return false
	}
	n := 0
	for i := 0; i < len(w); i++ {
		c := w[i]
		if c == '%' {
			if i+2 >= len(w) {
				return false
			}
			hi, ok1 := unhex(w[i+1])
			lo, ok2 := unhex(w[i+2])
			if !ok1 || !ok2 {
				return false
			}
			c = hi<<4 | lo
			i += 2
		}
		m.buf[n] = c
		n++
	}
	m.n = n
	return true
}

func (m *Match) resetCaps(n int) {
	if cap(m.caps) < n {
		m.caps = make([]span, n)
	}
	m.caps = m.caps[:n]
	clear(m.caps)
}

// try says whether a non-exact rule matches the path or, under trailingSlash
// ignore, its slash twin.
func (m *Match) try(c *compiled) bool {
	if len(c.except) > 0 && excepted(c.except, m.host, m.hasHost) {
		return false
	}
	m.resetCaps(c.slots)
	if len(c.conds) > 0 && !m.condsHold(c) {
		return false
	}
	if m.tryView(c, m.n) {
		m.view = m.n
		return true
	}
	if !m.set.settings.IgnoreTrailingSlash {
		return false
	}
	twin := m.n + 1 // the '/' Lookup wrote after the path
	if m.n > 1 && m.buf[m.n-1] == '/' {
		twin = m.n - 1
	} else if m.n > 0 && m.buf[m.n-1] == '/' {
		return false
	}
	m.buf[m.n] = '/'
	if m.tryView(c, twin) {
		m.view = twin
		return true
	}
	return false
}

func (m *Match) tryView(c *compiled, n int) bool {
	path := m.buf[:n]
	fold := m.set.settings.CaseInsensitive
	switch c.kind {
	case StartsWith:
		return len(path) >= len(c.path) && equalFold(path[:len(c.path)], c.path, fold)
	case Pattern:
		// Whether tokens i.. match from pos depends on nothing else, so a
		// failure is remembered: the search is then polynomial in the
		// path's length whatever the pattern, never exponential.
		if m.slashFor != n {
			end := int16(n)
			for p := n; p >= 0; p-- {
				if p < n && path[p] == '/' {
					end = int16(p)
				}
				m.slash[p] = end
			}
			m.slashFor = n
		}
		m.width = n + 2
		size := len(c.toks) * m.width
		if cap(m.skip) < size {
			m.skip = make([]int32, size)
		}
		m.skip = m.skip[:size]
		clear(m.skip)
		return m.matchTokens(c, 0, path, 0)
	case Regex:
		if fold {
			// The expression is lower-cased (compileRE): it runs on the
			// view with its ASCII letters lower-cased, which Lookup wrote
			// into m.folded (the slash twin's added '/' included).
			path = m.folded[:n]
		}
		idx := c.re.FindSubmatchIndex(path)
		if idx == nil {
			return false
		}
		for g := 0; g*2+1 < len(idx) && g < c.qslot; g++ {
			m.caps[g] = span{}
			if idx[2*g] >= 0 {
				m.caps[g] = span{start: int32(idx[2*g]), end: int32(idx[2*g+1]), set: true}
			}
		}
		return true
	}
	return false
}

func sameByte(x, y byte, fold bool) bool {
	if fold {
		if 'A' <= x && x <= 'Z' {
			x += 32
		}
		if 'A' <= y && y <= 'Z' {
			y += 32
		}
	}
	return x == y
}

func equalFold(b []byte, s string, fold bool) bool {
	if len(b) != len(s) {
		return false
	}
	for i := 0; i < len(s); i++ {
		x, y := b[i], s[i]
		if fold {
			if 'A' <= x && x <= 'Z' {
				x += 32
			}
			if 'A' <= y && y <= 'Z' {
				y += 32
			}
		}
		if x != y {
			return false
		}
	}
	return true
}

// matchTokens matches tokens i.. of a pattern against path from pos: each
// placeholder, left to right, takes the shortest text that lets the rest
// match; an optional segment is taken when the rest matches with it
// (docs/contract.md#pattern-syntax).
func (m *Match) matchTokens(c *compiled, i int, path []byte, pos int) bool {
	if i == len(c.toks) {
		return pos == len(path)
	}
	if m.skip[i*m.width+pos] != 0 {
		return false
	}
	if m.matchToken(c, i, path, pos) {
		return true
	}
	m.skip[i*m.width+pos] = 1
	return false
}

// nextIn returns the first position from pos on from which tokens i.. of
// c are not known to fail (len(path)+1 if none), compressing the runs of
// known failures it crosses: scanning a placeholder's candidate ends then
// costs each failure once over the whole search, not once per start, and a
// pattern's search stays near linear in the path's length.
func (m *Match) nextIn(c *compiled, i, pos, n int) int {
	if i == len(c.toks) || pos > n {
		return pos
	}
	row := m.skip[i*m.width : (i+1)*m.width]
	end := pos
	for end <= n && row[end] != 0 {
		end += int(row[end])
	}
	for p := pos; p < end && p <= n; {
		step := int(row[p])
		row[p] = int32(end - p)
		p += step
	}
	return min(end, n+1)
}

// matchToken matches token i at pos, then the rest.
func (m *Match) matchToken(c *compiled, i int, path []byte, pos int) bool {
	t := &c.toks[i]
	fold := m.set.settings.CaseInsensitive
	switch t.kind {
	case tokLiteral:
		end := pos + len(t.lit)
		return end <= len(path) && equalFold(path[pos:end], t.lit, fold) && m.matchTokens(c, i+1, path, end)
	case tokSegment:
		segEnd := int(m.slash[pos])
		if i+1 == len(c.toks) || c.toks[i+1].kind == tokLiteral && c.toks[i+1].lit[0] == '/' || c.toks[i+1].kind != tokLiteral && c.toks[i+1].kind != tokSegment {
			// What follows starts at a '/' or the end: only the whole
			// rest of the segment can be the capture.
			if segEnd > pos && m.capture(c, i, path, pos, segEnd) && m.matchTokens(c, i+1, path, segEnd) {
				return true
			}
			m.caps[t.slot] = span{}
			return false
		}
		next := c.toks[i+1].lit[0] // a literal follows: it must start where the capture ends
		fold := m.set.settings.CaseInsensitive
		for end := m.nextIn(c, i+1, pos+1, len(path)); end <= segEnd; end = m.nextIn(c, i+1, end+1, len(path)) {
			if end == len(path) || !sameByte(path[end], next, fold) {
				m.skip[(i+1)*m.width+end] = 1 // the literal cannot start there
				continue
			}
			if m.capture(c, i, path, pos, end) && m.matchTokens(c, i+1, path, end) {
				return true
			}
		}
		m.caps[t.slot] = span{}
		return false
	case tokOptional:
		if pos < len(path) && path[pos] == '/' {
			end := pos + 1
			for end < len(path) && path[end] != '/' {
				end++
			}
			if end > pos+1 && m.capture(c, i, path, pos+1, end) && m.matchTokens(c, i+1, path, end) {
				return true
			}
		}
		m.caps[t.slot] = span{start: int32(pos), end: int32(pos), set: true}
		return m.matchTokens(c, i+1, path, pos)
	case tokStar, tokPlus:
		last := i == len(c.toks)-1
		if t.kind == tokStar {
			m.caps[t.slot] = span{start: int32(pos), end: int32(pos), set: true}
			if m.matchTokens(c, i+1, path, pos) {
				return true
			}
		}
		if pos >= len(path) || path[pos] != '/' {
			return false
		}
		if last {
			if t.kind == tokPlus && pos+1 == len(path) {
				return false
			}
			return m.capture(c, i, path, pos+1, len(path))
		}
		for end := m.nextIn(c, i+1, pos+2, len(path)); end <= len(path); end = m.nextIn(c, i+1, end+1, len(path)) {
			if end < len(path) && path[end] != '/' {
				m.skip[(i+1)*m.width+end] = 1 // what follows starts with '/'
				continue
			}
			if m.capture(c, i, path, pos+1, end) && m.matchTokens(c, i+1, path, end) {
				return true
			}
		}
		return false
	}
	return false
}

// capture records path[start:end] as token i's capture if its constraint,
// if any, matches all of it (an empty capture is not checked).
func (m *Match) capture(c *compiled, i int, path []byte, start, end int) bool {
	if re := c.cons[i]; re != nil && start < end {
		text := path[start:end]
		if m.set.settings.CaseInsensitive {
			// The constraint is lower-cased (compileRE): it runs on the
			// capture's text with its ASCII letters lower-cased.
			text = m.folded[start:end]
		}
		if !re.Match(text) {
			return false
		}
	}
	m.caps[c.toks[i].slot] = span{start: int32(start), end: int32(end), set: true}
	return true
}

// LiteralPrefix returns the answering rule's literal prefix, which the
// contract's order compares after priority and host
// (docs/contract.md#precedence): a caller that merges this set's answer with
// another index's compares it there.
func (m *Match) LiteralPrefix() string { return m.set.rules[m.rank].prefix }

// Conditional reports whether the answering rule has query conditions.
func (m *Match) Conditional() bool { return len(m.set.rules[m.rank].conds) > 0 }
