package export_test

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"redirects"
	"redirects/engine"
	"redirects/export"
)

// Line shapes, one regular expression per kind of line of each format. A
// token is what nginx and HAProxy read as one word: no ASCII whitespace or
// control character and none of the characters that quote, escape, end a
// directive, open a block, a variable or a comment.
const (
	tok    = `[^\x00-\x20\x7f"'\\;{}$#]+`
	src    = `/[^\x00-\x20\x7f"'\\;{}$#?]*`
	status = `(30[12])`
	logfmt = `(?:[^\x00-\x20\x7f"'\\;{}$#%]|%%)+` // a log-format string whose every '%' is doubled
	// requestPath is a source as the haproxy format writes it, as browsers
	// send it: ASCII only, '%' only in an escape with upper-case hex.
	requestPath = "/(?:[^\\x00-\\x20\\x7f-\\x{10FFFF}\"'\\\\;{}$#?%<>^`|]|%[0-9A-F]{2})*"
	rxQuote     = `(?:\\Q[^\\"\x00-\x1f\x7f]*\\E|(?:\\[\\^$.\[\]|()?*+{}]|[^\\^$.\[\]|()?*+{}"\x00-\x20\x7f'])*)`
)

// The shapes of the files of a project that uses rule options or settings
// (docs/exports.md#rule-options-and-settings): a destination may hold one
// '#', and the answers are computed from nginx variables and captures or
// HAProxy sample fetches, nothing else.
const (
	tokHash = `[^\x00-\x20\x7f"'\\;{}$]+`
	code    = `(301|302|303|307|308)`
	// target is an nginx return's or map value's text: a token with the
	// variables and captures the renderers use.
	target    = `(?:[^\x00-\x20\x7f"'\\;{}$]|\$1|\$2|\$args|\$is_args|\$redirect_exact_args|\$redirect_prefix_args)+`
	nginxIf   = `if \((?:\$is_args|\$request_uri ~ "\^\(\?:%\[0-9A-Fa-f\]\{2\}\|\[\^%\?\]\)\{[1-9][0-9]*\}\(\[\^\?\]\+\)(?:\[\?\]\(\.\+\))?")\) \{ return ` + code + ` ` + target + `; \} `
	nginxBody = `(?:(?:` + nginxIf + `)*return ` + code + ` ` + tokHash + `;|return 410;)`
	// lfExt is a log-format string whose '%' and '#' are escaped, with the
	// sample fetches the haproxy renderer uses.
	lfExt = `(?:[^\x00-\x20\x7f"'\\;{}$#%]|%%|\\#|%\[path,bytes\([0-9]+\)\]|%\[query\])+`
)

var extShapes = map[string][]*regexp.Regexp{
	"nginx": {
		regexp.MustCompile(`^# (Exact match|Prefix) redirects$`),
		regexp.MustCompile(`^location (?:=|\^~) ` + src + ` \{ ` + nginxBody + ` \}$`),
		regexp.MustCompile(`^location ~\*? "\^` + rxQuote + `(?:/\?\$|\$|\(\?:/\|\$\))?" \{ ` + nginxBody + ` \}$`),
	},
	"nginx-map-exact": {
		regexp.MustCompile(`^map \$args \$redirect_exact_args \{$|^    default "";$|^    "~\." "&\$args";$|^\}$`),
		regexp.MustCompile(`^map \$uri \$redirect_exact \{$`),
		regexp.MustCompile(`^    ` + src + ` ` + target + `;$`),
	},
	"nginx-map-prefix": {
		regexp.MustCompile(`^map \$args \$redirect_prefix_args \{$|^    default "";$|^    "~\." "&\$args";$|^\}$`),
		regexp.MustCompile(`^map \$request_uri \$redirect_prefix_rule_[1-9][0-9]* \{$|^    default "` + tokHash + `";$`),
		regexp.MustCompile(`^    "~(?:\^\(\?:%\[0-9A-Fa-f\]\{2\}\|\[\^%\?\]\)\{[1-9][0-9]*\}\(\[\^\?\]\+\))?(?:\[\?\]\(\.\+\))?" "` + target + `";$`),
		regexp.MustCompile(`^map \$uri \$redirect_prefix \{$`),
		regexp.MustCompile(`^    "~\*?\^` + rxQuote + `(?:\(\?:/\|\$\))?" "(?:` + code + ` (?:` + target + `|\$redirect_prefix_rule_[1-9][0-9]*)|410)";$`),
	},
	"haproxy": {
		regexp.MustCompile(`^# (Exact match|Prefix) redirects$`),
		regexp.MustCompile(`^acl redirect_[1-9][0-9]* (?:path|path_beg) -i ` + requestPath + `(?: ` + requestPath + `)?$`),
		regexp.MustCompile(`^http-request redirect code ` + code + ` location ` + lfExt + ` if redirect_[1-9][0-9]*(?: \{ path,length gt [0-9]+ \})?(?: \{ query -m len gt 0 \})?$`),
		regexp.MustCompile(`^http-request return status 410 if redirect_[1-9][0-9]*$`),
	},
	"haproxy-map-exact":  {regexp.MustCompile(`^` + src + ` ` + tokHash + `$`)},
	"haproxy-map-prefix": {regexp.MustCompile(`^` + src + ` (?:` + code + ` ` + tokHash + `|410)$`)},
}

