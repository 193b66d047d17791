package importer

import (
	"bytes"
	"encoding/json"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

// vcFastReader reads the common entries of a vercel.json's redirects array
// by hand: an object of the keys source, destination, permanent and
// statusCode, each once, with strings of printable characters and no
// escape, true or false, and a status of digits. encoding/json decodes
// such an entry through reflection at several times the cost. At the first
// byte it does not take for certain (any other key or value, an escape, a
// syntax error, the array's end) it hands the rest of the file back to a
// json.Decoder (handBack), which then reads and reports as it would have
// from the start. One report may read otherwise: where two entries have no
// comma between them, the error names the decoder's "expected comma" or
// the next entry's own syntax error, depending on how much of the file the
// decoder holds (jsonLines.syntaxAfter), which was so before as well.
type vcFastReader struct {
	r   io.Reader
	buf []byte
	pos int
	eof bool
	// line is the line of buf[pos].
	line int
}

// vcFastOff, set by a test, leaves every entry to the decoder: the
// reference the fast reader is held to.
var vcFastOff bool

// vcFastMaxEntry bounds the bytes of one entry the fast reader holds:
// a longer entry goes to the decoder, which checks its strings' lengths.
const vcFastMaxEntry = 16 << 10

// fill makes at least n bytes past pos available, unless the file ends.
func (f *vcFastReader) fill(n int) {
	if len(f.buf)-f.pos >= n || f.eof {
		return
	}
	k := copy(f.buf, f.buf[f.pos:])
	f.buf, f.pos = f.buf[:k], 0
	for len(f.buf) < n && !f.eof {
		m, err := f.r.Read(f.buf[len(f.buf):cap(f.buf)])
		f.buf = f.buf[:len(f.buf)+m]
		if err != nil {
			f.eof = true
		}
	}
}

// vcFastSpace reports JSON's white space.
func vcFastSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// entry parses the entry that starts at b[0] ('{'); it returns the bytes
// it took, or 0 when the entry is not one it takes for certain (or does
// not end within b).
func vcFastEntry(b []byte, e *vcEntry) int {
	i := 1
	space := func() {
		for i < len(b) && vcFastSpace(b[i]) {
			i++
		}
	}
	str := func() (string, bool) {
		if i >= len(b) || b[i] != '"' {
			return "", false
		}
		start := i + 1
		ascii := true
		for j := start; j < len(b); j++ {
			switch c := b[j]; {
			case c == '"':
				s := b[start:j]
				if !ascii && !utf8.Valid(s) {
					return "", false
				}
				i = j + 1
				return string(s), true
			case c == '\\' || c < 0x20:
				return "", false
			case c >= 0x80:
				ascii = false
			}
		}
		return "", false
	}
	space()
	if i < len(b) && b[i] == '}' {
		return i + 1
	}
	var seen uint8
	for {
		space()
		key, ok := str()
		if !ok {
			return 0
		}
		space()
		if i >= len(b) || b[i] != ':' {
			return 0
		}
		i++
		space()
		var bit uint8
		switch key {
		case "source", "destination":
			bit = 1
			if key == "destination" {
				bit = 2
			}
			v, ok := str()
			if !ok {
				return 0
			}
			if key == "source" {
				e.Source = &v
			} else {
				e.Destination = &v
			}
		case "permanent":
			bit = 4
			var v bool
			switch {
			case bytes.HasPrefix(b[i:], []byte("true")):
				v, i = true, i+4
			case bytes.HasPrefix(b[i:], []byte("false")):
				v, i = false, i+5
			default:
				return 0
			}
			e.Permanent = &v
		case "statusCode":
			bit = 8
			j := i
			for j < len(b) && b[j] >= '0' && b[j] <= '9' {
				j++
			}
			if j == i || j-i > 9 || b[i] == '0' {
				return 0
			}
			n := json.Number(b[i:j])
			e.StatusCode, i = &n, j
		default:
			return 0
		}
		if seen&bit != 0 {
			return 0 // the decoder keeps the last of a repeated key
		}
		seen |= bit
		// A literal must end here, as the decoder requires.
		if i >= len(b) {
			return 0
		}
		space()
		if i >= len(b) {
			return 0
		}
		switch b[i] {
		case ',':
			i++
		case '}':
			return i + 1
		default:
			return 0
		}
	}
}

// next reads the next entry of the array into e and returns its line; ok
// is false where the fast reader stops (it has then consumed nothing).
// first says whether no entry has been read yet.
func (f *vcFastReader) next(first bool, e *vcEntry) (line int, ok bool) {
	f.fill(vcFastMaxEntry)
	i, b := f.pos, f.buf
	for i < len(b) && vcFastSpace(b[i]) {
		i++
	}
	if !first {
		if i >= len(b) || b[i] != ',' {
			return 0, false
		}
		i++
		for i < len(b) && vcFastSpace(b[i]) {
			i++
		}
	}
	if i >= len(b) || b[i] != '{' {
		return 0, false
	}
	n := vcFastEntry(b[i:min(len(b), i+vcFastMaxEntry)], e)
	if n == 0 {
		*e = vcEntry{}
		return 0, false
	}
	line = f.line + bytes.Count(b[f.pos:i], []byte{'\n'})
	f.line = line + bytes.Count(b[i:i+n], []byte{'\n'})
	f.pos = i + n
	return line, true
}

// handBack makes j read the rest of the file, from the fast reader's
// position, as it would have had it read the array's entries so far
// itself: a new decoder is given the text of an object holding an array
// with (when first is false) one entry before the rest, so that its
// state is the one inside the array, before a ',' or the ']'.
func (f *vcFastReader) handBack(j *jsonLines, first bool) error {
	prefix := `{"redirects":[`
	if !first {
		// An object, not a number: a number would take a '.', 'e' or
		// 'E' that follows the entry in the file as its own and read
		// "}.5" or "}e5" as valid JSON.
		prefix += `{}`
	}
	rest := io.MultiReader(strings.NewReader(prefix), bytes.NewReader(f.buf[f.pos:]), f.r)
	src := &lineCountingReader{r: rest, line: f.line}
	dec := json.NewDecoder(src)
	dec.UseNumber()
	j.dec, j.src, j.base, j.line = dec, src, 0, f.line
	for range 3 {
		if _, err := dec.Token(); err != nil {
			return j.wrap(err)
		}
	}
	if !first {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return j.wrap(err)
		}
	}
	return nil
}

