package importer

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"path"
	"sort"
	"strings"

	"github.com/pelletier/go-toml/v2"
)

// Netlify's configuration file, netlify.toml: its [[redirects]] tables
// (https://docs.netlify.com/routing/redirects/#syntax-for-the-netlify-configuration-file),
// each with from, to, status, force, query, conditions (and headers,
// signed). A separate format from "netlify" (the same rules, another
// syntax); each table is reported at the line of its [[redirects]] header.
// Only the redirects tables are read, each parsed by a TOML library (see
// readNetlifyTOML); the rest of the file (build settings, plugins) is
// passed over.
func init() {
	Register(&Format{
		Name:        "netlify-toml",
		Title:       "Netlify netlify.toml [[redirects]]",
		FirstMatch:  true,
		Defaults:    netlifyDefaults,
		DefaultsWhy: netlifyDefaultsWhy,
		Detect:      detectNetlifyTOML,
		Read:        readNetlifyTOML,
		Example: "[build]\n  publish = \"public\"\n\n" +
			"[[redirects]]\n  from = \"/old\"\n  to = \"/new\"\n\n" +
			"[[redirects]]\n  from = \"/news/*\"\n  to = \"/blog/:splat\"\n  status = 302\n  force = true\n\n" +
			"[[redirects]]\n  from = \"/store\"\n  to = \"/blog/:id\"\n  query = {id = \":id\"}\n\n" +
			"[[redirects]]\n  from = \"/\"\n  to = \"/uk\"\n  status = 302\n  conditions = {Country = [\"GB\"]}\n",
	})
}

// detectNetlifyTOML: a file named netlify.toml, or one with a
// [[redirects]] table header.
func detectNetlifyTOML(head []byte, fileName string) (bool, string) {
	if path.Base(strings.ReplaceAll(fileName, "\\", "/")) == "netlify.toml" {
		return true, "the file is named netlify.toml"
	}
	for _, l := range bytes.Split(head, []byte("\n")) {
		if string(bytes.TrimSpace(l)) == "[[redirects]]" {
			return true, "it has a [[redirects]] table of netlify.toml"
		}
	}
	return false, ""
}

// tomlEntry is one [[redirects]] table, as the TOML library read it.
type tomlEntry struct {
	line   int
	fields map[string]any
}

// maxTOMLDepth bounds the nesting of arrays and inline tables: a
// [[redirects]] table needs two levels (conditions = {Country = [...]}).
const maxTOMLDepth = 64

// maxTOMLTable bounds one [[redirects]] table, so that the library, which
// takes no context, parses a bounded text at a time.
const maxTOMLTable = 1 << 20

// readNetlifyTOML cuts the file into its tables with tomlScanner, a light
// linear scan, and hands each [[redirects]] table (with its
// [redirects.query]-style sub-tables) to github.com/pelletier/go-toml/v2
// on its own: line numbers are the table's header line plus the library's
// row, the context is checked between tables (each read of the file), and
// the rest of the file is passed over, unparsed. The scan also bounds
// nesting (maxTOMLDepth) before the library sees a table, though the
// library bounds it too (10,000 levels, without recursing past them).
func readNetlifyTOML(in io.Reader, o *Options, sink *Sink) error {
	sc := scanLines(in)
	var (
		ts        tomlScanner
		table     strings.Builder // the [[redirects]] table being read
		tableLine int             // its header's line, 0 outside one
		tableBad  bool            // it is refused already
		deep      bool            // the nesting was reported
	)
	flush := func() {
		if tableLine != 0 && !tableBad {
			readTOMLTable(tableLine, table.String(), o, sink)
		}
		table.Reset()
		tableLine, tableBad = 0, false
	}
	n := 0
	for sc.Scan() {
		n++
		raw := sc.Text()
		if n == 1 {
			raw = trimLineBOM(raw)
		}
		name, array, header := ts.line(raw)
		if ts.peak > maxTOMLDepth && !deep {
			sink.Bad(n, "arrays and inline tables nested more than %d levels deep", maxTOMLDepth)
			deep, tableBad = true, true
		}
		switch {
		case !header:
		case array && name == "redirects":
			flush()
			tableLine = n
		case strings.HasPrefix(name, "redirects."):
			if tableLine == 0 {
				sink.Bad(n, "table [%s] comes before any [[redirects]]", name)
				continue
			}
		default:
			flush()
		}
		if tableLine == 0 || tableBad {
			continue
		}
		if table.Len()+len(raw) >= maxTOMLTable {
			sink.Bad(tableLine, "the [[redirects]] table is longer than %d bytes (an array or string never closed?)", maxTOMLTable)
			tableBad = true
			table.Reset()
			continue
		}
		table.WriteString(raw)
		table.WriteByte('\n')
	}
	if err := sc.Err(); err != nil {
		return err
	}
	flush()
	return nil
}

// readTOMLTable parses one [[redirects]] table (text, whose first line is
// the file's line) with the TOML library and reads it.
func readTOMLTable(line int, text string, o *Options, sink *Sink) {
	var doc struct {
		Redirects []map[string]any `toml:"redirects"`
	}
	if err := toml.NewDecoder(strings.NewReader(text)).Decode(&doc); err != nil {
		var de *toml.DecodeError
		if errors.As(err, &de) {
			row, col := de.Position()
			// de.Error() is the library's message alone (its String()
			// would quote the whole line); it may quote the file's
			// keys, so it is quoted as an excerpt.
			sink.Bad(line+row-1, "not valid TOML at column %d: %s", col, strings.TrimPrefix(de.Error(), "toml: "))
			return
		}
		sink.Bad(line, "not valid TOML: %v", err)
		return
	}
	for _, fields := range doc.Redirects {
		readTOMLEntry(&tomlEntry{line: line, fields: fields}, o, sink)
	}
}

