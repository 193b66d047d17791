package export

import (
	"math"
	"strconv"
	"strings"
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
	if s.chain != nil {
		return s.nginxChain()
	}
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
