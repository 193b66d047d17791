package export

import (
	"strconv"
	"strings"
	"sync"

	"redirects"
	"redirects/engine/pattern"
)

// The nginx format of a project with extended rules (redirects.Rule.Extended:
// patterns, hosts, query conditions) is a chain of server-level "if"
// directives, one regular expression per rule over
//
//	$redirects_request = "$host $request_uri"
//
// in the lookup API's order (pattern.Set.Views). nginx runs a server's
// rewrite directives in file order before it picks a location; the first
// expression that matches sets $redirects_answer and clears
// $redirects_request, so no later one matches, and the lines at the end
// return the answer. A location cannot fall through to the next when a
// host or a query condition does not hold; a chain of ifs can.
//
// Each expression matches the request path as the client sent it
// ($request_uri, not decoded), written so that it matches every spelling
// of the decoded path the lookup API compares: each byte of a source as
// itself or as %XX (either case of hex digit), '/' also as %2F, a
// placeholder as escapes and bytes that decode to no '/'. So the API's
// decoding is the file's too, no "//" is merged (as in the API, unlike
// $uri), and every capture is a slice of the request as sent, which is
// what the API inserts; a decoded capture ($uri's) could carry a CR LF
// into the Location header. Captures are named groups, which nginx makes
// variables; a rule's destination refers to them as ${redirects_cN}.
//
// Everything written inside the quotes is either a byte class of ASCII
// letters, digits and \xHH escapes, or text validation keeps free of
// whitespace, quotes, '\', '$', '{', '}' and ';' (destinations and the
// host key), so nothing can end the string or start a variable but what
// the renderer writes.

// chainRule is one rule of the chain: the engine's view of it and the rule.
type chainRule struct {
	v pattern.View
	r *redirects.Rule
	// memo keeps what the writers and declarations ask of the rule's
	// cases under the chain's settings (chainMemo). The cases themselves
	// are not kept: a chain is every rule of the project.
	memo *chainMemo
}

// chainMemo holds what is asked of a rule's cases, each part computed
// once from one computation of the cases: for nginx whether it reads
// their strings and how many there are (nginxCases), for HAProxy whether
// regsub numbers their groups and holds their strings (haproxyCases).
type chainMemo struct {
	set         redirects.Settings
	nginxOnce   sync.Once
	nginx       nginxCheck
	haproxyOnce sync.Once
	haproxy     haproxyCheck
}

// nginxCheck is what nginx's files ask of a rule's cases.
type nginxCheck struct {
	fit   bool // nginxStringsFit
	cases int
}

// haproxyCheck is what the haproxy file asks of a rule's cases.
type haproxyCheck struct {
	groups, fit bool // haproxyGroupsFit, haproxyStringsFit
}

// nginxCases returns the nginx check of c's rule, once per rule of a
// chain under its settings; vs, when not nil, are the rule's cases, which
// a writer has at hand.
func nginxCases(c chainRule, set redirects.Settings, vs []chainVariant) nginxCheck {
	compute := func() nginxCheck {
		if vs == nil {
			vs = chainVariants(c, set)
		}
		return nginxCheck{fit: nginxVariantsFit(vs), cases: len(vs)}
	}
	if c.memo == nil || c.memo.set != set {
		return compute()
	}
	c.memo.nginxOnce.Do(func() { c.memo.nginx = compute() })
	return c.memo.nginx
}

// haproxyCases returns the haproxy check of c's rule, once per rule of a
// chain under its settings.
func haproxyCases(c chainRule, set redirects.Settings) haproxyCheck {
	compute := func() haproxyCheck {
		vs := chainVariants(c, set)
		return haproxyCheck{groups: haproxyVariantsGroupsFit(vs), fit: haproxyVariantsFit(c, vs, set)}
	}
	if c.memo == nil || c.memo.set != set {
		return compute()
	}
	c.memo.haproxyOnce.Do(func() { c.memo.haproxy = compute() })
	return c.memo.haproxy
}

