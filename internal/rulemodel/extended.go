package rulemodel

import (
	"strings"

	"redirects"
)

// LookupRules answers a lookup of wire on host ("" for none) over rules of
// every kind, as a deployed version answers it: the rule
// LookupPatterns picks, its destination with its captures inserted and
// then the rule options applied (docs/contract.md#rule-options: "The
// rule options apply to the expanded destination").
func LookupRules(rules []redirects.Rule, s Settings, host, wire string) (Answer, bool) {
	prs := make([]PatternRule, len(rules))
	for i, r := range rules {
		prs[i] = PatternRule{ID: r.ID, CreatedAt: r.CreatedAt, Kind: r.MatchType.String(), Host: r.Host, ExceptHosts: r.ExceptHosts, Source: r.Source, Destination: r.Destination, Priority: r.Priority}
	}
	pa, ok := LookupPatterns(prs, s, host, wire)
	if !ok {
		return Answer{}, false
	}
	r := rules[pa.Rule]
	return Answer{Rule: pa.Rule, Status: r.StatusCode, Destination: withOptions(r, pa.Destination, wire)}, true
}

// withOptions applies r's options to its expanded destination dest for
// the request wire, as docs/contract.md#rule-options words it.
func withOptions(r redirects.Rule, dest, wire string) string {
	if r.StatusCode == redirects.StatusGone {
		return ""
	}
	wirePath, reqQuery := wire, ""
	if i := strings.IndexAny(wire, "?#"); i >= 0 {
		wirePath = wire[:i]
		if wire[i] == '?' {
			reqQuery, _, _ = strings.Cut(wire[i+1:], "#")
		}
	}
	rest := ""
	if r.PreservePath && r.MatchType == redirects.StartsWith {
		// The first len(src) decoded bytes are the source's, each %XX
		// one byte; what follows, as sent, is the rest.
		src, _, _ := strings.Cut(r.Source, "?")
		i := 0
		for n := len(src); n > 0 && i < len(wirePath); n-- {
			if wirePath[i] == '%' {
				i += 3
			} else {
				i++
			}
		}
		rest = wirePath[min(i, len(wirePath)):]
	}
	if !r.PreserveQuery {
		reqQuery = ""
	}
	if r.MergeQuery && reqQuery != "" {
		// No parameter joins the expanded destination's query: nothing
		// is appended.
		_, dq, _ := strings.Cut(strings.Split(dest, "#")[0], "?")
		if MergedQuery(dq, reqQuery) == MergedQuery(dq, "") {
			reqQuery = ""
		}
	}
	if rest == "" && reqQuery == "" {
		return dest
	}
	path, fragment := dest, ""
	if i := strings.IndexByte(path, '#'); i >= 0 {
		path, fragment = path[:i], path[i:]
	}
	path, query, _ := strings.Cut(path, "?")
	if rest != "" {
		if !strings.HasPrefix(path, "/") && strings.Count(path, "/") == 2 {
			path += "/" // an absolute destination without a path
		}
		path += rest
	}
	if r.QueryAfterFragment {
		if query != "" {
			path += "?" + query
		}
		path += fragment
		switch {
		case reqQuery == "":
		case strings.Contains(r.Destination, "?"): // as written, not expanded
			path += "&" + reqQuery
		default:
			path += "?" + reqQuery
		}
		return path
	}
	if r.MergeQuery {
		// The destination's names after its captures are inserted.
		return path + MergedQuery(query, reqQuery) + fragment
	}
	var qs []string
	for _, q := range []string{query, reqQuery} {
		if q != "" {
			qs = append(qs, q)
		}
	}
	if len(qs) > 0 {
		path += "?" + strings.Join(qs, "&")
	}
	return path + fragment
}
