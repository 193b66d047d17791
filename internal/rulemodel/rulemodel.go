// Package rulemodel is the brute-force model of docs/contract.md's matching
// and rule options, for tests: it answers a lookup by scanning every rule,
// written from the contract's words and sharing no code with the engine,
// the root package's helpers or the exports, so that property tests can
// hold each of them to it. It also generates random projects (settings and
// rules using every option and status) and the paths to ask them.
package rulemodel

import (
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"redirects"
)

// Settings are a project's settings as the model reads them.
type Settings struct {
	CaseInsensitive     bool
	IgnoreTrailingSlash bool
}

// Of returns the model's settings for a project's.
func Of(s redirects.Settings) Settings {
	return Settings{CaseInsensitive: s.CaseInsensitive, IgnoreTrailingSlash: s.IgnoreTrailingSlash}
}

// Answer is a lookup's answer: the index of the rule that answered in the
// slice given to Lookup, and the destination and status the API sends.
type Answer struct {
	Rule        int
	Destination string
	Status      int
}

// Lookup answers the lookup API's path parameter wire (the request path as
// the client sent it, query and fragment included) over rules, by scanning
// every rule: ok is false for a 204 (no rule matches, or the path holds a
// malformed escape).
func Lookup(rules []redirects.Rule, s Settings, wire string) (Answer, bool) {
	// The path: up to the first '?' or '#'.
	end := len(wire)
	for i := 0; i < len(wire); i++ {
		if wire[i] == '?' || wire[i] == '#' {
			end = i
			break
		}
	}
	wirePath := wire[:end]
	// Decoded once; offs[k] is where the k-th decoded byte starts in wirePath.
	var dec []byte
	var offs []int
	for i := 0; i < len(wirePath); {
		offs = append(offs, i)
		if wirePath[i] == '%' {
			if i+2 >= len(wirePath) || !hex(wirePath[i+1]) || !hex(wirePath[i+2]) {
				return Answer{}, false
			}
			v, _ := strconv.ParseUint(wirePath[i+1:i+3], 16, 8)
			dec = append(dec, byte(v))
			i += 3
			continue
		}
		dec = append(dec, wirePath[i])
		i++
	}
	offs = append(offs, len(wirePath))
	path := string(dec)

	fold := func(x string) string {
		if !s.CaseInsensitive {
			return x
		}
		b := []byte(x)
		for i, c := range b {
			if c >= 'A' && c <= 'Z' {
				b[i] = c + 32
			}
		}
		return string(b)
	}
	trim := func(x string) string {
		if s.IgnoreTrailingSlash && len(x) > 1 && strings.HasSuffix(x, "/") {
			return x[:len(x)-1]
		}
		return x
	}

	best, matched := -1, 0
	for i := range rules {
		r := &rules[i]
		if r.MatchType == redirects.Exact && fold(trim(r.Source)) == fold(trim(path)) {
			best, matched = i, len(path)
			break
		}
	}
	if best < 0 {
		for i := range rules {
			r := &rules[i]
			if r.MatchType != redirects.StartsWith {
				continue
			}
			src, p := fold(r.Source), fold(path)
			m := -1
			switch {
			case strings.HasPrefix(p, src):
				m = len(src)
			case s.IgnoreTrailingSlash && len(src) > 1 && strings.HasSuffix(src, "/") && p == src[:len(src)-1]:
				m = len(p)
			}
			if m < 0 {
				continue
			}
			if best < 0 || better(r, &rules[best]) {
				best, matched = i, m
			}
		}
	}
	if best < 0 {
		return Answer{}, false
	}
	r := &rules[best]
	a := Answer{Rule: best, Status: r.StatusCode}
	if r.StatusCode == 410 {
		return a, true
	}

	rest := ""
	if r.PreservePath && r.MatchType == redirects.StartsWith && matched < len(dec) {
		rest = wirePath[offs[matched]:]
	}
	reqQuery := ""
	if r.PreserveQuery {
		q := strings.Index(wire, "?")
		f := strings.Index(wire, "#")
		if q >= 0 && (f < 0 || f > q) {
			reqQuery = wire[q+1:]
			if g := strings.Index(reqQuery, "#"); g >= 0 {
				reqQuery = reqQuery[:g]
			}
		}
	}
	if r.MergeQuery && reqQuery != "" {
		// No parameter joins the destination's query (none at all, or
		// every name the destination's): nothing is appended.
		_, dq, _ := strings.Cut(strings.Split(r.Destination, "#")[0], "?")
		if MergedQuery(dq, reqQuery) == MergedQuery(dq, "") {
			reqQuery = ""
		}
	}
	if rest == "" && reqQuery == "" {
		a.Destination = r.Destination
		return a, true
	}
	d, frag := r.Destination, ""
	if i := strings.Index(d, "#"); i >= 0 {
		d, frag = d[:i], d[i:]
	}
	dpath, dquery := d, ""
	if i := strings.Index(d, "?"); i >= 0 {
		dpath, dquery = d[:i], d[i+1:]
	}
	if rest != "" {
		lower := strings.ToLower(dpath)
		for _, scheme := range []string{"http://", "https://"} {
			if strings.HasPrefix(lower, scheme) && !strings.Contains(dpath[len(scheme):], "/") {
				dpath += "/"
			}
		}
	}
	out := dpath + rest
	if r.QueryAfterFragment {
		// queryAfterFragment: the destination's own query stays where it
		// is, and the request's follows the fragment as text, after '&'
		// when the destination already holds a '?', '?' otherwise.
		if dquery != "" {
			out += "?" + dquery
		}
		out += frag
		if reqQuery != "" {
			if strings.Contains(r.Destination, "?") {
				out += "&" + reqQuery
			} else {
				out += "?" + reqQuery
			}
		}
		a.Destination = out
		return a, true
	}
	if r.MergeQuery {
		a.Destination = out + MergedQuery(dquery, reqQuery) + frag
		return a, true
	}
	var qs []string
	if dquery != "" {
		qs = append(qs, dquery)
	}
	if reqQuery != "" {
		qs = append(qs, reqQuery)
	}
	if len(qs) > 0 {
		out += "?" + strings.Join(qs, "&")
	}
	a.Destination = out + frag
	return a, true
}

