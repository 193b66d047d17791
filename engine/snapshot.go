package engine

import (
	"redirects"
	"redirects/engine/pattern"

	"encoding/binary"
	"fmt"
	"hash/maphash"
	"strconv"
	"strings"
	"sync/atomic"
	"unicode/utf8"
	"unsafe"
)

// Snapshot is the compiled, immutable form of a deployment's rules that the
// edge answers lookups from. It is built once per deployment by Compile and
// then shared by every request without locks (swap it in with an
// atomic.Pointer), so nothing in it changes after Compile returns.
//
// Everything a lookup can return lives in one byte arena of records, one per
// possible answer: a short header, the exact source (the hash key) and the
// pre-rendered JSON body, whose destination doubles as Match.Destination.
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

	// hits counts the lookups each record answered (CountHit).
	hits *HitCounters

	// settings are the deployment's matching settings
	// (docs/contract.md#rule-options). Under settings other than the
	// default, a record holds its source's key (Settings.Key for an exact
	// rule, Settings.FoldCase for a starts_with one) where it holds the
	// source otherwise, so a lookup compares what it reads anyway; the
	// hit counters keep the sources that differ from their keys.
	settings redirects.Settings

	// ext answers the rules a literal index cannot (pattern, regex, a
	// host, query conditions); nil when the deployment has none, and the
	// snapshot then answers exactly as before they existed.
	ext *extended
}

// A record in the arena is a header of recordHeader bytes, then the rule's
// source, then the JSON body, then, only if the body had to escape the
// destination, the destination itself. The header holds, little endian:
// source length (uint16), body length (uint16), destination length
// (uint16), status (uint16), match type (byte), flags (byte), and the
// record's number (uint32), which indexes its hit counter.
const (
	recordHeader      = 14
	flagDestAfter     = 1 // the destination follows the body instead of being in it
	flagPreservePath  = 2 // the rule's preservePath (docs/contract.md#rule-options)
	flagPreserveQuery = 4 // the rule's preserveQuery
	// flagQueryAfterFragment is the rule's queryAfterFragment: the
	// request's query goes after the destination's fragment.
	flagQueryAfterFragment = 8
	// flagMergeQuery is the rule's mergeQuery: the request's parameters
	// the destination's query does not name join it.
	flagMergeQuery = 16
)

// Match is the answer of Snapshot.Lookup: a small value that points into the
// snapshot's arena, so returning one allocates nothing. A Match keeps the
// arena alive, so it stays valid after a newer snapshot replaces its own.
// The zero Match answers nothing: empty destination, status 0.
type Match struct {
	json   []byte
	dest   string
	status uint16
	mt     redirects.MatchType
	// rec is the record's number, which CountHit counts under.
	rec uint32
	// flags are the record's flags: the rule's options.
	flags byte
	// matched is how many decoded bytes of the path the rule's source
	// covers: what preservePath keeps after.
	matched int
	// pm is the pattern engine's answer, for a rule the snapshot's
	// pattern set answered: its destination is expanded from it.
	pm *pattern.Match
}

// Destination returns the matched rule's destination as configured; nothing
// of the requested path is appended (docs/contract.md, matching rule 4).
// AppendTarget gives what a lookup answers, the options applied.
func (m Match) Destination() string { return m.dest }

// PreservePath and PreserveQuery return the matched rule's options.
func (m Match) PreservePath() bool  { return m.flags&flagPreservePath != 0 }
func (m Match) PreserveQuery() bool { return m.flags&flagPreserveQuery != 0 }

// QueryAfterFragment returns the matched rule's queryAfterFragment.
func (m Match) QueryAfterFragment() bool { return m.flags&flagQueryAfterFragment != 0 }

// MergeQuery returns the matched rule's mergeQuery.
func (m Match) MergeQuery() bool { return m.flags&flagMergeQuery != 0 }

// Computed reports whether the answer to the requested path wire (in its
// wire form, as Lookup was given it) differs from the destination as
// configured: the rule keeps a rest of the path or a query that wire has.
// Only then does the answer need AppendJSON; otherwise JSON is the body.
func (m Match) Computed(wire string) bool {
	if m.pm != nil {
		return true
	}
	rest, query := m.appended(wire)
	return rest != "" || query != ""
}

