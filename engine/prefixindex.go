package engine

import (
	"bytes"
	"encoding/binary"
)

// prefixIndex finds the longest starts_with source that prefixes a path. It
// is a path-compressed radix tree in flat, pointer-free arrays, built so a
// walk touches few cache lines, because on a large snapshot each line missed
// costs more than everything else a lookup does:
//
//   - a subtree small enough (bucketMaxKeys sources, bucketMaxBytes bytes) is
//     not a chain of nodes but one bucket listing its sources' remaining
//     bytes: the sparse bottom of the tree, where nearly every node would be
//     a cache miss, costs one run of adjacent lines instead, and the nodes
//     left are few enough to stay mostly in cache;
//   - nodes are 16 bytes, in breadth-first order, so a node's children are
//     adjacent; labels of up to 4 bytes are held in the node, longer ones in
//     labels, a dense array of its own rather than among the buckets;
//   - first holds each node's first label byte, so choosing a child reads one
//     small array.
//
// Each node or bucket entry whose string is a source carries the record of
// that source's closure winner (see PrefixWinners), so the deepest match on
// a path's walk is the lookup's answer and a walk never backtracks:
// O(len(path)) whatever the number of sources.
type prefixIndex struct {
	nodes   []prefixNode
	first   []byte
	labels  []byte
	buckets []byte
}

// prefixNode is one node of a prefixIndex.
type prefixNode struct {
	// child is the index of the first child or, in a bucket node, the
	// bucket's offset in buckets.
	child uint32
	// value is the offset of the winner's record plus one, or 0 if no source
	// ends here.
	value uint32
	// label is the label itself when labelLen <= 4 (first byte lowest),
	// otherwise its offset in labels.
	label    uint32
	labelLen uint16 // 0 only at the root
	children uint16 // number of children, or bucketNode
}

const (
	// bucketNode in prefixNode.children marks a node whose subtree is a
	// bucket: a count (uint16), then per source, in byte order, its winner's
	// record offset plus one (uint32), the length of the rest of the source
	// past the node (uint16) and that rest.
	bucketNode  = 0xffff
	bucketEntry = 6 // bytes of an entry before the rest of its source
	inlineLabel = 4 // longest label held in prefixNode.label
)

// A subtree becomes a bucket when it holds at most bucketMaxKeys sources and
// bucketMaxBytes bytes: about four cache lines, which the hardware
// prefetcher fetches together, scanned in well under the cost of one miss.
// They are variables only so tests can also check the index without
// buckets, or with buckets everywhere.
var (
	bucketMaxKeys  int32 = 16
	bucketMaxBytes       = 256
)

// lookup returns the record offset of the winner of the longest source that
// prefixes path.
func (x *prefixIndex) lookup(path string) (uint32, bool) {
	nodes := x.nodes
	if len(nodes) == 0 {
		return 0, false
	}
	best := uint32(0)
	n := &nodes[0]
	i := 0
walk:
	for {
		if n.value != 0 {
			best = n.value
		}
		if n.children == bucketNode {
			if v := scanBucket(x.buckets, n.child, path[i:]); v != 0 {
				best = v
			}
			break
		}
		if n.children == 0 || i >= len(path) {
			break
		}
		c := path[i]
		ci := n.child
		siblings := x.first[ci : ci+uint32(n.children)]
		if len(siblings) <= 8 {
			k := 0
			for k < len(siblings) && siblings[k] != c {
				k++
			}
			if k == len(siblings) {
				break
			}
			ci += uint32(k)
		} else {
			k := bytes.IndexByte(siblings, c)
			if k < 0 {
				break
			}
			ci += uint32(k)
		}
		n = &nodes[ci]
		end := i + int(n.labelLen)
		if end > len(path) {
			break
		}
		if n.labelLen <= inlineLabel {
			// The first byte matched in first; compare the rest.
			label := n.label >> 8
			for k := i + 1; k < end; k++ {
				if path[k] != byte(label) {
					break walk
				}
				label >>= 8
			}
		} else if arenaString(x.labels, n.label, uint32(n.labelLen)) != path[i:end] {
			break
		}
		i = end
	}
	return best - 1, best != 0
}