// better is the contract's order among matching starts_with rules: the
// lower priority number, then the longer source, then the older rule, then
// the lower ID.
func better(a, b *redirects.Rule) bool {
	if a.Priority != b.Priority {
		return a.Priority < b.Priority
	}
	if len(a.Source) != len(b.Source) {
		return len(a.Source) > len(b.Source)
	}
	if !a.CreatedAt.Equal(b.CreatedAt) {
		return a.CreatedAt.Before(b.CreatedAt)
	}
	if a.ID != b.ID {
		return a.ID < b.ID
	}
	return a.Source < b.Source
}

func hex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// segments are the pieces random sources and paths are made of: letters in
// both cases, a digit, a non-ASCII word, and characters that take an
// escape in a wire path.
var segments = []string{"a", "b", "A", "B", "docs", "Docs", "DOCS", "en-US", "en-us", "x1", "café", "CAFÉ", "a+b", "v2"}

// Project returns a random project: settings (every combination) and up to
// n valid rules that use every option and status, clash-free under the
// settings (sources of one match type distinct by the contract's key), with
// IDs 1.. and increasing creation times. The same rng state gives the same
// project.
func Project(rng *rand.Rand, n int) (redirects.Settings, []redirects.Rule) {
	s := redirects.Settings{CaseInsensitive: rng.IntN(2) == 0, IgnoreTrailingSlash: rng.IntN(2) == 0}
	return s, Rules(rng, n, s)
}

