package migrate

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
}

func (l *lineCountingReader) Read(p []byte) (int, error) {
	n, err := l.r.Read(p)
	l.pending = append(l.pending, p[:n]...)
	return n, err
}

func newJSONLines(in io.Reader) *jsonLines {
	src := &lineCountingReader{r: bufio.NewReaderSize(in, 1<<20)}
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
	j.src.pending = j.src.pending[k:]
	// Keep the slice from pinning a large array forever.
	if cap(j.src.pending) > 4<<20 && len(j.src.pending) < 1<<20 {
		j.src.pending = append([]byte(nil), j.src.pending...)
	}
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
		var se *json.SyntaxError
		if !errors.As(err, &se) {
			return 0, j.wrap(err)
		}
		// The decoder's offset of an error inside a value is not the
		// file's: decode the value again, alone, from where it starts.
		j.lineAt(start)
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
			return 0, &jsonError{Line: j.lineAt(j.base + int64(k) + se.Offset - 1), Msg: "not valid JSON: " + se.Error()}
		}
		return 0, &jsonError{Line: j.line, Msg: "not valid JSON: " + err.Error()}
	}
	return j.lineAt(j.dec.InputOffset() - int64(len(*raw))), nil
}

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