// makeChain compiles rules with the pattern engine and returns them in the
// API's order, or nil when the engine refuses them (rules stored before
// validation knew patterns): the files then leave every extended rule out,
// as declared.
func makeChain(rules []redirects.Rule, set redirects.Settings) []chainRule {
	prs := make([]pattern.Rule, len(rules))
	for i := range rules {
		prs[i] = rules[i].PatternRule()
	}
	ps, err := pattern.Compile(prs, set.PatternSettings())
	if err != nil {
		return nil
	}
	views := ps.Views()
	out := make([]chainRule, len(views))
	memos := make([]chainMemo, len(views))
	for i, v := range views {
		memos[i].set = set
		out[i] = chainRule{v: v, r: &rules[v.Index], memo: &memos[i]}
	}
	return out
}

// nginxChainAnswers reports whether nginx's chain answers c's rule as the
// lookup API does, up to the residue declare.go names: every rule the
// chain answers (chainAnswers) whose strings nginx can read
// (nginxStringsFit).
func nginxChainAnswers(c chainRule, set redirects.Settings) bool {
	return chainAnswers(c, set) && nginxStringsFit(c, set)
}

// nginxStringsFit reports whether every expression and answer the nginx
// chain writes for c's rule is a string nginx reads (maxNginxToken): the
// chain writes each byte of a path as the byte or its escape ("(?:a|%61)"),
// so a source of a few hundred bytes can pass the bound.
func nginxStringsFit(c chainRule, set redirects.Settings) bool {
	return nginxCases(c, set, nil).fit
}

func nginxVariantsFit(vs []chainVariant) bool {
	for _, v := range vs {
		if len(v.re) > maxNginxToken || answerLen(v) > maxNginxToken {
			return false
		}
	}
	return true
}

// answerLen is the length of appendChainAnswer's text for v.
func answerLen(v chainVariant) int {
	n := 5 // "c301 "
	for _, p := range v.answer {
		if p.group != "" {
			n += len(p.group) + 3
		} else {
			n += len(p.text) + 2*strings.Count(p.text, "$")
		}
	}
	return n
}

// chainAnswers reports whether the chain (nginx's and HAProxy's) answers
// c's rule as the lookup API does: every rule but regex rules under
// trailingSlash ignore, pattern rules with a constraint it cannot bound,
// and rules whose RE2 expressions PCRE2 could refuse as too large
// (chainregex.go).
func chainAnswers(c chainRule, set redirects.Settings) bool {
	if ruleTooLarge(c.v, c.r.Source) {
		return false
	}
	switch c.v.Kind {
	case pattern.Regex:
		return regexChainable(set.IgnoreTrailingSlash)
	case pattern.Pattern:
		return constraintsBounded(c.v.Pieces)
	}
	return true
}

func (s *sorted) nginxChain() []byte {
	// The rules first, each rule's cases computed once: whether nginx
	// reads their strings is known from them (nginxCases), and the count
	// and the declarations of the opening comment read it.
	// The body is written after room for the comment, which then goes
	// right before it: no copy of the body (tens of megabytes at 100,000
	// rules) unless the comment is longer than the room.
	const room = 64 << 10
	body := make([]byte, room, room+512+textSize(s.all, 300)+textSize(s.extd, 600))
	body = append(body, "set $redirects_request \"$host $request_uri\";\nset $redirects_answer \"\";\n"...)
	n := 0
	for _, c := range s.chain {
		if !chainAnswers(c, s.set) {
			continue
		}
		vs := chainVariants(c, s.set)
		if !nginxCases(c, s.set, vs).fit {
			continue
		}
		n++
		body = appendChainCases(body, vs)
	}
	// Named captures, not $1: nginx escapes a numbered capture in "set"
	// when the request's path held an escape or a '+'.
	body = append(body, NginxAnswerSnippet...)
	body = append(body, '\n')
	var h strings.Builder
	h.WriteString("# nginx: " + countNoun(n, "redirect rule") + " for a server block (docs/exports.md).\n")
	h.WriteString("# The project has rules with patterns, hosts or query conditions, so each rule is a server-level\n")
	h.WriteString("# if over the request's host, path as sent and query, in the lookup API's order: the first that\n")
	h.WriteString("# matches sets the answer, the lines at the end return it. They run before the server's locations.\n")
	s.writeDeclarations(&h, "nginx")
	if h.Len() <= room {
		copy(body[room-h.Len():room], h.String())
		return body[room-h.Len():]
	}
	b := make([]byte, 0, h.Len()+len(body)-room)
	b = append(b, h.String()...)
	return append(b, body[room:]...)
}

