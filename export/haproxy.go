package export

import (
	"strconv"
	"strings"
)

// Validation keeps whitespace, control characters and " ' \ # $ out of
// sources and destinations, so each is one word of an HAProxy configuration
// line and of a map file line, and none can open a comment, a quote or an
// environment variable. A source starts with '/', so it cannot be read as an
// ACL flag such as -i or -m.
//
// Sources are stored percent-decoded (docs/contract.md#matching), and
// HAProxy's path is the raw request path, so every fetch decodes it once with
// url_dec, as nginx decodes $uri: both then see the path the lookup API
// matches. url_dec turns '+' into a space only in a query string, and path
// holds none, so a '+' stays a plus.

func (s *sorted) haproxy() []byte {
	const perLine = len("acl redirect_1234567 path,url_dec -m beg -i \nhttp-request redirect code 301 location  if redirect_1234567\n")
	b := make([]byte, 0, 64+textSize(s.exact, perLine)+textSize(s.prefix, perLine))
	n := 0
	b = append(b, "# Exact match redirects\n"...)
	for _, r := range s.exact {
		n++
		b = appendHAProxyRule(b, n, "path,url_dec -m str -i ", r)
	}
	// Prefix rules in priority order: HAProxy runs http-request rules in file
	// order and stops at the first redirect, so the first match is the
	// lookup API's winner (up to case, which -i ignores).
	b = append(b, "# Prefix redirects\n"...)
	for _, r := range s.prefix {
		n++
		b = appendHAProxyRule(b, n, "path,url_dec -m beg -i ", r)
	}
	return b
}

func appendHAProxyRule(b []byte, n int, fetch string, r rec) []byte {
	b = append(b, "acl redirect_"...)
	b = strconv.AppendInt(b, int64(n), 10)
	b = append(b, ' ')
	b = append(b, fetch...)
	b = append(b, r.src...)
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
