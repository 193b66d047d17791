package importer

import (
	"fmt"
	"regexp/syntax"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode"
)

// Apache's [S=n] skips and RewriteCond $N tests leave paths out of a rule
// whose groups stand in the middle of its pattern (kafka's
// ^/?(\d+)/([a-z]+)(\.html)? after four skips and $2 !=protocol), where
// excludeFromRest, which takes literal text and a captured rest, does not
// reach. When every group is a run of one class that the next item cannot
// continue (so each path splits into the groups in one way only, the way
// the rule's own greedy groups split it), the paths left out are a regular
// language over that split: excludeAtGroup walks the automaton of the
// excluded paths along the rule's items and writes the last group as one
// named group per set of states it can end in, each followed by the rests
// not excluded from there.

// groupItem is one item of a rule's expression read by excludeAtGroup: a
// literal, or a class repeated once or more, captured (group > 0) or not.
type groupItem struct {
	re    *syntax.Regexp // as written, for the rendered expression
	lit   []rune
	class []rune // pairs of inclusive bounds, for a class item
	group int
}

// excludeAtGroup returns the expression of a regex rule src (RE2 source,
// matched against the whole path) that matches the paths src matches but
// those matched by an expression of excluded (RE2, the whole path) and
// those whose group n equals a text of ne[n]; and dst (the rule's
// destination, our syntax) with $n of the split group rewritten to the
// named groups that stand for it. It returns why not when src is not
// literal text and runs of a class, with a tail that takes any rest (.*)
// or none, or the paths left out depend on more than its last group.
func excludeAtGroup(src, dst string, excluded []string, ne map[int][]string) (string, string, string) {
	re, err := syntax.Parse(src, syntax.Perl)
	if err != nil {
		return "", "", fmt.Sprintf("the rule's expression is not RE2 (%v)", syntaxCode(err))
	}
	subs := []*syntax.Regexp{re}
	if re.Op == syntax.OpConcat {
		subs = re.Sub
	}
	var items []groupItem
	k := 0
	for ; k < len(subs); k++ {
		it, ok := readGroupItem(subs[k])
		if !ok {
			break
		}
		items = append(items, it)
	}
	// The tail: nothing, or items that may match nothing and never a
	// newline, then .* (any rest without a newline) or (?s:.*).
	tail := subs[k:]
	anyRest, newline := false, false
	if len(tail) > 0 {
		last := tail[len(tail)-1]
		if last.Op != syntax.OpStar || last.Flags&syntax.NonGreedy != 0 || (last.Sub[0].Op != syntax.OpAnyCharNotNL && last.Sub[0].Op != syntax.OpAnyChar) {
			return "", "", "the rule's expression does not end with its groups or with .*"
		}
		anyRest, newline = true, last.Sub[0].Op == syntax.OpAnyChar
		for _, t := range tail[:len(tail)-1] {
			if (t.Op != syntax.OpQuest && t.Op != syntax.OpStar) || matchesNewline(t) {
				return "", "", "the rule's expression has items between its groups and its .* that are not optional"
			}
		}
	}
	split := -1
	for i, it := range items {
		if it.class != nil {
			split = i
		}
	}
	if split < 0 || items[split].group == 0 {
		return "", "", "the rule's expression has no group of one class repeated"
	}
	if split != len(items)-1 {
		return "", "", "the rule's last group of a class is not the end of its expression or followed by .*"
	}
	// Each run must end where the next item starts: its first character
	// is outside the run's class.
	for i, it := range items[:len(items)-1] {
		if it.class == nil {
			continue
		}
		next := items[i+1]
		first := next.class
		if next.lit != nil {
			first = []rune{next.lit[0], next.lit[0]}
		}
		if classesMeet(it.class, first) {
			return "", "", fmt.Sprintf("the group or run at item %d may end at more than one place", i+1)
		}
	}
	C := items[split].class
	n := items[split].group
	// The rest after the last run: nothing, or a character outside its
	// class and any rest.
	restRE := ""
	if anyRest {
		restRE = "(?:" + classRE(complementClass(C)) + "(?s:.*))?"
	}
	ex := slices.Clip(excluded)
	if anyRest && !newline {
		ex = append(ex, `(?s:.*\n.*)`)
	}
	// A test of a group's text leaves out the paths whose split gives the
	// group that text.
	for g, texts := range ne {
		at := -1
		for i, it := range items {
			if it.group == g && it.class != nil {
				at = i
			}
		}
		if at < 0 {
			return "", "", fmt.Sprintf("the condition tests $%d, which is not a group of one class repeated", g)
		}
		for _, text := range texts {
			if text == "" || !allInClass(text, items[at].class) {
				continue // the group never holds it: the test always holds
			}
			var b strings.Builder
			for i, it := range items {
				if i == at {
					b.WriteString(literalRE(text))
				} else {
					b.WriteString(itemPlain(it))
				}
			}
			b.WriteString(restRE)
			ex = append(ex, b.String())
		}
	}
	var extra [][2]rune
	for _, it := range items {
		for _, r := range it.lit {
			extra = append(extra, [2]rune{r, r})
		}
		for j := 0; j+1 < len(it.class); j += 2 {
			extra = append(extra, [2]rune{it.class[j], it.class[j+1]})
		}
	}
	d, set, why := newRestDFA(ex, extra)
	if why != "" {
		return "", "", why
	}
	s, why := d.build(set)
	if why != "" {
		return "", "", why
	}
	d.markNonEmpty()
	var b strings.Builder
	for i, it := range items[:split] {
		if it.lit != nil {
			for _, r := range it.lit {
				s = d.states[s].next[d.interval(r)]
			}
		} else {
			ends := d.runEnds(s, it.class)
			if len(ends) != 1 {
				return "", "", fmt.Sprintf("the excluded paths depend on the text of item %d, not only on the last group", i+1)
			}
			s = ends[0]
		}
		// As the other items are written: RE2's own rendering would keep
		// the bytes a regex rule refuses (';', '\'', a blank) raw.
		if it.group > 0 {
			b.WriteString("(" + itemPlain(it) + ")")
		} else {
			b.WriteString(itemPlain(it))
		}
	}
	// The last run: its ends grouped by the rests not excluded after
	// them, each group of ends one named group.
	ends := d.runEnds(s, C)
	byRest := map[string][]int{}
	var order []string
	d.memo, d.onPath = map[int]string{}, map[int]bool{}
	for _, t := range ends {
		var parts []string
		if !d.states[t].acc {
			parts = append(parts, "")
		}
		if anyRest {
			// One class per state stepped to, as gen writes them.
			classes := map[int][][2]rune{}
			var to []int
			for i, u := range d.states[t].next {
				if !d.nonEmpty[u] || d.inClass(i, C) {
					continue
				}
				if _, ok := classes[u]; !ok {
					to = append(to, u)
				}
				classes[u] = append(classes[u], [2]rune{d.bounds[i], d.bounds[i+1]})
			}
			for _, u := range to {
				rest, why := d.gen(u)
				if why != "" {
					return "", "", why
				}
				parts = append(parts, renderClass(classes[u])+rest)
			}
		}
		if len(parts) == 0 {
			continue
		}
		key := strings.Join(parts, "|")
		if len(parts) > 1 {
			key = "(?:" + key + ")"
		}
		if _, ok := byRest[key]; !ok {
			order = append(order, key)
		}
		byRest[key] = append(byRest[key], t)
	}
	if len(order) == 0 {
		return "", "", "the excluded paths are every path the rule matches"
	}
	names := make([]string, len(order))
	var alts []string
	for i, key := range order {
		w, why := d.runTo(s, C, byRest[key])
		if why != "" {
			return "", "", why
		}
		names[i] = fmt.Sprintf("g%d_%d", n, i+1)
		alts = append(alts, "(?P<"+names[i]+">"+w+")"+key)
	}
	if len(alts) == 1 {
		b.WriteString(alts[0])
	} else {
		b.WriteString("(?:" + strings.Join(alts, "|") + ")")
	}
	out := b.String()
	if len(out) > maxRegexLen {
		return "", "", fmt.Sprintf("the expression of the paths not excluded is longer than the %d bytes of a regex rule's", maxRegexLen)
	}
	// $n now reads the named groups (one takes part); a group after it
	// was in the tail, which the expression no longer captures.
	var db strings.Builder
	for i := 0; i < len(dst); i++ {
		c := dst[i]
		if c != '$' || i+1 >= len(dst) {
			db.WriteByte(c)
			continue
		}
		switch nx := dst[i+1]; {
		case nx == '$':
			db.WriteString("$$")
			i++
		case '1' <= nx && nx <= '9':
			g := int(nx - '0')
			switch {
			case g == n:
				for _, name := range names {
					db.WriteString("${" + name + "}")
				}
			case g > n:
				return "", "", fmt.Sprintf("the destination inserts $%d, a group of the rule's tail", g)
			default:
				db.WriteString("$" + strconv.Itoa(g))
			}
			i++
		default:
			db.WriteByte(c)
		}
	}
	return out, db.String(), ""
}

