package rulemodel

import (
	"regexp"
	"regexp/syntax"
	"strconv"
	"strings"
)

// modelCond is a query condition: op is "=", ":", "present" or "empty".
type modelCond struct {
	key, value, op string
}

// splitConditions splits a source into its path part (or expression) and
// its conditions, as docs/contract.md#query-conditions says for each kind.
func splitConditions(r PatternRule) (string, []modelCond) {
	src := r.Source
	cut := -1
	switch r.Kind {
	case "regex":
		class := false
		for i := 0; i < len(src) && cut < 0; i++ {
			switch {
			case src[i] == '\\':
				i++
			case class:
				class = src[i] != ']'
			case src[i] == '[':
				class = true
				if i+1 < len(src) && src[i+1] == ']' {
					i++
				}
			case src[i] == '$' && i+1 < len(src) && src[i+1] == '?':
				cut = i
			}
		}
		if cut < 0 {
			return src, nil
		}
		return src[:cut], parseModelConds(src[cut+2:])
	case "pattern":
		for _, el := range parsePatternModel(src) {
			if el.kind == "conds" {
				return src[:el.at], parseModelConds(src[el.at+1:])
			}
		}
		return src, nil
	}
	if i := strings.Index(src, "?"); i >= 0 {
		return src[:i], parseModelConds(src[i+1:])
	}
	return src, nil
}

func parseModelConds(q string) []modelCond {
	var out []modelCond
	for _, part := range strings.Split(q, "&") {
		k, v, hasV := strings.Cut(part, "=")
		c := modelCond{key: queryDecode(k)}
		switch {
		case !hasV:
			c.op = "present"
		case v == "":
			c.op = "empty"
		case v[0] == ':':
			c.op, c.value = ":", v[1:]
		default:
			c.op, c.value = "=", queryDecode(v)
		}
		out = append(out, c)
	}
	return out
}

