package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"strconv"

	"redirects/api"
	"redirects/importer"
)

// printMigrationJSON writes v as printJSON does, byte for byte, but writes
// the report's lines one by one as it goes: a file of half a million
// changed lines made a 150 MB document that encoding/json built, grew and
// indented whole in memory before the first byte was written.
func (c *cmd) printMigrationJSON(v api.MigrationCounts) error {
	return writeMigrationJSON(c.m.Stdout, v)
}

// linesMarker is what the report's empty "lines" field encodes as: a
// string of the document cannot hold it, since a string holds no raw line
// break.
const linesMarker = "\n    \"lines\": []"

func writeMigrationJSON(out io.Writer, v api.MigrationCounts) error {
	if v.Migration == nil || len(v.Migration.Lines) == 0 {
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		return enc.Encode(v)
	}
	res := *v.Migration
	lines := res.Lines
	res.Lines = []importer.Outcome{}
	v.Migration = &res
	var head bytes.Buffer
	enc := json.NewEncoder(&head)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	doc := head.Bytes()
	at := bytes.Index(doc, []byte(linesMarker))
	if at < 0 {
		// Not the shape this writer knows: encode the whole.
		res.Lines = lines
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false)
		return enc.Encode(v)
	}
	at += len(linesMarker) - 1 // the ']'
	w := bufio.NewWriterSize(out, 256<<10)
	w.Write(doc[:at])
	buf := make([]byte, 0, 1024)
	for i := range lines {
		buf = buf[:0]
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = appendOutcomeJSON(append(buf, '\n'), &lines[i])
		if _, err := w.Write(buf); err != nil {
			return err
		}
	}
	w.WriteString("\n    ")
	w.Write(doc[at:])
	return w.Flush()
}

// appendOutcomeJSON appends o as encoding/json indents it as an element of
// the report's lines (six spaces in, two a level), with HTML left
// unescaped.
func appendOutcomeJSON(b []byte, o *importer.Outcome) []byte {
	b = append(b, "      {\n        \"line\": "...)
	b = strconv.AppendInt(b, int64(o.Line), 10)
	b = append(b, ",\n        \"class\": "...)
	b = api.AppendJSONString(b, string(o.Class))
	b = append(b, ",\n        \"notes\": "...)
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
			b = append(b, "\n          "...)
			b = api.AppendJSONString(b, n)
		}
		b = append(b, "\n        ]"...)
	}
	b = append(b, ",\n        \"rules\": "...)
	b = strconv.AppendInt(b, int64(o.Rules), 10)
	if o.Winner != 0 {
		b = append(b, ",\n        \"winner\": "...)
		b = strconv.AppendInt(b, int64(o.Winner), 10)
	}
	if o.Text != "" {
		b = append(b, ",\n        \"text\": "...)
		b = api.AppendJSONString(b, o.Text)
	}
	return append(b, "\n      }"...)
}