// Byte classes of the request path as sent ($request_uri): segUnit is one
// byte or escape that decodes to anything but '/', anyUnit to anything; a
// raw '\' is in neither (the API never inserts one as it is), nor '?' (the
// query starts there), '%' (escapes start there), space or a control byte
// (nginx refuses them on the request line).
const (
	segUnit = `(?:%(?!2[Ff])[0-9A-Fa-f]{2}|[^/?%#\x5c\x00-\x20\x7f])`
	anyUnit = `(?:%[0-9A-Fa-f]{2}|[^?%#\x5c\x00-\x20\x7f])`
	slash   = `(?:/|%2[Ff])`
)

// chainVariant is one case of a rule's answer: the regular expression
// over "$host $request_uri" that selects it, the status, and the answer's
// text, literal pieces and the names of the groups it inserts.
type chainVariant struct {
	re       string
	code     int
	computed bool // the destination inserts a capture: a leading run of '/' is made one
	answer   []chainPart
	// rest and query say which case of the options it is: the rest of
	// the path appended (redirects_rest), the query passed on
	// (redirects_q, a query that is not empty).
	rest, query bool
}

// chainPart is literal text of an answer, or the name of a group.
type chainPart struct{ text, group string }

// chainVariants returns the cases of one rule's answer, the first that
// applies answering, as appendNginxAnswer's: a rest and a query, a rest,
// a query, neither.
func chainVariants(c chainRule, set redirects.Settings) []chainVariant {
	r := c.r
	pp := r.PreservePath && r.MatchType == redirects.StartsWith && r.StatusCode != redirects.StatusGone
	pq := r.PreserveQuery && r.StatusCode != redirects.StatusGone
	names := map[string]string{}
	for _, p := range c.v.Pieces {
		if p.Name != "" {
			names[p.Name] = "redirects_c" + strconv.Itoa(len(names)+1)
		}
	}
	if c.v.Kind == pattern.Regex {
		if re, ok := parseRE2(pattern.RegexExpression(r.Source)); ok {
			regexNames(re, c.v.Dest, names)
		}
	}
	for _, q := range c.v.Conds {
		if q.Op == pattern.CondCapture {
			names[q.Name] = "redirects_c" + strconv.Itoa(len(names)+1)
		}
	}
	var dest []chainPart
	computed := false
	for _, d := range c.v.Dest {
		if d.Capture != "" {
			dest = append(dest, chainPart{group: names[d.Capture]})
			computed = true
		} else {
			dest = append(dest, chainPart{text: d.Text})
		}
	}
	path, query, fragment := splitChainDest(dest)
	lit := func(s string) chainPart { return chainPart{text: s} }
	grp := func(g string) chainPart { return chainPart{group: g} }
	joinPath := func() []chainPart {
		out := append([]chainPart(nil), path...)
		if t := partsText(path); !strings.HasPrefix(t, "/") && !hasURLPath(t) {
			out = append(out, lit("/"))
		}
		return out
	}
	queryAnd := func() []chainPart {
		if len(query) == 0 {
			return nil
		}
		return append(append([]chainPart(nil), query...), lit("&"))
	}
	type variant struct {
		rest, query bool
		answer      []chainPart
	}
	var vs []variant
	// queryAfterFragment: the destination's own query and its fragment,
	// then the request's query after join (afterFragmentJoin: the
	// destination as written decides).
	qaf := pq && r.QueryAfterFragment
	join := afterFragmentJoin(r)
	if pp && pq {
		if qaf {
			a := append(joinPath(), grp("redirects_rest"))
			if len(query) > 0 {
				a = append(append(a, lit("?")), query...)
			}
			a = append(append(a, fragment...), lit(join), grp("redirects_q"))
			vs = append(vs, variant{true, true, a})
		} else {
			a := append(joinPath(), grp("redirects_rest"), lit("?"))
			a = append(append(a, queryAnd()...), grp("redirects_q"))
			vs = append(vs, variant{true, true, append(a, fragment...)})
		}
	}
	if pp {
		a := append(joinPath(), grp("redirects_rest"))
		if len(query) > 0 {
			a = append(append(a, lit("?")), query...)
		}
		vs = append(vs, variant{true, false, append(a, fragment...)})
	}
	if pq && qaf {
		a := append(append([]chainPart(nil), dest...), lit(join), grp("redirects_q"))
		vs = append(vs, variant{false, true, a})
	} else if pq {
		a := append(append([]chainPart(nil), path...), lit("?"))
		a = append(append(a, queryAnd()...), grp("redirects_q"))
		vs = append(vs, variant{false, true, append(a, fragment...)})
	}
	vs = append(vs, variant{false, false, dest})
	out := make([]chainVariant, 0, len(vs))
	for _, v := range vs {
		b := []byte{'^'}
		b = appendHostPattern(b, c.v.Host, c.r.ExceptHosts)
		b = append(b, ' ')
		b = appendPathPattern(b, c, set, names, v.rest)
		b = appendQueryPattern(b, c.v.Conds, names, v.query)
		b = append(b, '$')
		out = append(out, chainVariant{re: string(b), code: r.StatusCode, computed: computed, answer: v.answer, rest: v.rest, query: v.query})
	}
	return out
}

