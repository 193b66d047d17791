package migrate

import (
	"bytes"
	"fmt"
	"io"
	"path"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Netlify's configuration file, netlify.toml: its [[redirects]] tables
// (https://docs.netlify.com/routing/redirects/#syntax-for-the-netlify-configuration-file),
// each with from, to, status, force, query, conditions (and headers,
// signed). A separate format from "netlify" (the same rules, another
// syntax); each table is reported at the line of its [[redirects]] header.
// Only the redirects tables are read, with a small reader of the TOML they
// use (strings, integers, booleans, inline tables, arrays, sub-tables such
// as [redirects.query]); the rest of the file (build settings, plugins) is
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

// tomlEntry is one [[redirects]] table being read.
type tomlEntry struct {
	line   int
	fields map[string]any
	sub    string // the sub-table being read ("query", "conditions", ...), or ""
	bad    bool
}

func readNetlifyTOML(in io.Reader, o *Options, sink *Sink) error {
	sc := scanLines(in)
	n := 0
	var cur *tomlEntry
	inRedirects := false
	multi := "" // the delimiter of a multi-line string being passed over
	var pending strings.Builder
	pendingLine := 0
	finish := func() {
		if cur != nil && !cur.bad {
			readTOMLEntry(cur, o, sink)
		}
		cur = nil
	}
	for sc.Scan() {
		n++
		raw := sc.Text()
		if n == 1 {
			raw = trimLineBOM(raw)
		}
		if multi != "" {
			if strings.Contains(raw, multi) {
				multi = ""
			}
			continue
		}
		if pending.Len() > 0 {
			pending.WriteString("\n" + raw)
			if !tomlBalanced(pending.String()) {
				continue
			}
			if cur != nil && inRedirects {
				tomlKeyValue(cur, pendingLine, pending.String(), sink)
			}
			pending.Reset()
			continue
		}
		line := strings.TrimSpace(tomlStripComment(raw))
		if line == "" {
			continue
		}
		if line[0] == '[' {
			name := strings.TrimSpace(strings.Trim(line, "[]"))
			switch {
			case line == "[[redirects]]" || strings.HasPrefix(line, "[[") && name == "redirects":
				finish()
				inRedirects = true
				cur = &tomlEntry{line: n, fields: map[string]any{}}
			case strings.HasPrefix(name, "redirects.") && !strings.HasPrefix(line, "[["):
				if cur == nil {
					sink.Bad(n, "table [%s] comes before any [[redirects]]", name)
					continue
				}
				cur.sub = strings.TrimPrefix(name, "redirects.")
				if _, ok := cur.fields[cur.sub]; !ok {
					cur.fields[cur.sub] = map[string]any{}
				}
			default:
				finish()
				inRedirects = false
			}
			continue
		}
		if !inRedirects {
			// Another table's line: pass over multi-line strings only.
			for _, d := range []string{`"""`, `'''`} {
				if strings.Count(line, d)%2 == 1 {
					multi = d
				}
			}
			continue
		}
		if !tomlBalanced(line) {
			pending.WriteString(line)
			pendingLine = n
			continue
		}
		tomlKeyValue(cur, n, line, sink)
	}
	if err := sc.Err(); err != nil {
		return err
	}
	if pending.Len() > 0 && inRedirects {
		sink.Bad(pendingLine, "an array or inline table that is never closed")
	}
	finish()
	return nil
}

// tomlKeyValue reads "key = value" into the entry (or its sub-table).
func tomlKeyValue(e *tomlEntry, n int, line string, sink *Sink) {
	k, v, ok := strings.Cut(line, "=")
	if !ok {
		sink.Bad(n, "want key = value in a [[redirects]] table")
		e.bad = true
		return
	}
	key := strings.Trim(strings.TrimSpace(k), `"'`)
	val, rest, err := tomlValue(strings.TrimSpace(v))
	if err == nil && strings.TrimSpace(rest) != "" {
		err = fmt.Errorf("unexpected %q after the value", strings.TrimSpace(rest))
	}
	if err != nil {
		sink.Bad(n, "%s: %v", key, err)
		e.bad = true
		return
	}
	if e.sub != "" {
		e.fields[e.sub].(map[string]any)[key] = val
		return
	}
	e.fields[key] = val
}

// tomlValue parses one TOML value at the start of s and returns the rest.
func tomlValue(s string) (any, string, error) {
	if s == "" {
		return nil, "", fmt.Errorf("a value is missing")
	}
	switch s[0] {
	case '"':
		var b strings.Builder
		for i := 1; i < len(s); i++ {
			switch c := s[i]; c {
			case '"':
				return b.String(), s[i+1:], nil
			case '\\':
				if i+1 >= len(s) {
					return nil, "", fmt.Errorf("a string ends in a backslash")
				}
				i++
				switch s[i] {
				case 'n':
					b.WriteByte('\n')
				case 't':
					b.WriteByte('\t')
				case '"', '\\', '/':
					b.WriteByte(s[i])
				case 'u', 'U':
					w := 4
					if s[i] == 'U' {
						w = 8
					}
					if i+w >= len(s) {
						return nil, "", fmt.Errorf("a short \\u escape")
					}
					r, err := strconv.ParseUint(s[i+1:i+1+w], 16, 32)
					if err != nil || !utf8.ValidRune(rune(r)) {
						return nil, "", fmt.Errorf("a bad \\u escape")
					}
					b.WriteRune(rune(r))
					i += w
				default:
					return nil, "", fmt.Errorf("an unknown escape \\%c", s[i])
				}
			default:
				b.WriteByte(c)
			}
		}
		return nil, "", fmt.Errorf("a string that is never closed")
	case '\'':
		j := strings.IndexByte(s[1:], '\'')
		if j < 0 {
			return nil, "", fmt.Errorf("a string that is never closed")
		}
		return s[1 : 1+j], s[2+j:], nil
	case '{':
		m := map[string]any{}
		rest := strings.TrimSpace(s[1:])
		for !strings.HasPrefix(rest, "}") {
			k, v, ok := strings.Cut(rest, "=")
			if !ok {
				return nil, "", fmt.Errorf("want key = value in an inline table")
			}
			val, r, err := tomlValue(strings.TrimSpace(v))
			if err != nil {
				return nil, "", err
			}
			m[strings.Trim(strings.TrimSpace(k), `"'`)] = val
			rest = strings.TrimSpace(r)
			if strings.HasPrefix(rest, ",") {
				rest = strings.TrimSpace(rest[1:])
			} else if !strings.HasPrefix(rest, "}") {
				return nil, "", fmt.Errorf("want ',' or '}' in an inline table")
			}
		}
		return m, rest[1:], nil
	case '[':
		var a []any
		rest := strings.TrimSpace(s[1:])
		for !strings.HasPrefix(rest, "]") {
			val, r, err := tomlValue(rest)
			if err != nil {
				return nil, "", err
			}
			a = append(a, val)
			rest = strings.TrimSpace(r)
			if strings.HasPrefix(rest, ",") {
				rest = strings.TrimSpace(rest[1:])
			} else if !strings.HasPrefix(rest, "]") {
				return nil, "", fmt.Errorf("want ',' or ']' in an array")
			}
		}
		return a, rest[1:], nil
	}
	end := strings.IndexAny(s, ",}] \t")
	if end < 0 {
		end = len(s)
	}
	word := s[:end]
	switch word {
	case "true":
		return true, s[end:], nil
	case "false":
		return false, s[end:], nil
	}
	if v, err := strconv.ParseInt(strings.ReplaceAll(word, "_", ""), 10, 64); err == nil {
		return v, s[end:], nil
	}
	return nil, "", fmt.Errorf("%q is not a string, number, boolean, array or inline table", word)
}

// tomlStripComment drops a '#' comment outside strings.
func tomlStripComment(s string) string {
	inStr := byte(0)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case inStr != 0 && c == '\\' && inStr == '"':
			i++
		case inStr != 0 && c == inStr:
			inStr = 0
		case inStr == 0 && (c == '"' || c == '\''):
			inStr = c
		case inStr == 0 && c == '#':
			return s[:i]
		}
	}
	return s
}

// tomlBalanced reports whether the brackets and braces of a value outside
// strings are closed.
func tomlBalanced(s string) bool {
	depth := 0
	inStr := byte(0)
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case inStr != 0 && c == '\\' && inStr == '"':
			i++
		case inStr != 0 && c == inStr:
			inStr = 0
		case inStr == 0 && (c == '"' || c == '\''):
			inStr = c
		case inStr == 0 && (c == '[' || c == '{'):
			depth++
		case inStr == 0 && (c == ']' || c == '}'):
			depth--
		case inStr == 0 && c == '#':
			return depth <= 0
		}
	}
	return depth <= 0
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
	readNetlifyRule(n, &l, o, sink)
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
