package export

import (
	"math"
	"strconv"
	"strings"

	"redirects"
)

// Validation keeps whitespace, control characters and " ' \ ; { } $ # out of
// sources and destinations, so every one of them is a single nginx token
// that needs no quoting, and no value can start a variable or a comment.

// maxNginxLocation is the longest source the nginx format writes as a
// location. nginx 1.22 (Debian 12's) keeps the length of a location's name
// in one byte of its location tree: a 256-byte location matches every
// request, and longer ones match wrongly, all without a word from nginx -t.
// Longer sources are left out of the file and named in the report; the
// lookup API and the map formats keep them.
const maxNginxLocation = 255

func (s *sorted) nginx() []byte {
	if s.ext {
		return s.nginxExt()
	}
	b := make([]byte, 0, 64+textSize(s.exact, len("location =  { return 301 ; }\n"))+
		textSize(s.winners, len("location ^~  { return 301 ; }\n")))
	b = append(b, "# Exact match redirects\n"...)
	for _, r := range s.exact {
		if len(r.src) <= maxNginxLocation {
			b = appendNginxLocation(b, "location = ", r)
		}
	}
	b = append(b, "# Prefix redirects\n"...)
	// Each prefix source carries its closure winner: nginx picks the longest
	// matching "location ^~" whatever the priorities, and the winner of the
	// longest matching source is the lookup API's answer.
	for _, w := range s.winners {
		if len(w.src) <= maxNginxLocation {
			b = appendNginxLocation(b, "location ^~ ", w)
		}
	}
	return b
}

func appendNginxLocation(b []byte, kind string, r rec) []byte {
	b = append(b, kind...)
	b = append(b, r.src...)
	b = append(b, " { return "...)
	b = appendStatus(b, r.code)
	b = append(b, ' ')
	b = append(b, r.dst...)
	return append(b, "; }\n"...)
}

