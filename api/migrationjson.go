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
	if v.Migration == nil || len(v.Migration.Lines) == 0 {
		return encodeCompact(out, v)
	}
	res := *v.Migration
	lines := res.Lines
	res.Lines = []importer.Outcome{}
	v.Migration = &res
	var head bytes.Buffer
	if err := encodeCompact(&head, v); err != nil {
		return err
	}
	doc := head.Bytes()
	// A string of the document cannot hold the marker (each '"' in a
	// string is escaped), and "lines" is a key of the report's alone;
	// anything else is encoded whole.
	if bytes.Count(doc, []byte(compactLinesMarker)) != 1 {
		res.Lines = lines
		return encodeCompact(out, v)
	}
	at := bytes.Index(doc, []byte(compactLinesMarker)) + len(compactLinesMarker) - 1 // the ']'
	w := bufio.NewWriterSize(out, 64<<10)
	w.Write(doc[:at])
	buf := make([]byte, 0, 1024)
	for i := range lines {
		buf = buf[:0]
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = appendOutcome(buf, &lines[i])
		if _, err := w.Write(buf); err != nil {
			return err
		}
	}
	w.Write(doc[at:])
	return w.Flush()
}

// compactLinesMarker is what the report's empty "lines" field encodes as.
const compactLinesMarker = `"lines":[]`

func encodeCompact(out io.Writer, v any) error {
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// appendOutcome appends o as encoding/json writes it, compact, with HTML
// left unescaped.
func appendOutcome(b []byte, o *importer.Outcome) []byte {
	b = append(b, `{"line":`...)
	b = strconv.AppendInt(b, int64(o.Line), 10)
	b = append(b, `,"class":`...)
	b = AppendJSONString(b, string(o.Class))
	b = append(b, `,"notes":`...)
	switch {
	case o.Notes == nil:
		b = append(b, "null"...)
	default:
		b = append(b, '[')
		for i, n := range o.Notes {
			if i > 0 {
				b = append(b, ',')
			}
			b = AppendJSONString(b, n)
		}
		b = append(b, ']')
	}
	b = append(b, `,"rules":`...)
	b = strconv.AppendInt(b, int64(o.Rules), 10)
	if o.Winner != 0 {
		b = append(b, `,"winner":`...)
		b = strconv.AppendInt(b, int64(o.Winner), 10)
	}
	if o.Text != "" {
		b = append(b, `,"text":`...)
		b = AppendJSONString(b, o.Text)
	}
	return append(b, '}')
}

// AppendJSONString appends s quoted as encoding/json quotes a string with
// HTML escaping off: '"', '\\' and control bytes escaped (\b, \f, \n, \r,
// \t by their short forms), invalid UTF-8 as \ufffd, U+2028 and U+2029
// escaped (engine.AppendJSONString, between quotes).
func AppendJSONString(b []byte, s string) []byte {
	return append(engine.AppendJSONString(append(b, '"'), s), '"')
}
