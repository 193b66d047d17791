package engine

import (
	"redirects"

	"encoding/binary"
	"fmt"
	"hash/maphash"
	"strconv"
	"strings"
	"sync/atomic"
	"unicode/utf8"
	"unsafe"
)

// Snapshot is the compiled, immutable form of a deployment's rules and
// settings that the edge answers lookups from. It is built once per
// deployment by CompileWith and
// then shared by every request without locks (swap it in with an
// atomic.Pointer), so nothing in it changes after Compile returns.
//
// Everything a lookup can return lives in one byte arena of records, one per
// possible answer: a short header, the exact source (the hash key) and the
// pre-rendered JSON body of the destination as configured, which is the
// answer unless a rule's preservePath or preserveQuery appends to it.
// Keeping them adjacent means an exact hit costs one cache miss in the hash
// table and one in the arena; at a million rules such misses, not the
// instructions, are most of a lookup's time, so the layout counts them.
// The tables beside the arena hold uint32 offsets, not pointers or strings,
// which keeps a snapshot small and, being pointer-free, invisible to the
// garbage collector's marking.
type Snapshot struct {
	// arena holds the records. It is never written after Compile; Match
	// hands out views of it.
	arena []byte
	// exactTags and exactRecs are an open-addressing hash table over the
	// exact rules' sources, linearly probed. A slot's tag is 0 when the slot
	// is empty, otherwise 8 bits of the key's hash (never 0); its record is
	// the offset of the rule's record. The tags are split off into one byte
	// a slot so that a path with no exact rule, most of those a prefix
	// lookup answers, is usually settled by an array small enough to stay
	// in cache, and a probe rarely reads a record whose key differs.
	exactTags []uint8
	exactRecs []uint32
	seed      maphash.Seed
	// prefix answers longest-prefix queries over the starts_with sources.
	prefix prefixIndex

	exactLen, prefixLen int

	// settings are the deployment's matching settings; keyed is set when
	// they are not the default, so that paths are compared by their key
	// (redirects.Settings.Key): the exact table holds the sources' keys
	// and the prefix index their case-folded forms.
	settings redirects.Settings
	keyed    bool

	// hits counts the lookups each record answered (CountHit).
	hits *HitCounters
}

// A record in the arena is a header of recordHeader bytes, then the rule's
// source, then the JSON body, then, only if the body had to escape the
// destination, the destination itself. The header holds, little endian:
// source length (uint16), body length (uint16), destination length
// (uint16), status (uint16), match type (byte), flags (byte), and the
// record's number (uint32), which indexes its hit counter.
const (
	recordHeader  = 14
	flagDestAfter = 1 // the destination follows the body instead of being in it
	// The rule's options that compute an answer from the requested path
	// (docs/contract.md#rule-options).
	flagPreservePath  = 2
	flagPreserveQuery = 4
)

// Match is the answer of Snapshot.Lookup: a small value that points into the
// snapshot's arena and the requested path, so returning one allocates
// nothing. A Match keeps the arena alive, so it stays valid after a newer
// snapshot replaces its own. The zero Match answers nothing: empty
// destination, status 0.
type Match struct {
	json []byte
	// dest is the destination as configured.
	dest string
	// wire is the requested path as Lookup was given it, and matched the
	// number of its decoded bytes the rule's source covers: what a rule
	// with preservePath or preserveQuery computes its answer from.
	wire    string
	matched uint32
	status  uint16
	mt      redirects.MatchType
	flags   byte
	// rec is the record's number, which CountHit counts under.
	rec uint32
}

// Destination returns the answer's destination as the lookup API sends it
// (docs/contract.md#rule-options): the destination as configured, or, when
// the rule's preservePath or preserveQuery appends something of the
// requested path, the computed URL (which allocates; AppendDestination does
// not); "" for a 410.
func (m Match) Destination() string {
	rest, query := m.appended()
	if rest == "" && query == "" {
		return m.dest
	}
	return string(m.appendTarget(nil, rest, query, false))
}