// appended returns what the rule's options append to the destination for
// the requested path wire: the rest of the path (preservePath) and the
// request's query (preserveQuery), views of wire.
func (m Match) appended(wire string) (rest, query string) {
	if m.flags&(flagPreservePath|flagPreserveQuery) == 0 {
		return "", ""
	}
	if m.flags&flagPreservePath != 0 {
		rest = redirects.WireRest(wire, m.matched)
	}
	if m.flags&flagPreserveQuery != 0 {
		query = redirects.RequestQuery(wire)
		if m.pm == nil && m.flags&flagMergeQuery != 0 {
			query = mergedParams(m.dest, query)
		}
	}
	return rest, query
}

// mergedParams returns reqQuery, the request's query, for a mergeQuery
// rule with the destination dest (its captures expanded): "" when none of
// its parameters joins dest's query, so that the answer is dest as
// configured, reqQuery itself otherwise.
func mergedParams(dest, reqQuery string) string {
	_, query, _ := redirects.SplitDestination(dest)
	if p, _ := redirects.NextMergedParam(query, reqQuery); p == "" {
		return ""
	}
	return reqQuery
}

// AppendTarget appends the destination the lookup answers for the
// requested path wire (docs/contract.md#rule-options): the destination as
// configured unless the rule's options append the rest of the path or the
// request's query (redirects.AppendTarget says how). It allocates nothing
// when b has room.
func (m Match) AppendTarget(b []byte, wire string) []byte {
	return m.appendTarget(b, wire, false)
}

// AppendJSON appends the lookup body for the requested path wire: JSON's
// bytes when the answer is not Computed, else the body with the computed
// destination, escaped as JSON does, rendered into b.
func (m Match) AppendJSON(b []byte, wire string) []byte {
	rest, reqQuery := m.appended(wire)
	if rest == "" && reqQuery == "" && m.pm == nil {
		return append(b, m.json...)
	}
	b = append(b, bodyStart...)
	if m.pm != nil {
		b = m.appendExpanded(b, wire, true)
	} else {
		b = m.appendComputed(b, m.dest, rest, reqQuery, true)
	}
	b = append(b, `","statusCode":`...)
	b = strconv.AppendInt(b, int64(m.status), 10)
	b = append(b, `,"matchType":"`...)
	b = append(b, m.mt.String()...)
	return append(b, `"}`...)
}

// appendTarget is AppendTarget, each piece escaped as a JSON string's
// inside when inJSON.
func (m Match) appendTarget(b []byte, wire string, inJSON bool) []byte {
	if m.pm != nil {
		return m.appendExpanded(b, wire, inJSON)
	}
	rest, reqQuery := m.appended(wire)
	return m.appendComputed(b, m.dest, rest, reqQuery, inJSON)
}

// appendComputed is appendTarget with the destination dest (as configured,
// or with its captures expanded) and what the options append already found.
func (m Match) appendComputed(b []byte, dest, rest, reqQuery string, inJSON bool) []byte {
	put := func(b []byte, s string) []byte {
		if inJSON {
			return AppendJSONString(b, s)
		}
		return append(b, s...)
	}
	if m.status == redirects.StatusGone {
		return b
	}
	if rest == "" && reqQuery == "" {
		return put(b, dest)
	}
	path, query, fragment := redirects.SplitDestination(dest)
	b = put(b, path)
	if rest != "" {
		if len(path) == 0 || path[0] != '/' && !hasURLPath(path) {
			b = append(b, '/')
		}
		b = put(b, rest)
	}
	if m.flags&flagQueryAfterFragment != 0 {
		// The request's query after the fragment, as text
		// (redirects.AppendAfterFragment).
		if query != "" {
			b = append(b, '?')
			b = put(b, query)
		}
		b = put(b, fragment)
		if reqQuery != "" {
			// The destination as written decides, not its captures (m.dest
			// is the rule's destination before expansion).
			if strings.IndexByte(m.dest, '?') >= 0 {
				b = append(b, '&')
			} else {
				b = append(b, '?')
			}
			b = put(b, reqQuery)
		}
		return b
	}
	if m.flags&flagMergeQuery != 0 {
		// The destination's query (dest's, its captures expanded), then
		// the request's parameters it does not name
		// (redirects.AppendMergedQuery).
		sep := byte('?')
		if query != "" {
			b = append(b, '?')
			b = put(b, query)
			sep = '&'
		}
		for reqQuery != "" {
			var p string
			p, reqQuery = redirects.NextMergedParam(query, reqQuery)
			if p == "" {
				break
			}
			b = append(b, sep)
			b = put(b, p)
			sep = '&'
		}
		return put(b, fragment)
	}
	switch {
	case query != "" && reqQuery != "":
		b = append(b, '?')
		b = put(b, query)
		b = append(b, '&')
		b = put(b, reqQuery)
	case query != "":
		b = append(b, '?')
		b = put(b, query)
	case reqQuery != "":
		b = append(b, '?')
		b = put(b, reqQuery)
	}
	return put(b, fragment)
}

