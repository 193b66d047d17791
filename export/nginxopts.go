package export

import (
	"strconv"
	"strings"

	"redirects"
)

// The nginx formats of a project that uses a rule option or a setting other
// than the default (docs/exports.md#rule-options-and-settings): locations
// and map values that compute the lookup API's answer from the request.

// nginxExt is the nginx format of a project that uses a rule option or a
// setting (docs/exports.md#rule-options-and-settings). With the default
// settings its locations are those of docs/contract.md's shape; with others, every
// rule is a regular-expression location matching the decoded path as the
// settings compare it (~* ignores ASCII case, as PCRE does without UTF
// mode), exact rules first, then starts_with rules in priority order:
// nginx tries regular-expression locations in file order and takes the
// first match, which is then the lookup API's answer. Each location's body
// computes the answer from the request (appendNginxAnswer).
func (s *sorted) nginxExt() []byte {
	var h strings.Builder
	h.WriteString("# nginx: " + countNoun(len(s.all), "redirect rule") + " for a server block (docs/exports.md).\n")
	if !s.set.IsDefault() {
		h.WriteString("# Regular-expression locations matching the path as the settings compare it, exact rules first,\n")
		h.WriteString("# then starts_with rules in priority order: nginx takes the first that matches. A location = or ^~\n")
		h.WriteString("# of the site that matches a path takes it before them.\n")
	}
	s.writeDeclarations(&h, "nginx")
	b := make([]byte, 0, h.Len()+64+textSize(s.all, 200))
	b = append(b, h.String()...)
	b = append(b, "# Exact match redirects\n"...)
	if s.set.IsDefault() {
		for _, r := range s.exact {
			if len(r.src) <= maxNginxLocation {
				b = appendNginxLocationExt(b, "location = ", r.src, r.rule)
			}
		}
		b = append(b, "# Prefix redirects\n"...)
		for _, w := range s.winners {
			if len(w.src) <= maxNginxLocation {
				b = appendNginxLocationExt(b, "location ^~ ", w.src, w.rule)
			}
		}
		return b
	}
	kind := "location ~ \"^"
	if s.set.CaseInsensitive {
		kind = "location ~* \"^"
	}
	for _, r := range s.exact {
		b = append(b, kind...)
		key := s.set.TrimSlash(r.src)
		b = appendRegexpQuote(b, key)
		if s.set.IgnoreTrailingSlash && key != "/" {
			b = append(b, "/?"...)
		}
		b = append(b, "$\" { "...)
		b = appendNginxAnswer(b, r.rule)
		b = append(b, " }\n"...)
	}
	b = append(b, "# Prefix redirects\n"...)
	for _, r := range s.prefix {
		if skipTooLong(r.rule) {
			continue
		}
		b = append(b, kind...)
		if s.set.IgnoreTrailingSlash && len(r.src) > 1 && r.src[len(r.src)-1] == '/' {
			b = appendRegexpQuote(b, r.src[:len(r.src)-1])
			b = append(b, "(?:/|$)"...)
		} else {
			b = appendRegexpQuote(b, r.src)
		}
		b = append(b, "\" { "...)
		b = appendNginxAnswer(b, r.rule)
		b = append(b, " }\n"...)
	}
	return b
}

func appendNginxLocationExt(b []byte, kind, src string, r *redirects.Rule) []byte {
	b = append(b, kind...)
	b = append(b, src...)
	b = append(b, " { "...)
	b = appendNginxAnswer(b, r)
	return append(b, " }\n"...)
}