// vcFastStart returns a fast reader of the array j has just opened: the
// bytes j's decoder holds, then the rest of the file.
func vcFastStart(j *jsonLines) *vcFastReader {
	off := j.dec.InputOffset()
	line := j.lineAt(off)
	r := io.MultiReader(j.dec.Buffered(), j.src.r)
	return &vcFastReader{r: r, line: line, buf: make([]byte, 0, 1<<20)}
}

// vcEntryText returns json.Marshal(e) as text, written by hand for the
// common entry (no has, missing or env, strings json.Marshal writes as
// they are), which is most of a million-line file's rules.
func vcEntryText(e *vcEntry) string {
	plain := func(s string) bool {
		for i := 0; i < len(s); i++ {
			if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
				return false
			}
		}
		return true
	}
	digits := func(s string) bool {
		for i := 0; i < len(s); i++ {
			if s[i] < '0' || s[i] > '9' {
				return false
			}
		}
		return s != "" && s[0] != '0'
	}
	if e.Has != nil || e.Missing != nil || e.Env != nil ||
		e.Source != nil && !plain(*e.Source) || e.Destination != nil && !plain(*e.Destination) ||
		e.StatusCode != nil && !digits(string(*e.StatusCode)) {
		text, _ := json.Marshal(e)
		return string(text)
	}
	var b strings.Builder
	b.Grow(64 + len(stringOr(e.Source)) + len(stringOr(e.Destination)))
	b.WriteByte('{')
	field := func(name string) {
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		b.WriteString(`"` + name + `":`)
	}
	if e.Source != nil {
		field("source")
		b.WriteString(`"` + *e.Source + `"`)
	}
	if e.Destination != nil {
		field("destination")
		b.WriteString(`"` + *e.Destination + `"`)
	}
	if e.Permanent != nil {
		field("permanent")
		b.WriteString(strconv.FormatBool(*e.Permanent))
	}
	if e.StatusCode != nil {
		field("statusCode")
		b.WriteString(string(*e.StatusCode))
	}
	b.WriteByte('}')
	return b.String()
}

func stringOr(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
