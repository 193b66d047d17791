package main_test

import (
	"fmt"
	"regexp"
	"strings"
)

// yamlNode is a value of the YAML the docs' CI examples are written in: a
// mapping (keys in order), a sequence or a scalar. Flow collections
// ([a, b], {if: '...'}) stay scalars, as written.
type yamlNode struct {
	keys   []string
	fields map[string]*yamlNode
	items  []*yamlNode
	scalar string
	isMap  bool
	isList bool
}

func (n *yamlNode) get(key string) *yamlNode {
	if n == nil || !n.isMap {
		return nil
	}
	return n.fields[key]
}

// str returns a scalar's text, "" for anything else.
func (n *yamlNode) str() string {
	if n == nil || n.isMap || n.isList {
		return ""
	}
	return n.scalar
}

// strs returns a scalar as one string, a sequence of scalars as its items.
func (n *yamlNode) strs() []string {
	switch {
	case n == nil:
		return nil
	case n.isList:
		var out []string
		for _, it := range n.items {
			out = append(out, it.str())
		}
		return out
	}
	return []string{n.scalar}
}

type yamlLine struct {
	indent int
	text   string // without the indent
	n      int    // 1-based line number in the block
}

// parseYAML reads the block-style subset of YAML that CI files use: nested
// mappings and sequences by indentation, "|" literal blocks, plain and
// quoted scalars, comments. It fails on what it does not know rather than
// guess, so that an example it cannot read fails the test.
func parseYAML(src string) (*yamlNode, error) {
	var lines []yamlLine
	for i, l := range strings.Split(src, "\n") {
		t := strings.TrimLeft(l, " ")
		if strings.Contains(l[:len(l)-len(t)], "\t") {
			return nil, fmt.Errorf("line %d: a tab in the indent", i+1)
		}
		lines = append(lines, yamlLine{indent: len(l) - len(t), text: strings.TrimRight(t, " "), n: i + 1})
	}
	p := &yamlParser{lines: lines}
	p.skip()
	if p.i >= len(p.lines) {
		return nil, fmt.Errorf("no YAML")
	}
	n, err := p.block(p.lines[p.i].indent)
	if err != nil {
		return nil, err
	}
	if p.skip(); p.i < len(p.lines) {
		return nil, fmt.Errorf("line %d: not read: %q", p.lines[p.i].n, p.lines[p.i].text)
	}
	return n, nil
}

type yamlParser struct {
	lines []yamlLine
	i     int
}

// skip moves past blank and comment lines.
func (p *yamlParser) skip() {
	for p.i < len(p.lines) && (p.lines[p.i].text == "" || strings.HasPrefix(p.lines[p.i].text, "#")) {
		p.i++
	}
}

var yamlKey = regexp.MustCompile(`^([A-Za-z_.$][\w.$-]*):(?: (.*))?$`)

// block reads the mapping or sequence whose lines start at indent.
func (p *yamlParser) block(indent int) (*yamlNode, error) {
	p.skip()
	l := p.lines[p.i]
	if strings.HasPrefix(l.text, "- ") || l.text == "-" {
		return p.sequence(indent)
	}
	return p.mapping(indent)
}

func (p *yamlParser) mapping(indent int) (*yamlNode, error) {
	n := &yamlNode{isMap: true, fields: map[string]*yamlNode{}}
	for p.skip(); p.i < len(p.lines) && p.lines[p.i].indent == indent && !strings.HasPrefix(p.lines[p.i].text, "- "); p.skip() {
		l := p.lines[p.i]
		m := yamlKey.FindStringSubmatch(l.text)
		if m == nil {
			return nil, fmt.Errorf("line %d: want KEY: VALUE, got %q", l.n, l.text)
		}
		if _, dup := n.fields[m[1]]; dup {
			return nil, fmt.Errorf("line %d: %s appears twice", l.n, m[1])
		}
		p.i++
		v, err := p.value(indent, m[2], l.n)
		if err != nil {
			return nil, err
		}
		n.keys = append(n.keys, m[1])
		n.fields[m[1]] = v
	}
	if p.i < len(p.lines) && p.lines[p.i].indent > indent {
		return nil, fmt.Errorf("line %d: indented deeper than its mapping", p.lines[p.i].n)
	}
	return n, nil
}

// value reads what follows "KEY:" on a line of the given indent.
func (p *yamlParser) value(indent int, rest string, line int) (*yamlNode, error) {
	rest = stripComment(rest)
	switch {
	case rest == "|" || rest == "|-":
		var b strings.Builder
		inner := -1
		for ; p.i < len(p.lines); p.i++ {
			l := p.lines[p.i]
			if l.text != "" && l.indent <= indent {
				break
			}
			if inner < 0 && l.text != "" {
				inner = l.indent
			}
			if l.text != "" {
				b.WriteString(strings.Repeat(" ", l.indent-inner))
			}
			b.WriteString(l.text + "\n")
		}
		return &yamlNode{scalar: b.String()}, nil
	case rest != "":
		s, err := unquoteYAML(rest)
		if err != nil {
			return nil, fmt.Errorf("line %d: %v", line, err)
		}
		return &yamlNode{scalar: s}, nil
	}
	p.skip()
	if p.i >= len(p.lines) {
		return &yamlNode{}, nil
	}
	next := p.lines[p.i]
	// A sequence may sit at its key's indent.
	if next.indent > indent || (next.indent == indent && strings.HasPrefix(next.text, "- ")) {
		return p.block(next.indent)
	}
	return &yamlNode{}, nil
}

func (p *yamlParser) sequence(indent int) (*yamlNode, error) {
	n := &yamlNode{isList: true}
	for p.skip(); p.i < len(p.lines) && p.lines[p.i].indent == indent && strings.HasPrefix(p.lines[p.i].text, "- "); p.skip() {
		l := p.lines[p.i]
		item := strings.TrimPrefix(l.text, "- ")
		if yamlKey.MatchString(item) {
			// A mapping that starts on the dash's line: read it as if the
			// dash were spaces.
			p.lines[p.i] = yamlLine{indent: indent + 2, text: item, n: l.n}
			m, err := p.mapping(indent + 2)
			if err != nil {
				return nil, err
			}
			n.items = append(n.items, m)
			continue
		}
		p.i++
		s, err := unquoteYAML(stripComment(item))
		if err != nil {
			return nil, fmt.Errorf("line %d: %v", l.n, err)
		}
		n.items = append(n.items, &yamlNode{scalar: s})
	}
	return n, nil
}

// stripComment drops a " #" comment outside quotes.
func stripComment(s string) string {
	var quote byte
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case quote != 0 && c == quote:
			quote = 0
		case quote == 0 && (c == '"' || c == '\'') && (i == 0 || s[i-1] == ' '):
			quote = c
		case quote == 0 && c == '#' && (i == 0 || s[i-1] == ' '):
			return strings.TrimRight(s[:i], " ")
		}
	}
	return s
}

// unquoteYAML returns a scalar's value: a quoted one unquoted (no escapes
// but ” in single quotes), a plain one as it is.
func unquoteYAML(s string) (string, error) {
	if len(s) >= 2 && s[0] == '\'' && s[len(s)-1] == '\'' {
		return strings.ReplaceAll(s[1:len(s)-1], "''", "'"), nil
	}
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		if strings.Contains(s, `\`) {
			return "", fmt.Errorf("a double-quoted scalar with an escape: %s", s)
		}
		return s[1 : len(s)-1], nil
	}
	return s, nil
}
