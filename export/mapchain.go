package export

import (
	"strconv"
	"strings"

	"redirects"
)

// The map formats of a project with extended rules (redirects.Rule.Extended)
// keep docs/contract.md's map for the literal rules without a host or
// conditions, and hold the extended rules in a second map: the nginx
// format's chain (nginxchain.go) as the regular expressions of a map over
// "$host $request_uri", in the lookup API's order, each with the answer
// as its value (nginx tries a map's regular expressions in file order, the
// first that matches giving the value; its named captures are variables
// the value may insert). The server block reads that map first
// (NginxMapExactExtendedSnippet, NginxMapPrefixExtendedSnippet).
//
// Precedence (docs/contract.md#precedence): an exact rule with a host or
// conditions comes before the exact rule without them for the same key,
// and keys of different exact rules never match one path, so the extended
// map of nginx-map-exact holds the extended exact rules alone. The other
// kinds are ordered by priority first, so a literal starts_with rule of
// the main map may come before an extended rule in the API's order: the
// extended map of nginx-map-prefix holds every rule of the chain up to the
// last extended one, literal ones included, and a path none of them
// matches gets the main map's answer, which is then the API's.

// exactChain returns the extended exact rules of the chain the map formats
// answer, in the API's order.
func (s *sorted) exactChain() []chainRule {
	var out []chainRule
	for _, c := range s.chain {
		if c.r.MatchType == redirects.Exact && c.r.Extended() && nginxChainAnswers(c, s.set) {
			out = append(out, c)
		}
	}
	return out
}

// prefixChain returns the rules of the chain other than exact ones, up to
// the last extended one the map formats answer, less those they leave out,
// in the API's order.
func (s *sorted) prefixChain() []chainRule {
	var out []chainRule
	for _, c := range s.prefixSpan() {
		if nginxChainAnswers(c, s.set) {
			out = append(out, c)
		}
	}
	return out
}

// prefixSpan returns the rules of the chain other than exact ones, up to
// the last extended one the map formats answer, in the API's order: the
// rules the extended map of nginx-map-prefix holds, and those of them it
// leaves out (prefixChain).
func (s *sorted) prefixSpan() []chainRule {
	var rest []chainRule
	for _, c := range s.chain {
		if c.r.MatchType != redirects.Exact {
			rest = append(rest, c)
		}
	}
	last := -1
	for i, c := range rest {
		if c.r.Extended() && nginxChainAnswers(c, s.set) {
			last = i
		}
	}
	return rest[:last+1]
}

// appendNginxExtendedMap appends "map "$host $request_uri" $<name>" with a
// line per case of each rule of chain.
func appendNginxExtendedMap(b []byte, name string, chain []chainRule, set redirects.Settings) []byte {
	b = append(b, "map \"$host $request_uri\" $"+name+" {\n    default \"\";\n"...)
	for _, c := range chain {
		for _, v := range chainVariants(c, set) {
			b = append(b, "    \"~"...)
			b = append(b, v.re...)
			b = append(b, "\" \""...)
			b = appendChainAnswer(b, v)
			b = append(b, "\";\n"...)
		}
	}
	return append(b, "}\n"...)
}

// appendChainAnswer appends the nginx text of a case's answer: "410", or
// the status ('c' first when the destination inserts a capture), a space
// and the destination with its captures as ${name}.
func appendChainAnswer(b []byte, v chainVariant) []byte {
	if v.code == redirects.StatusGone {
		return append(b, "410"...)
	}
	if v.computed {
		b = append(b, 'c')
	}
	b = strconv.AppendInt(b, int64(v.code), 10)
	b = append(b, ' ')
	for _, p := range v.answer {
		if p.group != "" {
			b = append(b, "${"+p.group+"}"...)
		} else {
			// A regex rule's "$$" is a literal '$', which no string
			// nginx reads can hold (declare.go).
			b = append(b, strings.ReplaceAll(p.text, "$", "%24")...)
		}
	}
	return b
}

// writeExtendedSnippet writes the opening comment's lines on the extended
// map of a map format, name, with n lines.
func writeExtendedSnippet(h *strings.Builder, name string, n int, snippet string) {
	h.WriteString("# The map $" + name + " answers the rules with patterns, regexes, hosts or query conditions\n")
	h.WriteString("# (" + countNoun(n, "expression") + " over the host and the path and query as sent, in the lookup API's order).\n")
	h.WriteString("# In the server block, before the lines above:\n")
	writeCommentLines(h, snippet)
}

// countVariants counts the cases of chain's rules, one line each.
func countVariants(chain []chainRule, set redirects.Settings) int {
	n := 0
	for _, c := range chain {
		n += nginxCases(c, set, nil).cases
	}
	return n
}