// checkExtShapes fails unless every line of a file of a project that uses
// options or settings is a comment of its opening or has one of its
// format's shapes, and the file holds a line for every rule it keeps.
func checkExtShapes(t *testing.T, format string, body []byte, rules []redirects.Rule) {
	t.Helper()
	if len(body) == 0 || body[len(body)-1] != '\n' {
		t.Fatalf("%s: the file does not end with a newline", format)
	}
	if format == "csv" {
		checkCSV(t, body, rules)
		return
	}
	opening, n, acls := true, 0, map[string]bool{} // n counts the locations and ACL names
	for i, l := range strings.Split(strings.TrimSuffix(string(body), "\n"), "\n") {
		if opening && commentLine.MatchString(l) && !extShapes[format][0].MatchString(l) {
			continue
		}
		opening = false
		ok := false
		for _, re := range extShapes[format] {
			ok = ok || re.MatchString(l)
		}
		if !ok {
			t.Fatalf("%s line %d %q has none of the format's shapes\nfile:\n%s", format, i+1, l, body)
		}
		if strings.HasPrefix(l, "location ") {
			n++
		}
		if name, ok := strings.CutPrefix(l, "acl "); ok && !acls[strings.Fields(name)[0]] {
			acls[strings.Fields(name)[0]] = true
			n++
		}
	}
	// Every rule has its location, or its ACL, in the two full formats,
	// but the nginx format's preservePath rules with a source over 700
	// bytes, left out and declared ("preservePath and a source longer than
	// 700 bytes").
	want := len(rules)
	if format == "nginx" {
		for _, r := range rules {
			if r.MatchType == redirects.StartsWith && r.PreservePath && r.StatusCode != redirects.StatusGone && len(r.Source) > 700 {
				want--
				if !strings.Contains(string(body), "\n# Differs: starts_with rules with preservePath and a source longer than 700 bytes: left out") {
					t.Fatalf("nginx leaves out %.40s... undeclared:\n%s", r.Source, body)
				}
			}
		}
	}
	if (format == "haproxy" || format == "nginx" && strings.Contains(string(body), "location ~")) && n != want {
		t.Fatalf("%s holds %d locations or ACLs for %d rules:\n%s", format, n, want, body)
	}
}

var (
	commentLine = regexp.MustCompile(`^#[^\x00-\x1f\x7f]*$`)
	shapes      = map[string]map[string]*regexp.Regexp{
		"nginx": {
			"exact":  regexp.MustCompile(`^location = (` + src + `) \{ return ` + status + ` (` + tok + `); \}$`),
			"prefix": regexp.MustCompile(`^location \^~ (` + src + `) \{ return ` + status + ` (` + tok + `); \}$`),
		},
		"nginx-map-exact": {
			"open":  regexp.MustCompile(`^map \$uri \$redirect_exact \{$`),
			"entry": regexp.MustCompile(`^    (` + src + `) (` + tok + `);$`),
		},
		"nginx-map-prefix": {
			"open":    regexp.MustCompile(`^map \$uri \$redirect_prefix \{$`),
			"default": regexp.MustCompile(`^    default "";$`),
			"entry":   regexp.MustCompile(`^    "~\^(` + rxQuote + `)" "` + status + ` (` + tok + `)";$`),
		},
		"haproxy": {
			"acl":      regexp.MustCompile(`^acl redirect_([1-9][0-9]*) (path|path_beg) -i (` + requestPath + `)$`),
			"redirect": regexp.MustCompile(`^http-request redirect code ` + status + ` location (` + logfmt + `) if redirect_([1-9][0-9]*)$`),
		},
		"haproxy-map-exact": {
			"entry": regexp.MustCompile(`^(` + src + `) (` + tok + `)$`),
		},
		"haproxy-map-prefix": {
			"entry": regexp.MustCompile(`^(` + src + `) ` + status + ` (` + tok + `)$`),
		},
	}
)

