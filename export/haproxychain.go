package export

import (
	"strconv"
	"strings"

	"redirects"
	"redirects/engine/pattern"
)

// The haproxy format of a project with extended rules is the chain of
// nginxchain.go in HAProxy's words: the frontend sets txn.redirects_req to
// the host (lower-cased, its port and a trailing dot removed, as the host
// key) and the path and query as sent (pathq), then one "http-request
// redirect" per rule case, in the lookup API's order, conditioned on the
// case's expression (-m reg); HAProxy runs http-request rules in file order
// and stops at the first redirect. The location is regsub of the same
// expression over the same variable, the answer's captures as \1 to \9.
//
// Quoting: an ACL's expression is a single-quoted word, in which HAProxy
// expands nothing and escapes nothing; regsub's arguments are
// double-quoted inside the single-quoted location, where HAProxy's argument
// parser reads a backslash as an escape, so every backslash is doubled.
// The expressions hold no quote (every byte that is not a letter or a
// digit is written \xHH), the answers' text no quote, backslash or
// whitespace (validation), so nothing can end a word early.

// haproxyChainHead sets the variable the chain matches, and the two its
// literal rules compare (haproxyLiteralACLs): the host key and the
// decoded path (unset when the path holds a malformed escape: no literal
// rule answers it, as the lookup API does not).
const haproxyChainHead = `http-request set-var-fmt(txn.redirects_req) '%[req.hdr(host),lower,regsub(":[0-9]*$",""),regsub("[.]$","")] %[pathq]'` + "\n" +
	`http-request set-var(txn.redirects_host) 'req.hdr(host),lower,regsub(":[0-9]*$",""),regsub("[.]$","")'` + "\n" +
	`http-request set-var(txn.redirects_path) path,url_dec` + "\n"

// haproxyChainAnswers reports whether the chain answers r as the lookup
// API does: the rules the chain answers (chainAnswers) with at most nine
// groups an answer inserts (regsub has \1 to \9) and arguments regsub
// holds (haproxyStringsFit).
func haproxyChainAnswers(c chainRule, set redirects.Settings) bool {
	return chainAnswers(c, set) && haproxyGroupsFit(c, set) && haproxyStringsFit(c, set)
}

// haproxyGroupsFit reports whether each case of c's rule has at most nine
// groups.
func haproxyGroupsFit(c chainRule, set redirects.Settings) bool {
	return haproxyCases(c, set).groups
}

func haproxyVariantsGroupsFit(vs []chainVariant) bool {
	for _, v := range vs {
		if _, ok := groupNumbers(v.re); !ok {
			return false
		}
	}
	return true
}

// maxHAProxyArg bounds an argument of regsub: HAProxy decodes it into a
// buffer of tune.bufsize bytes (16384 by default) and refuses a longer one
// ("too small buffer size to store decoded argument"), and the whole file
// with it.
const maxHAProxyArg = 16000

// haproxyStringsFit reports whether the expression and the answer of each
// case of c's rule that regsub writes (appendHAProxyChainVariant) are
// arguments it holds (maxHAProxyArg). A case of a literal rule compares
// words and writes no regsub; an ACL's expression has no such bound.
func haproxyStringsFit(c chainRule, set redirects.Settings) bool {
	return haproxyCases(c, set).fit
}

func haproxyVariantsFit(c chainRule, vs []chainVariant, set redirects.Settings) bool {
	for _, v := range vs {
		if v.code == redirects.StatusGone {
			continue
		}
		if _, ok := haproxyLiteralACLs(c, v, set); ok {
			continue
		}
		if len(v.re) > maxHAProxyArg || answerLen(v) > maxHAProxyArg {
			return false
		}
	}
	return true
}

// groupNumbers numbers the named groups of an expression the chain wrote
// (its only capturing groups; "(?<=" and "(?<!" are lookbehinds), in order of their first appearance: a
// branch reset group repeats them in each alternative with the same
// numbers. ok is false past nine.
func groupNumbers(re string) (map[string]int, bool) {
	nums := map[string]int{}
	for i := 0; ; {
		j := strings.Index(re[i:], "(?<")
		if j < 0 {
			return nums, true
		}
		i += j + 3
		if re[i] == '=' || re[i] == '!' {
			continue // a lookbehind
		}
		k := strings.IndexByte(re[i:], '>')
		if _, ok := nums[re[i:i+k]]; !ok {
			nums[re[i:i+k]] = len(nums) + 1
		}
		if len(nums) > 9 {
			return nil, false
		}
	}
}