// hasURLPath reports whether an absolute URL has a path: a '/' after its
// "scheme://".
func hasURLPath(u string) bool {
	for i := 0; i+2 < len(u); i++ {
		if u[i] == ':' && u[i+1] == '/' && u[i+2] == '/' {
			for _, c := range []byte(u[i+3:]) {
				if c == '/' {
					return true
				}
			}
			return false
		}
	}
	return true
}

// Settings returns the matching settings the snapshot was compiled with.
func (s *Snapshot) Settings() redirects.Settings {
	if s == nil {
		return redirects.Settings{}
	}
	return s.settings
}

// StatusCode returns the matched rule's HTTP status, 301 or 302.
func (m Match) StatusCode() int { return int(m.status) }

// MatchType returns the kind of rule that matched, which the lookup answer
// reports.
func (m Match) MatchType() redirects.MatchType { return m.mt }

// JSON returns the lookup body exactly as the API sends it, rendered at
// Compile time so a request only copies bytes:
// {"destination":"<dest>","statusCode":301,"matchType":"exact"}
// with no spaces and no trailing newline. The destination is escaped as
// encoding/json does without HTML escaping (validation leaves nothing to
// escape). The slice is shared by every request: callers must not modify
// it. Its capacity equals its length, so an append copies instead of
// writing into the shared arena.
func (m Match) JSON() []byte { return m.json }

// Len returns the number of rules the snapshot was compiled from.
func (s *Snapshot) Len() int {
	if s == nil {
		return 0
	}
	return s.exactLen + s.prefixLen + s.ExtendedLen()
}

// ExactLen returns the number of literal exact rules (no host, no query
// conditions) the snapshot was compiled from.
func (s *Snapshot) ExactLen() int {
	if s == nil {
		return 0
	}
	return s.exactLen
}

// PrefixLen returns the number of literal starts_with rules the snapshot was
// compiled from.
func (s *Snapshot) PrefixLen() int {
	if s == nil {
		return 0
	}
	return s.prefixLen
}

// Lookup finds the rule for a requested path, following docs/contract.md
// "Matching": anything from the first '?' or '#' on is ignored, the rest is
// percent-decoded once (as DecodePath does), and LookupDecoded matches the
// result. A path with a malformed escape matches nothing. Nothing is
// allocated: an escaped path is decoded into a buffer on the stack (a path
// over 2,048 bytes aside, which the edge refuses). It is the lookup without
// a host: on a snapshot with extended rules, LookupHost("", path), which
// also reads the query path carries for rules with conditions.
func (s *Snapshot) Lookup(path string) (Match, bool) {
	if s != nil && s.ext != nil {
		return s.lookupExtended("", path)
	}
	return s.lookupLiteral(path)
}

// lookupLiteral is Lookup among the literal rules: the hash table and the
// prefix index.
func (s *Snapshot) lookupLiteral(path string) (Match, bool) {
	p := path
	if i := strings.IndexByte(p, '?'); i >= 0 {
		p = p[:i]
	}
	if i := strings.IndexByte(p, '#'); i >= 0 {
		p = p[:i]
	}
	if strings.IndexByte(p, '%') < 0 {
		return s.LookupDecoded(p)
	}
	if len(p) <= smallEscapedPath {
		var buf [smallEscapedPath]byte
		return s.lookupEscaped(buf[:0], p)
	}
	if len(p) <= redirects.MaxSourceLen {
		var buf [redirects.MaxSourceLen]byte
		return s.lookupEscaped(buf[:0], p)
	}
	return s.lookupEscaped(nil, p)
}