// queryDecode decodes once, '+' a space, a '%' that starts no escape kept.
func queryDecode(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '+':
			b.WriteByte(' ')
		case s[i] == '%' && i+2 < len(s) && hex(s[i+1]) && hex(s[i+2]):
			v, _ := strconv.ParseUint(s[i+1:i+3], 16, 8)
			b.WriteByte(byte(v))
			i += 2
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

// conditionsHold checks every condition against the request's query and
// returns the query captures.
func conditionsHold(conds []modelCond, query string) (map[string]capText, bool) {
	type param struct{ key, value, raw string }
	var params []param
	for _, p := range strings.Split(query, "&") {
		if p == "" {
			continue
		}
		k, v, _ := strings.Cut(p, "=")
		params = append(params, param{queryDecode(k), queryDecode(v), v})
	}
	caps := map[string]capText{}
	for _, c := range conds {
		ok := false
		for _, p := range params {
			if p.key != c.key {
				continue
			}
			switch c.op {
			case "present":
				ok = true
			case "empty":
				ok = ok || p.value == ""
			case "=":
				ok = ok || p.value == c.value
			case ":":
				if !ok {
					caps[c.value] = capText{query: p.raw, isQuery: true}
				}
				ok = true
			}
		}
		if !ok {
			return nil, false
		}
	}
	return caps, true
}

// patternEl is one element of a pattern: kind "lit", "seg", "opt", "star",
// "plus", or "conds" (where the conditions' '?' is).
type patternEl struct {
	kind       string
	lit        string
	name       string
	constraint string
	at         int
}

// parsePatternModel reads a valid pattern source element by element.
func parsePatternModel(src string) []patternEl {
	var els []patternEl
	addLit := func(b byte) {
		if n := len(els); n > 0 && els[n-1].kind == "lit" {
			els[n-1].lit += string([]byte{b})
			return
		}
		els = append(els, patternEl{kind: "lit", lit: string([]byte{b})})
	}
	for i := 0; i < len(src); {
		switch c := src[i]; {
		case c == '?':
			return append(els, patternEl{kind: "conds", at: i})
		case c == '%':
			v, _ := strconv.ParseUint(src[i+1:i+3], 16, 8)
			addLit(byte(v))
			i += 3
		case c == '*' || c == ':':
			el := patternEl{kind: "star", name: "splat"}
			if c == ':' {
				j := i + 1
				for j < len(src) && (isLetter(src[j]) || src[j] >= '0' && src[j] <= '9' || src[j] == '_') {
					j++
				}
				el = patternEl{kind: "seg", name: src[i+1 : j]}
				i = j
				if i < len(src) && src[i] == '(' {
					depth, k := 0, i
					for ; k < len(src); k++ {
						if src[k] == '\\' {
							k++
						} else if src[k] == '[' {
							for k++; k < len(src) && src[k] != ']'; k++ {
								if src[k] == '\\' {
									k++
								}
							}
						} else if src[k] == '(' {
							depth++
						} else if src[k] == ')' {
							if depth--; depth == 0 {
								break
							}
						}
					}
					el.constraint = src[i+1 : k]
					i = k + 1
				}
				if i < len(src) {
					switch src[i] {
					case '*':
						el.kind = "star"
						i++
					case '+':
						el.kind = "plus"
						i++
					case '?':
						if i+1 == len(src) || src[i+1] == '/' || src[i+1] == '?' {
							el.kind = "opt"
							i++
						}
					}
				}
			} else {
				i++
			}
			if el.kind != "seg" {
				// The '/' before it is the placeholder's.
				last := &els[len(els)-1]
				last.lit = last.lit[:len(last.lit)-1]
				if last.lit == "" {
					els = els[:len(els)-1]
				}
			}
			els = append(els, el)
		default:
			addLit(c)
			i++
		}
	}
	return els
}

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

// matchPattern finds every way the pattern matches the whole path and keeps
// the preferred one: placeholders from left to right, each the shortest
// text that lets the rest match, an optional segment taken when possible.
func matchPattern(els []patternEl, path string, s Settings) (modelMatch, bool) {
	fold := func(x string) string {
		if s.CaseInsensitive {
			return asciiLower(x)
		}
		return x
	}
	constraintOK := func(el patternEl, text string) bool {
		if el.constraint == "" || text == "" {
			return true
		}
		return regexp.MustCompile(`^(?:` + foldRegex(el.constraint, s.CaseInsensitive) + `)$`).MatchString(text)
	}
	type way struct {
		caps map[string]capText
		rank []int // per placeholder, smaller preferred
	}
	var ways []way
	var rec func(i, pos int, caps map[string]capText, rank []int)
	rec = func(i, pos int, caps map[string]capText, rank []int) {
		if i == len(els) || els[i].kind == "conds" {
			if pos == len(path) {
				c := map[string]capText{}
				for k, v := range caps {
					c[k] = v
				}
				ways = append(ways, way{c, append([]int(nil), rank...)})
			}
			return
		}
		el := els[i]
		try := func(start, end, next, r int) {
			if !constraintOK(el, path[start:end]) {
				return
			}
			caps[el.name] = capText{start: start, end: end}
			rec(i+1, next, caps, append(rank, r))
			delete(caps, el.name)
		}
		switch el.kind {
		case "lit":
			if pos+len(el.lit) <= len(path) && fold(path[pos:pos+len(el.lit)]) == fold(el.lit) {
				rec(i+1, pos+len(el.lit), caps, rank)
			}
		case "seg":
			for end := pos + 1; end <= len(path) && !strings.Contains(path[pos:end], "/"); end++ {
				try(pos, end, end, end-pos)
			}
		case "opt":
			if pos < len(path) && path[pos] == '/' {
				for end := pos + 2; end <= len(path) && !strings.Contains(path[pos+1:end], "/"); end++ {
					try(pos+1, end, end, 0)
				}
			}
			caps[el.name] = capText{start: pos, end: pos}
			rec(i+1, pos, caps, append(rank, 1))
			delete(caps, el.name)
		case "star", "plus":
			if el.kind == "star" {
				caps[el.name] = capText{start: pos, end: pos}
				rec(i+1, pos, caps, append(rank, 0))
				delete(caps, el.name)
			}
			if pos >= len(path) || path[pos] != '/' {
				return
			}
			last := i == len(els)-1 || els[i+1].kind == "conds"
			for end := pos + 1; end <= len(path); end++ {
				text := path[pos+1 : end]
				switch {
				case last && end != len(path):
					continue
				case text == "" && (el.kind == "plus" || !last):
					continue
				case !last && end != len(path) && path[end] != '/':
					continue
				}
				try(pos+1, end, end, 1+len(text))
			}
		}
	}
	rec(0, 0, map[string]capText{}, nil)
	if len(ways) == 0 {
		return modelMatch{}, false
	}
	best := ways[0]
	for _, w := range ways[1:] {
		for k := range w.rank {
			if w.rank[k] != best.rank[k] {
				if w.rank[k] < best.rank[k] {
					best = w
				}
				break
			}
		}
	}
	return modelMatch{caps: best.caps}, true
}

// LiteralPrefix is a rule's literal prefix (docs/contract.md#precedence).
func LiteralPrefix(r PatternRule) string {
	src, _ := splitConditions(r)
	switch r.Kind {
	case "pattern":
		if els := parsePatternModel(src); len(els) > 0 && els[0].kind == "lit" {
			return els[0].lit
		}
		return ""
	case "regex":
		re, err := syntax.Parse(src, syntax.Perl)
		if err != nil {
			panic(err)
		}
		var out strings.Builder
		var lead func(r *syntax.Regexp) bool // false at the first construct that is not a literal
		lead = func(r *syntax.Regexp) bool {
			switch r.Op {
			case syntax.OpLiteral:
				if r.Flags&syntax.FoldCase != 0 {
					return false
				}
				out.WriteString(string(r.Rune))
				return true
			case syntax.OpBeginText, syntax.OpBeginLine, syntax.OpEmptyMatch:
				return true
			case syntax.OpCapture:
				return lead(r.Sub[0])
			case syntax.OpConcat:
				for _, sub := range r.Sub {
					if !lead(sub) {
						return false
					}
				}
				return true
			}
			return false
		}
		lead(re.Simplify())
		return out.String()
	}
	return src
}

// expand inserts the captures into the rule's destination.
func expand(r PatternRule, m modelMatch, wireOf func(capText) string) string {
	esc := func(s string) string {
		var b strings.Builder
		for i := 0; i < len(s); i++ {
			if c := s[i]; c <= ' ' || c == 0x7f || strings.IndexByte("\"'<>\\`", c) >= 0 {
				b.WriteString("%" + strings.ToUpper(strconv.FormatUint(uint64(c)>>4, 16)+strconv.FormatUint(uint64(c)&15, 16)))
				continue
			}
			b.WriteByte(s[i])
		}
		return b.String()
	}
	d := r.Destination
	var out string
	switch {
	case r.Kind == "regex":
		out = regexp.MustCompile(`\$\$|\$[1-9]|\$\{[^}]*\}`).ReplaceAllStringFunc(d, func(ref string) string {
			switch {
			case ref == "$$":
				return "$"
			case ref[1] == '{':
				ref = ref[2 : len(ref)-1]
			}
			c, ok := m.caps[ref]
			if !ok {
				return ""
			}
			return esc(wireOf(c))
		})
	case r.Kind == "pattern" || len(m.caps) > 0 || hasQueryCapture(r):
		out = regexp.MustCompile(`:[A-Za-z][A-Za-z0-9_]*`).ReplaceAllStringFunc(d, func(ref string) string {
			c, ok := m.caps[ref[1:]]
			if !ok {
				return ""
			}
			return esc(wireOf(c))
		})
	default:
		return d
	}
	if strings.HasPrefix(out, "//") {
		out = "/" + strings.TrimLeft(out, "/")
	}
	return out
}

func hasQueryCapture(r PatternRule) bool {
	_, conds := splitConditions(r)
	for _, c := range conds {
		if c.op == ":" {
			return true
		}
	}
	return false
}
