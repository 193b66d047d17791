package api

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"strconv"

	"redirects/engine"
	"redirects/importer"
)

// WriteMigrationReport writes v as encoding/json does (compact, HTML left
// unescaped, a line break after), byte for byte, but writes the report's
// lines one by one as it goes: encoding/json builds a document whole in
// memory before the first byte is written, and a 16 MB file of skipped
// lines made a 70 MB answer that grew the node by some 150 MB more than
// its report (docs/contract.md#migrations).
func WriteMigrationReport(out io.Writer, v MigrationReport) error {
	return writeWithLines(out, "", &v, &v.Migration)
}

// WriteMigrationCounts writes v as the command line prints JSON
// (encoding/json indented by two spaces, HTML left unescaped), byte for
// byte, with the report's lines written one by one as WriteMigrationReport
// writes them: a file of half a million changed lines made a 150 MB
// document that encoding/json built, grew and indented whole in memory.
func WriteMigrationCounts(out io.Writer, v MigrationCounts) error {
	return writeWithLines(out, "  ", &v, &v.Migration)
}

// writeWithLines encodes v (indented by indent, or compact when it is
// empty) with *m's lines left out, then splices the lines, written one by
// one, in where the empty list was. *m is set to a copy; the lines are not
// changed.
func writeWithLines(out io.Writer, indent string, v any, m **importer.Result) error {
	encode := func(w io.Writer) error {
		enc := json.NewEncoder(w)
		if indent != "" {
			enc.SetIndent("", indent)
		}
		enc.SetEscapeHTML(false)
		return enc.Encode(v)
	}
	if *m == nil || len((*m).Lines) == 0 {
		return encode(out)
	}
	res := **m
	lines := res.Lines
	res.Lines = []importer.Outcome{}
	*m = &res
	var head bytes.Buffer
	if err := encode(&head); err != nil {
		return err
	}
	doc := head.Bytes()
	f := jsonForm{indent: indent}
	// The empty list as it is written: a string of the document cannot
	// hold it (a string's '"' is escaped and it holds no raw line break),
	// and "lines" is a key of the report's alone; anything else is
	// encoded whole.
	marker := f.key(nil, 2, "lines")
	marker = append(marker, "[]"...)
	if bytes.Count(doc, marker) != 1 {
		res.Lines = lines
		return encode(out)
	}
	at := bytes.Index(doc, marker) + len(marker) - 1 // the ']'
	w := bufio.NewWriterSize(out, 64<<10)
	w.Write(doc[:at])
	buf := make([]byte, 0, 1024)
	for i := range lines {
		buf = buf[:0]
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = f.appendOutcome(f.newline(buf, 3), &lines[i])
		if _, err := w.Write(buf); err != nil {
			return err
		}
	}
	w.Write(f.newline(nil, 2))
	w.Write(doc[at:])
	return w.Flush()
}

// jsonForm writes JSON as encoding/json does, compact (indent "") or
// indented by indent a level.
type jsonForm struct{ indent string }

// newline appends, when indented, a line break and depth levels of indent.
func (f jsonForm) newline(b []byte, depth int) []byte {
	if f.indent == "" {
		return b
	}
	b = append(b, '\n')
	for range depth {
		b = append(b, f.indent...)
	}
	return b
}

// key appends an object's key at depth, on its own line when indented,
// and its ':' (": " when indented).
func (f jsonForm) key(b []byte, depth int, k string) []byte {
	b = AppendJSONString(f.newline(b, depth), k)
	if f.indent == "" {
		return append(b, ':')
	}
	return append(b, ": "...)
}

// appendOutcome appends o as encoding/json writes it as an element of the
// report's lines (at depth 3), with HTML left unescaped.
func (f jsonForm) appendOutcome(b []byte, o *importer.Outcome) []byte {
	b = append(b, '{')
	b = strconv.AppendInt(f.key(b, 4, "line"), int64(o.Line), 10)
	b = AppendJSONString(f.key(append(b, ','), 4, "class"), string(o.Class))
	b = f.key(append(b, ','), 4, "notes")
	switch {
	case o.Notes == nil:
		b = append(b, "null"...)
	case len(o.Notes) == 0:
		b = append(b, "[]"...)
	default:
		b = append(b, '[')
		for i, n := range o.Notes {
			if i > 0 {
				b = append(b, ',')
			}
			b = AppendJSONString(f.newline(b, 5), n)
		}
		b = append(f.newline(b, 4), ']')
	}
	b = strconv.AppendInt(f.key(append(b, ','), 4, "rules"), int64(o.Rules), 10)
	if o.Winner != 0 {
		b = strconv.AppendInt(f.key(append(b, ','), 4, "winner"), int64(o.Winner), 10)
	}
	if o.Text != "" {
		b = AppendJSONString(f.key(append(b, ','), 4, "text"), o.Text)
	}
	return append(f.newline(b, 3), '}')
}

// AppendJSONString appends s quoted as encoding/json quotes a string with
// HTML escaping off: '"', '\\' and control bytes escaped (\b, \f, \n, \r,
// \t by their short forms), invalid UTF-8 as \ufffd, U+2028 and U+2029
// escaped (engine.AppendJSONString, between quotes).
func AppendJSONString(b []byte, s string) []byte {
	return append(engine.AppendJSONString(append(b, '"'), s), '"')
}