// splitChainDest splits a destination's parts into its path, query and
// fragment at its first literal '?' and '#', as
// redirects.SplitDestination splits a destination.
func splitChainDest(parts []chainPart) (path, query, fragment []chainPart) {
	cur := &path
	inQuery := false
	for _, p := range parts {
		for p.group == "" && p.text != "" {
			i := strings.IndexAny(p.text, "?#")
			if inQuery {
				i = strings.IndexByte(p.text, '#')
			}
			if i < 0 || cur == &fragment {
				break
			}
			if i > 0 {
				*cur = append(*cur, chainPart{text: p.text[:i]})
			}
			if p.text[i] == '?' {
				cur, inQuery = &query, true
			} else {
				cur = &fragment
				*cur = append(*cur, chainPart{text: "#"})
			}
			p.text = p.text[i+1:]
		}
		if p.group != "" || p.text != "" {
			*cur = append(*cur, p)
		}
	}
	return path, query, fragment
}

// partsText is the literal text of parts, groups left out.
func partsText(parts []chainPart) string {
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.text)
	}
	return b.String()
}

// appendChainCases appends the nginx format's lines of a rule's cases.
func appendChainCases(b []byte, vs []chainVariant) []byte {
	for _, v := range vs {
		b = append(b, "if ($redirects_request ~ \""...)
		b = append(b, v.re...)
		b = append(b, "\") { set $redirects_answer \""...)
		b = appendChainAnswer(b, v)
		b = append(b, "\"; set $redirects_request \"\"; }\n"...)
	}
	return b
}

// appendHostPattern matches $host (lower-cased, without port or trailing
// dot) against a rule's host key: any host, one host, or any subdomain;
// any host but those of except (a rule's exceptHosts), which a negative
// lookahead leaves out: the host, then the space before the path.
func appendHostPattern(b []byte, host string, except []string) []byte {
	switch {
	case host == "" && len(except) > 0:
		b = append(b, "(?!(?:"...)
		for i, e := range except {
			if i > 0 {
				b = append(b, '|')
			}
			b = appendHostPattern(b, e, nil)
		}
		return append(b, ") )[^ ]*"...)
	case host == "":
		return append(b, "[^ ]*"...)
	case strings.HasPrefix(host, "*."):
		b = append(b, "[^ ]+"...)
		host = host[1:]
	}
	for i := 0; i < len(host); i++ {
		b = appendByteClass(b, host[i])
	}
	return b
}