// tomlScanner follows a TOML file line by line, only as far as needed to
// find its table headers: the strings (one- and multi-line) and the
// nesting of arrays and inline tables. Each byte is looked at once.
type tomlScanner struct {
	depth int
	// peak is the deepest nesting reached so far, inside a line too.
	peak int
	ml   string // the delimiter of the multi-line string being read
}

// line scans one line and returns the table it opens, if it is a table
// header ([name], or [[name]] when array).
func (t *tomlScanner) line(s string) (name string, array, header bool) {
	if t.ml == "" && t.depth == 0 {
		if u := strings.TrimLeft(s, " \t"); strings.HasPrefix(u, "[") {
			array = strings.HasPrefix(u, "[[")
			open, end := "[", "]"
			if array {
				open, end = "[[", "]]"
			}
			name, _, _ = strings.Cut(u[len(open):], end)
			return strings.TrimSpace(name), array, true
		}
	}
	for i := 0; i < len(s); {
		if t.ml != "" {
			switch {
			case t.ml == `"""` && s[i] == '\\':
				i += 2
			case strings.HasPrefix(s[i:], t.ml):
				i += 3
				// Up to two more quotes belong to the string.
				for k := 0; k < 2 && i < len(s) && s[i] == t.ml[0]; k++ {
					i++
				}
				t.ml = ""
			default:
				i++
			}
			continue
		}
		switch c := s[i]; {
		case c == '#':
			return "", false, false
		case strings.HasPrefix(s[i:], `"""`), strings.HasPrefix(s[i:], `'''`):
			t.ml = s[i : i+3]
			i += 3
		case c == '"':
			for i++; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' {
					i++
				}
			}
			i++
		case c == '\'':
			if j := strings.IndexByte(s[i+1:], '\''); j >= 0 {
				i += j + 2
			} else {
				i = len(s)
			}
		case c == '[' || c == '{':
			t.depth++
			t.peak = max(t.peak, t.depth)
			i++
		case c == ']' || c == '}':
			if t.depth > 0 {
				t.depth--
			}
			i++
		default:
			i++
		}
	}
	return "", false, false
}

// readTOMLEntry turns one [[redirects]] table into a netlifyLine and
// reads it as a _redirects line.
func readTOMLEntry(e *tomlEntry, o *Options, sink *Sink) {
	n := e.line
	str := func(key string) (string, bool) {
		v, ok := e.fields[key]
		if !ok {
			return "", true
		}
		s, isStr := v.(string)
		return s, isStr
	}
	var l netlifyLine
	from, ok1 := str("from")
	if f, ok := e.fields["origin"].(string); ok && from == "" {
		from = f
	}
	to, ok2 := str("to")
	if !ok1 || !ok2 {
		sink.Bad(n, "from and to must be strings")
		return
	}
	if from == "" {
		sink.Bad(n, "missing \"from\" field")
		return
	}
	l.from, l.to = from, to
	switch v := e.fields["status"].(type) {
	case nil:
	case int64:
		l.status = int(v)
	case string:
		st, ok := jsParseInt(v)
		if !ok {
			sink.Bad(n, "invalid status code %q", v)
			return
		}
		l.status = st
	default:
		sink.Bad(n, "status must be a number")
		return
	}
	if f, ok := e.fields["force"].(bool); ok {
		l.force = f
	}
	l.query = tomlPairs(e.fields["query"])
	l.conditions = tomlPairs(e.fields["conditions"])
	if s, ok := e.fields["signed"].(string); ok && s != "" {
		l.conditions = append(l.conditions, [2]string{"signed", s})
	}
	if l.to == "" {
		if strings.HasSuffix(l.from, "/*") && l.status >= 200 && l.status < 300 {
			l.to = strings.TrimSuffix(l.from, "/*") + "/:splat"
		} else {
			sink.Bad(n, "missing \"to\" field (only a 2xx splat rule may leave it out)")
			return
		}
	}
	if strings.HasPrefix(l.from, "/.netlify") {
		sink.Bad(n, "the path must not start with /.netlify")
		return
	}
	if h, ok := e.fields["headers"].(map[string]any); ok && len(h) > 0 {
		sink.Note(n, "custom headers dropped: our rules answer a redirect without them")
	}
	readNetlifyRule(n, &l, o, sink, netlifyName)
	sink.Text(n, fmt.Sprintf("[[redirects]] from = %q to = %q", l.from, l.to))
}

// tomlPairs returns an inline table's keys and values in key order (arrays
// joined with commas), as the _redirects syntax writes them.
func tomlPairs(v any) [][2]string {
	m, ok := v.(map[string]any)
	if !ok {
		return nil
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var out [][2]string
	for _, k := range keys {
		switch x := m[k].(type) {
		case []any:
			var parts []string
			for _, y := range x {
				parts = append(parts, fmt.Sprint(y))
			}
			out = append(out, [2]string{k, strings.Join(parts, ",")})
		default:
			out = append(out, [2]string{k, fmt.Sprint(x)})
		}
	}
	return out
}
