package importer

import (
	"fmt"
	"regexp/syntax"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// A rule that answers every path under a prefix but some (Apache's
// RewriteCond !~ on the request path, a Netlify line after a rewrite that
// takes some of its paths first) has no negation in our rules, and RE2
// has no lookahead. The paths it answers are a regular language all the
// same: restExcluding builds the automaton of the excluded paths, takes
// its complement after the prefix and writes it back as an expression,
// which a regex rule captures whole.

// maxExcludeStates and maxExcludeRanges cap the automaton restExcluding
// builds: its states, and the intervals of characters its transitions
// are computed for (a class such as \pL names hundreds).
const (
	maxExcludeStates = 256
	maxExcludeRanges = 256
)

// restExcluding returns an RE2 expression matching exactly the strings x
// for which prefix+x is matched, as a whole, by none of excluded (RE2
// expressions, Perl syntax, without anchors or case folding), or why it
// cannot: an expression it does not read, a loop of the automaton longer
// than one character, or a result longer than a regex rule takes.
func restExcluding(prefix string, excluded []string) (string, string) {
	d, set, why := newRestDFA(excluded, nil)
	if why != "" {
		return "", why
	}
	for _, r := range prefix {
		set = d.step(set, r)
	}
	start, why := d.build(set)
	if why != "" {
		return "", why
	}
	d.markNonEmpty()
	if !d.nonEmpty[start] {
		return "", "the excluded paths are every path the rule matches"
	}
	d.memo = map[int]string{}
	d.onPath = map[int]bool{}
	out, why := d.gen(start)
	if why != "" {
		return "", why
	}
	return out, ""
}

// newRestDFA compiles excluded (RE2 expressions, Perl syntax, without
// anchors or case folding) into the parts of their automaton: the
// intervals of characters (bounded by the expressions' own ranges and by
// extra, ranges [lo, hi] a caller steps along too) and the start set.
func newRestDFA(excluded []string, extra [][2]rune) (*restDFA, []uint32, string) {
	alts := make([]string, len(excluded))
	for i, e := range excluded {
		alts[i] = "(?:" + e + ")"
	}
	re, err := syntax.Parse(strings.Join(alts, "|"), syntax.Perl)
	if err != nil {
		return nil, nil, fmt.Sprintf("an excluded expression is not RE2 (%v)", syntaxCode(err))
	}
	prog, err := syntax.Compile(re.Simplify())
	if err != nil {
		return nil, nil, fmt.Sprintf("an excluded expression does not compile (%v)", syntaxCode(err))
	}
	bounds := []rune{0, unicode.MaxRune + 1}
	for _, r := range extra {
		bounds = append(bounds, r[0], r[1]+1)
	}
	for _, in := range prog.Inst {
		switch in.Op {
		case syntax.InstEmptyWidth:
			return nil, nil, "an excluded expression tests a position (an anchor or a word boundary)"
		case syntax.InstRune, syntax.InstRune1:
			if syntax.Flags(in.Arg)&syntax.FoldCase != 0 && len(in.Rune) == 1 {
				return nil, nil, "an excluded expression ignores case"
			}
			for k := 0; k < len(in.Rune); k += 2 {
				hi := in.Rune[k]
				if k+1 < len(in.Rune) {
					hi = in.Rune[k+1]
				}
				bounds = append(bounds, in.Rune[k], hi+1)
			}
		case syntax.InstRuneAnyNotNL:
			bounds = append(bounds, '\n', '\n'+1)
		}
	}
	slices.Sort(bounds)
	bounds = slices.Compact(bounds)
	if len(bounds) > maxExcludeRanges {
		return nil, nil, fmt.Sprintf("the excluded expressions name more than %d ranges of characters", maxExcludeRanges)
	}
	d := &restDFA{prog: prog, bounds: bounds, ids: map[string]int{}}
	return d, d.closure([]uint32{uint32(prog.Start)}), ""
}

// restDFA is the deterministic automaton of the excluded expressions: a
// state is a set of the program's instructions, its transitions one per
// interval of runes between bounds.
type restDFA struct {
	prog   *syntax.Prog
	bounds []rune
	ids    map[string]int
	states []restState
	// nonEmpty marks the states from which some string is not excluded.
	nonEmpty []bool
	memo     map[int]string
	onPath   map[int]bool
}

type restState struct {
	acc  bool  // an excluded expression matches here
	next []int // per interval
}

// closure follows the instructions that consume nothing.
func (d *restDFA) closure(pcs []uint32) []uint32 {
	seen := map[uint32]bool{}
	var out []uint32
	var walk func(pc uint32)
	walk = func(pc uint32) {
		if seen[pc] {
			return
		}
		seen[pc] = true
		in := &d.prog.Inst[pc]
		switch in.Op {
		case syntax.InstAlt, syntax.InstAltMatch:
			walk(in.Out)
			walk(in.Arg)
		case syntax.InstCapture, syntax.InstNop:
			walk(in.Out)
		case syntax.InstFail:
		default:
			out = append(out, pc)
		}
	}
	for _, pc := range pcs {
		walk(pc)
	}
	slices.Sort(out)
	return out
}

func (d *restDFA) step(set []uint32, r rune) []uint32 {
	var next []uint32
	for _, pc := range set {
		in := &d.prog.Inst[pc]
		var ok bool
		switch in.Op {
		case syntax.InstRuneAny:
			ok = true
		case syntax.InstRuneAnyNotNL:
			ok = r != '\n'
		case syntax.InstRune, syntax.InstRune1:
			ok = in.MatchRune(r)
		}
		if ok {
			next = append(next, in.Out)
		}
	}
	return d.closure(next)
}

func setKey(set []uint32) string {
	var b strings.Builder
	for _, pc := range set {
		b.WriteString(strconv.FormatUint(uint64(pc), 10))
		b.WriteByte(',')
	}
	return b.String()
}

// build adds the states reachable from set and returns set's.
func (d *restDFA) build(set []uint32) (int, string) {
	type item struct {
		id  int
		set []uint32
	}
	add := func(s []uint32) (int, bool) {
		k := setKey(s)
		if id, ok := d.ids[k]; ok {
			return id, false
		}
		id := len(d.states)
		d.ids[k] = id
		acc := false
		for _, pc := range s {
			acc = acc || d.prog.Inst[pc].Op == syntax.InstMatch
		}
		d.states = append(d.states, restState{acc: acc})
		return id, true
	}
	start, _ := add(set)
	queue := []item{{start, set}}
	for len(queue) > 0 {
		it := queue[0]
		queue = queue[1:]
		next := make([]int, len(d.bounds)-1)
		for i := range next {
			s := d.step(it.set, d.bounds[i])
			id, fresh := add(s)
			if fresh {
				if len(d.states) > maxExcludeStates {
					return 0, fmt.Sprintf("the excluded paths make an automaton of more than %d states", maxExcludeStates)
				}
				queue = append(queue, item{id, s})
			}
			next[i] = id
		}
		d.states[it.id].next = next
	}
	return start, ""
}

func (d *restDFA) markNonEmpty() {
	d.nonEmpty = make([]bool, len(d.states))
	for i, s := range d.states {
		d.nonEmpty[i] = !s.acc
	}
	for changed := true; changed; {
		changed = false
		for i, s := range d.states {
			if d.nonEmpty[i] {
				continue
			}
			for _, t := range s.next {
				if d.nonEmpty[t] {
					d.nonEmpty[i], changed = true, true
					break
				}
			}
		}
	}
}

// gen writes the strings not excluded from state s on: by Arden's rule,
// the loop on s repeated, then the end (when s is not excluded) or a step
// to another state and what follows it there.
func (d *restDFA) gen(s int) (string, string) {
	if out, ok := d.memo[s]; ok {
		return out, ""
	}
	if d.onPath[s] {
		return "", "the excluded paths make an automaton with a loop through more than one character"
	}
	d.onPath[s] = true
	defer delete(d.onPath, s)
	st := d.states[s]
	var parts []string
	if !st.acc {
		parts = append(parts, "")
	}
	var order []int
	classes := map[int][][2]rune{}
	for i, t := range st.next {
		if !d.nonEmpty[t] {
			continue
		}
		if _, ok := classes[t]; !ok {
			order = append(order, t)
		}
		classes[t] = append(classes[t], [2]rune{d.bounds[i], d.bounds[i+1]})
	}
	loop := ""
	for _, t := range order {
		if t == s {
			loop = renderClass(classes[t]) + "*"
			continue
		}
		rest, why := d.gen(t)
		if why != "" {
			return "", why
		}
		parts = append(parts, renderClass(classes[t])+rest)
	}
	out, why := stateExpr(loop, parts)
	if why != "" {
		return "", why
	}
	d.memo[s] = out
	return out, ""
}

// stateExpr is the expression of the paths from a state of an automaton:
// loop (its class that comes back to it, starred, or "") followed by the
// alternation of parts (each the class of a step to another state and that
// state's expression), or why it is longer than a regex rule may be.
func stateExpr(loop string, parts []string) (string, string) {
	out := loop
	switch {
	case len(parts) == 1:
		out += parts[0]
	case len(parts) > 1:
		out += "(?:" + strings.Join(parts, "|") + ")"
	}
	if len(out) > maxRegexLen {
		return "", fmt.Sprintf("the expression of the paths not excluded is longer than the %d bytes of a regex rule's", maxRegexLen)
	}
	return out, ""
}

// renderClass writes a set of rune intervals [lo, hi) as one atom.
func renderClass(iv [][2]rune) string {
	var merged [][2]rune
	for _, r := range iv {
		if n := len(merged); n > 0 && merged[n-1][1] == r[0] {
			merged[n-1][1] = r[1]
			continue
		}
		merged = append(merged, r)
	}
	count := func(rs [][2]rune) int {
		n := 0
		for _, r := range rs {
			n += int(r[1] - r[0])
		}
		return n
	}
	var comp [][2]rune
	at := rune(0)
	for _, r := range merged {
		if r[0] > at {
			comp = append(comp, [2]rune{at, r[0]})
		}
		at = r[1]
	}
	if at <= unicode.MaxRune {
		comp = append(comp, [2]rune{at, unicode.MaxRune + 1})
	}
	switch {
	case len(comp) == 0:
		return "(?s:.)"
	case len(comp) == 1 && comp[0] == [2]rune{'\n', '\n' + 1}:
		return "."
	case len(merged) == 1 && merged[0][1] == merged[0][0]+1:
		return classRune(merged[0][0])
	}
	var b strings.Builder
	b.WriteByte('[')
	ranges := merged
	if count(comp) < count(merged) {
		b.WriteByte('^')
		ranges = comp
	}
	for _, r := range ranges {
		b.WriteString(classRune(r[0]))
		if r[1]-1 > r[0] {
			if r[1]-1 > r[0]+1 {
				b.WriteByte('-')
			}
			b.WriteString(classRune(r[1] - 1))
		}
	}
	b.WriteByte(']')
	return b.String()
}

// classRune writes r as RE2 reads it literally, in and out of a class,
// without the bytes a regex rule's source refuses.
func classRune(r rune) string {
	switch {
	case r < 0x80 && (isAlnum(byte(r)) || r == '_' || r == '/' || strings.ContainsRune("!%&,:<=>@~", r)):
		return string(r)
	case r < 0x80 && strings.ContainsRune(`.+*?()|[]{}^$\-`, r):
		return `\` + string(r)
	}
	return fmt.Sprintf(`\x{%x}`, r)
}

// literalRE writes s as an RE2 expression matching it literally.
func literalRE(s string) string {
	var b strings.Builder
	for _, r := range s {
		b.WriteString(classRune(r))
	}
	return b.String()
}

// restCapture reads a regex rule's expression made of literal text and
// one group capturing the rest of the path, (.*) or (.+), at its end. It
// returns the text and whether the group takes one character or more.
func restCapture(src string) (prefix string, plus, ok bool) {
	re, err := syntax.Parse(src, syntax.Perl)
	if err != nil || re.Op != syntax.OpConcat || len(re.Sub) < 2 {
		return "", false, false
	}
	var b strings.Builder
	for _, s := range re.Sub[:len(re.Sub)-1] {
		if s.Op != syntax.OpLiteral || s.Flags&syntax.FoldCase != 0 {
			return "", false, false
		}
		b.WriteString(string(s.Rune))
	}
	last := re.Sub[len(re.Sub)-1]
	if last.Op != syntax.OpCapture || last.Name != "" {
		return "", false, false
	}
	g := last.Sub[0]
	if (g.Op != syntax.OpStar && g.Op != syntax.OpPlus) || g.Sub[0].Op != syntax.OpAnyCharNotNL || g.Flags&syntax.NonGreedy != 0 {
		return "", false, false
	}
	return b.String(), g.Op == syntax.OpPlus, true
}

// excludeFromRest returns the expression of a regex rule src, literal
// text and a group capturing the rest (restCapture), that matches none of
// the paths excluded (RE2 expressions matched against the whole path):
// the same text, the group holding only the rests not excluded; or why
// not.
func excludeFromRest(src string, excluded []string) (string, string) {
	prefix, plus, ok := restCapture(src)
	if !ok {
		return "", "the rule's expression is not literal text followed by (.*) or (.+)"
	}
	// The group's dot takes no newline: a path holding one is excluded
	// too, as is the bare prefix when the group takes one character or
	// more.
	ex := append(slices.Clip(excluded), `(?s:.*\n.*)`)
	if plus {
		ex = append(ex, literalRE(prefix))
	}
	rest, why := restExcluding(prefix, ex)
	if why != "" {
		return "", why
	}
	out := literalRE(prefix) + "(" + rest + ")"
	if len(out) > maxRegexLen {
		return "", fmt.Sprintf("the expression of the paths not excluded is longer than the %d bytes of a regex rule's", maxRegexLen)
	}
	return out, ""
}
