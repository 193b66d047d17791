package export

import (
	"strconv"
	"strings"

	"redirects"
)

// Validation keeps whitespace, control characters and " ' \ # $ out of
// sources and destinations, so each is one word of an HAProxy configuration
// line and of a map file line, and none can open a comment, a quote or an
// environment variable. A source starts with '/', so it cannot be read as an
// ACL flag such as -i or -m.
//
// The haproxy format keeps SPEC.md's line shapes exactly: "acl redirect_<n>
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
const haproxyHead = `# haproxy: one ACL and redirect per rule (docs/exports.md). Each ACL matches the request path
# as the client sent it (path, not decoded), so each source is written as browsers send it:
# bytes outside ASCII and the characters " < > \ ^ ` + "`" + ` { | } % as %XX in upper-case hex, the rest
# as it is (-i also ignores the case of the hex digits). A request that escapes what browsers
# do not (an unreserved character such as %61 for a, '/' as %2F, '[' as %5B) or sends raw
# what they escape does not match; the lookup API and the map formats decode the path first.
`

func (s *sorted) haproxy() []byte {
	const perLine = len("acl redirect_1234567 path_beg -i \nhttp-request redirect code 301 location  if redirect_1234567\n")
	b := make([]byte, 0, len(haproxyHead)+64+textSize(s.exact, perLine)+textSize(s.prefix, perLine)*2)
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
// there, and "%%" is a literal '%'.
func appendLogFormatLiteral(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if s[i] == '%' {
			b = append(b, '%')
		}
		b = append(b, s[i])
	}
	return b
}

func (s *sorted) haproxyMapExact() []byte {
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
	writeCommentLines(&h, HAProxyMapPrefixSnippet)
	b := make([]byte, 0, h.Len()+textSize(s.winners, len("  301 \n")))
	b = append(b, h.String()...)
	for _, w := range s.winners {
		b = append(b, w.src...)
		b = append(b, ' ')
		b = appendStatus(b, w.code)
		b = append(b, ' ')
		b = append(b, w.dst...)
		b = append(b, '\n')
	}
	return b
}