// AppendDestination appends Destination to b.
func (m Match) AppendDestination(b []byte) []byte {
	rest, query := m.appended()
	if rest == "" && query == "" {
		return append(b, m.dest...)
	}
	return m.appendTarget(b, rest, query, false)
}

// ConfiguredDestination returns the matched rule's destination as
// configured, whatever the requested path ("" for a 410).
func (m Match) ConfiguredDestination() string { return m.dest }

// StatusCode returns the matched rule's HTTP status: 301, 302, 303, 307,
// 308 or 410.
func (m Match) StatusCode() int { return int(m.status) }

// MatchType returns the kind of rule that matched, which the lookup answer
// reports.
func (m Match) MatchType() redirects.MatchType { return m.mt }

// JSON returns the lookup body exactly as the API sends it:
// {"destination":"<dest>","statusCode":301,"matchType":"exact"}
// with no spaces and no trailing newline. The destination is escaped as
// encoding/json does without HTML escaping (validation leaves nothing to
// escape but what a requested path brings). When the answer is the
// destination as configured (every rule without preservePath and
// preserveQuery, and those with nothing to append), the body was rendered
// at Compile time, so a request only copies bytes: that slice is shared by
// every request and callers must not modify it; its capacity equals its
// length, so an append copies instead of writing into the shared arena.
// A computed body is rendered into a new slice; Body renders it into a
// buffer of the caller's.
func (m Match) JSON() []byte {
	rest, query := m.appended()
	if rest == "" && query == "" {
		return m.json
	}
	return m.appendJSON(nil, rest, query)
}

// Body returns the lookup body as JSON does, without allocating: the shared
// pre-rendered body when the answer is the destination as configured, or
// else the computed body appended to b (which allocates only if b is too
// small).
func (m Match) Body(b []byte) []byte {
	rest, query := m.appended()
	if rest == "" && query == "" {
		return m.json
	}
	return m.appendJSON(b, rest, query)
}

// appended returns what the answer appends to the destination as
// configured: the rest of the requested path after the matched source
// (preservePath) and the request's query (preserveQuery). Both are views of
// the requested path.
func (m Match) appended() (rest, query string) {
	if m.flags&(flagPreservePath|flagPreserveQuery) == 0 {
		return "", ""
	}
	if m.flags&flagPreservePath != 0 {
		rest = redirects.WireRest(m.wire, int(m.matched))
	}
	if m.flags&flagPreserveQuery != 0 {
		query = redirects.RequestQuery(m.wire)
	}
	return rest, query
}

// appendTarget appends the computed destination (redirects.AppendTarget's,
// with rest and query already found), each piece JSON-escaped when json is
// set.
func (m Match) appendTarget(b []byte, rest, query string, json bool) []byte {
	add := func(b []byte, s string) []byte {
		if json {
			return AppendJSONString(b, s)
		}
		return append(b, s...)
	}
	path, dq, fragment := redirects.SplitDestination(m.dest)
	b = add(b, path)
	if rest != "" {
		if !strings.HasPrefix(path, "/") && !hasHostPath(path) {
			b = append(b, '/')
		}
		b = add(b, rest)
	}
	switch {
	case dq != "" && query != "":
		b = append(b, '?')
		b = add(b, dq)
		b = append(b, '&')
		b = add(b, query)
	case dq != "":
		b = append(b, '?')
		b = add(b, dq)
	case query != "":
		b = append(b, '?')
		b = add(b, query)
	}
	return add(b, fragment)
}

// appendJSON appends the computed body.
func (m Match) appendJSON(b []byte, rest, query string) []byte {
	b = append(b, bodyStart...)
	b = m.appendTarget(b, rest, query, true)
	b = append(b, `","statusCode":`...)
	b = strconv.AppendInt(b, int64(m.status), 10)
	b = append(b, `,"matchType":"`...)
	b = append(b, m.mt.String()...)
	return append(b, `"}`...)
}