// haproxySpecShaped reports whether the chain writes c's rule in
// docs/contract.md's line shape: an "acl redirect_<n> path -i" (path_beg
// for starts_with) of its source as browsers send it and the redirect
// lines of haproxyExt. That is every literal rule (no host, no
// conditions: redirects.Rule.Extended) whose source as browsers send it
// holds no byte that would end or quote the bare word and whose
// destination none that would end the location (validation keeps them
// out: a rule stored before it, say). It needs no regular expression, so
// no size bound either.
//
// Order: the lines stand where the rule stands in the lookup API's order
// (docs/contract.md#precedence), so the first line that matches answers,
// as in the chain, except that the extended exact rules come before the
// literal ones. Exact rules of different keys never compete, and for one
// key an extended exact rule (a host, query conditions) always comes first
// in the API's order; so moving them ahead changes no answer, and a
// literal exact rule's -i cannot take a request from an exact rule of a
// host whose source differs from its own only in case. What the shape
// answers otherwise (-i in a case-sensitive project, a path not escaped as
// browsers do) is declared.
func haproxySpecShaped(r *redirects.Rule) bool {
	if r.Extended() || r.MatchType != redirects.Exact && r.MatchType != redirects.StartsWith {
		return false
	}
	return !strings.ContainsAny(redirects.RequestPath(r.Source), "'#") &&
		!strings.ContainsFunc(r.Destination, func(c rune) bool { return c <= ' ' || c == 0x7f || c == '\'' || c == '"' || c == '\\' })
}

// haproxySpecMax bounds the literal rules the chain writes in
// docs/contract.md's shape. HAProxy looks an ACL name up by walking the
// frontend's list of ACLs, when it is declared and when a condition names
// it, so loading n named ACLs costs about n squared: haproxy -c took 0.5 s
// of CPU for 10,000 alone, 2.5 s for 20,000 and 12.6 s for 40,000, 3 s for
// a project of 10,000 literal rules and 1,111 patterns, and was stopped
// unfinished after two minutes of CPU for the 90,000 literal rules of a
// 100,000-rule project (BENCHMARKS.md). A
// project with more literal rules keeps them all as chain cases, which are
// anonymous ACLs, and the opening comment says so.
var haproxySpecMax = 10_000

// haproxySpec reports whether the chain writes the literal rules that
// haproxySpecShaped in docs/contract.md's shape: at most haproxySpecMax of
// them.
func (s *sorted) haproxySpec() bool {
	n := 0
	for _, r := range s.all {
		if haproxySpecShaped(r.rule) {
			n++
		}
	}
	return n <= haproxySpecMax
}

func (s *sorted) haproxyChain() []byte {
	specOn := s.haproxySpec()
	shaped := func(r *redirects.Rule) bool { return specOn && haproxySpecShaped(r) }
	var h strings.Builder
	n, spec, other := 0, 0, 0
	var ex []string
	for _, c := range s.chain {
		switch {
		case shaped(c.r):
			n++
			spec++
			continue
		case !haproxyChainAnswers(c, s.set):
			continue
		}
		n++
		if !c.r.Extended() {
			if other++; other <= maxExamples {
				ex = append(ex, shortSource(c.r.Source))
			}
		}
	}
	h.WriteString("# haproxy: " + countNoun(n, "redirect rule") + " for a frontend (docs/exports.md).\n")
	h.WriteString("# The project has rules with patterns, hosts or query conditions. Its literal rules (no host, no\n")
	h.WriteString("# query conditions) keep one ACL and redirect each, as in a project without them; each other rule\n")
	h.WriteString("# is an http-request redirect conditioned on a regular expression over the host and the path and\n")
	h.WriteString("# query as sent. All are in the lookup API's order (exact rules with a host or query conditions\n")
	h.WriteString("# before the literal exact rules, which changes no answer): HAProxy answers with the first that\n")
	h.WriteString("# matches.\n")
	if spec > 0 {
		h.WriteString("# Each ACL of a literal rule matches the request path\n" + haproxyACLNote)
	}
	switch {
	case !specOn:
		h.WriteString("# The " + countNoun(other, "literal rule") + " " + isAre(other) + " written as chain cases too, which answer as the lookup API,\n")
		h.WriteString("# not as acl redirect_<n> lines: HAProxy looks each ACL name up among all the others, so more than\n")
		h.WriteString("# " + strconv.Itoa(haproxySpecMax) + " named ACLs would make loading the file take minutes (docs/exports.md).\n")
	case other > 0:
		h.WriteString("# " + countNoun(other, "literal rule") + " whose source or destination an ACL word cannot hold as it is " + isAre(other) +
			" written as chain cases instead, which answer as the lookup API (e.g. " + strings.Join(ex, ", ") + ").\n")
	}
	s.writeDeclarations(&h, "haproxy")
	b := make([]byte, 0, h.Len()+512+textSize(s.all, 600)+textSize(s.extd, 1200))
	b = append(b, h.String()...)
	b = append(b, haproxyChainHead...)
	k := 0
	write := func(c chainRule) {
		if shaped(c.r) {
			k++
			if c.v.Kind == pattern.Exact {
				b = appendHAProxyExactACL(b, k, c.r.Source, s.set)
			} else {
				b = appendHAProxyPrefixACL(b, k, c.r.Source, s.set)
			}
			b = appendHAProxyAnswer(b, k, c.r)
			return
		}
		if !haproxyChainAnswers(c, s.set) {
			return
		}
		for _, v := range chainVariants(c, s.set) {
			if acls, ok := haproxyLiteralACLs(c, v, s.set); ok {
				b = appendHAProxyLiteralVariant(b, v, acls)
				continue
			}
			b = appendHAProxyChainVariant(b, v)
		}
	}
	b = append(b, "# Exact match redirects\n"...)
	for _, c := range s.chain {
		if c.v.Kind == pattern.Exact && c.r.Extended() {
			write(c)
		}
	}
	for _, c := range s.chain {
		if c.v.Kind == pattern.Exact && !c.r.Extended() {
			write(c)
		}
	}
	b = append(b, "# Prefix redirects\n"...)
	for _, c := range s.chain {
		if c.v.Kind != pattern.Exact {
			write(c)
		}
	}
	return b
}

