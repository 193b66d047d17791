package importer

import (
	"bufio"
	"fmt"
	"io"
	"net/url"
	"strings"
)

// What the readers of other platforms' files share: line scanning, the
// host of an absolute source, and placeholder expansion.

// maxPlatformLine is the longest line a reader takes; a longer one fails the
// read with bufio.ErrTooLong, named by Read as a reading error.
const maxPlatformLine = 4 << 20

// scanLines returns a scanner of in's lines with a large buffer, so
// that a file is streamed line by line and never held whole.
func scanLines(in io.Reader) *bufio.Scanner {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 0, 1<<20), maxPlatformLine)
	return sc
}

// trimLineBOM drops a UTF-8 byte order mark from the first line.
func trimLineBOM(s string) string { return strings.TrimPrefix(s, "\uFEFF") }

// hostDecision says what a source URL's host means for the project: skip
// (non-empty) when the host is not one of the project's, a note when the
// project has other hosts on which the rule will answer too. A project
// that declares no hosts takes the path of any host: as is, since it
// answers for whatever host it serves, unless noteWithoutHosts (a format
// whose other lines have no host, where a host-level line is the odd one
// out and would answer every host), then with a note (docs/migrate.md).
func hostDecision(o *Options, host string, noteWithoutHosts bool) (note, skip string) {
	h := strings.ToLower(host)
	if i := strings.LastIndexByte(h, ':'); i >= 0 && !strings.Contains(h[i:], "]") {
		h = h[:i]
	}
	if len(o.Hosts) == 0 {
		if noteWithoutHosts {
			return fmt.Sprintf("host condition dropped: the file redirects on %s only; the project declares no hosts, so here the rule answers on every host", excerpt(h)), ""
		}
		return "", ""
	}
	found := false
	for _, x := range o.Hosts {
		if strings.EqualFold(x, h) {
			found = true
			break
		}
	}
	if !found {
		return "", fmt.Sprintf("host %s is not one of the project's hosts (", excerpt(h)) + strings.Join(o.Hosts, ", ") + ")"
	}
	if len(o.Hosts) > 1 {
		return fmt.Sprintf("host condition dropped: the file redirects on %s only; here the rule answers on every host of the project (", excerpt(h)) + strings.Join(o.Hosts, ", ") + ")", ""
	}
	return "", ""
}

// splitSourceURL splits an absolute http or https URL into its scheme, host and
// path (as written, escapes kept; "/" when empty). ok is false when s is
// not such a URL.
func splitSourceURL(s string) (scheme, host, path string, ok bool) {
	lower := strings.ToLower(s)
	switch {
	case strings.HasPrefix(lower, "https://"):
		scheme, s = "https", s[len("https://"):]
	case strings.HasPrefix(lower, "http://"):
		scheme, s = "http", s[len("http://"):]
	default:
		return "", "", "", false
	}
	host, path = s, "/"
	if i := strings.IndexAny(s, "/?#"); i >= 0 {
		host, path = s[:i], s[i:]
		if path[0] != '/' {
			path = "/" + path
		}
	}
	if host == "" {
		return "", "", "", false
	}
	if _, err := url.Parse("http://" + host + "/"); err != nil {
		return "", "", "", false
	}
	return scheme, host, path, true
}

// maxPlaceholderExpansions caps the rules one line's placeholders expand into.
const maxPlaceholderExpansions = 10000

// expandPlaceholders returns every assignment of values to names (the
// cartesian product, in the order the values were given), or false when it
// would exceed maxExpansions.
func expandPlaceholders(names []string, values map[string][]string) ([]map[string]string, bool) {
	n := 1
	for _, name := range names {
		n *= len(values[name])
		if n > maxPlaceholderExpansions {
			return nil, false
		}
	}
	out := make([]map[string]string, 0, n)
	var rec func(i int, cur map[string]string)
	rec = func(i int, cur map[string]string) {
		if i == len(names) {
			m := make(map[string]string, len(cur))
			for k, v := range cur {
				m[k] = v
			}
			out = append(out, m)
			return
		}
		for _, v := range values[names[i]] {
			cur[names[i]] = v
			rec(i+1, cur)
		}
	}
	rec(0, map[string]string{})
	return out, true
}

// isPlaceholderByte reports whether c may be part of a placeholder's name.
func isPlaceholderByte(c byte) bool {
	return c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// substitutePlaceholders replaces each ":name" of s (name one of vals' keys, followed
// by a byte that cannot continue a name, or the end) with its value.
func substitutePlaceholders(s string, vals map[string]string) string {
	if len(vals) == 0 || strings.IndexByte(s, ':') < 0 {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		if s[i] == ':' {
			j := i + 1
			for j < len(s) && isPlaceholderByte(s[j]) {
				j++
			}
			if v, ok := vals[s[i+1:j]]; ok && j > i+1 {
				b.WriteString(v)
				i = j
				continue
			}
		}
		b.WriteByte(s[i])
		i++
	}
	return b.String()
}