// nginxExt is the nginx format of a project that uses a rule option or a
// setting (docs/exports.md#rule-options-and-settings). With the default
// settings its locations are those of SPEC.md's shape; with others, every
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
		skip := "^(?:%[0-9A-Fa-f]{2}|[^%?]){" + strconv.Itoa(len(r.Source)) + "}([^?]+)"
		if pp && r.PreserveQuery {
			b = append(b, "if ($request_uri ~ \""+skip+"[?](.+)\") { "...)
			b = ret(b)
			b = appendJoinPath(b, path)
			b = append(b, "$1?"...)
			b = appendQueryAnd(b, query)
			b = append(b, "$2"...)
			b = append(b, fragment...)
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
			b = append(b, '?')
			b = appendQueryAnd(b, query)
			b = append(b, "$args"...)
			b = append(b, fragment...)
			b = append(b, "; } "...)
		}
	}
	b = ret(b)
	b = append(b, r.Destination...)
	return append(b, ';')
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
// source byte order; 410 rules are left out (the maps carry no status).
// nginx refuses two keys that differ only in case, so the entries whose key
// equals an earlier one up to case are left out of nginx-map-exact and
// listed in left; haproxy's map_str keeps them all.
func (s *sorted) exactMapEntries() (all, nginx []mapEntry, left []caseDup) {
	seen := map[string]*redirects.Rule{}
	for _, r := range s.exact {
		if r.code == redirects.StatusGone {
			continue
		}
		keys := []string{r.src}
		if s.set.IgnoreTrailingSlash && r.src != "/" {
			if t := strings.TrimSuffix(r.src, "/"); t != r.src {
				keys = append(keys, t)
			} else {
				keys = append(keys, r.src+"/")
			}
		}
		for _, k := range keys {
			e := mapEntry{k, r.rule}
			all = append(all, e)
			low := lowerASCII(k)
			if kept, ok := seen[low]; ok {
				left = append(left, caseDup{k, kept.Source})
				continue
			}
			seen[low] = r.rule
			nginx = append(nginx, e)
		}
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
// (preserveQuery and a destination query).
func appendArgsMap(b []byte, v string, rules []*redirects.Rule) []byte {
	for _, r := range rules {
		if _, q, _ := redirects.SplitDestination(r.Destination); r.PreserveQuery && q != "" {
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
	s.writeDeclarations(&h, "nginx-map-exact")
	if len(left) > 0 {
		h.WriteString("# Warning: nginx map keys are case-insensitive and nginx refuses two keys that differ only in case,\n")
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
	return append(b, "}\n"...)
}

func (s *sorted) nginxMapExact() []byte {
	if s.ext {
		return s.nginxMapExactExt()
	}
	ci := s.cases()
	keep := s.exact
	if len(ci.leftOut) > 0 {
		keep = make([]rec, 0, len(s.exact))
		for _, r := range s.exact {
			if !ci.leftOutSet[r.rule] {
				keep = append(keep, r)
			}
		}
	}
	longest, n302 := 0, 0
	var ex302 []string
	for _, r := range keep {
		longest = max(longest, len(r.src))
		if r.code != 301 {
			if n302++; n302 <= maxExamples {
				ex302 = append(ex302, r.src)
			}
		}
	}
	bucket, maxSize := nginxMapHashSizes(longest, len(keep))

	var h strings.Builder
	h.WriteString("# nginx-map-exact: " + countNoun(len(keep), "exact redirect rule") + " as an nginx map (docs/exports.md).\n")
	h.WriteString("# In the http block, the two sizes this map needs, then the include of this file:\n")
	h.WriteString("#     map_hash_bucket_size " + strconv.Itoa(bucket) + ";\n")
	h.WriteString("#     map_hash_max_size " + strconv.Itoa(maxSize) + ";\n")
	writeCommentLines(&h, NginxMapExactHTTPSnippet)
	h.WriteString("# In the server block:\n")
	writeCommentLines(&h, NginxAbsoluteRedirectSnippet)
	writeCommentLines(&h, NginxMapExactSnippet)
	if n302 > 0 {
		h.WriteString("# Warning: the map has no status column, so " + countNoun(n302, "rule") +
			" with status 302 " + isAre(n302) + " served as 301, e.g. " + strings.Join(ex302, ", ") + "\n")
	}
	if len(ci.leftOut) > 0 {
		h.WriteString("# Warning: nginx map keys are case-insensitive and nginx refuses two keys that differ only in case,\n")
		h.WriteString("# so " + countNoun(len(ci.leftOut), "source") + " " + isAre(len(ci.leftOut)) +
			" left out (a request for it gets the kept source's destination):\n")
		for _, d := range ci.leftOut {
			h.WriteString("#     " + d.source + " (kept " + d.kept + ")\n")
		}
	}

	b := make([]byte, 0, h.Len()+64+textSize(keep, len("     ;\n")))
	b = append(b, h.String()...)
	b = append(b, "map $uri $redirect_exact {\n"...)
	for _, r := range keep {
		b = append(b, "    "...)
		b = append(b, r.src...)
		b = append(b, ' ')
		b = append(b, r.dst...)
		b = append(b, ";\n"...)
	}
	return append(b, "}\n"...)
}

// nginxMapHashSizes returns the map_hash_bucket_size and map_hash_max_size
// an nginx map of n keys, the longest of which is longest bytes, needs to
// load without the warning "could not build optimal map_hash".
//
// nginx tries table sizes up to map_hash_max_size and takes the first in
// which every bucket holds its keys: each key takes a pointer plus the key
// and a two-byte length rounded up to pointers (so keys longer than 46 bytes
// overflow the default 64-byte bucket alone), and a bucket ends with a
// pointer. With twice as many slots as keys, the fullest of the buckets
// holds a few keys at a thousand keys and some eight at a million (a
// Poisson tail), so the bucket size is that many of the longest key, rounded
// up to a power of two.
func nginxMapHashSizes(longest, n int) (bucket, maxSize int) {
	maxSize = 2048
	for maxSize < 2*n {
		maxSize *= 2
	}
	elt := 8 + (longest+2+7)&^7
	need := fullestBucket(n, maxSize)*elt + 8
	bucket = 64
	for bucket < need {
		bucket *= 2
	}
	return bucket, maxSize
}

// fullestBucket returns how many of n keys hashed into size buckets the
// fullest bucket holds, but for a 1% chance: the least k for which size
// buckets of a Poisson(n/size) load are all expected below k+1 with
// probability 99%.
func fullestBucket(n, size int) int {
	alpha := float64(n) / float64(size)
	// p[j] = P(load = j); the tail beyond 64 is negligible for alpha <= 1.
	var p [64]float64
	p[0] = math.Exp(-alpha)
	for j := 1; j < len(p); j++ {
		p[j] = p[j-1] * alpha / float64(j)
	}
	tail := 0.0 // P(load > k)
	for k := len(p) - 1; k > 0; k-- {
		if tail += p[k]; float64(size)*tail >= 0.01 {
			return max(k, 1)
		}
	}
	return 1
}

func (s *sorted) nginxMapPrefix() []byte {
	if s.ext {
		return s.nginxMapPrefixExt()
	}
	var h strings.Builder
	h.WriteString("# nginx-map-prefix: " + countNoun(len(s.prefix), "starts_with redirect rule") + " as an nginx map of regular expressions (docs/exports.md).\n")
	h.WriteString("# nginx tries a map's regular expressions in file order and takes the first that matches; the lines\n")
	h.WriteString("# are in priority order, so the first match is the rule the lookup API picks.\n")
	h.WriteString("# In the http block:\n")
	writeCommentLines(&h, NginxMapPrefixHTTPSnippet)
	h.WriteString("# In the server block, after the if line of nginx-map-exact when both maps are used:\n")
	writeCommentLines(&h, NginxAbsoluteRedirectSnippet)
	writeCommentLines(&h, NginxMapPrefixSnippet)

	b := make([]byte, 0, h.Len()+64+textSize(s.prefix, len(`    "~^" "301 ";`+"\n")+8))
	b = append(b, h.String()...)
	b = append(b, "map $uri $redirect_prefix {\n    default \"\";\n"...)
	for _, r := range s.prefix {
		b = append(b, "    \"~^"...)
		b = appendRegexpQuote(b, r.src)
		b = append(b, "\" \""...)
		b = appendStatus(b, r.code)
		b = append(b, ' ')
		b = append(b, r.dst...)
		b = append(b, "\";\n"...)
	}
	return append(b, "}\n"...)
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
	s.writeDeclarations(&h, "nginx-map-prefix")

	b := make([]byte, 0, h.Len()+128+textSize(s.prefix, len(`    "~*^(?:/|$)" "301 $is_args$args";`+"\n")+8))
	b = append(b, h.String()...)
	b = appendArgsMap(b, "redirect_prefix_args", rules)
	for k, r := range s.prefix {
		if r.rule.PreservePath && r.code != redirects.StatusGone {
			b = appendRuleMap(b, k+1, r.rule)
		}
	}
	b = append(b, "map $uri $redirect_prefix {\n    default \"\";\n"...)
	for k, r := range s.prefix {
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
	return append(b, "}\n"...)
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
	skip := "^(?:%[0-9A-Fa-f]{2}|[^%?]){" + strconv.Itoa(len(r.Source)) + "}([^?]+)"
	b = append(b, "map $request_uri $redirect_prefix_rule_"...)
	b = strconv.AppendInt(b, int64(k), 10)
	b = append(b, " {\n    default \""...)
	b = append(b, r.Destination...)
	b = append(b, "\";\n"...)
	if r.PreserveQuery {
		b = append(b, "    \"~"+skip+"[?](.+)\" \""...)
		b = appendJoinPath(b, path)
		b = append(b, "$1?"...)
		b = appendQueryAnd(b, query)
		b = append(b, "$2"...)
		b = append(b, fragment...)
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
		b = append(b, '?')
		b = appendQueryAnd(b, query)
		b = append(b, "$1"...)
		b = append(b, fragment...)
		b = append(b, "\";\n"...)
	}
	return append(b, "}\n"...)
}

// maxNginxToken bounds a regular expression written with one backslash per
// metacharacter: nginx refuses a token longer than its 4096-byte read
// buffer, which a 2,048-byte source made of dots would exceed.
const maxNginxToken = 4000

// appendRegexpQuote appends src as a PCRE expression that matches it
// literally. Each metacharacter gets a backslash, which nginx's quoted
// strings keep as it is (nginx only rewrites \" \' \\ \t \r \n, and no
// metacharacter is one of t, r, n). A source whose escaped form would be too
// long for nginx is wrapped in \Q...\E instead, which cannot end early
// because a source holds no backslash.
func appendRegexpQuote(b []byte, src string) []byte {
	n := 0
	for i := 0; i < len(src); i++ {
		if isRegexpMeta(src[i]) {
			n++
		}
	}
	if len(src)+n > maxNginxToken {
		b = append(b, `\Q`...)
		b = append(b, src...)
		return append(b, `\E`...)
	}
	for i := 0; i < len(src); i++ {
		if isRegexpMeta(src[i]) {
			b = append(b, '\\')
		}
		b = append(b, src[i])
	}
	return b
}

// isRegexpMeta reports whether c has a meaning in a PCRE expression outside
// a character class. Validation already keeps \ $ ? { } out of sources; they
// are listed anyway so the quoting does not depend on it.
func isRegexpMeta(c byte) bool {
	switch c {
	case '\\', '^', '$', '.', '[', ']', '|', '(', ')', '?', '*', '+', '{', '}':
		return true
	}
	return false
}

// writeCommentLines writes each line of a snippet as an indented comment.
func writeCommentLines(h *strings.Builder, snippet string) {
	for line := range strings.SplitSeq(snippet, "\n") {
		h.WriteString("#     " + line + "\n")
	}
}

func countNoun(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

func isAre(n int) string {
	if n == 1 {
		return "is"
	}
	return "are"
}