// readGroupItem reads one item of a rule's expression: a literal (case
// sensitive), or a class repeated once or more, possibly captured.
func readGroupItem(r *syntax.Regexp) (groupItem, bool) {
	it := groupItem{re: r}
	if r.Op == syntax.OpCapture {
		it.group = r.Cap
		r = r.Sub[0]
	}
	switch {
	case r.Op == syntax.OpLiteral && r.Flags&syntax.FoldCase == 0 && len(r.Rune) > 0:
		it.lit = r.Rune
	case r.Op == syntax.OpPlus && r.Flags&syntax.NonGreedy == 0 && r.Sub[0].Op == syntax.OpCharClass && len(r.Sub[0].Rune) > 0:
		it.class = r.Sub[0].Rune
	case r.Op == syntax.OpPlus && r.Flags&syntax.NonGreedy == 0 && r.Sub[0].Op == syntax.OpLiteral && len(r.Sub[0].Rune) == 1 && r.Sub[0].Flags&syntax.FoldCase == 0:
		it.class = []rune{r.Sub[0].Rune[0], r.Sub[0].Rune[0]}
	default:
		return it, false
	}
	return it, true
}

// itemPlain writes an item without its capture.
func itemPlain(it groupItem) string {
	if it.lit != nil {
		return literalRE(string(it.lit))
	}
	return classRE(it.class) + "+"
}

