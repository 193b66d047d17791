package importer

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// jsonLines streams a JSON document and says on which line each value
// starts, so that the readers of JSON formats (vercel.json, Vercel's bulk
// redirects, WordPress Redirection's export) report line numbers as the
// text formats do, without holding the file. It counts the newlines of
// the bytes the decoder has consumed: offsets asked of it only grow, so
// what lies before the last one is dropped.
type jsonLines struct {
	dec  *json.Decoder
	src  *lineCountingReader
	base int64 // file offset of src.pending[0]
	line int   // line of base
}

type lineCountingReader struct {
	r       io.Reader
	pending []byte
	// The scan of strings, as bytes arrive: a string longer than
	// MaxLineLen ends the read before the decoder buffers it.
	line     int  // the line of the next byte
	inString bool // inside a string
	escaped  bool // after its backslash
	strLen   int  // bytes of the string so far
	strLine  int  // the line where it starts
}

func (l *lineCountingReader) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	if bad := l.scan(p[:n]); bad != nil {
		return 0, bad
	}
	l.pending = append(l.pending, p[:n]...)
	return n, err
}

// scan follows the strings of b, the next bytes of the file, and returns
// a *jsonError for one longer than MaxLineLen: sources and destinations
// are far shorter, and the decoder would hold it several times over.
func (l *lineCountingReader) scan(b []byte) error {
	for i := 0; i < len(b); i++ {
		c := b[i]
		if !l.inString {
			switch c {
			case '\n':
				l.line++
			case '"':
				l.inString, l.strLen, l.strLine = true, 0, l.line
			}
			continue
		}
		switch {
		case l.escaped:
			l.escaped = false
		case c == '\\':
			l.escaped = true
		case c == '"':
			l.inString = false
			continue
		case c == '\n':
			// Not valid JSON: the decoder says so.
			l.line++
			l.inString = false
			continue
		}
		if l.strLen++; l.strLen > MaxLineLen {
			return &jsonError{Line: l.strLine, Msg: fmt.Sprintf("a string longer than %d bytes (%d KiB); a JSON string may hold at most that", MaxLineLen, MaxLineLen>>10)}
		}
	}
	return nil
}

// newJSONLines reads in, past a UTF-8 byte order mark at its start (which
// encoding/json refuses, and which holds no line break: offsets start after
// it).
func newJSONLines(in io.Reader) *jsonLines {
	br := bufio.NewReaderSize(in, 1<<20)
	if p, _ := br.Peek(len(utf8BOM)); string(p) == utf8BOM {
		_, _ = br.Discard(len(utf8BOM))
	}
	src := &lineCountingReader{r: br, line: 1}
	dec := json.NewDecoder(src)
	dec.UseNumber()
	return &jsonLines{dec: dec, src: src, line: 1}
}

// lineAt returns the line of the byte at file offset off (off must not
// be less than any offset asked before).
func (j *jsonLines) lineAt(off int64) int {
	k := int(off - j.base)
	if k <= 0 {
		return j.line
	}
	if k > len(j.src.pending) {
		k = len(j.src.pending)
	}
	j.line += bytes.Count(j.src.pending[:k], []byte{'\n'})
	// What is left (the decoder's read-ahead) moves to the front, so the
	// same array serves the whole file.
	n := copy(j.src.pending, j.src.pending[k:])
	j.src.pending = j.src.pending[:n]
	j.base += int64(k)
	return j.line
}

// token reads the next token; a syntax error comes back as a *jsonError
// naming its line.
func (j *jsonLines) token() (json.Token, error) {
	t, err := j.dec.Token()
	if err != nil {
		return nil, j.wrap(err)
	}
	return t, nil
}

// value decodes the next value into raw and returns the line where it
// starts.
func (j *jsonLines) value(raw *json.RawMessage) (int, error) {
	start := j.dec.InputOffset()
	if err := j.dec.Decode(raw); err != nil {
		return 0, j.syntaxAfter(start, err)
	}
	return j.lineAt(j.dec.InputOffset() - int64(len(*raw))), nil
}

// decodeValue decodes the next value into v and returns the line where it
// starts and its text, which stays valid until the next call. A value
// not of v's type gives a *json.UnmarshalTypeError with the line and the
// text (v then holds what did decode); a syntax error, a *jsonError.
func (j *jsonLines) decodeValue(v any) (int, []byte, error) {
	prev := j.dec.InputOffset()
	err := j.dec.Decode(v)
	var te *json.UnmarshalTypeError
	if err != nil && !errors.As(err, &te) {
		return 0, nil, j.syntaxAfter(prev, err)
	}
	line, raw := j.span(prev, j.dec.InputOffset())
	return line, raw, err
}