// hasHostPath reports whether an absolute URL's path part (scheme and host
// included) has a path: a '/' after the "scheme://". A destination without
// one gets the path "/" before a rest, so a join never changes the host.
func hasHostPath(u string) bool {
	i := strings.Index(u, "://")
	if i < 0 {
		return true
	}
	return strings.IndexByte(u[i+3:], '/') >= 0
}

// Len returns the number of rules the snapshot was compiled from.
func (s *Snapshot) Len() int {
	if s == nil {
		return 0
	}
	return s.exactLen + s.prefixLen
}

// ExactLen returns the number of exact rules the snapshot was compiled from.
func (s *Snapshot) ExactLen() int {
	if s == nil {
		return 0
	}
	return s.exactLen
}

// PrefixLen returns the number of starts_with rules the snapshot was compiled
// from.
func (s *Snapshot) PrefixLen() int {
	if s == nil {
		return 0
	}
	return s.prefixLen
}

// Settings returns the matching settings the snapshot was compiled with.
func (s *Snapshot) Settings() redirects.Settings {
	if s == nil {
		return redirects.Settings{}
	}
	return s.settings
}

// Lookup finds the rule for a requested path, following docs/contract.md
// "Matching" and "Rule options": path is the lookup's path parameter (the
// request path in its wire form); anything from its first '?' or '#' on is
// ignored, the rest is percent-decoded once, and the result is compared with
// the sources under the snapshot's settings. A path with a malformed escape
// matches nothing. The Match keeps path, from which a rule with
// preservePath or preserveQuery computes its answer. Nothing is allocated
// (a path over 2,048 bytes aside, which the edge refuses).
func (s *Snapshot) Lookup(path string) (Match, bool) {
	if s == nil {
		return Match{}, false
	}
	p := path
	if i := strings.IndexByte(p, '?'); i >= 0 {
		p = p[:i]
	}
	if i := strings.IndexByte(p, '#'); i >= 0 {
		p = p[:i]
	}
	if s.keyed || strings.IndexByte(p, '%') >= 0 {
		return s.lookupKeyed(path, p, true)
	}
	return s.lookupPlain(path, p)
}

// LookupDecoded finds the rule for a path already in DecodePath's form, as
// Lookup does: an exact rule whose source has the path's key wins;
// otherwise the starts_with rule that wins by Better among those that match
// it. The exact side costs one hash of the path, the prefix side one walk
// down the prefix index, so the cost is O(len(path)) whatever the number of
// rules, and nothing is allocated. A computed answer takes path as the
// requested path's wire form (which it is when path holds no '%', '?' or
// '#'). A nil snapshot matches nothing, so a server can hold a nil one
// before the first deployment.
func (s *Snapshot) LookupDecoded(path string) (Match, bool) {
	if s == nil {
		return Match{}, false
	}
	if s.keyed {
		return s.lookupKeyed(path, path, false)
	}
	return s.lookupPlain(path, path)
}

// lookupPlain matches the decoded path p byte for byte, under the default
// settings: the path itself is the key.
func (s *Snapshot) lookupPlain(wire, p string) (Match, bool) {
	if rec, ok := s.lookupExact(p); ok {
		return s.match(rec, wire, len(p)), true
	}
	if rec, ok := s.prefix.lookup(p); ok {
		return s.match(rec, wire, len(p)), true
	}
	return Match{}, false
}

// Buffers of lookupKeyed: a small one for common paths, one for the
// longest path the edge accepts, each with a byte to spare for the
// trailing-slash walk. A buffer is zeroed on every call, so the small one
// keeps a short path's lookup from clearing 2 KiB.
const (
	smallPathBuf = 256
	largePathBuf = redirects.MaxSourceLen + 1
)

// lookupKeyed matches the wire path p (decoded first when decode is set)
// by its key: decoded, case-folded and trimmed into a buffer on the stack.
func (s *Snapshot) lookupKeyed(wire, p string, decode bool) (Match, bool) {
	if len(p) < smallPathBuf {
		var buf [smallPathBuf]byte
		return s.lookupIn(buf[:0], wire, p, decode)
	}
	if len(p) < largePathBuf {
		var buf [largePathBuf]byte
		return s.lookupIn(buf[:0], wire, p, decode)
	}
	return s.lookupIn(make([]byte, 0, len(p)+1), wire, p, decode)
}