// appendNginxAnswer appends the directives that answer a request as rule r
// does in the lookup API (docs/contract.md#rule-options), for a location
// that matched the request. A rule without options returns its destination;
// a 410 returns 410. preservePath takes the rest of the path from
// $request_uri, the request line's path in the wire form the client sent:
// the regular expression skips the source's length in decoded bytes (each
// %XX escape one byte) and captures what follows, up to the query. Each
// if tries one case, the first that applies returns: a rest and a query, a
// rest, a query ($is_args is "?" when the query is not empty), and, with
// nothing to append, the destination as configured. nginx reads a '#'
// inside a word as part of it, so a fragment needs no quoting.
func appendNginxAnswer(b []byte, r *redirects.Rule) []byte {
	if r.StatusCode == redirects.StatusGone {
		return append(b, "return 410;"...)
	}
	ret := func(b []byte) []byte {
		b = append(b, "return "...)
		b = strconv.AppendInt(b, int64(r.StatusCode), 10)
		return append(b, ' ')
	}
	pp := r.PreservePath && r.MatchType == redirects.StartsWith
	if pp || r.PreserveQuery {
		path, query, fragment := redirects.SplitDestination(r.Destination)
		skip := skipSource(r.Source)
		if pp && r.PreserveQuery {
			b = append(b, "if ($request_uri ~ \""+skip+"[?](.+)\") { "...)
			b = ret(b)
			b = appendRestQuery(b, r, path, query, fragment)
			b = append(b, "; } "...)
		}
		if pp {
			b = append(b, "if ($request_uri ~ \""+skip+"\") { "...)
			b = ret(b)
			b = appendJoinPath(b, path)
			b = append(b, "$1"...)
			if query != "" {
				b = append(b, '?')
				b = append(b, query...)
			}
			b = append(b, fragment...)
			b = append(b, "; } "...)
		}
		if r.PreserveQuery {
			b = append(b, "if ($is_args) { "...)
			b = ret(b)
			b = append(b, path...)
			if r.QueryAfterFragment {
				b = appendAfterFragment(b, r, query, fragment, "$args")
			} else {
				b = append(b, '?')
				b = appendQueryAnd(b, query)
				b = append(b, "$args"...)
				b = append(b, fragment...)
			}
			b = append(b, "; } "...)
		}
	}
	b = ret(b)
	b = append(b, r.Destination...)
	return append(b, ';')
}

// appendAfterFragment appends what follows a queryAfterFragment rule r's
// path part (and rest) when the request has a query (docs/contract.md#rule-
// options): the destination's own query, its fragment, then the join
// (afterFragmentJoin) and reqQuery, the server's text for the request's
// query.
func appendAfterFragment(b []byte, r *redirects.Rule, query, fragment, reqQuery string) []byte {
	if query != "" {
		b = append(b, '?')
		b = append(b, query...)
	}
	b = append(b, fragment...)
	b = append(b, afterFragmentJoin(r)...)
	return append(b, reqQuery...)
}

// afterFragmentJoin is what joins the request's query after a
// queryAfterFragment rule's fragment: "&" when its destination as written
// holds a '?', "?" otherwise (redirects.AppendAfterFragment).
func afterFragmentJoin(r *redirects.Rule) string {
	if strings.IndexByte(r.Destination, '?') >= 0 {
		return "&"
	}
	return "?"
}

// appendJoinPath appends a destination's path part before a rest is
// appended to it: an absolute URL without a path gets the path "/", so the
// rest can never change the host.
func appendJoinPath(b []byte, path string) []byte {
	b = append(b, path...)
	if !strings.HasPrefix(path, "/") && !hasURLPath(path) {
		b = append(b, '/')
	}
	return b
}

// appendQueryAnd appends a destination's query and the '&' that joins the
// request's query to it, or nothing when it has none.
func appendQueryAnd(b []byte, query string) []byte {
	if query != "" {
		b = append(b, query...)
		b = append(b, '&')
	}
	return b
}

// hasURLPath reports whether an absolute URL has a path: a '/' after its
// "scheme://".
func hasURLPath(u string) bool {
	i := strings.Index(u, "://")
	return i < 0 || strings.IndexByte(u[i+3:], '/') >= 0
}

// mapEntry is one key of an exact map and the rule it answers with.
type mapEntry struct {
	key string
	r   *redirects.Rule
}

// exactMapEntries returns the keys of the exact maps of a project that uses
// options or settings: each exact rule's source, and under trailingSlash
// ignore its twin with or without the trailing '/' (but the root's), in
// source byte order; 410 rules are left out (the maps carry no status). A
// twin that is another rule's source is left out (writes refuse such
// clashing rules; a map cannot hold a key twice). nginx refuses two keys
// that differ only in case, so the entries whose key equals an earlier one
// up to case are left out of nginx-map-exact and listed in left; haproxy's
// map_str keeps them. Computed once: both exact maps and the report use it.
func (s *sorted) exactMapEntries() (all, nginx []mapEntry, left []caseDup) {
	s.mapOnce.Do(func() { s.mapAll, s.mapNginx, s.mapLeft = computeExactMapEntries(s) })
	return s.mapAll, s.mapNginx, s.mapLeft
}

