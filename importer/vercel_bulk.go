package importer

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"strings"

	"redirects"
)

// Vercel's bulk redirects (docs/migrate.md#vercel-bulk-redirects): files
// of simple path-to-path redirects in CSV (with a header), JSON (an array
// of objects) or JSONL (an object a line), each with the fields source,
// destination, permanent (308, or 307: the default), statusCode (301, 302,
// 303, 307 or 308, over permanent), caseSensitive (false by default) and
// query (pass the request's query on; false by default); in CSV a boolean
// may be t or f (https://vercel.com/docs/routing/redirects/bulk-redirects).
// They match a whole path, so the order of the lines does not matter.
func init() {
	Register(&Format{
		Name:        "vercel-bulk",
		MayBeJSON:   true,
		Title:       "Vercel bulk redirects (CSV, JSON or JSONL)",
		Defaults:    &redirects.Settings{CaseInsensitive: true},
		DefaultsWhy: "Vercel's bulk redirects ignore case unless a redirect sets caseSensitive, and compare the trailing slash exactly",
		Detect:      detectVercelBulk,
		Read:        readVercelBulk,
		Example: "source,destination,permanent,statusCode,caseSensitive,query\n" +
			"/old-blog,/blog,true,,,\n" +
			"/old-about,/about,false,,,\n" +
			"/legacy-contact,https://example.com/contact,,301,,t\n" +
			"/Pricing,/plans,t,,t,f\n",
	})
}

// vcBulkFields are the columns and keys of a bulk redirect.
var vcBulkFields = map[string]string{
	"source": "source", "destination": "destination", "permanent": "permanent",
	"statuscode": "statusCode", "casesensitive": "caseSensitive", "sensitive": "caseSensitive", "query": "query",
}

// detectVercelBulk: a CSV header naming source and destination with
// permanent, statusCode, caseSensitive or query and no matchType (the
// project's own CSV has one), or JSON or JSONL objects of source and
// destination with those keys.
func detectVercelBulk(head []byte, _ string) (bool, string) {
	h := bytes.TrimSpace(bytes.TrimPrefix(head, []byte("\uFEFF")))
	if len(h) == 0 {
		return false, ""
	}
	first, _, _ := bytes.Cut(h, []byte("\n"))
	switch h[0] {
	case '[', '{':
		if bytes.Contains(first, []byte(`"redirects"`)) || bytes.Contains(h, []byte(`"match_url"`)) {
			return false, ""
		}
		obj := h
		if h[0] == '[' {
			obj = bytes.TrimSpace(h[1:])
		} else {
			obj = first
		}
		if end := bytes.IndexByte(obj, '}'); end > 0 {
			obj = obj[:end]
		}
		if bytes.Contains(obj, []byte(`"source"`)) && bytes.Contains(obj, []byte(`"destination"`)) {
			if h[0] == '[' {
				return true, "a JSON array of objects with source and destination"
			}
			return true, "JSON lines, objects with source and destination"
		}
		return false, ""
	}
	cols := map[string]bool{}
	for _, c := range strings.Split(string(first), ",") {
		cols[foldHeader(c)] = true
	}
	if cols["source"] && cols["destination"] && !cols["matchtype"] && !cols["match"] &&
		(cols["permanent"] || cols["statuscode"] || cols["casesensitive"] || cols["query"]) {
		return true, "its header names source and destination with Vercel's permanent, statusCode, caseSensitive or query (and no matchType)"
	}
	return false, ""
}

// vcBulkEntry is one bulk redirect, its fields as the file gives them.
type vcBulkEntry struct {
	line                int
	source, destination *string
	permanent, caseSens *bool
	query               *bool
	statusCode          int
	text                string
	raw                 []byte   // a JSON redirect, for its text
	rec                 []string // a CSV record, for its text
}

func readVercelBulk(in io.Reader, o *Options, sink *Sink) error {
	br := bufio.NewReaderSize(in, 1<<20)
	kind := peekFirstByte(br)
	emit := func(e *vcBulkEntry) { vcBulkRule(o, sink, e) }
	switch kind {
	case '[':
		return readVercelBulkJSON(br, sink, emit)
	case '{':
		return readVercelBulkJSONL(br, sink, emit)
	}
	return readVercelBulkCSV(br, sink, emit)
}