// lookupIn is lookupKeyed with buf, whose capacity is at least len(p)+1.
// Exact: the key (folded, one trailing slash trimmed) is hashed and compared
// with the sources' keys. Prefix: the folded path walks the index of the
// folded sources; under the trailing-slash setting it walks with a '/'
// added, so that a source ending in '/' also matches the path that is that
// source without it (every source prefixing path+"/" prefixes path or is
// that twin).
func (s *Snapshot) lookupIn(buf []byte, wire, p string, decode bool) (Match, bool) {
	b := buf
	if decode {
		var ok bool
		if b, ok = AppendDecodedPath(b, p); !ok {
			return Match{}, false
		}
	} else {
		b = append(b, p...)
	}
	n := len(b)
	if s.settings.CaseInsensitive {
		foldASCII(b)
	}
	key := b
	if s.settings.IgnoreTrailingSlash && n > 1 && b[n-1] == '/' {
		key = b[:n-1]
	}
	if rec, ok := s.lookupExactKey(bytesView(key)); ok {
		return s.match(rec, wire, n), true
	}
	walk := b
	if s.settings.IgnoreTrailingSlash {
		walk = append(b, '/')
	}
	if rec, ok := s.prefix.lookup(bytesView(walk)); ok {
		return s.match(rec, wire, n), true
	}
	return Match{}, false
}

// lookupExact returns the offset of the record whose source is path.
func (s *Snapshot) lookupExact(path string) (uint32, bool) {
	if len(s.exactTags) == 0 {
		return 0, false
	}
	h := maphash.String(s.seed, path)
	mask := uint64(len(s.exactTags) - 1)
	tag := exactTag(h)
	for i := h & mask; ; i = (i + 1) & mask {
		t := s.exactTags[i]
		if t == 0 {
			return 0, false
		}
		if t == tag {
			if rec := s.exactRecs[i]; s.recordSource(rec) == path {
				return rec, true
			}
		}
	}
}

// lookupExactKey returns the offset of the record whose source has the key
// key under the snapshot's settings.
func (s *Snapshot) lookupExactKey(key string) (uint32, bool) {
	if len(s.exactTags) == 0 {
		return 0, false
	}
	h := maphash.String(s.seed, key)
	mask := uint64(len(s.exactTags) - 1)
	tag := exactTag(h)
	for i := h & mask; ; i = (i + 1) & mask {
		t := s.exactTags[i]
		if t == 0 {
			return 0, false
		}
		if t == tag {
			if rec := s.exactRecs[i]; keyEqual(s.recordSource(rec), key, s.settings) {
				return rec, true
			}
		}
	}
}