// classRE writes a class (pairs of inclusive bounds) as an RE2 atom.
func classRE(class []rune) string {
	var iv [][2]rune
	for j := 0; j+1 < len(class); j += 2 {
		iv = append(iv, [2]rune{class[j], class[j+1] + 1})
	}
	return renderClass(iv)
}

// complementClass returns the characters outside class.
func complementClass(class []rune) []rune {
	var out []rune
	at := rune(0)
	for j := 0; j+1 < len(class); j += 2 {
		if class[j] > at {
			out = append(out, at, class[j]-1)
		}
		at = class[j+1] + 1
	}
	if at <= unicode.MaxRune {
		out = append(out, at, unicode.MaxRune)
	}
	return out
}

// classesMeet reports whether two classes share a character.
func classesMeet(a, b []rune) bool {
	for i := 0; i+1 < len(a); i += 2 {
		for j := 0; j+1 < len(b); j += 2 {
			if a[i] <= b[j+1] && b[j] <= a[i+1] {
				return true
			}
		}
	}
	return false
}

func allInClass(s string, class []rune) bool {
	for _, r := range s {
		if !classesMeet(class, []rune{r, r}) {
			return false
		}
	}
	return true
}

// matchesNewline reports whether r may match a newline.
func matchesNewline(r *syntax.Regexp) bool {
	switch r.Op {
	case syntax.OpAnyChar:
		return true
	case syntax.OpCharClass:
		return classesMeet(r.Rune, []rune{'\n', '\n'})
	case syntax.OpLiteral:
		return slices.Contains(r.Rune, '\n')
	}
	for _, s := range r.Sub {
		if matchesNewline(s) {
			return true
		}
	}
	return false
}

// interval returns the index of the interval of bounds that holds r.
func (d *restDFA) interval(r rune) int {
	return sort.Search(len(d.bounds), func(i int) bool { return d.bounds[i] > r }) - 1
}

// inClass reports whether interval i lies in class (the class's bounds
// are among the automaton's, so an interval is wholly in or out).
func (d *restDFA) inClass(i int, class []rune) bool {
	return classesMeet(class, []rune{d.bounds[i], d.bounds[i+1] - 1})
}

// runEnds returns the states a run of one or more characters of class
// leads s to.
func (d *restDFA) runEnds(s int, class []rune) []int {
	seen := map[int]bool{}
	var out []int
	queue := []int{s}
	for len(queue) > 0 {
		u := queue[0]
		queue = queue[1:]
		for i, t := range d.states[u].next {
			if !d.inClass(i, class) || seen[t] {
				continue
			}
			seen[t] = true
			out = append(out, t)
			queue = append(queue, t)
		}
	}
	slices.Sort(out)
	return out
}

// runTo writes the runs of one or more characters of class that lead s
// to a state of ends, or why not (a loop through more than one state).
func (d *restDFA) runTo(s int, class []rune, ends []int) (string, string) {
	target := map[int]bool{}
	for _, t := range ends {
		target[t] = true
	}
	// reach: the states from which a run reaches ends.
	reach := map[int]bool{}
	for t := range target {
		reach[t] = true
	}
	for changed := true; changed; {
		changed = false
		for u := range d.states {
			if reach[u] {
				continue
			}
			for i, t := range d.states[u].next {
				if d.inClass(i, class) && reach[t] {
					reach[u], changed = true, true
					break
				}
			}
		}
	}
	memo := map[int]string{}
	onPath := map[int]bool{}
	// from writes the runs (possibly empty) from u to ends.
	var from func(u int, first bool) (string, string)
	from = func(u int, first bool) (string, string) {
		if out, ok := memo[u]; ok && !first {
			return out, ""
		}
		if !first {
			if onPath[u] {
				return "", "the excluded paths make an automaton with a loop through more than one character"
			}
			onPath[u] = true
			defer delete(onPath, u)
		}
		var parts []string
		if target[u] && !first {
			parts = append(parts, "")
		}
		classes := map[int][][2]rune{}
		var order []int
		for i, t := range d.states[u].next {
			if !d.inClass(i, class) || !reach[t] {
				continue
			}
			if _, ok := classes[t]; !ok {
				order = append(order, t)
			}
			classes[t] = append(classes[t], [2]rune{d.bounds[i], d.bounds[i+1]})
		}
		loop := ""
		for _, t := range order {
			if t == u && !first {
				loop = renderClass(classes[t]) + "*"
				continue
			}
			rest, why := from(t, false)
			if why != "" {
				return "", why
			}
			parts = append(parts, renderClass(classes[t])+rest)
		}
		out, why := stateExpr(loop, parts)
		if why != "" {
			return "", why
		}
		if !first {
			memo[u] = out
		}
		return out, ""
	}
	return from(s, true)
}