// FuzzRender feeds arbitrary rules through redirects.Rule.Validate and every
// accepted rule set through every renderer, and checks that each line of
// each file has one of its format's shapes and says what the rules say, so
// no accepted input can inject a directive or break a configuration.
func FuzzRender(f *testing.F) {
	for _, s := range [][2]string{
		{"/a", "/b"}, {"/a,b", "/c%d?x=1"}, {"/a b", "/b"}, {"/a\nacl x path /", "/b"}, {"/a;", "/b"},
		{"/a", "/b; return 200"}, {"/é", "https://exämple.com/ü"}, {"/a\u2028b", "/b"}, {"/a\u00a0b", "/b"},
		{"/a.b*c+(d)[e]|f^g", "/x"}, {"/" + strings.Repeat(".", 2047), "/d"}, {"/a%[src]", "/%[src]%%"},
		{"/-i", "http://x"}, {"/a", "HTTPS://X"}, {"/a\r", "/b"}, {"/a", "/b\r\nLocation: /c"}, {"/a#b", "/b#c"},
		{"/a{", "/b"}, {"/a", "/b}"}, {"/a'", "/b"}, {`/a"`, "/b"}, {`/a\`, "/b"}, {"/a$x", "/b"}, {"/a", "//evil"},
	} {
		f.Add(s[0], s[1], 301, false, 100, "/a/b", "/x", uint8(0))
		f.Add(s[0], s[1], 302, true, 5, s[0]+"/x", s[1], uint8(0))
		f.Add(s[0], s[1], 308, true, 5, s[0]+"/x", s[1]+"#f", uint8(15))
		f.Add(s[0], "", 410, false, 5, s[0]+"/", s[1]+"?q=1#f", uint8(6))
		f.Add(s[0], s[1]+"#f", 307, true, 5, s[0]+"/x", s[1]+"?q=1#f", uint8(31))
		f.Add(s[0], s[1]+"?k=1", 308, true, 5, s[0]+"/x", s[1]+"?q=1#f", uint8(8|32))
	}
	// opts: bit 0 caseSensitive false, bit 1 trailingSlash ignore, bit 2
	// preservePath and bit 3 preserveQuery on the rules that take them,
	// bit 4 queryAfterFragment on those with preserveQuery and a fragment,
	// bit 5 mergeQuery on those with preserveQuery and a query, without
	// queryAfterFragment.
	f.Fuzz(func(t *testing.T, source, dest string, code int, prefix bool, priority int, source2, dest2 string, opts uint8) {
		t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
		mt := redirects.Exact
		if prefix {
			mt = redirects.StartsWith
		}
		candidates := []redirects.Rule{
			{Source: source, Destination: dest, StatusCode: code, MatchType: mt, Priority: priority},
			{Source: source, Destination: dest2, StatusCode: 302, MatchType: 1 - mt, Priority: 100},
			{Source: source2, Destination: dest2, StatusCode: code, MatchType: redirects.StartsWith, Priority: 50},
			{Source: source2, Destination: dest, StatusCode: 301, MatchType: redirects.Exact},
			{Source: strings.ToUpper(source), Destination: dest, StatusCode: 301, MatchType: mt, Priority: 1},
			{Source: "/", Destination: "/home", StatusCode: 301, MatchType: redirects.StartsWith, Priority: 1000},
		}
		set := redirects.Settings{CaseInsensitive: opts&1 != 0, IgnoreTrailingSlash: opts&2 != 0}
		var rules []redirects.Rule
		seen := map[string]bool{}
		for i, r := range candidates {
			if r.StatusCode != redirects.StatusGone {
				r.PreservePath = opts&4 != 0 && r.MatchType == redirects.StartsWith
				r.PreserveQuery = opts&8 != 0
				r.QueryAfterFragment = r.PreserveQuery && opts&16 != 0 && strings.Contains(r.Destination, "#")
				_, q, _ := redirects.SplitDestination(r.Destination)
				r.MergeQuery = r.PreserveQuery && opts&32 != 0 && !r.QueryAfterFragment && q != ""
			}
			if r.StatusCode == redirects.StatusGone && i > 0 {
				r.Destination = ""
			}
			key := r.MatchType.String() + " " + set.Key(r.Source)
			if r.Validate() != nil || seen[key] {
				continue
			}
			seen[key] = true
			r.ID, r.CreatedAt = int64(i+1), t0.Add(time.Duration(i)*time.Second)
			rules = append(rules, r)
		}
		if len(rules) == 0 {
			return
		}
		c, err := export.Build(rules, set)
		if err != nil {
			t.Fatalf("Build refused valid rules: %v", err)
		}
		ext := !set.IsDefault()
		for _, r := range rules {
			ext = ext || r.UsesOptions()
		}
		for i, format := range redirects.Formats {
			if ext {
				checkExtShapes(t, format, c.Exports[i].Body, rules)
			} else {
				checkShapes(t, format, c.Exports[i].Body, rules)
			}
		}
		for line := range strings.SplitSeq(strings.TrimSuffix(c.Report, "\n"), "\n") {
			if strings.ContainsFunc(line, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
				t.Errorf("report line %q holds a control character", line)
			}
		}
	})
}

// checkShapes fails unless every line of body has a shape of its format and
// the rules in the file are the ones expected from rules (every exact rule
// once, every starts_with rule or source once, with its answer).
func checkShapes(t *testing.T, format string, body []byte, rules []redirects.Rule) {
	t.Helper()
	if len(body) == 0 || body[len(body)-1] != '\n' {
		t.Fatalf("%s: the file does not end with a newline", format)
	}
	if format == "csv" {
		checkCSV(t, body, rules)
		return
	}
	sorted := append([]redirects.Rule(nil), rules...)
	engine.SortRules(sorted)
	var exact, prefix []string
	for _, r := range sorted {
		line := r.Source + " " + strconv.Itoa(r.StatusCode) + " " + r.Destination
		if r.MatchType == redirects.Exact {
			exact = append(exact, line)
		} else {
			prefix = append(prefix, line)
		}
	}
	var closure []string
	for _, w := range engine.PrefixWinners(sorted) {
		closure = append(closure, w.Source+" "+strconv.Itoa(w.Rule.StatusCode)+" "+w.Rule.Destination)
	}
	exactNo302 := func() []string {
		var out []string
		for _, e := range exact {
			f := strings.SplitN(e, " ", 3)
			out = append(out, f[0]+" "+f[2])
		}
		return out
	}

	lines := strings.Split(strings.TrimSuffix(string(body), "\n"), "\n")
	shape := shapes[format]
	var got []string
	fail := func(i int, why string) {
		t.Helper()
		t.Fatalf("%s line %d %q: %s\nfile:\n%s", format, i+1, lines[i], why, body)
	}
	switch format {
	case "nginx":
		section := ""
		for i, l := range lines {
			switch {
			case l == "# Exact match redirects" && i == 0:
				section = "exact"
			case l == "# Prefix redirects" && section == "exact":
				section = "prefix"
				got = append(got, "--")
			case shape[section] != nil && shape[section].MatchString(l):
				m := shape[section].FindStringSubmatch(l)
				got = append(got, m[1]+" "+m[2]+" "+m[3])
			default:
				fail(i, "not an nginx line of section "+section)
			}
		}
		// Sources longer than 255 bytes are left out (nginx 1.22 breaks on
		// them); the report names them.
		short := func(lines []string) []string {
			return slices.DeleteFunc(slices.Clone(lines), func(l string) bool { return strings.IndexByte(l, ' ') > 255 })
		}
		want := append(append(short(exact), "--"), short(closure)...)
		checkSame(t, format, got, want)

	case "nginx-map-exact", "nginx-map-prefix":
		i := 0
		for ; i < len(lines) && commentLine.MatchString(lines[i]); i++ {
		}
		if i == len(lines) || !shape["open"].MatchString(lines[i]) {
			fail(min(i, len(lines)-1), "want the map line after the leading comment")
		}
		i++
		if format == "nginx-map-prefix" {
			if i == len(lines) || !shape["default"].MatchString(lines[i]) {
				fail(min(i, len(lines)-1), "want the default line")
			}
			i++
		}
		for ; i < len(lines)-1; i++ {
			m := shape["entry"].FindStringSubmatch(lines[i])
			if m == nil {
				fail(i, "not a map entry")
			}
			if format == "nginx-map-exact" {
				got = append(got, m[1]+" "+m[2])
				continue
			}
			// rxQuote lets only escaped metacharacters through, so the
			// expression is a literal: unescaped, it must be its source,
			// and RE2, which reads these escapes as PCRE does, must agree.
			lit := m[1]
			if q, ok := strings.CutPrefix(lit, `\Q`); ok {
				lit = strings.TrimSuffix(q, `\E`)
			} else {
				lit = regexp.MustCompile(`\\(.)`).ReplaceAllString(lit, "$1")
			}
			re, err := regexp.Compile(`^` + m[1])
			if err != nil || !re.MatchString(lit) || re.MatchString(dropLastRune(lit)) {
				fail(i, fmt.Sprintf("the expression does not match %q literally (%v)", lit, err))
			}
			got = append(got, lit+" "+m[2]+" "+m[3])
		}
		if lines[len(lines)-1] != "}" {
			fail(len(lines)-1, "want the closing brace")
		}
		if format == "nginx-map-prefix" {
			checkSame(t, format, got, prefix)
		} else {
			// Sources equal up to case keep the first one only.
			var want []string
			keys := map[string]bool{}
			for _, e := range exactNo302() {
				key := asciiLower(strings.SplitN(e, " ", 2)[0])
				if !keys[key] {
					keys[key] = true
					want = append(want, e)
				}
			}
			checkSame(t, format, got, want)
		}

	case "haproxy":
		section, n := "", 0
		for i := 0; i < len(lines); i++ {
			l := lines[i]
			switch {
			case section == "" && l != "# Exact match redirects" && commentLine.MatchString(l):
			case l == "# Exact match redirects" && section == "":
				section = "path"
			case l == "# Prefix redirects" && section == "path":
				section = "path_beg"
				got = append(got, "--")
			case section != "" && shape["acl"].MatchString(l) && i+1 < len(lines) && shape["redirect"].MatchString(lines[i+1]):
				a, r := shape["acl"].FindStringSubmatch(l), shape["redirect"].FindStringSubmatch(lines[i+1])
				n++
				if a[1] != strconv.Itoa(n) || r[3] != a[1] || a[2] != section {
					fail(i, fmt.Sprintf("want ACL redirect_%d with %s and its redirect line", n, section))
				}
				// The source as browsers send it decodes to the source.
				src, err := url.PathUnescape(a[3])
				if err != nil {
					fail(i, err.Error())
				}
				got = append(got, src+" "+r[1]+" "+strings.ReplaceAll(r[2], "%%", "%"))
				i++
			default:
				fail(i, "not an haproxy line of section "+section)
			}
		}
		want := append(append(append([]string(nil), exact...), "--"), prefix...)
		checkSame(t, format, got, want)

	case "haproxy-map-exact", "haproxy-map-prefix":
		i := 0
		for ; i < len(lines) && commentLine.MatchString(lines[i]); i++ {
		}
		for ; i < len(lines); i++ {
			m := shape["entry"].FindStringSubmatch(lines[i])
			if m == nil {
				fail(i, "not a map line")
			}
			got = append(got, strings.Join(m[1:], " "))
		}
		if format == "haproxy-map-exact" {
			checkSame(t, format, got, exactNo302())
		} else {
			checkSame(t, format, got, closure)
		}
	default:
		t.Fatalf("no shapes for format %s", format)
	}
}

func checkCSV(t *testing.T, body []byte, rules []redirects.Rule) {
	t.Helper()
	for i, l := range strings.Split(strings.TrimSuffix(string(body), "\r\n"), "\r\n") {
		if strings.ContainsAny(l, "\r\n") {
			t.Fatalf("csv record %d %q holds a line break; records end with CRLF", i+1, l)
		}
	}
	recs, err := csv.NewReader(bytes.NewReader(body)).ReadAll()
	if err != nil {
		t.Fatalf("csv does not parse: %v\n%s", err, body)
	}
	sorted := append([]redirects.Rule(nil), rules...)
	engine.SortRules(sorted)
	want := [][]string{{"source", "destination", "statusCode", "matchType"}}
	for _, r := range sorted {
		want = append(want, []string{r.Source, r.Destination, strconv.Itoa(r.StatusCode), r.MatchType.String()})
	}
	if fmt.Sprint(recs) != fmt.Sprint(want) {
		t.Fatalf("csv records\n%q\nwant\n%q", recs, want)
	}
}

func checkSame(t *testing.T, format string, got, want []string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("%s holds\n%q\nwant\n%q", format, got, want)
	}
}

func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

func dropLastRune(s string) string {
	_, n := utf8.DecodeLastRuneInString(s)
	return s[:len(s)-n]
}