// peekFirstByte returns the first byte of br that is not a space or a
// byte order mark, or 0.
func peekFirstByte(br *bufio.Reader) byte {
	for n := 64; n <= 64<<10; n *= 4 {
		p, err := br.Peek(n)
		t := bytes.TrimLeft(bytes.TrimPrefix(p, []byte("\uFEFF")), " \t\r\n")
		if len(t) > 0 {
			return t[0]
		}
		if err != nil {
			return 0
		}
	}
	return 0
}

func readVercelBulkJSON(in io.Reader, sink *Sink, emit func(*vcBulkEntry)) error {
	j := newJSONLines(in)
	t, err := j.token()
	if err != nil {
		return jsonBad(sink, err)
	}
	if d, ok := t.(json.Delim); !ok || d != '[' {
		sink.Bad(1, "a bulk redirects JSON file is an array of redirects")
		return nil
	}
	for j.dec.More() {
		if err := sink.stopped(); err != nil {
			return err
		}
		var raw json.RawMessage
		line, err := j.value(&raw)
		if err != nil {
			return jsonBad(sink, err)
		}
		if e := vcBulkObject(sink, line, raw); e != nil {
			emit(e)
		}
	}
	if _, err := j.token(); err != nil {
		return jsonBad(sink, err)
	}
	if _, err := j.dec.Token(); err != io.EOF {
		sink.Bad(j.lineAt(j.dec.InputOffset()), "more after the end of the JSON array")
	}
	return nil
}

func readVercelBulkJSONL(in io.Reader, sink *Sink, emit func(*vcBulkEntry)) error {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 0, 1<<20), 16<<20)
	line := 0
	for sc.Scan() {
		if err := sink.stopped(); err != nil {
			return err
		}
		line++
		b := bytes.TrimSpace(sc.Bytes())
		if line == 1 {
			b = bytes.TrimPrefix(b, []byte("\uFEFF"))
		}
		if len(b) == 0 {
			continue
		}
		if e := vcBulkObject(sink, line, b); e != nil {
			emit(e)
		}
	}
	return sc.Err()
}

// vcBulkJSON is a bulk redirect as JSON holds it.
type vcBulkJSON struct {
	Source        *string `json:"source"`
	Destination   *string `json:"destination"`
	Permanent     *bool   `json:"permanent"`
	StatusCode    int     `json:"statusCode"`
	CaseSensitive *bool   `json:"caseSensitive"`
	Sensitive     *bool   `json:"sensitive"`
	Query         *bool   `json:"query"`
}

// vcBulkObject decodes one JSON redirect; a broken one goes to sink.Bad.
func vcBulkObject(sink *Sink, line int, raw []byte) *vcBulkEntry {
	if len(raw) == 0 || raw[0] != '{' || !json.Valid(raw) {
		sink.Bad(line, "not a JSON object")
		return nil
	}
	unknown := ""
	jsonKeys(raw, func(k string) bool {
		if _, ok := vcBulkFields[strings.ToLower(k)]; !ok {
			unknown = k
			return false
		}
		return true
	})
	if unknown != "" {
		sink.Bad(line, "unknown field %q (a bulk redirect has source, destination, permanent, statusCode, caseSensitive and query)", unknown)
		return nil
	}
	var j vcBulkJSON
	if err := json.Unmarshal(raw, &j); err != nil {
		sink.Bad(line, "a field is not of its type: %v", err)
		return nil
	}
	e := &vcBulkEntry{line: line, source: j.Source, destination: j.Destination, permanent: j.Permanent,
		statusCode: j.StatusCode, caseSens: j.CaseSensitive, query: j.Query, raw: raw}
	if e.caseSens == nil {
		e.caseSens = j.Sensitive
	}
	return e
}

