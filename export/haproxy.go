package export

import (
	"strconv"
	"strings"

	"redirects"
	"redirects/engine"
)

// Validation keeps whitespace, control characters and " ' \ # $ out of
// sources and destinations, so each is one word of an HAProxy configuration
// line and of a map file line, and none can open a comment, a quote or an
// environment variable. A source starts with '/', so it cannot be read as an
// ACL flag such as -i or -m.
//
// The haproxy format keeps docs/contract.md's line shapes exactly: "acl redirect_<n>
// path -i <source>", and path_beg for prefix rules. HAProxy's path is the
// request path as the client sent it, not decoded, while sources are stored
// percent-decoded (docs/contract.md#matching). So each source is written in
// the form browsers send (redirects.AppendRequestPath): UTF-8 bytes outside ASCII and
// the ASCII characters browsers escape in a path as %XX in upper-case hex,
// everything else as it is. A request escaped otherwise (an unreserved
// character as %61, '/' as %2F, '[' as %5B) does not match there; the file's
// opening comment and docs/contract.md say so. The map formats match
// path,url_dec instead, as their snippets show.

// haproxyHead is the opening comment of the haproxy format.
const haproxyHead = "# haproxy: one ACL and redirect per rule (docs/exports.md). Each ACL matches the request path\n" + haproxyACLNote

// haproxyACLNote says how the ACLs of docs/contract.md's shape match, after
// a line that starts to.
const haproxyACLNote = `# as the client sent it (path, not decoded), so each source is written as browsers send it:
# bytes outside ASCII and the characters " < > \ ^ ` + "`" + ` { | } % as %XX in upper-case hex, the rest
# as it is (-i also ignores the case of the hex digits). A request that escapes what browsers
# do not (an unreserved character such as %61 for a, '/' as %2F, '[' as %5B) or sends raw
# what they escape does not match; the lookup API and the map formats decode the path first.
`

func (s *sorted) haproxy() []byte {
	if s.chain != nil {
		return s.haproxyChain()
	}
	if s.ext {
		return s.haproxyExt()
	}
	const perLine = len("acl redirect_1234567 path_beg -i \nhttp-request redirect code 301 location  if redirect_1234567\n")
	// Each rule's text once, and a sixty-fourth more for escapes: at a
	// million rules the file is some 170 MB, and a deploy holds it whole
	// while it is compressed, so room for a second copy of the prefix
	// rules' text would be some 90 MB held for nothing.
	size := textSize(s.exact, perLine) + textSize(s.prefix, perLine)
	b := make([]byte, 0, len(haproxyHead)+64+size+size/64)
	b = append(b, haproxyHead...)
	n := 0
	b = append(b, "# Exact match redirects\n"...)
	for _, r := range s.exact {
		n++
		b = appendHAProxyRule(b, n, "path -i ", r)
	}
	// Prefix rules in priority order: HAProxy runs http-request rules in file
	// order and stops at the first redirect, so the first match is the
	// lookup API's winner (up to case, which -i ignores).
	b = append(b, "# Prefix redirects\n"...)
	for _, r := range s.prefix {
		n++
		b = appendHAProxyRule(b, n, "path_beg -i ", r)
	}
	return b
}

func appendHAProxyRule(b []byte, n int, fetch string, r rec) []byte {
	b = append(b, "acl redirect_"...)
	b = strconv.AppendInt(b, int64(n), 10)
	b = append(b, ' ')
	b = append(b, fetch...)
	b = redirects.AppendRequestPath(b, r.src)
	b = append(b, "\nhttp-request redirect code "...)
	b = appendStatus(b, r.code)
	b = append(b, " location "...)
	b = appendLogFormatLiteral(b, r.dst)
	b = append(b, " if redirect_"...)
	b = strconv.AppendInt(b, int64(n), 10)
	return append(b, '\n')
}