func appendHAProxyChainVariant(b []byte, v chainVariant) []byte {
	if v.code == redirects.StatusGone {
		b = append(b, "http-request return status 410"...)
	} else {
		nums, _ := groupNumbers(v.re)
		b = append(b, "http-request redirect code "...)
		b = strconv.AppendInt(b, int64(v.code), 10)
		b = append(b, " location '%[var(txn.redirects_req),regsub(\""...)
		b = appendDoubledBackslashes(b, v.re)
		b = append(b, "\",\""...)
		for _, p := range v.answer {
			if p.group != "" {
				b = append(b, '\\', '\\')
				b = strconv.AppendInt(b, int64(nums[p.group]), 10)
			} else {
				b = append(b, p.text...)
			}
		}
		b = append(b, "\")"...)
		if v.computed {
			b = append(b, ",regsub(\"^//+\",\"/\")"...)
		}
		b = append(b, "]'"...)
	}
	b = append(b, " if { var(txn.redirects_req) -m reg '"...)
	b = append(b, v.re...)
	return append(b, "' }\n"...)
}

// Scale: a regular expression costs HAProxy's configuration check and
// memory about 14 kB and 2 ms each with PCRE2's JIT (BENCHMARKS.md), two
// per case (the ACL and regsub), so a project of 100,000 rules did not
// load. A literal rule's case (exact or starts_with, on every host or one,
// without query conditions, without the rest of the path) needs neither:
// its ACLs compare the decoded path (txn.redirects_path: -m str for an
// exact key, -m beg for a prefix, -i when the project ignores case) and
// the host key (-m str, -m end for subdomains), and its location is its
// text, with %[query] for the query passed on. Only pattern and regex
// rules, conditions and appended rests keep their expressions.