func readVercelBulkCSV(in io.Reader, sink *Sink, emit func(*vcBulkEntry)) error {
	r := newCSVReader(in)
	var cols []string
	for {
		rec, err := r.Read()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				sink.Bad(pe.Line, "not valid CSV: %v", pe.Err)
				// The reader cannot go on past a broken quote.
				return nil
			}
			if csvRecordTooLong(err, sink) {
				return nil
			}
			return err
		}
		line, _ := r.FieldPos(0)
		if cols == nil {
			if len(rec) > 0 {
				rec[0] = strings.TrimPrefix(rec[0], "\uFEFF")
			}
			seen := map[string]bool{}
			for _, c := range rec {
				f, ok := vcBulkFields[foldHeader(c)]
				if !ok {
					sink.Bad(line, "unknown column %q (a bulk redirects CSV has the columns source, destination, permanent, statusCode, caseSensitive and query)", c)
					return nil
				}
				if seen[f] {
					sink.Bad(line, "column %s twice", f)
					return nil
				}
				seen[f] = true
				cols = append(cols, f)
			}
			if !seen["source"] || !seen["destination"] {
				sink.Bad(line, "the header names no source or no destination column")
				return nil
			}
			continue
		}
		if len(rec) == 1 && strings.TrimSpace(rec[0]) == "" {
			continue
		}
		if len(rec) > len(cols) {
			sink.Bad(line, "%d fields, the header names %d", len(rec), len(cols))
			continue
		}
		e := &vcBulkEntry{line: line, rec: rec}
		bad := false
		for i, v := range rec {
			v := v
			switch cols[i] {
			case "source":
				e.source = &v
			case "destination":
				e.destination = &v
			case "statusCode":
				if v == "" {
					continue
				}
				n, err := strconv.Atoi(v)
				if err != nil {
					sink.Bad(line, "statusCode %q is not a number", v)
					bad = true
				}
				e.statusCode = n
			default:
				if v == "" {
					continue
				}
				var b bool
				switch strings.ToLower(v) {
				case "true", "t":
					b = true
				case "false", "f":
				default:
					sink.Bad(line, "%s %q is not true, false, t or f", cols[i], v)
					bad = true
				}
				switch cols[i] {
				case "permanent":
					e.permanent = &b
				case "caseSensitive":
					e.caseSens = &b
				case "query":
					e.query = &b
				}
			}
		}
		if !bad {
			emit(e)
		}
	}
}

// vcBulkRule checks one bulk redirect and tells sink what it becomes.
func vcBulkRule(o *Options, sink *Sink, e *vcBulkEntry) {
	line := e.line
	switch {
	case e.source == nil || *e.source == "":
		sink.Bad(line, "a bulk redirect needs a source")
		return
	case e.destination == nil || *e.destination == "":
		sink.Bad(line, "a bulk redirect needs a destination")
		return
	case !strings.HasPrefix(*e.source, "/"):
		sink.Bad(line, "source %q is not an absolute path", *e.source)
		return
	}
	status := 307
	if e.permanent != nil && *e.permanent {
		status = 308
	}
	if e.statusCode != 0 {
		switch e.statusCode {
		case 301, 302, 303, 307, 308:
			status = e.statusCode
		default:
			sink.Bad(line, "statusCode %d is not one of 301, 302, 303, 307, 308", e.statusCode)
			return
		}
	}
	// A rule that keeps Vercel's default (caseSensitive false) differs
	// from a case-sensitive project as the suggestion says; one that sets
	// caseSensitive differs from a project that ignores case.
	if e.caseSens != nil && *e.caseSens && o.Settings.CaseInsensitive {
		sink.Note(line, "caseSensitive: Vercel compares this source case-sensitively; the project ignores case, so other spellings of it are redirected too")
	}
	sink.Rule(line, redirects.Rule{
		Source: *e.source, Destination: *e.destination, MatchType: redirects.Exact, StatusCode: status,
		Priority: redirects.DefaultPriority, PreserveQuery: e.query != nil && *e.query,
	})
	if sink.hasOut(line) {
		switch {
		case e.raw != nil:
			e.text = jsonText(e.raw)
		case e.rec != nil:
			e.text = strings.Join(e.rec, ",")
		}
	}
	sink.Text(line, e.text)
}