// appendLogFormatLiteral appends s to a log-format string (what "redirect
// location" takes) so that it stands for itself: '%' starts a variable
// there, and "%%" is a literal '%'; and '#', which starts a comment
// anywhere in an HAProxy configuration line, is escaped as "\#".
func appendLogFormatLiteral(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '%':
			b = append(b, '%')
		case '#':
			b = append(b, '\\')
		}
		b = append(b, s[i])
	}
	return b
}

// haproxyExt is the haproxy format of a project that uses options or
// settings (docs/exports.md#rule-options-and-settings): the ACLs of docs/contract.md's
// shape, with, under trailingSlash ignore, the twin of an exact source and
// the source of a starts_with rule without its trailing '/' as further
// patterns of the same ACL; and per rule the redirect lines that compute
// its answer (appendHAProxyAnswer).
func (s *sorted) haproxyExt() []byte {
	var h strings.Builder
	h.WriteString(haproxyHead)
	s.writeDeclarations(&h, "haproxy")
	b := make([]byte, 0, h.Len()+64+textSize(s.all, 400))
	b = append(b, h.String()...)
	n := 0
	b = append(b, "# Exact match redirects\n"...)
	for _, r := range s.exact {
		n++
		b = appendHAProxyExactACL(b, n, r.src, s.set)
		b = appendHAProxyAnswer(b, n, r.rule)
	}
	b = append(b, "# Prefix redirects\n"...)
	for _, r := range s.prefix {
		n++
		b = appendHAProxyPrefixACL(b, n, r.src, s.set)
		b = appendHAProxyAnswer(b, n, r.rule)
	}
	return b
}

// appendHAProxyExactACL appends ACL redirect_<n> of an exact source in
// docs/contract.md's shape, with, under trailingSlash ignore, the source's
// twin as a further pattern.
func appendHAProxyExactACL(b []byte, n int, src string, set redirects.Settings) []byte {
	b = append(b, "acl redirect_"...)
	b = strconv.AppendInt(b, int64(n), 10)
	b = append(b, " path -i "...)
	b = redirects.AppendRequestPath(b, src)
	if set.IgnoreTrailingSlash && src != "/" {
		b = append(b, ' ')
		if t := strings.TrimSuffix(src, "/"); t != src {
			b = redirects.AppendRequestPath(b, t)
		} else {
			b = redirects.AppendRequestPath(b, src+"/")
		}
	}
	return append(b, '\n')
}

// appendHAProxyPrefixACL appends ACL redirect_<n> of a starts_with source
// in docs/contract.md's shape, with, under trailingSlash ignore, a second
// line matching the source without its trailing '/' exactly.
func appendHAProxyPrefixACL(b []byte, n int, src string, set redirects.Settings) []byte {
	b = append(b, "acl redirect_"...)
	b = strconv.AppendInt(b, int64(n), 10)
	b = append(b, " path_beg -i "...)
	b = redirects.AppendRequestPath(b, src)
	b = append(b, '\n')
	if set.IgnoreTrailingSlash && len(src) > 1 && src[len(src)-1] == '/' {
		b = append(b, "acl redirect_"...)
		b = strconv.AppendInt(b, int64(n), 10)
		b = append(b, " path -i "...)
		b = redirects.AppendRequestPath(b, src[:len(src)-1])
		b = append(b, '\n')
	}
	return b
}

