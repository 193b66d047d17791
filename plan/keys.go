package plan

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxDepth bounds how deep a project file's arrays and objects nest. The
// file's own structure needs 3 levels (the file, rules, a rule); the rest
// is room for a value of the wrong type to be reported as such.
const MaxDepth = 64

// maxKeyProblems bounds the key problems reported for one file.
const maxKeyProblems = 20

// shape is what a project file's object or array may hold: for an object,
// its keys, each with the shape of its value (nil for a value that holds
// no object to check); for an array, the shape of its elements.
type shape struct {
	keys map[string]*shape
	elem *shape
}

// fileShape is File's shape, from its JSON tags: the keys as documented,
// declared once.
var fileShape = shapeOf(reflect.TypeFor[File]())

// shapeOf returns the shape of a value of type t, or nil when it holds no
// object.
func shapeOf(t reflect.Type) *shape {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Struct:
		s := &shape{keys: map[string]*shape{}}
		for i := range t.NumField() {
			f := t.Field(i)
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if f.IsExported() && name != "-" && name != "" {
				s.keys[name] = shapeOf(f.Type)
			}
		}
		return s
	case reflect.Slice, reflect.Array:
		if e := shapeOf(t.Elem()); e != nil {
			return &shape{elem: e}
		}
	}
	return nil
}

// container is an object or array open while the keys are walked.
type container struct {
	shape  *shape
	object bool
	// expectKey says an object's next token is a key (or its end); key is
	// the key whose value comes next.
	expectKey bool
	key       string
	// seen holds each key of an object and its line; index is an array's
	// next element.
	seen  []seenKey
	index int
}

// seenKey is a key of an object and the line it is on. An object of a
// project file has a few keys: a list is cheaper than a map, and a file
// of a million rules makes a million objects.
type seenKey struct {
	key  string
	line int
}

// childShape returns the shape of the value that comes next in c.
func (c *container) childShape() *shape {
	switch {
	case c.shape == nil:
		return nil
	case c.object:
		return c.shape.keys[c.key]
	}
	return c.shape.elem
}

// valueDone moves c past a value it holds.
func (c *container) valueDone() {
	if c.object {
		c.expectKey = true
	} else {
		c.index++
	}
}

// where names the innermost container of stack for messages: "" for the
// file itself, "settings", "rules[3]". It is built only for a message.
func where(stack []container) string {
	var b strings.Builder
	for _, c := range stack[:len(stack)-1] {
		if c.object {
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(c.key)
		} else {
			b.WriteString("[" + strconv.Itoa(c.index) + "]")
		}
	}
	return b.String()
}

// checkKeys walks a project file's JSON token by token before it is
// decoded, since encoding/json lets the last of two equal keys win and
// matches keys without regard to case: it reports each key that appears
// twice in one object, and each key spelled otherwise than File's JSON tags
// spell it ("Deploy"), with their lines and columns. Broken JSON, a file
// that is not one object and nesting deeper than MaxDepth end the walk
// with one problem. It returns nil for a file whose keys are all as
// documented, each once, and the offset where the value of the file's
// "rules" starts (-1 for none).
func checkKeys(data []byte) (problems []string, rulesAt int) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber() // a number is only walked past: 1e999 is Decode's to refuse
	pos := newPositions(data)
	var stack []container
	values := 0
	rulesAt = -1
	for len(problems) < maxKeyProblems {
		before := dec.InputOffset()
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return append(problems, syntaxProblem(pos, err)), -1
		}
		var top *container
		if len(stack) > 0 {
			top = &stack[len(stack)-1]
		}
		if top != nil && top.object && top.expectKey {
			if tok == json.Delim('}') {
				stack = stack[:len(stack)-1]
				if len(stack) > 0 {
					stack[len(stack)-1].valueDone()
				}
				continue
			}
			key, _ := tok.(string)
			line, col := pos.at(keyStart(data, before))
			in := ""
			if w := where(stack); w != "" {
				in = " in " + w
			}
			first := -1
			for _, k := range top.seen {
				if k.key == key {
					first = k.line
					break
				}
			}
			if first >= 0 {
				problems = append(problems, fmt.Sprintf("line %d, column %d: %s appears twice%s (first on line %d)", line, col, quoteShort(key), in, first))
			} else {
				top.seen = append(top.seen, seenKey{key, line})
				if top.shape != nil {
					if _, known := top.shape.keys[key]; !known {
						problems = append(problems, fmt.Sprintf("line %d, column %d: unknown field %s%s", line, col, quoteShort(key), in))
					}
				}
			}
			top.key, top.expectKey = key, false
			continue
		}
		if top == nil {
			line, col := pos.at(keyStart(data, before))
			if values++; values > 1 {
				return append(problems, fmt.Sprintf("line %d, column %d: more than one JSON value", line, col)), -1
			}
			if tok != json.Delim('{') {
				return append(problems, fmt.Sprintf("line %d, column %d: the file is not a JSON object {...}", line, col)), -1
			}
		}
		if len(stack) == 1 && stack[0].key == "rules" {
			rulesAt = keyStart(data, before)
		}
		if len(stack) == 2 && stack[0].key == "rules" && !stack[1].object && stack[1].index == MaxRulesFileRows {
			line, col := pos.at(keyStart(data, before))
			return append(problems, fmt.Sprintf("line %d, column %d: rules: more than %d rules, the most one import takes; split them", line, col, MaxRulesFileRows)), -1
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			if len(stack) >= MaxDepth {
				line, col := pos.at(int(dec.InputOffset()) - 1)
				return append(problems, fmt.Sprintf("line %d, column %d: nested deeper than %d levels", line, col, MaxDepth)), -1
			}
			s := fileShape
			if top != nil {
				s = top.childShape()
			}
			if s != nil && (tok == json.Delim('{')) != (s.keys != nil) {
				s = nil // of the wrong type, which decoding reports
			}
			stack = append(stack, container{shape: s, object: tok == json.Delim('{'), expectKey: tok == json.Delim('{')})
		case json.Delim(']'):
			stack = stack[:len(stack)-1]
			if len(stack) > 0 {
				stack[len(stack)-1].valueDone()
			}
		default:
			if top != nil {
				top.valueDone()
			}
		}
	}
	if values == 0 {
		return []string{"the file is empty; it must be a JSON object {...}"}, -1
	}
	return problems, rulesAt
}