// scanBucket returns the value of the longest bucket entry that prefixes
// rest, or 0.
func scanBucket(buckets []byte, off uint32, rest string) uint32 {
	if len(rest) == 0 {
		return 0
	}
	b := buckets[off:]
	count := int(binary.LittleEndian.Uint16(b))
	// Entries are sorted, so of two that prefix rest the longer comes later:
	// the last match is the longest.
	c := rest[0]
	best := uint32(0)
	p := 2
	for k := 0; k < count; k++ {
		l := int(binary.LittleEndian.Uint16(b[p+4:]))
		first := b[p+bucketEntry]
		if first > c {
			break // no later entry starts with c
		}
		if first == c && l <= len(rest) && string(b[p+bucketEntry:p+bucketEntry+l]) == rest[:l] {
			best = binary.LittleEndian.Uint32(b[p:])
		}
		p += bucketEntry + l
	}
	return best
}

// prefixTrie is the build-time form of a prefixIndex: the same compressed
// tree with linked children, built in one pass over sorted sources.
type prefixTrie struct {
	keys  []string
	nodes []trieNode
	// sumLen[i] is the total length of keys[:i], to size buckets in O(1).
	sumLen []int
	// plan is the breadth-first order of the nodes that flatten lays out;
	// bucket marks those that become buckets; labelSize and bucketSize are
	// the lengths of the index's labels and buckets.
	plan                  []int32
	bucket                []bool
	labelSize, bucketSize int
}

// trieNode is a node of a prefixTrie. Children are linked rather than
// listed so the build makes no allocation per node.
type trieNode struct {
	key        int32 // index of a key through this node, whose bytes give the label
	end        int32 // index of the key that ends here, or -1
	lo, hi     int32 // the node's subtree holds keys[lo:hi]
	depth      int32 // length of the node's string
	firstChild int32
	lastChild  int32
	next       int32 // next sibling
}

// buildPrefixTrie builds the compressed trie of keys, which must be sorted
// by bytes, and plans its layout. For a run of equal keys the node records
// the last one, which is what PrefixWinners' output needs: the last of equal
// sources saw the others as its ancestors.
//
// Sorted input makes this a single pass: the stack holds the path to the
// previous key, the new key shares lcp bytes with it, so everything deeper
// than lcp is finished; at most one edge is split to hang the new leaf.
func buildPrefixTrie(keys []string) *prefixTrie {
	t := &prefixTrie{keys: keys, nodes: make([]trieNode, 1, 2*len(keys)+1)}
	t.nodes[0] = trieNode{key: -1, end: -1, firstChild: -1, lastChild: -1, next: -1}
	stack := make([]int32, 1, 64)
	prev := ""
	for i, k := range keys {
		if k == "" {
			// Only an invalid, empty source gets here: it prefixes every path.
			t.nodes[0].end = int32(i)
			continue
		}
		if i > 0 && k == prev {
			t.nodes[stack[len(stack)-1]].end = int32(i)
			continue
		}
		l := int32(commonPrefixLen(prev, k))
		popped := int32(-1)
		for t.nodes[stack[len(stack)-1]].depth > l {
			popped = stack[len(stack)-1]
			t.nodes[popped].hi = int32(i)
			stack = stack[:len(stack)-1]
		}
		parent := stack[len(stack)-1]
		if t.nodes[parent].depth < l {
			// Split the edge to popped, the parent's last child, at depth l:
			// popped's slot becomes the split node, so the parent's child
			// list stays intact, and its old contents move to a new slot.
			moved := int32(len(t.nodes))
			t.nodes = append(t.nodes, t.nodes[popped])
			t.nodes[popped] = trieNode{key: int32(i), end: -1, lo: t.nodes[moved].lo, depth: l, firstChild: moved, lastChild: moved, next: -1}
			stack = append(stack, popped)
			parent = popped
		}
		leaf := int32(len(t.nodes))
		t.nodes = append(t.nodes, trieNode{key: int32(i), end: int32(i), lo: int32(i), depth: int32(len(k)), firstChild: -1, lastChild: -1, next: -1})
		if p := &t.nodes[parent]; p.lastChild < 0 {
			p.firstChild, p.lastChild = leaf, leaf
		} else {
			t.nodes[p.lastChild].next = leaf
			p.lastChild = leaf
		}
		stack = append(stack, leaf)
		prev = k
	}
	for _, n := range stack {
		t.nodes[n].hi = int32(len(keys))
	}
	t.sumLen = make([]int, len(keys)+1)
	for i, k := range keys {
		t.sumLen[i+1] = t.sumLen[i] + len(k)
	}
	t.planLayout()
	return t
}