func computeExactMapEntries(s *sorted) (all, nginx []mapEntry, left []caseDup) {
	n := len(s.exact)
	if s.set.IgnoreTrailingSlash {
		n *= 2
	}
	all = make([]mapEntry, 0, n)
	// Keys equal up to case need an upper-case letter in one of them
	// (sources are distinct, and twins equal to a source are left out), so
	// only the lower-cased forms of those are looked up.
	colliding := map[string]bool{}
	add := func(k string, r *redirects.Rule) {
		all = append(all, mapEntry{k, r})
		if hasUpper(k) {
			colliding[lowerASCII(k)] = true
		}
	}
	for _, r := range s.exact {
		if r.code == redirects.StatusGone {
			continue
		}
		add(r.src, r.rule)
		if !s.set.IgnoreTrailingSlash || r.src == "/" {
			continue
		}
		twin := r.src + "/"
		if t, ok := strings.CutSuffix(r.src, "/"); ok {
			twin = t
		}
		if findExact(s.exact, twin) != nil {
			left = append(left, caseDup{twin, twin})
			continue
		}
		add(twin, r.rule)
	}
	if len(colliding) == 0 {
		return all, all, left
	}
	seen := make(map[string]*redirects.Rule, len(colliding))
	nginx = make([]mapEntry, 0, len(all))
	for _, e := range all {
		if low := lowerASCII(e.key); colliding[low] {
			if kept, ok := seen[low]; ok {
				left = append(left, caseDup{e.key, kept.Source})
				continue
			}
			seen[low] = e.r
		}
		nginx = append(nginx, e)
	}
	return all, nginx, left
}

// appendNginxMapValue appends the value of an nginx map line that answers
// as rule r would for a request with the request's query when r has
// preserveQuery: map values may hold variables. args is the variable that
// holds "&" and the request's query, or nothing when it is empty.
func appendNginxMapValue(b []byte, r *redirects.Rule, args string) []byte {
	if !r.PreserveQuery {
		return append(b, r.Destination...)
	}
	if r.QueryAfterFragment {
		// After the whole destination: "&" and the query from args's map
		// when the destination holds a '?', "?" and it otherwise.
		b = append(b, r.Destination...)
		if afterFragmentJoin(r) == "&" {
			b = append(b, '$')
			return append(b, args...)
		}
		return append(b, "$is_args$args"...)
	}
	path, query, fragment := redirects.SplitDestination(r.Destination)
	b = append(b, path...)
	switch {
	case query != "":
		b = append(b, '?')
		b = append(b, query...)
		b = append(b, '$')
		b = append(b, args...)
	case strings.IndexByte(r.Destination[:len(r.Destination)-len(fragment)], '?') >= 0:
		// An empty query ("/b?") stays in the destination as configured.
		b = append(b, "?$args"...)
	default:
		b = append(b, "$is_args$args"...)
	}
	return append(b, fragment...)
}

// appendArgsMap appends the map that gives "&" and the request's query, or
// nothing when it has none, under the name v, when a rule of rules needs it
// (preserveQuery and a destination query, or queryAfterFragment and a '?'
// in the destination).
func appendArgsMap(b []byte, v string, rules []*redirects.Rule) []byte {
	for _, r := range rules {
		if _, q, _ := redirects.SplitDestination(r.Destination); r.PreserveQuery && (q != "" || r.QueryAfterFragment && afterFragmentJoin(r) == "&") {
			return append(b, "map $args $"+v+" {\n    default \"\";\n    \"~.\" \"&$args\";\n}\n"...)
		}
	}
	return b
}