// longString returns the offset of the first string of data longer than
// max bytes as written, or -1. It runs before the walk: encoding/json
// would hold such a string whole, twice, before anything could refuse it.
func longString(data []byte, max int) int {
	start := -1 // the opening quote of the string being scanned
	for i := 0; i < len(data); i++ {
		switch c := data[i]; {
		case start < 0:
			if c == '"' {
				start = i
			}
			continue
		case c == '\\':
			i++
		case c == '"':
			start = -1
			continue
		}
		if i-start > max {
			return start
		}
	}
	if start >= 0 && len(data)-start-1 > max {
		return start
	}
	return -1
}

// keyStart returns where the token after offset starts: past the white
// space and the comma between tokens.
func keyStart(data []byte, offset int64) int {
	i := int(offset)
	for i < len(data) && strings.IndexByte(" \t\r\n,:", data[i]) >= 0 {
		i++
	}
	return i
}

// syntaxProblem says where broken JSON breaks.
func syntaxProblem(pos *positions, err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) && se.Offset > 0 {
		line, col := pos.at(int(se.Offset) - 1)
		return fmt.Sprintf("line %d, column %d: %s", line, col, clip(se.Error()))
	}
	return clip(err.Error())
}

// positions turns byte offsets into lines and columns, counting forward
// from the last offset asked for, so that offsets asked for in increasing
// order cost one pass over the file.
type positions struct {
	data           []byte
	off, line, bol int // an offset, its line, and where that line begins
}

func newPositions(data []byte) *positions { return &positions{data: data, line: 1} }

// at returns the 1-based line and column (in bytes) of offset.
func (p *positions) at(offset int) (line, col int) {
	offset = min(max(offset, 0), len(p.data))
	if offset < p.off {
		p.off, p.line, p.bol = 0, 1, 0
	}
	for {
		i := bytes.IndexByte(p.data[p.off:offset], '\n')
		if i < 0 {
			break
		}
		p.off += i + 1
		p.line, p.bol = p.line+1, p.off
	}
	p.off = offset
	return p.line, offset - p.bol + 1
}

// textProblem returns where data stops being text: its first NUL byte or
// byte that is not UTF-8, or "" when it is UTF-8 text.
func textProblem(data []byte) string {
	bad, what := bytes.IndexByte(data, 0), "a NUL byte"
	if !utf8.Valid(data) {
		i := 0
		for i < len(data) {
			r, n := utf8.DecodeRune(data[i:])
			if r == utf8.RuneError && n == 1 {
				break
			}
			i += n
		}
		if bad < 0 || i < bad {
			bad, what = i, fmt.Sprintf("byte 0x%02x, which is not UTF-8", data[i])
		}
	}
	if bad < 0 {
		return ""
	}
	line, col := newPositions(data).at(bad)
	return fmt.Sprintf("line %d, column %d: %s; the file must be UTF-8 text", line, col, what)
}

// quoteShort quotes s for a message, escaped and cut to a readable length.
func quoteShort(s string) string {
	if len(s) > 80 {
		cut := 80
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		return strconv.Quote(s[:cut]) + fmt.Sprintf("... (%d bytes)", len(s))
	}
	return strconv.Quote(s)
}

// maxProblemLen bounds one problem in a message.
const maxProblemLen = 300

// clip makes one problem safe to print: a byte that is not UTF-8 and a
// control character are escaped, and past maxProblemLen bytes the rest is
// cut. Problems from files beside the project file quote what the parsers
// quote (a field of a bad line), never more than this.
func clip(s string) string {
	var b strings.Builder
	for i, r := range s {
		if b.Len() >= maxProblemLen {
			fmt.Fprintf(&b, "... (%d bytes more)", len(s)-i)
			break
		}
		switch {
		case r == utf8.RuneError && !strings.HasPrefix(s[i:], "\uFFFD"):
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case unicode.IsControl(r) || r == '\u2028' || r == '\u2029':
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