// commonPrefixLen returns the length of the longest common prefix of a and b.
func commonPrefixLen(a, b string) int {
	n := min(len(a), len(b))
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

// planLayout chooses the breadth-first order of the index's nodes, which
// subtrees become buckets, and how many bytes of labels and buckets that
// makes, so flatten allocates each array once, at its size.
func (t *prefixTrie) planLayout() {
	if len(t.nodes) == 1 && t.nodes[0].end < 0 {
		return
	}
	t.plan = make([]int32, 1, len(t.nodes))
	t.bucket = make([]bool, 1, len(t.nodes))
	for qi := 0; qi < len(t.plan); qi++ {
		tn := &t.nodes[t.plan[qi]]
		if size, ok := t.bucketBytes(tn); ok && tn.firstChild >= 0 {
			t.bucket[qi] = true
			t.bucketSize += size
			continue
		}
		for c := tn.firstChild; c >= 0; c = t.nodes[c].next {
			t.plan = append(t.plan, c)
			t.bucket = append(t.bucket, false)
			if l := int(t.nodes[c].depth - tn.depth); l > inlineLabel {
				t.labelSize += l
			}
		}
	}
}

// bucketBytes returns the bytes a bucket of tn's subtree takes, and whether
// that is small enough to make one.
func (t *prefixTrie) bucketBytes(tn *trieNode) (int, bool) {
	if tn.hi-tn.lo > bucketMaxKeys || t.sumLen[tn.hi]-t.sumLen[tn.lo] > bucketMaxBytes+int(tn.hi-tn.lo)*int(tn.depth) {
		return 0, false
	}
	size := 2
	for k := tn.lo; k < tn.hi; k++ {
		if t.inBucket(tn, k) {
			size += bucketEntry + len(t.keys[k]) - int(tn.depth)
		}
	}
	return size, size <= bucketMaxBytes
}

// inBucket reports whether keys[k] has an entry in the bucket of tn's
// subtree: not tn's own key, and the last of a run of duplicates.
func (t *prefixTrie) inBucket(tn *trieNode, k int32) bool {
	return int32(len(t.keys[k])) != tn.depth && (k+1 == tn.hi || t.keys[k+1] != t.keys[k])
}

// flatten lays the planned trie out as a prefixIndex whose node for key i
// holds values[i].
func (t *prefixTrie) flatten(values []uint32) prefixIndex {
	if len(t.plan) == 0 {
		return prefixIndex{}
	}
	x := prefixIndex{
		nodes:   make([]prefixNode, len(t.plan)),
		first:   make([]byte, len(t.plan)),
		labels:  make([]byte, 0, t.labelSize),
		buckets: make([]byte, 0, t.bucketSize),
	}
	// parentDepth[i] is where the label of x.nodes[i] starts; next is the
	// index the next child gets, following the plan's order.
	parentDepth := make([]int32, len(t.plan))
	next := uint32(1)
	for qi, n := range t.plan {
		tn := &t.nodes[n]
		out := &x.nodes[qi]
		if tn.end >= 0 {
			out.value = values[tn.end]
		}
		if qi > 0 {
			label := t.keys[tn.key][parentDepth[qi]:tn.depth]
			out.labelLen = uint16(len(label))
			x.first[qi] = label[0]
			if len(label) <= inlineLabel {
				for k := len(label) - 1; k >= 0; k-- {
					out.label = out.label<<8 | uint32(label[k])
				}
			} else {
				out.label = uint32(len(x.labels))
				x.labels = append(x.labels, label...)
			}
		}
		if t.bucket[qi] {
			out.children = bucketNode
			out.child = uint32(len(x.buckets))
			x.buckets = t.appendBucket(x.buckets, tn, values)
			continue
		}
		out.child = next
		for c := tn.firstChild; c >= 0; c = t.nodes[c].next {
			parentDepth[next] = tn.depth
			next++
			out.children++
		}
	}
	return x
}

// appendBucket appends the bucket of tn's subtree: its keys, which are
// keys[tn.lo:tn.hi] in byte order, as inBucket selects them.
func (t *prefixTrie) appendBucket(b []byte, tn *trieNode, values []uint32) []byte {
	start := len(b)
	b = append(b, 0, 0)
	count := 0
	for k := tn.lo; k < tn.hi; k++ {
		if !t.inBucket(tn, k) {
			continue
		}
		rest := t.keys[k][tn.depth:]
		b = binary.LittleEndian.AppendUint32(b, values[k])
		b = binary.LittleEndian.AppendUint16(b, uint16(len(rest)))
		b = append(b, rest...)
		count++
	}
	binary.LittleEndian.PutUint16(b[start:], uint16(count))
	return b
}
