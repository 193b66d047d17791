package redirects

import "bytes"

// prefixIndex finds the longest starts_with source that prefixes a path. It
// is a path-compressed radix tree laid out in flat, pointer-free arrays:
// nodes in breadth-first order, so the children of a node are adjacent, and
// the labels in the snapshot's arena. Each node whose string is a source
// carries the entry of that source's closure winner (see PrefixWinners), so
// the deepest valued node on a path's walk is the lookup's answer and a walk
// never backtracks: O(len(path)) whatever the number of sources.
type prefixIndex struct {
	nodes []prefixNode
	// first holds the first byte of each node's label, in node order. A
	// node's children are first[child:child+children], sorted, adjacent
	// bytes: one cache line usually answers which child to follow.
	first []byte
}

// prefixNode is one node of a prefixIndex: 16 bytes, no pointers.
type prefixNode struct {
	label    uint32 // offset of the label in the arena
	labelLen uint16 // label length: 0 only at the root
	children uint16 // number of children
	child    uint32 // index of the first child
	value    uint32 // entry index plus one, or 0 if no source ends here
}

// lookup returns the entry of the longest source that prefixes path.
func (x *prefixIndex) lookup(path string, arena []byte) (uint32, bool) {
	nodes := x.nodes
	if len(nodes) == 0 {
		return 0, false
	}
	best := uint32(0)
	n := &nodes[0]
	i := 0
	for {
		if n.value != 0 {
			best = n.value
		}
		if n.children == 0 || i >= len(path) {
			break
		}
		c := path[i]
		siblings := x.first[n.child : n.child+uint32(n.children)]
		j := -1
		if len(siblings) <= 8 {
			for k, b := range siblings {
				if b == c {
					j = k
					break
				}
			}
		} else {
			j = bytes.IndexByte(siblings, c)
		}
		if j < 0 {
			break
		}
		ci := n.child + uint32(j)
		n = &nodes[ci]
		end := i + int(n.labelLen)
		if end > len(path) || path[i+1:end] != arenaString(arena, n.label+1, uint32(n.labelLen)-1) {
			break
		}
		i = end
	}
	return best - 1, best != 0
}

// prefixTrie is the build-time form of a prefixIndex: the same compressed
// tree with linked children, built in one pass over sorted sources.
type prefixTrie struct {
	keys  []string
	nodes []trieNode
}

type trieNode struct {
	key        int32 // index of a key through this node, whose bytes give the label
	depth      int32 // length of the node's string
	firstChild int32
	lastChild  int32
	next       int32 // next sibling
	value      uint32
}

// buildPrefixTrie builds the compressed trie of keys, which must be sorted
// by bytes, with values[i] (non-zero) at keys[i]'s node. For a run of equal
// keys the last value wins, which is what PrefixWinners' output needs: the
// last of equal sources saw the others as its ancestors.
//
// Sorted input makes this a single pass: the stack holds the path to the
// previous key, the new key shares lcp bytes with it, so everything deeper
// than lcp is finished; at most one edge is split to hang the new leaf.
func buildPrefixTrie(keys []string, values []uint32) *prefixTrie {
	t := &prefixTrie{keys: keys, nodes: make([]trieNode, 1, 2*len(keys)+1)}
	t.nodes[0] = trieNode{key: -1, firstChild: -1, lastChild: -1, next: -1}
	stack := make([]int32, 1, 64)
	prev := ""
	for i, k := range keys {
		if k == "" {
			// Only an invalid, empty source gets here: it prefixes every path.
			t.nodes[0].value = values[i]
			continue
		}
		if i > 0 && k == prev {
			t.nodes[stack[len(stack)-1]].value = values[i]
			continue
		}
		l := int32(commonPrefixLen(prev, k))
		popped := int32(-1)
		for t.nodes[stack[len(stack)-1]].depth > l {
			popped = stack[len(stack)-1]
			stack = stack[:len(stack)-1]
		}
		parent := stack[len(stack)-1]
		if t.nodes[parent].depth < l {
			// Split the edge to popped, the parent's last child, at depth l:
			// popped's slot becomes the split node, so the parent's child
			// list stays intact, and its old contents move to a new slot.
			moved := int32(len(t.nodes))
			t.nodes = append(t.nodes, t.nodes[popped])
			t.nodes[popped] = trieNode{key: int32(i), depth: l, firstChild: moved, lastChild: moved, next: -1}
			stack = append(stack, popped)
			parent = popped
		}
		leaf := int32(len(t.nodes))
		t.nodes = append(t.nodes, trieNode{key: int32(i), depth: int32(len(k)), firstChild: -1, lastChild: -1, next: -1, value: values[i]})
		if p := &t.nodes[parent]; p.lastChild < 0 {
			p.firstChild, p.lastChild = leaf, leaf
		} else {
			t.nodes[p.lastChild].next = leaf
			p.lastChild = leaf
		}
		stack = append(stack, leaf)
		prev = k
	}
	return t
}

func commonPrefixLen(a, b string) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

// labelBytes returns the total length of the labels, what flatten appends
// to the arena.
func (t *prefixTrie) labelBytes() int {
	total := 0
	for n := range t.nodes {
		for c := t.nodes[n].firstChild; c >= 0; c = t.nodes[c].next {
			total += int(t.nodes[c].depth - t.nodes[n].depth)
		}
	}
	return total
}

// flatten lays the trie out breadth-first as a prefixIndex, appending the
// labels to arena in the same order so siblings' labels are adjacent too.
func (t *prefixTrie) flatten(arena []byte) ([]byte, prefixIndex) {
	if len(t.nodes) == 1 {
		return arena, prefixIndex{}
	}
	x := prefixIndex{
		nodes: make([]prefixNode, len(t.nodes)),
		first: make([]byte, len(t.nodes)),
	}
	// queue[i] is the trie node that becomes x.nodes[i]; parentDepth[i] is
	// where its label starts.
	queue := make([]int32, 1, len(t.nodes))
	parentDepth := make([]int32, 1, len(t.nodes))
	for qi := 0; qi < len(queue); qi++ {
		tn := &t.nodes[queue[qi]]
		out := &x.nodes[qi]
		out.value = tn.value
		if qi > 0 {
			label := t.keys[tn.key][parentDepth[qi]:tn.depth]
			out.label, out.labelLen = uint32(len(arena)), uint16(len(label))
			x.first[qi] = label[0]
			arena = append(arena, label...)
		}
		out.child = uint32(len(queue))
		for c := tn.firstChild; c >= 0; c = t.nodes[c].next {
			queue = append(queue, c)
			parentDepth = append(parentDepth, tn.depth)
			out.children++
		}
	}
	return arena, x
}