// span returns the line of the value between file offsets from and to
// (from may point at the spaces and the ',' before it) and its text.
func (j *jsonLines) span(from, to int64) (int, []byte) {
	p := j.src.pending
	a, b := int(from-j.base), int(to-j.base)
	if a < 0 {
		a = 0
	}
	if b > len(p) {
		b = len(p)
	}
	for a < b && (p[a] == ' ' || p[a] == '\t' || p[a] == '\r' || p[a] == '\n' || p[a] == ',' || p[a] == ':') {
		a++
	}
	line := j.lineAt(j.base + int64(a))
	// lineAt moved the pending bytes: the value now starts at 0.
	return line, j.src.pending[:b-a]
}

// syntaxAfter reports a syntax error of the value that starts after file
// offset prev at its own line.
func (j *jsonLines) syntaxAfter(prev int64, err error) error {
	var se *json.SyntaxError
	if !errors.As(err, &se) {
		return j.wrap(err)
	}
	j.lineAt(prev)
	p := j.src.pending
	k := 0
	for k < len(p) && (p[k] == ' ' || p[k] == '\t' || p[k] == '\r' || p[k] == '\n') {
		k++
	}
	if k < len(p) && (p[k] == ',' || p[k] == ':') {
		k++
	}
	var r json.RawMessage
	if e2 := json.NewDecoder(bytes.NewReader(p[k:])).Decode(&r); errors.As(e2, &se) {
		return &jsonError{Line: j.lineAt(j.base + int64(k) + se.Offset - 1), Msg: "not valid JSON: " + se.Error()}
	}
	return &jsonError{Line: j.line, Msg: "not valid JSON: " + err.Error()}
}

const utf8BOM = "\uFEFF"

// jsonError is a file that is not valid JSON, with the line where it
// stops being so.
type jsonError struct {
	Line int
	Msg  string
}

func (e *jsonError) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Msg) }

func (j *jsonLines) wrap(err error) error {
	var se *json.SyntaxError
	switch {
	case errors.As(err, &se):
		return &jsonError{Line: j.lineAt(se.Offset - 1), Msg: "not valid JSON: " + se.Error()}
	case errors.Is(err, io.ErrUnexpectedEOF) || err == io.EOF:
		return &jsonError{Line: j.lineAt(j.base + int64(len(j.src.pending))), Msg: "not valid JSON: the file ends in the middle of a value"}
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return &jsonError{Line: j.lineAt(te.Offset), Msg: "not valid JSON: " + te.Error()}
	}
	return err
}

// skipValue reads and drops the next value (after a key).
func (j *jsonLines) skipValue() error {
	var raw json.RawMessage
	_, err := j.value(&raw)
	return err
}

// jsonBad reports err on sink when it is a *jsonError and returns nil;
// any other error (a failed read) is returned.
func jsonBad(sink *Sink, err error) error {
	var je *jsonError
	if errors.As(err, &je) {
		sink.Bad(je.Line, "%s", je.Msg)
		return nil
	}
	return err
}

// jsonText is what the report keeps of a JSON value: the value on one
// line, its spaces between tokens removed.
func jsonText(raw []byte) string {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return string(raw)
	}
	return b.String()
}

// jsonKeys calls fn with each key of the JSON object raw (valid JSON, as
// a decoder gave it) at its top level, unescaped only when it holds no
// escape; it stops when fn returns false. It is the cheap check of
// unknown fields that a decoder per value would otherwise make.
func jsonKeys(raw []byte, fn func(key string) bool) {
	depth := 0
	expectKey := false
	for i := 0; i < len(raw); i++ {
		switch c := raw[i]; c {
		case '{', '[':
			depth++
			expectKey = c == '{' && depth == 1
		case '}', ']':
			depth--
		case ',':
			expectKey = depth == 1
		case '"':
			j := i + 1
			for j < len(raw) && raw[j] != '"' {
				if raw[j] == '\\' {
					j++
				}
				j++
			}
			if expectKey {
				k := raw[i+1 : min(j, len(raw))]
				key := string(k)
				if bytes.IndexByte(k, '\\') >= 0 {
					_ = json.Unmarshal(raw[i:min(j+1, len(raw))], &key)
				}
				if !fn(key) {
					return
				}
				expectKey = false
			}
			i = j
		}
	}
}