// smallEscapedPath is the buffer of Lookup for the common escaped paths;
// a buffer is zeroed on every call, so a short path does not clear 2 KiB.
const smallEscapedPath = 256

// lookupEscaped decodes the path p into buf (which it does not keep) and
// matches the result.
func (s *Snapshot) lookupEscaped(buf []byte, p string) (Match, bool) {
	b, ok := appendDecoded(buf, p)
	if !ok {
		return Match{}, false
	}
	return s.LookupDecoded(unsafeString(b))
}

// appendDecoded appends p percent-decoded once to b, as DecodePath decodes
// it, and reports false for a '%' not followed by two hexadecimal digits.
func appendDecoded(b []byte, p string) ([]byte, bool) {
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

// maxKeyPath is the longest decoded path whose key a lookup under settings
// other than the default builds on the stack; longer paths (no source is)
// take a heap buffer.
const maxKeyPath = redirects.MaxSourceLen + 2

// lookupSettings is LookupDecoded under settings other than the default:
// the exact table is asked for the path's key, the prefix index walks the
// path case-folded, with a '/' appended under trailingSlash "ignore" (so a
// source ending in '/' also answers the path without it: the sources that
// prefix path+"/" are those that prefix path, and path+"/" itself).
func (s *Snapshot) lookupSettings(path string) (Match, bool) {
	// A buffer is zeroed on every call: a short path, the common case,
	// does not clear 2 KiB.
	if len(path) < smallKeyPath {
		var stack [smallKeyPath]byte
		return s.lookupKey(stack[:0], path)
	}
	if len(path) <= maxKeyPath {
		var stack [maxKeyPath + 1]byte
		return s.lookupKey(stack[:0], path)
	}
	return s.lookupKey(make([]byte, 0, len(path)+1), path)
}

// smallKeyPath is the size of lookupSettings' buffer for common paths.
const smallKeyPath = 256

// lookupKey is lookupSettings with buf, of capacity at least len(path)+1,
// which it does not keep: the path is folded into it once, its key is that
// less one trailing slash, and the prefix walk reads it with a '/' added.
func (s *Snapshot) lookupKey(buf []byte, path string) (Match, bool) {
	b := appendFolded(buf, path, s.settings.CaseInsensitive)
	key := b
	if s.settings.IgnoreTrailingSlash && len(key) > 1 && key[len(key)-1] == '/' {
		key = key[:len(key)-1]
	}
	if rec, ok := s.lookupExact(unsafeString(key)); ok {
		m := s.match(rec)
		m.matched = len(path)
		return m, true
	}
	if s.settings.IgnoreTrailingSlash && (len(path) == 0 || path[len(path)-1] != '/') {
		b = append(b, '/')
	}
	if rec, ok := s.prefix.lookup(unsafeString(b)); ok {
		m := s.match(rec)
		m.matched = min(m.matched, len(path))
		return m, true
	}
	return Match{}, false
}

// appendFolded appends p to b, its ASCII letters lower-cased when fold.
func appendFolded(b []byte, p string, fold bool) []byte {
	start := len(b)
	b = append(b, p...)
	if fold {
		f := b[start:]
		for i, c := range f {
			if 'A' <= c && c <= 'Z' {
				f[i] = c + 'a' - 'A'
			}
		}
	}
	return b
}

// unsafeString returns b as a string without copying, for a lookup that
// does not keep it.
func unsafeString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// LookupDecoded finds the rule for a path already in DecodePath's form,
// byte for byte: an exact rule whose source equals it wins; otherwise the
// starts_with rule that wins by Better among those whose source is a
// byte-wise prefix of it. The exact side costs one hash of the path, the
// prefix side one walk down the prefix index, so the cost is O(len(path))
// whatever the number of rules, and nothing is allocated. A nil snapshot
// matches nothing, so a server can hold a nil one before the first
// deployment. It answers among the literal rules only: on a snapshot with
// extended rules, Lookup and LookupHost answer from every rule.
func (s *Snapshot) LookupDecoded(path string) (Match, bool) {
	if s == nil {
		return Match{}, false
	}
	if !s.settings.IsDefault() {
		return s.lookupSettings(path)
	}
	if rec, ok := s.lookupExact(path); ok {
		return s.match(rec), true
	}
	if rec, ok := s.prefix.lookup(path); ok {
		return s.match(rec), true
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

// match returns the Match of the record at rec.
func (s *Snapshot) match(rec uint32) Match {
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
	return Match{
		json:    s.arena[body:end:end],
		dest:    arenaString(s.arena, dest, destLen),
		status:  binary.LittleEndian.Uint16(h[6:]),
		mt:      redirects.MatchType(h[8]),
		rec:     binary.LittleEndian.Uint32(h[10:]),
		flags:   h[9],
		matched: int(srcLen),
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

// Compile builds an immutable Snapshot from a deployment's rules. The rules
// must be valid (see Rule.Validate) with sources unique per match type, as a
// deployment's are: should two exact rules share a source anyway, the first
// one in rules wins, and starts_with duplicates resolve by Better. Compile
// panics on a source or destination longer than MaxSourceLen or MaxDestLen,
// which the snapshot's 16-bit lengths cannot represent, and on more than
// 4 GiB of strings; validation rules out the first, the store's size the
// second. rules is not modified or retained.
func Compile(rules []redirects.Rule) *Snapshot {
	return CompileWith(rules, redirects.Settings{})
}

// CompileWith is Compile for a deployment's settings
// (docs/contract.md#rule-options): under case-insensitive settings the
// prefix index holds the case-folded sources and the closure winners are
// found among them; the exact table holds each exact source's key.
func CompileWith(rules []redirects.Rule, settings redirects.Settings) *Snapshot {
	s := &Snapshot{seed: maphash.MakeSeed(), settings: settings}

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
	// cmp are the rules as the prefix index compares them: case-folded
	// sources under case-insensitive settings, in a copy of the same
	// length and order, so an index into it is one into rules.
	cmp := rules
	if settings.CaseInsensitive {
		cmp = make([]redirects.Rule, len(rules))
		for i := range rules {
			cmp[i] = rules[i]
			if rules[i].MatchType == redirects.StartsWith {
				cmp[i].Source = settings.FoldCase(rules[i].Source)
			}
		}
	}
	winners := PrefixWinners(cmp)
	keys := make([]string, len(winners))
	values := make([]uint32, len(winners))
	// answerOf numbers each distinct winner once. PrefixWinners' rules point
	// into rules, so a slice indexed by position does it without hashing;
	// the map only catches a pointer from elsewhere, should that change.
	answerOf := make([]uint32, len(rules)) // answer number plus one
	var answerOfOther map[*redirects.Rule]uint32
	for i, w := range winners {
		var a uint32
		if j, ok := indexOf(cmp, w.Rule); ok {
			if answerOf[j] == 0 {
				answers = append(answers, &rules[j])
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
		keys[i], values[i] = w.Source, a-1
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
	var orig sourceTable
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
		if !settings.IsDefault() {
			// The record holds what lookups compare; the source, when
			// it differs, goes to the hit counters' side table.
			if mt == redirects.Exact {
				src = settings.Key(src)
			} else {
				src = settings.FoldCase(src)
			}
			if src != r.Source {
				orig.add(uint32(a), r.Source)
			}
		}
		arena = append(arena, make([]byte, recordHeader)...)
		arena = append(arena, src...)
		body := len(arena)
		arena = appendBody(arena, r.Destination, r.StatusCode, mt)
		var flags byte
		if r.PreservePath && mt == redirects.StartsWith {
			flags |= flagPreservePath
		}
		if r.PreserveQuery {
			flags |= flagPreserveQuery
			if r.QueryAfterFragment {
				flags |= flagQueryAfterFragment
			}
			if r.MergeQuery {
				flags |= flagMergeQuery
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
	s.hits = &HitCounters{arena: arena, recs: offsets, n: make([]atomic.Uint32, len(offsets)), orig: orig}

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
			key := s.recordSource(rec)
			h := maphash.String(s.seed, key)
			tag := exactTag(h)
			i := h & mask
			for ; s.exactTags[i] != 0; i = (i + 1) & mask {
				if s.exactTags[i] == tag && s.recordSource(s.exactRecs[i]) == key {
					continue insert // a duplicate source: the first rule keeps it
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