func (s *sorted) nginxMapExactExt() []byte {
	_, keep, left := s.exactMapEntries()
	longest := 0
	rules := make([]*redirects.Rule, 0, len(keep))
	for _, e := range keep {
		longest = max(longest, len(e.key))
		rules = append(rules, e.r)
	}
	bucket, maxSize := nginxMapHashSizes(longest, len(keep))
	var h strings.Builder
	h.WriteString("# nginx-map-exact: " + countNoun(len(keep), "key") + " of exact redirect rules as an nginx map (docs/exports.md).\n")
	h.WriteString("# In the http block, the two sizes this map needs, then the include of this file:\n")
	h.WriteString("#     map_hash_bucket_size " + strconv.Itoa(bucket) + ";\n")
	h.WriteString("#     map_hash_max_size " + strconv.Itoa(maxSize) + ";\n")
	writeCommentLines(&h, NginxMapExactHTTPSnippet)
	h.WriteString("# In the server block:\n")
	writeCommentLines(&h, NginxAbsoluteRedirectSnippet)
	writeCommentLines(&h, NginxMapExactSnippet)
	ext := s.exactChain()
	if len(ext) > 0 {
		writeExtendedSnippet(&h, "redirect_exact_extended", countVariants(ext, s.set), NginxMapExactExtendedSnippet)
	}
	s.writeDeclarations(&h, "nginx-map-exact")
	if len(left) > 0 {
		h.WriteString("# Warning: nginx map keys are case-insensitive and nginx refuses two keys that are equal up to case,\n")
		h.WriteString("# so " + countNoun(len(left), "key") + " " + isAre(len(left)) +
			" left out (a request for it gets the kept source's destination):\n")
		for _, d := range left {
			h.WriteString("#     " + d.source + " (kept " + d.kept + ")\n")
		}
	}
	b := make([]byte, 0, h.Len()+128+len(keep)*64)
	b = append(b, h.String()...)
	b = appendArgsMap(b, "redirect_exact_args", rules)
	b = append(b, "map $uri $redirect_exact {\n"...)
	for _, e := range keep {
		b = append(b, "    "...)
		b = append(b, e.key...)
		b = append(b, ' ')
		b = appendNginxMapValue(b, e.r, "redirect_exact_args")
		b = append(b, ";\n"...)
	}
	b = append(b, "}\n"...)
	if len(ext) > 0 {
		b = appendNginxExtendedMap(b, "redirect_exact_extended", ext, s.set)
	}
	return b
}

// nginxMapPrefixExt is nginx-map-prefix for a project that uses options or
// settings: "~*" expressions when case is ignored, "(?:/|$)" after a
// source's trailing '/' when it is, values with the request's query when a
// rule passes it on, a map of its own per preservePath rule
// (appendRuleMap), "410" for a 410, and the server-block lines for the
// statuses beyond 301 and 302 when the file holds them.
func (s *sorted) nginxMapPrefixExt() []byte {
	var h strings.Builder
	h.WriteString("# nginx-map-prefix: " + countNoun(len(s.prefix), "starts_with redirect rule") + " as an nginx map of regular expressions (docs/exports.md).\n")
	h.WriteString("# nginx tries a map's regular expressions in file order and takes the first that matches; the lines\n")
	h.WriteString("# are in priority order, so the first match is the rule the lookup API picks.\n")
	h.WriteString("# In the http block:\n")
	writeCommentLines(&h, NginxMapPrefixHTTPSnippet)
	h.WriteString("# In the server block, after the if line of nginx-map-exact when both maps are used:\n")
	writeCommentLines(&h, NginxAbsoluteRedirectSnippet)
	writeCommentLines(&h, NginxMapPrefixSnippet)
	more := false
	rules := make([]*redirects.Rule, 0, len(s.prefix))
	for _, r := range s.prefix {
		more = more || (r.code != 301 && r.code != 302)
		rules = append(rules, r.rule)
	}
	if more {
		writeCommentLines(&h, NginxMapPrefixStatusSnippet)
	}
	ext := s.prefixChain()
	if len(ext) > 0 {
		writeExtendedSnippet(&h, "redirect_prefix_extended", countVariants(ext, s.set), NginxMapPrefixExtendedSnippet)
	}
	s.writeDeclarations(&h, "nginx-map-prefix")

	b := make([]byte, 0, h.Len()+128+textSize(s.prefix, len(`    "~*^(?:/|$)" "301 $is_args$args";`+"\n")+8))
	b = append(b, h.String()...)
	b = appendArgsMap(b, "redirect_prefix_args", rules)
	for k, r := range s.prefix {
		if r.rule.PreservePath && r.code != redirects.StatusGone && !skipTooLong(r.rule) {
			b = appendRuleMap(b, k+1, r.rule)
		}
	}
	b = append(b, "map $uri $redirect_prefix {\n    default \"\";\n"...)
	for k, r := range s.prefix {
		if skipTooLong(r.rule) {
			continue
		}
		b = append(b, "    \"~"...)
		if s.set.CaseInsensitive {
			b = append(b, '*')
		}
		b = append(b, '^')
		if s.set.IgnoreTrailingSlash && len(r.src) > 1 && r.src[len(r.src)-1] == '/' {
			b = appendRegexpQuote(b, r.src[:len(r.src)-1])
			b = append(b, "(?:/|$)"...)
		} else {
			b = appendRegexpQuote(b, r.src)
		}
		b = append(b, "\" \""...)
		b = appendStatus(b, r.code)
		switch {
		case r.code == redirects.StatusGone:
		case r.rule.PreservePath:
			b = append(b, " $redirect_prefix_rule_"...)
			b = strconv.AppendInt(b, int64(k+1), 10)
		default:
			b = append(b, ' ')
			b = appendNginxMapValue(b, r.rule, "redirect_prefix_args")
		}
		b = append(b, "\";\n"...)
	}
	b = append(b, "}\n"...)
	if len(ext) > 0 {
		b = appendNginxExtendedMap(b, "redirect_prefix_extended", ext, s.set)
	}
	return b
}

