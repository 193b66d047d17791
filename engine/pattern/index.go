package pattern

// tree holds one host's (or the host-less) non-exact rules: a pattern
// rule with a whole literal segment at a fixed depth (no optional or
// multi-segment placeholder before it) under its deepest such segment, so
// that "/:lang/section5/page9" waits for a path whose third segment is
// "page9"; every other rule in a radix tree by its literal prefix.
type tree struct {
	prefix node
	segs   []map[string][]int32 // per depth: a segment's (folded) text → rules
}

func (t *tree) insert(c *compiled, fold func(string) string, rank int32) {
	if c.kind == Pattern {
		if d, seg, ok := segmentKey(c.toks); ok {
			for len(t.segs) <= d {
				t.segs = append(t.segs, map[string][]int32{})
			}
			k := fold(seg)
			t.segs[d][k] = append(t.segs[d][k], rank)
			return
		}
	}
	t.prefix.insert(fold(c.prefix), rank)
}

// segmentKey returns a pattern's deepest whole literal segment at a fixed
// depth (0 for the first segment).
func segmentKey(toks []token) (depth int, seg string, ok bool) {
	d, cur, literal := -1, []byte(nil), false
	end := func() {
		if literal && len(cur) > 0 && d >= 0 {
			depth, seg, ok = d, string(cur), true
		}
	}
	for _, t := range toks {
		switch t.kind {
		case tokLiteral:
			for i := 0; i < len(t.lit); i++ {
				if t.lit[i] == '/' {
					end()
					d, cur, literal = d+1, cur[:0], true
					continue
				}
				cur = append(cur, t.lit[i])
			}
		case tokSegment:
			literal = false
		default:
			end()
			return
		}
	}
	end()
	return
}

// walk appends the rule lists of t that path (folded when fold is set)
// can match: its segments at their depths, and its literal prefixes.
func (t *tree) walk(path, folded []byte, fold bool, out [][]int32) [][]int32 {
	if t == nil {
		return out
	}
	if len(t.segs) > 0 {
		d, start := -1, 0
		for i := 0; i <= len(folded); i++ {
			if i < len(folded) && folded[i] != '/' {
				continue
			}
			if d >= 0 && d < len(t.segs) && i > start {
				if l := t.segs[d][string(folded[start:i])]; l != nil {
					out = append(out, l)
				}
			}
			d, start = d+1, i+1
			if d >= len(t.segs) {
				break
			}
		}
	}
	return t.prefix.walk(path, fold, out)
}

// node is a radix tree over the (folded) literal prefixes of non-exact
// rules: a lookup walks it along the path once and tries only the rules
// whose literal prefix the path starts with.
type node struct {
	label string
	kids  []*node
	ranks []int32 // the rules whose prefix ends here, in rank order
}

func (n *node) insert(key string, rank int32) {
	for {
		if key == "" {
			n.ranks = append(n.ranks, rank)
			return
		}
		var next *node
		for _, k := range n.kids {
			if k.label[0] == key[0] {
				next = k
				break
			}
		}
		if next == nil {
			n.kids = append(n.kids, &node{label: key, ranks: []int32{rank}})
			return
		}
		common := 0
		for common < len(next.label) && common < len(key) && next.label[common] == key[common] {
			common++
		}
		if common < len(next.label) {
			// Split next at common.
			tail := &node{label: next.label[common:], kids: next.kids, ranks: next.ranks}
			next.label, next.kids, next.ranks = next.label[:common], []*node{tail}, nil
		}
		n, key = next, key[common:]
	}
}

// walk appends the rank lists of every node whose prefix path starts with
// (folding path's ASCII letters when fold is set).
func (n *node) walk(path []byte, fold bool, out [][]int32) [][]int32 {
	for {
		if len(n.ranks) > 0 {
			out = append(out, n.ranks)
		}
		if len(path) == 0 {
			return out
		}
		c := path[0]
		if fold && 'A' <= c && c <= 'Z' {
			c += 32
		}
		var next *node
		for _, k := range n.kids {
			if k.label[0] == c {
				next = k
				break
			}
		}
		if next == nil || len(next.label) > len(path) {
			return out
		}
		for i := 0; i < len(next.label); i++ {
			b := path[i]
			if fold && 'A' <= b && b <= 'Z' {
				b += 32
			}
			if b != next.label[i] {
				return out
			}
		}
		n, path = next, path[len(next.label):]
	}
}