// appendPathPattern matches the request path as sent against the rule's
// path part: an exact key, a prefix with the rest (captured as
// redirects_rest when rest), or a pattern's pieces.
func appendPathPattern(b []byte, c chainRule, set redirects.Settings, names map[string]string, rest bool) []byte {
	fold := set.CaseInsensitive
	v := c.v
	switch v.Kind {
	case pattern.Regex:
		return appendRegexPath(b, pattern.RegexExpression(c.r.Source), fold, names)
	case pattern.Exact:
		p := v.Path
		if set.IgnoreTrailingSlash {
			if len(p) > 1 && p[len(p)-1] == '/' {
				p = p[:len(p)-1]
			}
			b = appendLiteralPath(b, p, fold)
			return append(b, slash+"?"...)
		}
		return appendLiteralPath(b, v.Path, fold)
	case pattern.StartsWith:
		p := v.Path
		if set.IgnoreTrailingSlash && len(p) > 1 && p[len(p)-1] == '/' {
			b = appendLiteralPath(b, p[:len(p)-1], fold)
			if rest {
				return append(b, slash+"(?<redirects_rest>[^?]+)"...)
			}
			return append(b, "(?:"+slash+"[^?]*)?"...)
		}
		b = appendLiteralPath(b, p, fold)
		if rest {
			return append(b, "(?<redirects_rest>[^?]+)"...)
		}
		return append(b, "[^?]*"...)
	}
	if hasConstraints(v.Pieces) {
		b = append(b, plainPathAhead...)
	}
	if !set.IgnoreTrailingSlash {
		return appendPieces(b, v.Pieces, fold, names)
	}
	// trailingSlash ignore: the path, or else its slash twin (the path
	// without its trailing '/', or with one added), as alternatives of a
	// branch reset group, so the captures keep their names and numbers in
	// each; PCRE tries them in order. A '/' is added only where the
	// pattern ends with a literal '/': nothing else can match more for it.
	const notRoot = "(?!/(?:[?]|$))" // the root has no twin
	b = append(b, "(?|"...)
	b = appendPieces(b, v.Pieces, fold, names)
	b = append(b, "|"+notRoot...)
	b = appendPieces(b, v.Pieces, fold, names)
	b = append(b, slash...)
	if n := len(v.Pieces); n > 0 && v.Pieces[n-1].Kind == pattern.PieceLiteral && strings.HasSuffix(v.Pieces[n-1].Text, "/") {
		pieces := append([]pattern.Piece(nil), v.Pieces...)
		pieces[n-1].Text = strings.TrimSuffix(pieces[n-1].Text, "/")
		b = append(b, "|"+notRoot...)
		b = appendPieces(b, pieces, fold, names)
	}
	return append(b, ')')
}

// appendPieces matches a pattern's pieces against the path as sent.
func appendPieces(b []byte, pieces []pattern.Piece, fold bool, names map[string]string) []byte {
	for i, p := range pieces {
		last := i == len(pieces)-1
		group := "(?<" + names[p.Name] + ">"
		switch p.Kind {
		case pattern.PieceLiteral:
			b = appendLiteralPath(b, p.Text, fold)
		case pattern.PieceSegment:
			if p.Constraint != "" {
				b = appendConstraintAhead(b, p.Constraint, fold)
			}
			b = append(b, group+segUnit+"+?)"...)
		case pattern.PieceOptional:
			b = append(b, "(?:"+slash...)
			if p.Constraint != "" {
				b = appendConstraintAhead(b, p.Constraint, fold)
			}
			b = append(b, group+segUnit+"+))?"...)
		case pattern.PieceStar:
			if last {
				b = append(b, "(?:"+slash+group+anyUnit+"*))??"...)
			} else {
				b = append(b, "(?:"+slash+group+anyUnit+"+?))??"...)
			}
		case pattern.PiecePlus:
			b = append(b, slash+group+anyUnit+"+?)"...)
		}
	}
	return b
}