// keyEqual reports whether source src has the key key under settings st:
// st.Key(src) == key, without allocating.
func keyEqual(src, key string, st redirects.Settings) bool {
	if st.IgnoreTrailingSlash && len(src) > 1 && src[len(src)-1] == '/' {
		src = src[:len(src)-1]
	}
	if len(src) != len(key) {
		return false
	}
	if !st.CaseInsensitive {
		return src == key
	}
	for i := 0; i < len(src); i++ {
		c := src[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != key[i] {
			return false
		}
	}
	return true
}

// foldASCII lower-cases the ASCII letters of b in place.
func foldASCII(b []byte) {
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
}

// bytesView returns b as a string without copying; b must not change
// while the string is in use.
func bytesView(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// AppendDecodedPath appends to b the wire path p (a request path without
// its query and fragment) percent-decoded once, as redirects.DecodePath
// decodes it, and reports false for a malformed escape.
func AppendDecodedPath(b []byte, p string) ([]byte, bool) {
	for i := 0; i < len(p); i++ {
		c := p[i]
		if c != '%' {
			b = append(b, c)
			continue
		}
		if i+2 >= len(p) || !isHex(p[i+1]) || !isHex(p[i+2]) {
			return b, false
		}
		b = append(b, unhex(p[i+1])<<4|unhex(p[i+2]))
		i += 2
	}
	return b, true
}

// KeyInPlace turns the decoded path b into its key under settings st
// (redirects.Settings.Key), in place: ASCII letters folded and one trailing
// '/' trimmed as st says. It returns the key, a prefix of b. Misses are
// counted under it (docs/contract.md#hits-and-misses).
func KeyInPlace(b []byte, st redirects.Settings) []byte {
	if st.CaseInsensitive {
		foldASCII(b)
	}
	if st.IgnoreTrailingSlash && len(b) > 1 && b[len(b)-1] == '/' {
		return b[:len(b)-1]
	}
	return b
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c >= 'a':
		return c - 'a' + 10
	}
	return c - 'A' + 10
}

// exactTag returns the tag of a key with hash h: its top 8 bits, 0 made 1
// since 0 marks an empty slot. The slot index comes from the low bits, so
// the two are independent.
func exactTag(h uint64) uint8 {
	return max(uint8(h>>56), 1)
}

// recordSource returns the source of the record at rec.
func (s *Snapshot) recordSource(rec uint32) string {
	return arenaSource(s.arena, rec)
}

// arenaSource returns the source of the record at rec in arena.
func arenaSource(arena []byte, rec uint32) string {
	n := uint32(binary.LittleEndian.Uint16(arena[rec:]))
	return arenaString(arena, rec+recordHeader, n)
}

// match returns the Match of the record at rec for the requested path wire,
// whose decoded path is n bytes long. A starts_with rule's source covers
// its own length of them, or all n when it is the path's twin with a
// trailing slash.
func (s *Snapshot) match(rec uint32, wire string, n int) Match {
	h := s.arena[rec : rec+recordHeader : rec+recordHeader]
	srcLen := uint32(binary.LittleEndian.Uint16(h[0:]))
	bodyLen := uint32(binary.LittleEndian.Uint16(h[2:]))
	destLen := uint32(binary.LittleEndian.Uint16(h[4:]))
	body := rec + recordHeader + srcLen
	end := body + bodyLen
	dest := body + uint32(len(bodyStart))
	if h[9]&flagDestAfter != 0 {
		dest = end
	}
	mt := redirects.MatchType(h[8])
	if mt == redirects.StartsWith {
		n = min(n, int(srcLen))
	}
	return Match{
		json:    s.arena[body:end:end],
		dest:    arenaString(s.arena, dest, destLen),
		wire:    wire,
		matched: uint32(n),
		status:  binary.LittleEndian.Uint16(h[6:]),
		mt:      mt,
		flags:   h[9],
		rec:     binary.LittleEndian.Uint32(h[10:]),
	}
}

// arenaString returns arena[off:off+n] as a string without copying. That is
// sound only because the arena is never written after Compile.
func arenaString(arena []byte, off, n uint32) string {
	if n == 0 {
		return ""
	}
	return unsafe.String(&arena[off], n)
}

// Compile builds an immutable Snapshot from a deployment's rules under the
// default settings: CompileWith(rules, redirects.Settings{}).
func Compile(rules []redirects.Rule) *Snapshot {
	return CompileWith(rules, redirects.Settings{})
}

// CompileWith builds an immutable Snapshot from a deployment's rules and
// settings. The rules must be valid (see Rule.Validate) with sources unique
// per match type and key, as a deployment's are: should two exact rules'
// sources have one key anyway, the first one in rules wins, and starts_with
// duplicates resolve by Better. CompileWith panics on a source or
// destination longer than MaxSourceLen or MaxDestLen, which the snapshot's
// 16-bit lengths cannot represent, and on more than 4 GiB of strings;
// validation rules out the first, the store's size the second. rules is
// not modified or retained.
func CompileWith(rules []redirects.Rule, settings redirects.Settings) *Snapshot {
	s := &Snapshot{seed: maphash.MakeSeed(), settings: settings, keyed: !settings.IsDefault()}

	// One record per exact rule, then one per starts_with rule that wins for
	// some prefix source. PrefixWinners gives each source its closure winner,
	// so the prefix index only needs the longest matching source.
	answers := make([]*redirects.Rule, 0, len(rules))
	for i := range rules {
		r := &rules[i]
		if len(r.Source) > redirects.MaxSourceLen || len(r.Destination) > redirects.MaxDestLen {
			panic(fmt.Sprintf("Compile: rule %d has a source or destination over the length limit; validate rules first", r.ID))
		}
		if r.MatchType == redirects.StartsWith {
			s.prefixLen++
		} else {
			s.exactLen++
			answers = append(answers, r)
		}
	}
	winners := redirects.PrefixWinnersWith(rules, settings)
	keys := make([]string, len(winners))
	values := make([]uint32, len(winners))
	// answerOf numbers each distinct winner once. PrefixWinners' rules point
	// into rules, so a slice indexed by position does it without hashing;
	// the map only catches a pointer from elsewhere, should that change.
	answerOf := make([]uint32, len(rules)) // answer number plus one
	var answerOfOther map[*redirects.Rule]uint32
	for i, w := range winners {
		var a uint32
		if j, ok := indexOf(rules, w.Rule); ok {
			if answerOf[j] == 0 {
				answers = append(answers, w.Rule)
				answerOf[j] = uint32(len(answers))
			}
			a = answerOf[j]
		} else {
			if answerOfOther == nil {
				answerOfOther = make(map[*redirects.Rule]uint32)
			}
			if answerOfOther[w.Rule] == 0 {
				answers = append(answers, w.Rule)
				answerOfOther[w.Rule] = uint32(len(answers))
			}
			a = answerOfOther[w.Rule]
		}
		keys[i], values[i] = settings.FoldCase(w.Source), a-1
	}
	answerOf = nil
	trie := buildPrefixTrie(keys)
	keys = nil

	// Size the arena from the lengths alone, reading no string: the bodies
	// are exact unless a destination needs escaping, which validation rules
	// out; if one does anyway, the arena grows and is trimmed at the end.
	size := 0
	for _, r := range answers {
		size += recordHeader + len(r.Source)
		size += bodyLen(len(r.Destination), r.StatusCode, r.MatchType)
	}
	arena := make([]byte, 0, size)

	// Write the records. values are rewritten from answer numbers to record
	// offsets plus one, what the prefix index stores.
	offsets := make([]uint32, len(answers))
	for a, r := range answers {
		rec := len(arena)
		if uint64(rec) >= 1<<32-1 {
			panic("Compile: the rules' strings exceed the snapshot's 4 GiB arena")
		}
		offsets[a] = uint32(rec)
		mt, src := redirects.Exact, r.Source
		if r.MatchType == redirects.StartsWith {
			mt = redirects.StartsWith
		}
		arena = append(arena, make([]byte, recordHeader)...)
		arena = append(arena, src...)
		body := len(arena)
		arena = appendBody(arena, r.Destination, r.StatusCode, mt)
		var flags byte
		if r.StatusCode != redirects.StatusGone {
			if r.PreservePath && mt == redirects.StartsWith {
				flags |= flagPreservePath
			}
			if r.PreserveQuery {
				flags |= flagPreserveQuery
			}
		}
		if len(arena)-body != bodyLen(len(r.Destination), r.StatusCode, mt) {
			// The body escaped something, so it does not hold the
			// destination as configured: keep that after it.
			flags |= flagDestAfter
		}
		h := arena[rec : rec+recordHeader]
		binary.LittleEndian.PutUint16(h[0:], uint16(len(src)))
		binary.LittleEndian.PutUint16(h[2:], uint16(len(arena)-body))
		binary.LittleEndian.PutUint16(h[4:], uint16(len(r.Destination)))
		binary.LittleEndian.PutUint16(h[6:], uint16(r.StatusCode))
		h[8], h[9] = byte(mt), flags
		binary.LittleEndian.PutUint32(h[10:], uint32(a))
		if flags&flagDestAfter != 0 {
			arena = append(arena, r.Destination...)
		}
	}
	if len(arena) != cap(arena) {
		arena = append(make([]byte, 0, len(arena)), arena...)
	}
	if uint64(len(arena)) >= 1<<32-1 {
		panic("Compile: the rules' strings exceed the snapshot's 4 GiB arena")
	}
	for i, a := range values {
		values[i] = offsets[a] + 1
	}
	s.prefix = trie.flatten(values)
	values = nil
	s.arena = arena
	s.hits = &HitCounters{arena: arena, recs: offsets, n: make([]atomic.Uint32, len(offsets))}

	// The exact table: a power of two at least twice the number of keys, so
	// the load stays at or below one half and probes stay short.
	if s.exactLen > 0 {
		n := 1
		for n < 2*s.exactLen {
			n <<= 1
		}
		s.exactTags = make([]uint8, n)
		s.exactRecs = make([]uint32, n)
		mask := uint64(n - 1)
	insert:
		for a := 0; a < s.exactLen; a++ {
			rec := offsets[a]
			key := settings.Key(s.recordSource(rec))
			h := maphash.String(s.seed, key)
			tag := exactTag(h)
			i := h & mask
			for ; s.exactTags[i] != 0; i = (i + 1) & mask {
				if s.exactTags[i] == tag && keyEqual(s.recordSource(s.exactRecs[i]), key, settings) {
					continue insert // a duplicate key: the first rule keeps it
				}
			}
			s.exactTags[i], s.exactRecs[i] = tag, rec
		}
	}
	return s
}

// indexOf returns the index of r in rules, if r points to one of its
// elements.
func indexOf(rules []redirects.Rule, r *redirects.Rule) (int, bool) {
	if len(rules) == 0 {
		return 0, false
	}
	size := unsafe.Sizeof(rules[0])
	d := uintptr(unsafe.Pointer(r)) - uintptr(unsafe.Pointer(&rules[0]))
	if d%size != 0 || d/size >= uintptr(len(rules)) {
		return 0, false
	}
	return int(d / size), true
}

// bodyStart opens every JSON body; the destination follows it.
const bodyStart = `{"destination":"`

// bodyLen returns the length of the body appendBody renders for a
// destination whose JSON-escaped form is destLen bytes long.
func bodyLen(destLen, status int, mt redirects.MatchType) int {
	n := len(bodyStart) + destLen + len(`","statusCode":`) + len(`,"matchType":"`) + len(`"}`)
	if mt == redirects.StartsWith {
		n += len("starts_with")
	} else {
		n += len("exact")
	}
	if status < 0 {
		n++
		status = -status
	}
	for n++; status >= 10; status /= 10 {
		n++
	}
	return n
}

// appendBody appends the lookup body of a rule to b.
func appendBody(b []byte, dest string, status int, mt redirects.MatchType) []byte {
	b = append(b, bodyStart...)
	b = AppendJSONString(b, dest)
	b = append(b, `","statusCode":`...)
	b = strconv.AppendInt(b, int64(status), 10)
	b = append(b, `,"matchType":"`...)
	b = append(b, mt.String()...)
	return append(b, `"}`...)
}

const hexDigits = "0123456789abcdef"

// jsonPlain marks the bytes that AppendJSONString copies as they are: the
// printable ASCII bytes but '"' and '\\'. A table lookup per byte is the
// fast path for the million destinations of a large Compile.
var jsonPlain = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// AppendJSONString appends s escaped as the inside of a JSON string (without
// the quotes), byte for byte as encoding/json does with HTML escaping off:
// '"' and '\\' and control characters escaped, invalid UTF-8 replaced by
// U+FFFD, U+2028 and U+2029 escaped for JavaScript. It writes the lookup
// bodies of Compile and the edge's error bodies. Validation leaves none of
// these in a destination, so there it only guards the JSON's
// well-formedness.
func AppendJSONString(b []byte, s string) []byte {
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if jsonPlain[c] {
			i++
			continue
		}
		if c < utf8.RuneSelf {
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	return append(b, s[start:]...)
}
