package export

import (
	"hash/maphash"
	"strings"

	"redirects"
)

// heldRule is a rule of an import file as ReadFile holds it while it
// reads, with its line: 80 bytes, against a redirects.Rule's 160 and the
// line's 8.
type heldRule struct {
	source, destination, host string
	priority                  int32
	line                      int32
	status                    int16
	match                     redirects.MatchType
	preservePath              bool
	preserveQuery             bool
	queryAfterFragment        bool
	mergeQuery                bool
	// exceptHosts are the rule's exceptHosts joined by a space.
	exceptHosts string
}

// hold returns r's held form at line; r is valid (Validate), so its status
// and priority fit, and ReadFile refuses a line past math.MaxInt32.
func hold(r *redirects.Rule, line int) heldRule {
	return heldRule{r.Source, r.Destination, r.Host, int32(r.Priority), int32(line), int16(r.StatusCode), r.MatchType, r.PreservePath, r.PreserveQuery,
		r.QueryAfterFragment, r.MergeQuery, strings.Join(r.ExceptHosts, " ")}
}

func (h *heldRule) rule() redirects.Rule {
	return redirects.Rule{Source: h.source, Destination: h.destination, Priority: int(h.priority), StatusCode: int(h.status),
		MatchType: h.match, PreservePath: h.preservePath, PreserveQuery: h.preserveQuery, Host: h.host,
		QueryAfterFragment: h.queryAfterFragment, MergeQuery: h.mergeQuery, ExceptHosts: hostList(h.exceptHosts)}
}

// hostList is a list of hosts joined by spaces as a list, nil when empty.
func hostList(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Fields(s)
}

// heldChunk is how many rules one chunk of heldRules holds: 1 MiB.
const heldChunk = 1 << 14

// heldRules are the rules of a file read so far, in chunks of heldChunk,
// so that a million of them are never copied to a larger slice, the old
// one and the new live at once.
type heldRules struct {
	chunks [][]heldRule
	n      int
}

func (h *heldRules) add(r heldRule) {
	if h.n%heldChunk == 0 {
		// The first chunk grows as append grows it, so that a small
		// file's rules cost no more than they take.
		var next []heldRule
		if h.n > 0 {
			next = make([]heldRule, 0, heldChunk)
		}
		h.chunks = append(h.chunks, next)
	}
	c := &h.chunks[len(h.chunks)-1]
	*c = append(*c, r)
	h.n++
}

func (h *heldRules) at(i int32) *heldRule {
	return &h.chunks[i/heldChunk][i%heldChunk]
}

// seenRules finds the first rule of a key among the rules of a file read
// so far. A map of the keys themselves (two strings each) cost a million-
// line file more than its CSV parsing, most of it in growing the map, and
// a slice of the keys held each rule's source twice: the map holds a hash
// of each key and the index of its rule, 12 bytes a slot, and the key of
// a rule whose hash matches is worked out again (key). A key whose hash
// an earlier key holds goes to a second map, exact.
type seenRules struct {
	seed   maphash.Seed
	byHash map[uint64]int32
	clash  map[redirects.RuleKey]int32
	// key returns the key of the i-th rule added.
	key func(i int32) redirects.RuleKey
	n   int32
	// mask keeps the bits of the hash used: all of them but in a test,
	// which makes keys clash.
	mask uint64
}

func newSeenRules(key func(i int32) redirects.RuleKey) *seenRules {
	return &seenRules{seed: maphash.MakeSeed(), byHash: map[uint64]int32{}, key: key, mask: seenMask}
}

// seenMask is the mask of every seenRules: all the bits but in a test of
// ReadFile's clash path.
var seenMask = ^uint64(0)

func (s *seenRules) hash(k *redirects.RuleKey) uint64 {
	h := maphash.String(s.seed, k.Source)
	if k.Host != "" {
		h = h*0x9E3779B97F4A7C15 ^ maphash.String(s.seed, k.Host)
	}
	return (h ^ uint64(k.MatchType)*0xC2B2AE3D27D4EB4F) & s.mask
}

// get returns the index of the first rule of key k.
func (s *seenRules) get(k redirects.RuleKey) (int32, bool) {
	i, ok := s.byHash[s.hash(&k)]
	if !ok {
		return 0, false
	}
	if s.key(i) != k {
		i, ok = s.clash[k]
	}
	return i, ok
}

// add records the next rule, of key k, which get did not find: its index
// is the number of rules added before it.
func (s *seenRules) add(k redirects.RuleKey) {
	i := s.n
	s.n++
	h := s.hash(&k)
	if _, taken := s.byHash[h]; !taken {
		s.byHash[h] = i
		return
	}
	if s.clash == nil {
		s.clash = map[redirects.RuleKey]int32{}
	}
	s.clash[k] = i
}