// Rules returns up to n random valid rules, clash-free under settings s.
func Rules(rng *rand.Rand, n int, s redirects.Settings) []redirects.Rule {
	seen := map[string]bool{}
	key := func(mt redirects.MatchType, src string) string {
		if s.IgnoreTrailingSlash && len(src) > 1 && strings.HasSuffix(src, "/") {
			src = src[:len(src)-1]
		}
		if s.CaseInsensitive {
			src = asciiLower(src)
		}
		return mt.String() + " " + src
	}
	base := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	var rules []redirects.Rule
	for i := 0; i < n; i++ {
		r := redirects.Rule{ID: int64(len(rules) + 1), CreatedAt: base.Add(time.Duration(len(rules)) * time.Second)}
		r.MatchType = redirects.Exact
		if rng.IntN(2) == 0 {
			r.MatchType = redirects.StartsWith
		}
		r.Source = randomPath(rng)
		if r.MatchType == redirects.StartsWith && rng.IntN(3) == 0 {
			r.Source = strings.TrimSuffix(r.Source, "/") // a prefix that also matches longer words
			if r.Source == "" {
				r.Source = "/"
			}
		}
		if seen[key(r.MatchType, r.Source)] {
			continue
		}
		seen[key(r.MatchType, r.Source)] = true
		r.StatusCode = redirects.StatusCodes[rng.IntN(len(redirects.StatusCodes))]
		if rng.IntN(3) == 0 {
			r.StatusCode = 301
		}
		r.Priority = rng.IntN(3) * 50
		if r.StatusCode != redirects.StatusGone {
			r.Destination = randomDestination(rng)
			r.PreserveQuery = rng.IntN(2) == 0
			r.PreservePath = r.MatchType == redirects.StartsWith && rng.IntN(2) == 0
		}
		if err := r.Validate(); err != nil {
			panic("rulemodel: generated an invalid rule: " + err.Error())
		}
		rules = append(rules, r)
	}
	return rules
}

// WithQueryAfterFragment gives queryAfterFragment at random to the rules
// of a Project it applies to (preserveQuery and a destination with a
// fragment), first putting a query before the fragment of some and a '?'
// inside the fragment of others. It is apart from Project so that the
// tests of the exports that cannot write the option keep Project's rules.
func WithQueryAfterFragment(rng *rand.Rand, rules []redirects.Rule) {
	for i := range rules {
		r := &rules[i]
		if !r.PreserveQuery || !strings.Contains(r.Destination, "#") || rng.IntN(2) == 0 {
			continue
		}
		r.QueryAfterFragment = true
		if rng.IntN(3) == 0 && !strings.Contains(r.Destination, "?") {
			r.Destination = strings.Replace(r.Destination, "#", "?d=1#", 1)
		}
		if rng.IntN(4) == 0 {
			r.Destination += "?in=frag"
		}
		if err := r.Validate(); err != nil {
			panic("rulemodel: generated an invalid rule: " + err.Error())
		}
	}
}

// MergedQuery is mergeQuery's query as docs/contract.md#rule-options words
// it, '?' included: the destination's query dquery, then the request's
// parameters (non-empty pieces between '&'s) whose names (the text before
// the first '=') dquery's parameters do not have, in the request's order,
// all joined by '&'; "" when that is empty.
func MergedQuery(dquery, reqQuery string) string {
	names := map[string]bool{}
	for _, p := range strings.Split(dquery, "&") {
		if p != "" {
			name, _, _ := strings.Cut(p, "=")
			names[name] = true
		}
	}
	var parts []string
	if dquery != "" {
		parts = append(parts, dquery)
	}
	for _, p := range strings.Split(reqQuery, "&") {
		name, _, _ := strings.Cut(p, "=")
		if p != "" && !names[name] {
			parts = append(parts, p)
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return "?" + strings.Join(parts, "&")
}

// mergeQueries are the destination queries WithMergeQuery gives, their
// names among the ones MergePaths' queries carry.
var mergeQueries = []string{"utm=dest", "k=d&x=1", "b", "x=1", "k", "itemName=p.e&k=", "=v"}

// WithMergeQuery gives mergeQuery at random to the rules of a Project it
// may apply to (preserveQuery, no queryAfterFragment), first giving a query
// to a destination without one (and sometimes replacing the one it has)
// from names the requests of MergePaths carry. It is apart from Project so
// that the tests of the exports that cannot write the option keep
// Project's rules.
func WithMergeQuery(rng *rand.Rand, rules []redirects.Rule) {
	for i := range rules {
		r := &rules[i]
		if !r.PreserveQuery || r.QueryAfterFragment || r.StatusCode == redirects.StatusGone || rng.IntN(2) == 0 {
			continue
		}
		r.MergeQuery = true
		path, query, frag := redirects.SplitDestination(r.Destination)
		if query == "" || rng.IntN(2) == 0 {
			query = mergeQueries[rng.IntN(len(mergeQueries))]
		}
		r.Destination = path + "?" + query + frag
		if err := r.Validate(); err != nil {
			panic("rulemodel: generated an invalid rule: " + err.Error())
		}
	}
}

// mergeRequestQueries are the request queries MergePaths gives: names the
// destinations of WithMergeQuery hold and do not, repeated, empty pieces,
// a piece without '=' and one with an empty name.
var mergeRequestQueries = []string{"?utm=1&b=%20", "?k=v#frag", "?itemName=x&a=1", "?a=1&&k=2&a=3&", "?k", "?=w&x=2&b=1",
	"?&", "?", "?x=1&x=2&y", "?K=1&k=2", "?utm=1#f?k=2"}

// MergePaths returns Paths' paths with, on most of them, a query drawn
// from mergeRequestQueries in place of the one they had, for the rules of
// WithMergeQuery.
func MergePaths(rng *rand.Rand, rules []redirects.Rule, n int) []string {
	out := Paths(rng, rules, n)
	for i, p := range out {
		if rng.IntN(4) == 0 {
			continue
		}
		if j := strings.IndexAny(p, "?#"); j >= 0 {
			p = p[:j]
		}
		out[i] = p + mergeRequestQueries[rng.IntN(len(mergeRequestQueries))]
	}
	return out
}

func asciiLower(x string) string {
	b := []byte(x)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 32
		}
	}
	return string(b)
}