// appendQueryPattern matches the query: each condition a lookahead from
// its start (any parameter, in any order; a capture takes the first
// occurrence), and the query itself captured as redirects_q when query.
func appendQueryPattern(b []byte, conds []pattern.Cond, names map[string]string, query bool) []byte {
	if len(conds) == 0 {
		if query {
			return append(b, "[?](?<redirects_q>.+)"...)
		}
		return append(b, "(?:[?].*)?"...)
	}
	b = append(b, "[?]"...)
	for _, c := range conds {
		b = append(b, "(?=(?:[^&]*&)*?"...)
		b = appendQueryText(b, c.Key, true)
		switch c.Op {
		case pattern.CondEqual:
			b = append(b, '=')
			b = appendQueryText(b, c.Value, false)
		case pattern.CondCapture:
			b = append(b, "(?:=(?<"+names[c.Name]+">[^&]*))?"...)
		case pattern.CondPresent:
			b = append(b, "(?:=[^&]*)?"...)
		case pattern.CondEmpty:
			b = append(b, "=?"...)
		}
		b = append(b, "(?:&|$))"...)
	}
	if query {
		return append(b, "(?<redirects_q>.+)"...)
	}
	return append(b, ".*"...)
}

// appendLiteralPath matches each byte of decoded text as the request may
// send it: as itself (where a request line may hold it) or as %XX, '/'
// also as %2F, and an ASCII letter in either case when fold.
func appendLiteralPath(b []byte, text string, fold bool) []byte {
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case c == '/':
			b = append(b, slash...)
		case fold && isASCIILetter(c):
			lo, up := c|0x20, c&^0x20
			b = append(b, "(?:"...)
			b = appendByteClass(b, lo)
			b = append(b, '|')
			b = appendByteClass(b, up)
			b = append(b, '|')
			b = appendEscapePattern(b, lo)
			b = append(b, '|')
			b = appendEscapePattern(b, up)
			b = append(b, ')')
		case c > ' ' && c != 0x7f && c != '%' && c != '?' && c != '#' && c != '\\':
			b = append(b, "(?:"...)
			b = appendByteClass(b, c)
			b = append(b, '|')
			b = appendEscapePattern(b, c)
			b = append(b, ')')
		default:
			b = appendEscapePattern(b, c)
		}
	}
	return b
}

// appendQueryText matches decoded text of a query key or value as the
// request may send it: a space as '+' or %20, '+', '&', '#' (and '=' in a
// key) only escaped, a '%' as %25 or a '%' that starts no escape, any other
// byte as itself or %XX.
func appendQueryText(b []byte, text string, key bool) []byte {
	for i := 0; i < len(text); i++ {
		c := text[i]
		switch {
		case c == ' ':
			b = append(b, `(?:\x2b|%20)`...)
		case c == '%':
			b = append(b, `(?:%25|%(?![0-9A-Fa-f]{2}))`...)
		case c == '+' || c == '&' || c == '#' || c == '=' && key || c < ' ' || c == 0x7f:
			b = appendEscapePattern(b, c)
		default:
			b = append(b, "(?:"...)
			b = appendByteClass(b, c)
			b = append(b, '|')
			b = appendEscapePattern(b, c)
			b = append(b, ')')
		}
	}
	return b
}

// appendByteClass matches byte c: letters and digits as themselves, every
// other byte as \xHH, which needs no quoting in nginx or HAProxy.
func appendByteClass(b []byte, c byte) []byte {
	if isASCIILetter(c) || '0' <= c && c <= '9' {
		return append(b, c)
	}
	return append(b, '\\', 'x', hexUpper[c>>4], hexUpper[c&15])
}

// appendEscapePattern matches %XX for byte c, either case of hex letter.
func appendEscapePattern(b []byte, c byte) []byte {
	b = append(b, '%')
	for _, d := range []byte{hexUpper[c>>4], hexUpper[c&15]} {
		if 'A' <= d && d <= 'F' {
			b = append(b, '[', d, d|0x20, ']')
		} else {
			b = append(b, d)
		}
	}
	return b
}

const hexUpper = "0123456789ABCDEF"

func isASCIILetter(c byte) bool { return 'a' <= c|0x20 && c|0x20 <= 'z' }