// appendHAProxyAnswer appends the lines that answer a request matched by
// ACL redirect_<n> as rule r does in the lookup API
// (docs/contract.md#rule-options). HAProxy runs them in order and stops at
// the first redirect, so each case comes before the more general one: a
// rest and a query, a rest, a query, nothing appended (the destination as
// configured; 410 answers an empty 410). The ACL matched the request path
// as sent against the source as browsers send it (with -i, which ignores
// the case of hex digits too), so the source takes as many bytes of the
// path as it has in that form, and path,bytes(L) is the rest in the
// client's wire form; query is the request's query as sent.
func appendHAProxyAnswer(b []byte, n int, r *redirects.Rule) []byte {
	cond := func(b []byte, extra string) []byte {
		b = append(b, " if redirect_"...)
		b = strconv.AppendInt(b, int64(n), 10)
		b = append(b, extra...)
		return append(b, '\n')
	}
	if r.StatusCode == redirects.StatusGone {
		return cond(append(b, "http-request return status 410"...), "")
	}
	redirect := func(b []byte) []byte {
		b = append(b, "http-request redirect code "...)
		b = strconv.AppendInt(b, int64(r.StatusCode), 10)
		return append(b, " location "...)
	}
	pp := r.PreservePath && r.MatchType == redirects.StartsWith
	path, query, fragment := redirects.SplitDestination(r.Destination)
	l := strconv.Itoa(len(redirects.AppendRequestPath(nil, r.Source)))
	rest := "%[path,bytes(" + l + ")]"
	hasRest := " { path,length gt " + l + " }"
	const hasQuery = " { query -m len gt 0 }"
	if pp && r.PreserveQuery {
		b = redirect(b)
		b = appendLogFormatLiteral(b, string(appendJoinPath(nil, path)))
		b = append(b, rest...)
		if r.QueryAfterFragment {
			b = appendLogFormatLiteral(b, string(appendAfterFragment(nil, r, query, fragment, "")))
			b = append(b, "%[query]"...)
		} else {
			b = append(b, '?')
			b = appendLogFormatLiteral(b, string(appendQueryAnd(nil, query)))
			b = append(b, "%[query]"...)
			b = appendLogFormatLiteral(b, fragment)
		}
		b = cond(b, hasRest+hasQuery)
	}
	if pp {
		b = redirect(b)
		b = appendLogFormatLiteral(b, string(appendJoinPath(nil, path)))
		b = append(b, rest...)
		if query != "" {
			b = append(b, '?')
			b = appendLogFormatLiteral(b, query)
		}
		b = appendLogFormatLiteral(b, fragment)
		b = cond(b, hasRest)
	}
	if r.PreserveQuery {
		b = redirect(b)
		if r.QueryAfterFragment {
			b = appendLogFormatLiteral(b, r.Destination+afterFragmentJoin(r))
			b = append(b, "%[query]"...)
		} else {
			b = appendLogFormatLiteral(b, path)
			b = append(b, '?')
			b = appendLogFormatLiteral(b, string(appendQueryAnd(nil, query)))
			b = append(b, "%[query]"...)
			b = appendLogFormatLiteral(b, fragment)
		}
		b = cond(b, hasQuery)
	}
	b = redirect(b)
	b = appendLogFormatLiteral(b, r.Destination)
	return cond(b, "")
}

// haproxyMapExactExt is haproxy-map-exact for a project that uses options
// or settings: the keys of exactMapEntries, each with its destination as
// configured (a map value is inserted as it is: it cannot add the request's
// query), 410 rules left out.
func (s *sorted) haproxyMapExactExt() []byte {
	all, _, _ := s.exactMapEntries()
	var h strings.Builder
	h.WriteString("# haproxy-map-exact: " + countNoun(len(all), "key") + " of exact redirect rules for map_str (docs/exports.md). In the frontend:\n")
	if s.set.CaseInsensitive {
		// The keys are lower-cased, and so is the path (lower).
		writeCommentLines(&h, HAProxyMapExactFoldSnippet)
	} else {
		writeCommentLines(&h, HAProxyMapExactSnippet)
	}
	s.writeDeclarations(&h, "haproxy-map-exact")
	b := make([]byte, 0, h.Len()+len(all)*64)
	b = append(b, h.String()...)
	for _, e := range all {
		if s.set.CaseInsensitive {
			b = append(b, lowerASCII(e.key)...)
		} else {
			b = append(b, e.key...)
		}
		b = append(b, ' ')
		b = append(b, e.r.Destination...)
		b = append(b, '\n')
	}
	return b
}