// haproxyLiteralACLs returns the conditions of a literal rule's case as
// alternatives of ACLs (each alternative's ACLs all hold), or ok false
// when the case needs its expression: a pattern, a regex, query
// conditions, the rest of the path, or a key a configuration word cannot
// hold as it is.
func haproxyLiteralACLs(c chainRule, v chainVariant, set redirects.Settings) ([][]string, bool) {
	if c.v.Kind != pattern.Exact && c.v.Kind != pattern.StartsWith || len(c.v.Conds) > 0 || v.rest {
		return nil, false
	}
	for _, p := range v.answer {
		if p.group != "" && p.group != "redirects_q" {
			return nil, false
		}
	}
	i := ""
	if set.CaseInsensitive {
		i = "-i "
	}
	word := func(s string) (string, bool) {
		for k := 0; k < len(s); k++ {
			if c := s[k]; c <= ' ' || c == 0x7f || c == '\'' || c == '\\' {
				return "", false
			}
		}
		return "'" + s + "'", true
	}
	var common []string
	switch h := c.v.Host; {
	case h == "":
	case strings.HasPrefix(h, "*."):
		w, ok := word(h[1:])
		if !ok {
			return nil, false
		}
		// Any subdomain: the suffix, and at least one byte before it.
		common = append(common, "{ var(txn.redirects_host) -m end "+w+" }",
			"{ var(txn.redirects_host) -m len "+strconv.Itoa(len(h))+": }")
	default:
		w, ok := word(h)
		if !ok {
			return nil, false
		}
		common = append(common, "{ var(txn.redirects_host) -m str "+w+" }")
	}
	// exceptHosts: none of the hosts, nor a subdomain of a wildcard's
	// name (a missing host, which matches nothing, is answered).
	var exact []string
	for _, h := range c.r.ExceptHosts {
		if suffix, ok := strings.CutPrefix(h, "*"); ok {
			w, ok := word(suffix)
			if !ok {
				return nil, false
			}
			common = append(common, "!{ var(txn.redirects_host) -m end "+w+" }")
			continue
		}
		w, ok := word(h)
		if !ok {
			return nil, false
		}
		exact = append(exact, w)
	}
	if len(exact) > 0 {
		common = append(common, "!{ var(txn.redirects_host) -m str "+strings.Join(exact, " ")+" }")
	}
	if v.query {
		common = append(common, "{ query -m len 1: }")
	}
	p := c.v.Path
	var paths []string
	switch {
	case c.v.Kind == pattern.Exact && set.IgnoreTrailingSlash:
		if len(p) > 1 && p[len(p)-1] == '/' {
			p = p[:len(p)-1]
		}
		a, ok1 := word(p)
		b, ok2 := word(p + "/")
		if !ok1 || !ok2 {
			return nil, false
		}
		paths = []string{"{ var(txn.redirects_path) -m str " + i + a + " " + b + " }"}
	case c.v.Kind == pattern.Exact:
		a, ok := word(p)
		if !ok {
			return nil, false
		}
		paths = []string{"{ var(txn.redirects_path) -m str " + i + a + " }"}
	case set.IgnoreTrailingSlash && len(p) > 1 && p[len(p)-1] == '/':
		a, ok1 := word(p)
		b, ok2 := word(p[:len(p)-1])
		if !ok1 || !ok2 {
			return nil, false
		}
		paths = []string{"{ var(txn.redirects_path) -m beg " + i + a + " }", "{ var(txn.redirects_path) -m str " + i + b + " }"}
	default:
		a, ok := word(p)
		if !ok {
			return nil, false
		}
		paths = []string{"{ var(txn.redirects_path) -m beg " + i + a + " }"}
	}
	var out [][]string
	for _, pa := range paths {
		out = append(out, append(append([]string(nil), common...), pa))
	}
	// HAProxy reads at most 64 words a line and refuses the file past
	// them ("too many words"): a case whose ACLs would take more (a rule
	// with many exceptHosts) is the chain's expression instead.
	words := len(strings.Fields("http-request redirect code 301 location 'x' if"))
	for k, alt := range out {
		if k > 0 {
			words++ // ||
		}
		for _, a := range alt {
			words += len(strings.Fields(a))
		}
	}
	if words > maxHAProxyWords {
		return nil, false
	}
	return out, true
}

// maxHAProxyWords bounds the words of a line of the haproxy file, under
// HAProxy's 64 (MAX_LINE_ARGS).
const maxHAProxyWords = 60

// appendHAProxyLiteralVariant appends a literal rule's case: its answer's
// text as a log-format location ('%' doubled, the query as %[query]),
// under its ACLs.
func appendHAProxyLiteralVariant(b []byte, v chainVariant, acls [][]string) []byte {
	if v.code == redirects.StatusGone {
		b = append(b, "http-request return status 410"...)
	} else {
		b = append(b, "http-request redirect code "...)
		b = strconv.AppendInt(b, int64(v.code), 10)
		b = append(b, " location '"...)
		for _, p := range v.answer {
			if p.group == "redirects_q" {
				b = append(b, "%[query]"...)
				continue
			}
			b = append(b, strings.ReplaceAll(p.text, "%", "%%")...)
		}
		b = append(b, '\'')
	}
	b = append(b, " if"...)
	for k, alt := range acls {
		if k > 0 {
			b = append(b, " ||"...)
		}
		for _, a := range alt {
			b = append(b, ' ')
			b = append(b, a...)
		}
	}
	return append(b, '\n')
}

func appendDoubledBackslashes(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' {
			b = append(b, '\\')
		}
		b = append(b, s[i])
	}
	return b
}