// randomPath returns a decoded path of one to three segments, with or
// without a trailing slash.
func randomPath(rng *rand.Rand) string {
	var b strings.Builder
	for k := rng.IntN(3) + 1; k > 0; k-- {
		b.WriteByte('/')
		b.WriteString(segments[rng.IntN(len(segments))])
	}
	if rng.IntN(3) == 0 {
		b.WriteByte('/')
	}
	return b.String()
}

// destinations are random destinations' shapes: paths, absolute URLs with
// and without a path, queries (an empty one too) and fragments.
var destinations = []string{
	"/new", "/new/", "/b?x=1", "/b?", "/c#top", "/c?y=2#sec", "/Z/",
	"https://ex.com", "https://ex.com/", "https://ex.com/p?q=1", "http://ex.org#f", "https://ex.com/café",
}

func randomDestination(rng *rand.Rand) string {
	return destinations[rng.IntN(len(destinations))]
}

// Paths returns random requested paths in their wire form for rules: each
// rule's source as it is, in other case, with and without a trailing slash,
// with a rest appended, escaped, with a query and a fragment; and paths of
// no rule.
func Paths(rng *rand.Rand, rules []redirects.Rule, n int) []string {
	var out []string
	for len(out) < n {
		var p string
		if len(rules) > 0 && rng.IntN(5) != 0 {
			p = rules[rng.IntN(len(rules))].Source
		} else {
			p = randomPath(rng)
		}
		switch rng.IntN(4) {
		case 0:
			p = strings.ToUpper(p)
		case 1:
			p = asciiLower(p)
		}
		switch rng.IntN(4) {
		case 0:
			if strings.HasSuffix(p, "/") && len(p) > 1 {
				p = p[:len(p)-1]
			} else {
				p += "/"
			}
		case 1:
			p += segments[rng.IntN(len(segments))]
		case 2:
			p += "/" + segments[rng.IntN(len(segments))] + "/x"
		}
		p = Escape(p, rng.IntN(3) == 0)
		switch rng.IntN(4) {
		case 0:
			p += "?utm=1&b=%20"
		case 1:
			p += "?k=v#frag"
		case 2:
			p += "#only"
		}
		out = append(out, p)
	}
	return out
}

// Escape returns a decoded path in a wire form: bytes outside ASCII always
// escaped, a space and '%' and '?' and '#' too; with all, every letter 'a'
// escaped as well (a client may escape what it need not).
func Escape(p string, all bool) string {
	const hexd = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		c := p[i]
		if c >= 0x80 || c <= ' ' || c == '%' || c == '?' || c == '#' || (all && c == 'a') {
			b.WriteByte('%')
			b.WriteByte(hexd[c>>4])
			b.WriteByte(hexd[c&15])
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}
