package pattern

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
	if n == nil {
		return out
	}
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