func (s *sorted) haproxyMapExact() []byte {
	if s.ext {
		return s.haproxyMapExactExt()
	}
	var h strings.Builder
	h.WriteString("# haproxy-map-exact: " + countNoun(len(s.exact), "exact redirect rule") + " for map_str (docs/exports.md). In the frontend:\n")
	writeCommentLines(&h, HAProxyMapExactSnippet)
	n302 := 0
	var ex302 []string
	for _, r := range s.exact {
		if r.code != 301 {
			if n302++; n302 <= maxExamples {
				ex302 = append(ex302, r.src)
			}
		}
	}
	if n302 > 0 {
		h.WriteString("# Warning: the map has no status column, so " + countNoun(n302, "rule") +
			" with status 302 " + isAre(n302) + " served as 301, e.g. " + strings.Join(ex302, ", ") + "\n")
	}
	b := make([]byte, 0, h.Len()+textSize(s.exact, 2))
	b = append(b, h.String()...)
	for _, r := range s.exact {
		b = append(b, r.src...)
		b = append(b, ' ')
		b = append(b, r.dst...)
		b = append(b, '\n')
	}
	return b
}

func (s *sorted) haproxyMapPrefix() []byte {
	var h strings.Builder
	h.WriteString("# haproxy-map-prefix: " + countNoun(len(s.winners), "starts_with source") + " for map_beg (docs/exports.md).\n")
	h.WriteString("# map_beg picks the longest matching source, whatever the priorities, so each line carries the status\n")
	h.WriteString("# and destination of the rule the lookup API picks for a path equal to its source. In the frontend,\n")
	h.WriteString("# after the lines of haproxy-map-exact when both maps are used:\n")
	winners := s.winners
	if s.ext && s.set.CaseInsensitive {
		// The keys are lower-cased, and so is the path (lower); each
		// carries the winner among the sources that prefix it up to case.
		winners = foldedWinners(s.prefix)
		writeCommentLines(&h, HAProxyMapPrefixFoldSnippet)
	} else {
		writeCommentLines(&h, HAProxyMapPrefixSnippet)
	}
	if s.ext {
		// The statuses beyond 301 and 302, and the declarations; a 410
		// line has no destination.
		for _, w := range winners {
			if w.code != 301 && w.code != 302 {
				writeCommentLines(&h, HAProxyMapPrefixStatusSnippet)
				break
			}
		}
		s.writeDeclarations(&h, "haproxy-map-prefix")
	}
	b := make([]byte, 0, h.Len()+textSize(winners, len("  301 \n")))
	b = append(b, h.String()...)
	for _, w := range winners {
		b = append(b, w.src...)
		b = append(b, ' ')
		b = appendStatus(b, w.code)
		if w.code != redirects.StatusGone {
			b = append(b, ' ')
			b = append(b, w.dst...)
		}
		b = append(b, '\n')
	}
	return b
}

// foldedWinners returns the closure winners (engine.PrefixWinners) of the
// starts_with rules with their sources lower-cased, for a map_beg that
// looks the lower-cased path up: under caseSensitive false no two sources
// are equal up to case (they would clash), and a winner's answer is its
// rule's.
func foldedWinners(prefix []rec) []rec {
	low := make([]redirects.Rule, len(prefix))
	orig := make(map[*redirects.Rule]*redirects.Rule, len(prefix))
	for i, r := range prefix {
		low[i] = *r.rule
		low[i].Source = lowerASCII(r.src)
	}
	for i := range low {
		orig[&low[i]] = prefix[i].rule
	}
	ws := dedupWinners(engine.PrefixWinners(low))
	out := make([]rec, len(ws))
	for i, w := range ws {
		r := orig[w.Rule]
		out[i] = rec{src: w.Source, dst: r.Destination, code: int32(r.StatusCode), mt: redirects.StartsWith, rule: r}
	}
	return out
}