// maxSkipSource bounds the source of a preservePath rule the nginx
// formats with options write: skipSource's count compiles in PCRE2 as
// that many copies of its group, and past about 790 nginx refuses the
// expression ("regular expression is too large"), and the whole file.
const maxSkipSource = 700

// skipTooLong reports whether r is a preservePath rule whose source is
// over maxSkipSource: the formats leave it out, declared.
func skipTooLong(r *redirects.Rule) bool {
	return r.MatchType == redirects.StartsWith && r.PreservePath && r.StatusCode != redirects.StatusGone && len(r.Source) > maxSkipSource
}

// skipSource is the expression over $request_uri that passes a prefix
// source's length in bytes, each byte as sent or escaped, and captures the
// rest of the path as $1.
func skipSource(source string) string {
	return "^(?:%[0-9A-Fa-f]{2}|[^%?]){" + strconv.Itoa(len(source)) + "}([^?]+)"
}

// appendRestQuery appends the answer of a prefix rule that keeps the rest
// of the path ($1) and the query ($2): the destination's path, the rest,
// the query joined to the destination's, and its fragment, or the query
// after the fragment (queryAfterFragment).
func appendRestQuery(b []byte, r *redirects.Rule, path, query, fragment string) []byte {
	b = appendJoinPath(b, path)
	if r.QueryAfterFragment {
		b = append(b, "$1"...)
		return appendAfterFragment(b, r, query, fragment, "$2")
	}
	b = append(b, "$1?"...)
	b = appendQueryAnd(b, query)
	b = append(b, "$2"...)
	return append(b, fragment...)
}

// appendRuleMap appends the map that gives the destination the k-th rule
// of nginx-map-prefix answers, a preservePath rule r, from $request_uri:
// the request line's path as the client sent it and its query. Its
// regular expressions are tried in order, as appendNginxAnswer's ifs are: a
// rest (what follows the source's length in decoded bytes, each %XX one)
// and a query, a rest, a query, and by default the destination as
// configured. A map value may hold its expression's captures.
func appendRuleMap(b []byte, k int, r *redirects.Rule) []byte {
	path, query, fragment := redirects.SplitDestination(r.Destination)
	skip := skipSource(r.Source)
	b = append(b, "map $request_uri $redirect_prefix_rule_"...)
	b = strconv.AppendInt(b, int64(k), 10)
	b = append(b, " {\n    default \""...)
	b = append(b, r.Destination...)
	b = append(b, "\";\n"...)
	if r.PreserveQuery {
		b = append(b, "    \"~"+skip+"[?](.+)\" \""...)
		b = appendRestQuery(b, r, path, query, fragment)
		b = append(b, "\";\n"...)
	}
	b = append(b, "    \"~"+skip+"\" \""...)
	b = appendJoinPath(b, path)
	b = append(b, "$1"...)
	if query != "" {
		b = append(b, '?')
		b = append(b, query...)
	}
	b = append(b, fragment...)
	b = append(b, "\";\n"...)
	if r.PreserveQuery {
		b = append(b, "    \"~[?](.+)\" \""...)
		b = append(b, path...)
		if r.QueryAfterFragment {
			b = appendAfterFragment(b, r, query, fragment, "$1")
		} else {
			b = append(b, '?')
			b = appendQueryAnd(b, query)
			b = append(b, "$1"...)
			b = append(b, fragment...)
		}
		b = append(b, "\";\n"...)
	}
	return append(b, "}\n"...)
}
