package importer

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"regexp/syntax"
	"slices"
	"strconv"
	"strings"

	"redirects"
	"redirects/engine/pattern"
)

// Apache httpd configuration and .htaccess files: mod_alias's Redirect,
// RedirectPermanent, RedirectTemp and RedirectMatch, and the common shapes
// of mod_rewrite's RewriteRule with the R, G, L, NC, QSA and QSD flags
// (https://httpd.apache.org/docs/2.4/mod/mod_alias.html,
// https://httpd.apache.org/docs/2.4/rewrite/flags.html). docs/migrate.md
// "Apache" says what each shape becomes.
func init() {
	Register(&Format{
		Name:        "apache",
		Title:       "Apache httpd configuration or .htaccess",
		FirstMatch:  true,
		Defaults:    &redirects.Settings{},
		DefaultsWhy: "Apache compares paths case-sensitively and with a trailing slash significant",
		Detect:      detectApache,
		Read:        readApache,
		Example: "# .htaccess\n" +
			"Redirect 301 /old /new\n" +
			"RedirectPermanent /docs/ https://docs.example.com/\n" +
			"Redirect gone /retired\n" +
			"RedirectMatch 302 ^/blog/(.*)$ /news/$1\n" +
			"RewriteEngine On\n" +
			"RewriteRule ^shop/?$ /store [R=301,L]\n" +
			"RewriteRule ^cart(.*)$ /basket$1 [R=308,L,QSA]\n",
	})
}

// detectApache: a line that is an Apache redirect directive, with its
// arguments' shape (a Redirect's URL-path starts with '/', a RedirectMatch
// has a regular expression and a URL, RewriteEngine takes On or Off), so
// that a CSV header such as Shopify's "Redirect from,Redirect to" is not
// taken for one.
func detectApache(head []byte, _ string) (bool, string) {
	for line := range bytes.SplitSeq(head, []byte("\n")) {
		f := strings.Fields(string(line))
		if len(f) < 2 {
			continue
		}
		args := f[1:]
		switch strings.ToLower(f[0]) {
		case "redirect", "redirectpermanent", "redirecttemp":
			if _, ok := apacheStatus(args[0]); ok {
				args = args[1:]
			}
			if len(args) >= 1 && len(args) <= 2 && strings.HasPrefix(args[0], "/") && (len(args) == 1 || isURL(args[1])) {
				return true, "a line is the Apache directive " + f[0]
			}
		case "redirectmatch":
			if _, ok := apacheStatus(args[0]); ok {
				args = args[1:]
			}
			if len(args) >= 1 && len(args) <= 2 && (len(args) == 1 || isURL(args[1])) {
				return true, "a line is the Apache directive " + f[0]
			}
		case "rewriterule":
			if len(args) >= 2 && len(args) <= 3 {
				return true, "a line is the Apache directive " + f[0]
			}
		case "rewriteengine":
			if len(args) == 1 && (strings.EqualFold(args[0], "on") || strings.EqualFold(args[0], "off")) {
				return true, "a line is the Apache directive " + f[0]
			}
		}
	}
	return false, ""
}

// apacheFields splits a directive line into its arguments: words separated
// by spaces, or quoted with " or ' (a backslash escapes the quote).
func apacheFields(s string) ([]string, bool) {
	var out []string
	i := 0
	for {
		for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r') {
			i++
		}
		if i >= len(s) {
			return out, true
		}
		if q := s[i]; q == '"' || q == '\'' {
			var b strings.Builder
			i++
			for {
				if i >= len(s) {
					return out, false
				}
				if s[i] == '\\' && i+1 < len(s) && s[i+1] == q {
					b.WriteByte(q)
					i += 2
					continue
				}
				if s[i] == q {
					i++
					break
				}
				b.WriteByte(s[i])
				i++
			}
			out = append(out, b.String())
			continue
		}
		j := i
		for j < len(s) && s[j] != ' ' && s[j] != '\t' && s[j] != '\r' {
			j++
		}
		out = append(out, s[i:j])
		i = j
	}
}

// apacheStatus reads mod_alias's status argument: a keyword or a number.
func apacheStatus(s string) (int, bool) {
	switch strings.ToLower(s) {
	case "permanent":
		return 301, true
	case "temp":
		return 302, true
	case "seeother":
		return 303, true
	case "gone":
		return 410, true
	}
	if n, err := strconv.Atoi(s); err == nil && len(s) == 3 {
		return n, true
	}
	return 0, false
}

// isURL reports whether s is what Apache takes as a redirect target: an
// absolute URL (scheme://...) or a path.
func isURL(s string) bool {
	if strings.HasPrefix(s, "/") {
		return true
	}
	i := strings.Index(s, "://")
	if i <= 0 {
		return false
	}
	for j := 0; j < i; j++ {
		if c := s[j]; !isAlnum(c) && c != '+' && c != '-' && c != '.' {
			return false
		}
	}
	return true
}

// rewriteFlags are mod_rewrite's flags, by their long and short names
// (https://httpd.apache.org/docs/2.4/rewrite/flags.html).
var rewriteFlags = map[string]string{
	"b": "B", "bctls": "BCTLS", "bne": "BNE", "bnp": "BNP", "backrefnoplus": "BNP",
	"c": "C", "chain": "C", "co": "CO", "cookie": "CO", "dpi": "DPI", "discardpath": "DPI",
	"e": "E", "env": "E", "end": "END", "f": "F", "forbidden": "F", "g": "G", "gone": "G",
	"h": "H", "handler": "H", "l": "L", "last": "L", "n": "N", "next": "N",
	"nc": "NC", "nocase": "NC", "ne": "NE", "noescape": "NE", "ns": "NS", "nosubreq": "NS",
	"p": "P", "proxy": "P", "pt": "PT", "passthrough": "PT", "qsa": "QSA", "qsappend": "QSA",
	"qsd": "QSD", "qsdiscard": "QSD", "qsl": "QSL", "qslast": "QSL", "r": "R", "redirect": "R",
	"s": "S", "skip": "S", "t": "T", "type": "T", "unsafeallow3f": "UnsafeAllow3F",
	"unsafeprefixstat": "UnsafePrefixStat",
}

// apacheBlock is an open section, with the scope it and the sections
// around it give the lines inside, worked out once as it opens (a
// directive reads it from the innermost section, in constant time).
type apacheBlock struct {
	name, arg string
	lower     string // name in lower case
	line      int
	// skip and note are what scope returns inside the section.
	skip, note string
	// loc is the argument of the innermost <Location>, unquoted.
	loc string
	// locSkip and locNotes are what locationRedirect reports inside it:
	// the first section that keeps a Redirect without URL-path out, and
	// the notes of the <VirtualHost> sections outside that one.
	locSkip  string
	locNotes []string
}

// maxApacheDepth caps how deeply sections nest: a deeper one is a bad
// line, and the read stops there.
const maxApacheDepth = 64

type apacheCond struct {
	line       int
	text       string
	host       bool
	testString string
	// hosts are the hosts a host condition names, or why says why it
	// names none this reader reads.
	hosts []string
	why   string
	// query: a condition on %{QUERY_STRING}; param is the query condition
	// it is (key=value), note how it answers otherwise, if it does.
	query       bool
	param, note string
	// uri: a negated test of %{REQUEST_URI}; excluded is the RE2
	// expression of the paths it fails on (matched against the whole
	// path), or why says why not.
	uri      bool
	excluded string
	// backref: a test of the RewriteRule's group $backref, which must
	// differ from notText (RewriteCond $N !=text).
	backref int
	notText string
}

// apacheSkip is a RewriteRule "pattern - [S=n]": when re (RE2, the whole
// path) matches, Apache skips the next left RewriteRules; why says why
// the rules it skips cannot leave its paths out.
type apacheSkip struct {
	line int
	left int
	re   string
	why  string
}

type apacheReader struct {
	o      *Options
	sink   *Sink
	blocks []apacheBlock
	engine bool
	conds  []apacheCond
	// inAlias is set while a mod_alias directive (Redirect, RedirectMatch)
	// is read: its rules wait in deferred, because Apache runs mod_rewrite
	// (every RewriteRule, wherever it stands) before mod_alias, and the
	// pipeline takes a first-match file's order from the order of the
	// rules it is given.
	inAlias bool
	// deferred holds them, compact; once they and the sink's rules pass
	// the limit, the file is refused at one of them, and only their lines
	// are kept (to name that line).
	deferred heldRules
	// condRules are the query conditions of the RewriteRule being read.
	condRules []string
	// excluded are the paths its negated %{REQUEST_URI} conditions fail
	// on (RE2, matched against the whole path), with the first such
	// condition's line.
	excluded     []string
	excludedLine int
	// groupNE are the texts its RewriteCond $N !=text tests leave out,
	// by group.
	groupNE map[int][]string
	// skips are the [S=n] windows open at the line read: at most
	// maxSkipWindows importable ones and one refused (the refused windows
	// open at once all cover the next rule, so the longest stands for
	// them all). A section with rules of its own starts with none.
	skips []apacheSkip
	// chainLine is the line of the RewriteRule above with the flag C: the
	// next one runs only when that one matched.
	chainLine int
	// skipConds lists the RewriteRule's conditions as skipped with it.
	skipConds func()
	// tooDeep is set when a section opens past maxApacheDepth.
	tooDeep bool
	// restRegexes counts the regex rules made for a Redirect to a URL
	// with a query or fragment (maxApacheRestRegexes).
	restRegexes int
}

// maxApacheRestRegexes caps the regex rules a file's Redirects to a URL
// with a query or fragment make, so that they leave most of a project's
// regex rules (redirects.MaxRegexRules) to the file's own expressions:
// past it, the rest of the path joins the URL's path, changed, noted.
const maxApacheRestRegexes = 1000

// emit hands a rule to the sink, or holds it while a mod_alias directive
// is read (see inAlias).
func (a *apacheReader) emit(line int, r redirects.Rule) {
	if a.inAlias {
		a.deferred.add(line, r)
		if m := a.sink.maxRules; m > 0 && !a.deferred.noBodies && a.deferred.len()+a.sink.numRules() > m {
			a.deferred.dropBodies()
		}
		return
	}
	a.sink.Rule(line, r)
}

func readApache(in io.Reader, o *Options, sink *Sink) error {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	a := &apacheReader{o: o, sink: sink}
	line := 0
	var cont strings.Builder
	start := 0
	for sc.Scan() {
		line++
		text := sc.Text()
		if line == 1 {
			text = strings.TrimPrefix(text, "\uFEFF")
		}
		// A backslash at the end of a line continues the directive.
		if t := strings.TrimRight(text, " \t\r"); strings.HasSuffix(t, "\\") {
			if cont.Len() == 0 {
				start = line
			}
			if cont.Len() > MaxLineLen {
				// Without a bound, a file of continued lines would be
				// one directive as long as the file.
				sink.Bad(start, "the directive continued from this line is longer than %d bytes", MaxLineLen)
				return nil
			}
			cont.WriteString(t[:len(t)-1])
			cont.WriteByte(' ')
			continue
		}
		at := line
		if cont.Len() > 0 {
			cont.WriteString(text)
			text, at = cont.String(), start
			cont.Reset()
		}
		a.line(at, text)
		if a.tooDeep {
			return nil
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	if cont.Len() > 0 {
		a.line(start, cont.String())
	}
	for _, b := range a.blocks {
		sink.Bad(b.line, "<%s> is not closed", b.name)
	}
	// mod_alias answers after mod_rewrite: its rules come last, in their
	// own order.
	sink.takeHeld(&a.deferred)
	return nil
}

func (a *apacheReader) line(line int, text string) {
	t := strings.TrimSpace(text)
	if t == "" || t[0] == '#' {
		return
	}
	if strings.HasPrefix(t, "</") {
		name := strings.ToLower(strings.TrimSuffix(strings.TrimSpace(t[2:]), ">"))
		if n := len(a.blocks); n == 0 || a.blocks[n-1].lower != name {
			a.sink.Bad(line, "%s closes no open section", t)
			return
		}
		a.blocks = a.blocks[:len(a.blocks)-1]
		a.newRuleList(name)
		return
	}
	if t[0] == '<' {
		if !strings.HasSuffix(t, ">") {
			a.sink.Bad(line, "the section %s does not end with >", t)
			return
		}
		name, arg, _ := strings.Cut(strings.TrimSpace(t[1:len(t)-1]), " ")
		if len(a.blocks) >= maxApacheDepth {
			a.sink.Bad(line, "the section <%s> is nested more than %d levels deep", name, maxApacheDepth)
			a.tooDeep = true
			return
		}
		a.open(line, name, strings.TrimSpace(arg))
		return
	}
	f, ok := apacheFields(t)
	if !ok {
		a.sink.Bad(line, "a quote is not closed")
		return
	}
	switch strings.ToLower(f[0]) {
	case "redirect", "redirectpermanent", "redirecttemp":
		a.inAlias = true
		a.redirect(line, f)
		a.inAlias = false
	case "redirectmatch":
		a.inAlias = true
		a.redirectMatch(line, f)
		a.inAlias = false
	case "rewriteengine":
		if len(f) != 2 || (!strings.EqualFold(f[1], "on") && !strings.EqualFold(f[1], "off")) {
			a.sink.Bad(line, "RewriteEngine takes On or Off")
			return
		}
		a.engine = strings.EqualFold(f[1], "on")
	case "rewritecond":
		a.cond(line, t, f)
	case "rewriterule":
		a.rewriteRule(line, f)
	case "include", "includeoptional":
		// It may bring in Redirect and RewriteRule lines, at any level.
		a.sink.Skip(line, "%s %s: the included files are not read; import each on its own", f[0], strings.Join(f[1:], " "))
	case "rewritemap":
		a.sink.Skip(line, "RewriteMap %s: the map's entries are not read; a RewriteRule that uses it is skipped", strings.Join(f[1:], " "))
	default:
		// Other directives answer no redirect.
		return
	}
	a.sink.Text(line, text)
}

// open pushes a section, with the scope of the lines inside it: that of
// the section around it, narrowed by this one. Messages quote the file's
// names and arguments as excerpts.
func (a *apacheReader) open(line int, name, arg string) {
	b := apacheBlock{name: name, arg: arg, lower: strings.ToLower(name), line: line}
	if n := len(a.blocks); n > 0 {
		p := &a.blocks[n-1]
		b.skip, b.note, b.loc, b.locSkip, b.locNotes = p.skip, p.note, p.loc, p.locSkip, p.locNotes
	}
	outside := fmt.Sprintf("inside <%s %s>: a condition or scope our rules cannot express", excerpt(name), excerpt(arg))
	switch b.lower {
	case "ifmodule", "ifdefine", "ifversion", "ifdirective", "ifsection", "iffile":
		// Read: the modules this reader reads are loaded where the
		// file is used.
	case "virtualhost":
		b.note = fmt.Sprintf("inside <VirtualHost %s>: Apache answers it only for that virtual host, here for every host of the project", excerpt(arg))
	case "directory":
		b.note = fmt.Sprintf("inside <Directory %s>: Apache answers it only for requests mapped into that directory, here for every path", excerpt(arg))
	case "location":
		b.note = fmt.Sprintf("inside <Location %s>: Apache answers it only under that path, here for every path", excerpt(arg))
		b.loc = strings.Trim(arg, `"'`)
	default:
		if b.skip == "" {
			b.skip = outside
		}
	}
	if b.skip != "" {
		b.note = ""
	}
	if b.locSkip == "" {
		switch b.lower {
		case "location", "ifmodule", "ifdefine", "ifversion":
		case "virtualhost":
			b.locNotes = append(b.locNotes[:len(b.locNotes):len(b.locNotes)], b.note)
		default:
			b.locSkip = outside
		}
	}
	a.blocks = append(a.blocks, b)
	a.newRuleList(b.lower)
}

// newRuleList starts a new list of RewriteRules where a section (lower:
// its name in lower case) opens or closes, unless it is a conditional
// one (<IfModule> and the like), whose lines belong to the list around
// it: Apache keeps one list per server, virtual host and directory
// context, and a skip or a chain reaches no rule of another list.
func (a *apacheReader) newRuleList(lower string) {
	switch lower {
	case "ifmodule", "ifdefine", "ifversion", "ifdirective", "ifsection", "iffile":
		return
	}
	a.skips, a.chainLine = nil, 0
}

// scope returns why the sections around a line keep its rules out (skip),
// or how they narrow them (note).
func (a *apacheReader) scope() (skip, note string) {
	if n := len(a.blocks); n > 0 {
		return a.blocks[n-1].skip, a.blocks[n-1].note
	}
	return "", ""
}

// redirect reads Redirect, RedirectPermanent and RedirectTemp: mod_alias
// matches the URL-path against the decoded request path segment-wise (a
// URL-path /a matches /a and /a/..., not /ab) and appends the rest of the
// path to the URL; the request's query is appended when the URL has none.
func (a *apacheReader) redirect(line int, f []string) {
	name, args := f[0], f[1:]
	code := 302
	switch strings.ToLower(name) {
	case "redirectpermanent":
		code = 301
	case "redirecttemp":
		code = 302
	default:
		if len(args) > 0 {
			if c, ok := apacheStatus(args[0]); ok {
				code, args = c, args[1:]
			}
		}
	}
	redirectish := code >= 300 && code < 400
	// Inside <Location PATH> the URL-path may be left out: the redirect
	// answers the location's paths (PATH, PATH/...) with the URL, the rest
	// of the path not appended (checked against Apache 2.4).
	if loc := a.location(); loc != "" && (redirectish && len(args) == 1 && isURL(args[0]) || !redirectish && len(args) == 0) {
		a.locationRedirect(line, loc, code, args)
		return
	}
	switch {
	case len(args) == 0:
		a.sink.Bad(line, "%s needs a URL-path", name)
		return
	case redirectish && len(args) == 1:
		a.sink.Bad(line, "%s %s needs a URL to redirect to", name, args[0])
		return
	case !redirectish && len(args) > 1:
		a.sink.Bad(line, "%s with status %d takes no URL (Redirect URL not valid for this status)", name, code)
		return
	case len(args) > 2:
		a.sink.Bad(line, "%s takes [status] URL-path URL, not %d arguments", name, len(args))
		return
	case redirectish && !isURL(args[1]):
		a.sink.Bad(line, "%s to %s: the URL is neither absolute nor a path (Redirect to non-URL)", name, args[1])
		return
	}
	if skip, note := a.scope(); skip != "" {
		a.sink.Skip(line, "%s", skip)
		return
	} else if note != "" {
		a.sink.Note(line, "%s", note)
	}
	src := args[0]
	if !strings.HasPrefix(src, "/") {
		a.sink.Skip(line, "the URL-path %s does not start with '/'", src)
		return
	}
	if strings.Contains(src, "%") {
		a.sink.Skip(line, "the URL-path %s holds '%%': Apache compares it with the decoded request path, so %%XX stands for itself there", src)
		return
	}
	if !redirects.ValidStatus(code) {
		a.sink.Skip(line, "status %d is not one of ours (301, 302, 303, 307, 308, 410)", code)
		return
	}
	var dst string
	if code != 410 {
		dst = args[1]
	}
	pq := code != 410 && !strings.Contains(dst, "?")
	// Apache appends the request's query after the whole URL, its
	// fragment included: queryAfterFragment.
	qaf := pq && strings.Contains(dst, "#")
	if strings.HasSuffix(src, "/") {
		if code != 410 && !strings.HasPrefix(dst, "/") && !hasURLPath(dst) {
			a.sink.Note(line, "the URL %s has no path: Apache appends the rest of the path to the host, here after a '/'", dst)
		}
		if qaf {
			a.sink.Note(line, "Apache appends the rest of the path after the URL's fragment (%s); here the rest joins the URL's path", dst)
		}
		a.emit(line, redirects.Rule{Source: src, MatchType: redirects.StartsWith, Destination: dst, StatusCode: code, PreservePath: code != 410, PreserveQuery: pq,
			QueryAfterFragment: qaf})
		return
	}
	// /a: exactly /a, and /a/... with the rest appended after the URL.
	pdst := dst
	if code != 410 && strings.ContainsAny(dst, "?#") && !strings.ContainsAny(dst, "${}") && a.restRegexes < maxApacheRestRegexes {
		// After the URL's query or fragment, where Apache appends it: a
		// regex rule inserts the rest there.
		a.restRegexes++
		a.emit(line, redirects.Rule{Source: src, MatchType: redirects.Exact, Destination: dst, StatusCode: code, PreserveQuery: pq, QueryAfterFragment: qaf})
		a.emit(line, redirects.Rule{Source: literalRE(src) + "(/(?s:.*))", MatchType: redirects.Regex, Destination: dst + "$1", StatusCode: code, PreserveQuery: pq,
			QueryAfterFragment: qaf})
		return
	}
	if code != 410 {
		if strings.ContainsAny(dst, "?#") {
			a.sink.Note(line, "Apache appends the rest of the path after the URL's query or fragment (%s); here the rest joins the URL's path", dst)
			p, q, fr := redirects.SplitDestination(dst)
			pdst = p + "/"
			if q != "" {
				pdst += "?" + q
			}
			pdst += fr
		} else {
			pdst = dst + "/"
		}
	}
	a.emit(line, redirects.Rule{Source: src, MatchType: redirects.Exact, Destination: dst, StatusCode: code, PreserveQuery: pq, QueryAfterFragment: qaf})
	a.emit(line, redirects.Rule{Source: src + "/", MatchType: redirects.StartsWith, Destination: pdst, StatusCode: code, PreservePath: code != 410, PreserveQuery: pq,
		QueryAfterFragment: qaf})
}

// location returns the path of the innermost <Location> around the line,
// or "".
func (a *apacheReader) location() string {
	if n := len(a.blocks); n > 0 {
		return a.blocks[n-1].loc
	}
	return ""
}

// locationRedirect reads a Redirect without its URL-path inside
// <Location loc>.
func (a *apacheReader) locationRedirect(line int, loc string, code int, args []string) {
	b := &a.blocks[len(a.blocks)-1] // inside a <Location>
	for _, n := range b.locNotes {
		a.sink.Note(line, "%s", n)
	}
	if b.locSkip != "" {
		a.sink.Skip(line, "%s", b.locSkip)
		return
	}
	if !strings.HasPrefix(loc, "/") || strings.ContainsAny(loc, "%*?[") {
		a.sink.Skip(line, "the location %s is not a plain path", loc)
		return
	}
	if !redirects.ValidStatus(code) {
		a.sink.Skip(line, "status %d is not one of ours (301, 302, 303, 307, 308, 410)", code)
		return
	}
	dst := ""
	if code != 410 {
		dst = args[0]
		if strings.Contains(dst, "%{") {
			a.sink.Skip(line, "the URL %s is an expression with variables", dst)
			return
		}
	}
	pq := code != 410 && !strings.Contains(dst, "?")
	qaf := pq && strings.Contains(dst, "#") // after the fragment, as Apache appends it
	src := strings.TrimSuffix(loc, "/")
	if src != "" {
		a.emit(line, redirects.Rule{Source: src, MatchType: redirects.Exact, Destination: dst, StatusCode: code, PreserveQuery: pq, QueryAfterFragment: qaf})
	}
	a.emit(line, redirects.Rule{Source: src + "/", MatchType: redirects.StartsWith, Destination: dst, StatusCode: code, PreserveQuery: pq, QueryAfterFragment: qaf})
}

// redirectMatch reads RedirectMatch [status] regex [URL].
func (a *apacheReader) redirectMatch(line int, f []string) {
	name, args := f[0], f[1:]
	code := 302
	if len(args) > 0 {
		if c, ok := apacheStatus(args[0]); ok {
			code, args = c, args[1:]
		}
	}
	redirectish := code >= 300 && code < 400
	switch {
	case len(args) == 0:
		a.sink.Bad(line, "%s needs a regular expression", name)
		return
	case redirectish && len(args) == 1:
		a.sink.Bad(line, "%s %s needs a URL to redirect to", name, args[0])
		return
	case !redirectish && len(args) > 1:
		a.sink.Bad(line, "%s with status %d takes no URL", name, code)
		return
	case len(args) > 2:
		a.sink.Bad(line, "%s takes [status] regex URL, not %d arguments", name, len(args))
		return
	}
	if skip, note := a.scope(); skip != "" {
		a.sink.Skip(line, "%s", skip)
		return
	} else if note != "" {
		a.sink.Note(line, "%s", note)
	}
	if !redirects.ValidStatus(code) {
		a.sink.Skip(line, "status %d is not one of ours (301, 302, 303, 307, 308, 410)", code)
		return
	}
	dst := ""
	if code != 410 {
		dst = args[1]
	}
	a.regexRules(line, args[0], false, false, nil, dst, code, code != 410 && !strings.Contains(dst, "?"))
}

// regexRules emits the rules of a RedirectMatch or RewriteRule whose
// expression is re (perDir: a RewriteRule's, searched in the path without
// its leading '/'; ci: [NC]), for each of hosts (none: every host). An
// anchored literal, with an optional trailing slash, becomes exact rules;
// every other expression RE2 reads as PCRE does becomes a regex rule with
// $N captures (docs/migrate.md "Apache").
func (a *apacheReader) regexRules(line int, re string, perDir, ci bool, hosts []string, dst string, code int, pq bool) {
	var rules []redirects.Rule
	shape, why := parseLiteralDotShape(re, perDir)
	shape.ci = shape.ci || ci
	if why == "" && len(a.excluded) == 0 && len(a.groupNE) == 0 && !strings.Contains(shape.lit, "%") &&
		!(shape.ci && !a.o.Settings.CaseInsensitive && hasLetter(shape.lit)) {
		// An anchored literal (exact), a prefix (starts_with) or a prefix
		// with its rest captured as $1 at the end of the URL (starts_with
		// with preservePath, which appends the rest where $1 stands):
		// they answer as the expression does.
		var note string
		rules, note, why = shapeRules(shape, dst, code, a.o.Settings)
		if why == "" && note != "" {
			a.sink.Note(line, "%s", note)
		}
	} else {
		why = "regex"
	}
	if why != "" {
		src, groups, why := pcreRegex(re, perDir, ci)
		if why != "" {
			a.sink.Skip(line, "%s", why)
			return
		}
		d := ""
		if code != 410 {
			if d, why = pcreDestination(dst, groups, true); why != "" {
				a.sink.Skip(line, "%s", why)
				return
			}
		}
		if len(a.excluded) > 0 || len(a.groupNE) > 0 {
			if ci || a.o.Settings.CaseInsensitive {
				a.sink.Skip(line, "its RewriteCond on line %d tests the path with regard to case, the rule without", a.excludedLine)
				a.skipConds()
				return
			}
			// Literal text and a captured rest (excludeFromRest); else
			// groups of a class each (excludeAtGroup), which a test of a
			// group needs.
			out, why := "", "a test of a group"
			if len(a.groupNE) == 0 {
				out, why = excludeFromRest(src, a.excluded)
			}
			if why != "" {
				gsrc, gd, gwhy := excludeAtGroup(src, d, a.excluded, a.groupNE)
				if gwhy != "" {
					if _, _, rest := restCapture(src); len(a.groupNE) > 0 || !rest {
						// Not of excludeFromRest's shape: the reason is
						// excludeAtGroup's.
						why = gwhy
					}
					a.sink.Skip(line, "its RewriteCond or skip on line %d excludes paths: %s", a.excludedLine, why)
					a.skipConds()
					return
				}
				out, d = gsrc, gd
			}
			src = out
		}
		rules = []redirects.Rule{{Source: src, MatchType: redirects.Regex, Destination: d, StatusCode: code}}
	}
	if len(hosts) == 0 {
		hosts = []string{""}
	}
	for _, h := range hosts {
		for _, r := range rules {
			if len(a.condRules) > 0 {
				if r.MatchType == redirects.Regex {
					r.Source += "$"
				}
				r.Source += "?" + strings.Join(a.condRules, "&")
			}
			r.PreserveQuery = pq
			// Apache appends the request's query after the whole URL,
			// its fragment included (after '&' when the URL holds a '?').
			r.QueryAfterFragment = pq && strings.Contains(r.Destination, "#")
			r.Host = h
			a.emit(line, r)
		}
	}
}

func hasLetter(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i] | 0x20; 'a' <= c && c <= 'z' {
			return true
		}
	}
	return false
}

// cond records a RewriteCond for the next RewriteRule.
func (a *apacheReader) cond(line int, t string, f []string) {
	if len(f) < 3 || len(f) > 4 {
		a.sink.Bad(line, "RewriteCond takes TestString CondPattern [flags]")
		return
	}
	c := apacheCond{line: line, text: t, testString: f[1]}
	switch {
	case strings.EqualFold(f[1], "%{HTTP_HOST}"):
		c.host = true
		c.hosts, c.why = apacheHostCond(f[2], f[3:])
	case strings.EqualFold(f[1], "%{QUERY_STRING}"):
		c.query = true
		c.param, c.note, c.why = apacheQueryCond(f[2], f[3:])
	case strings.EqualFold(f[1], "%{REQUEST_URI}") && strings.HasPrefix(f[2], "!"):
		c.uri = true
		c.excluded, c.why = apacheURIExcluded(f[2][1:], f[3:])
	case strings.EqualFold(f[1], "expr"):
		if body, ok := apacheURIExpr(f[2]); ok {
			c.uri = true
			c.excluded, c.why = apacheURIExcluded(body, f[3:])
		}
	case len(f[1]) == 2 && f[1][0] == '$' && '1' <= f[1][1] && f[1][1] <= '9' && strings.HasPrefix(f[2], "!="):
		// $N !=text: the rule's group N must not be text.
		c.backref, c.notText = int(f[1][1]-'0'), f[2][2:]
		if c.notText == `""` {
			// Apache reads ="" as the empty string.
			c.notText = ""
		}
		if len(f) > 3 {
			c.why = fmt.Sprintf("the test of %s has flags %s", f[1], f[3])
		}
	}
	a.conds = append(a.conds, c)
}

// apacheHostCond reads the CondPattern of a RewriteCond on %{HTTP_HOST}
// that names hosts: ^host$ (its dots escaped or not), ^(www\.)?host$ (the
// host and www.host) and =host. The host key compares letters regardless
// of case, as browsers send hosts in lower case. It returns why not for any
// other test (a negation, an unanchored search, [OR]).
func apacheHostCond(pat string, flags []string) ([]string, string) {
	if len(flags) == 1 {
		for _, fl := range strings.Split(strings.Trim(flags[0], "[]"), ",") {
			switch strings.ToLower(strings.TrimSpace(fl)) {
			case "nc", "nocase":
			default:
				return nil, fmt.Sprintf("the host condition's flag %s is not importable", excerpt(fl))
			}
		}
	}
	if strings.HasPrefix(pat, "!") {
		return nil, fmt.Sprintf("the negated host condition %s matches every host but some", excerpt(pat))
	}
	var body string
	www := false
	switch {
	case strings.HasPrefix(pat, "="):
		body = pat[1:]
	case strings.HasPrefix(pat, "^") && strings.HasSuffix(pat, "$") && !strings.HasSuffix(pat, `\$`):
		body = pat[1 : len(pat)-1]
		if b, ok := strings.CutPrefix(body, `(www\.)?`); ok {
			body, www = b, true
		}
		body = strings.ReplaceAll(body, `\.`, ".")
		body = strings.ReplaceAll(body, `\-`, "-")
	default:
		return nil, fmt.Sprintf("the host condition %s is not an anchored host (^host$) or =host", excerpt(pat))
	}
	body = strings.TrimSuffix(body, ".")
	for i := 0; i < len(body); i++ {
		if c := body[i]; !isAlnum(c) && c != '.' && c != '-' {
			return nil, fmt.Sprintf("the host condition %s tests more than one host name", excerpt(pat))
		}
	}
	h, ok := pattern.HostKey(body)
	if !ok || strings.Contains(h, "..") {
		return nil, fmt.Sprintf("the host condition %s names no valid host", excerpt(pat))
	}
	if www {
		return []string{h, "www." + h}, ""
	}
	return []string{h}, ""
}

// apacheSchemeUpgrade reports whether a RewriteRule sends every request
// that arrives on plain HTTP to https on the same host with the same path:
// a condition %{HTTPS} !on (or off, or %{SERVER_PORT} 80), a pattern that
// captures the whole path, and https://<host>/$1 or
// https://<host>%{REQUEST_URI}, where <host> is %{HTTP_HOST},
// %{SERVER_NAME} or the host the rule's host condition names. It returns
// the line of the HTTPS condition.
func apacheSchemeUpgrade(conds []apacheCond, pat, target string) (int, bool) {
	line, hostCond := 0, ""
	for _, c := range conds {
		f := strings.Fields(c.text)
		if len(f) < 3 {
			return 0, false
		}
		test, cp := strings.ToUpper(f[1]), strings.ToLower(strings.Trim(f[2], `"`))
		switch {
		case test == "%{HTTPS}" && (cp == "!on" || cp == "off" || cp == "=off" || cp == "!=on" || cp == "^off$"):
			line = c.line
		case test == "%{SERVER_PORT}" && (cp == "80" || cp == "=80" || cp == "^80$"):
			line = c.line
		case c.host && hostCond == "":
			h := strings.TrimPrefix(strings.Trim(f[2], `"`), "^")
			h = strings.TrimSuffix(strings.TrimPrefix(h, "="), "$")
			hostCond = strings.ToLower(strings.ReplaceAll(h, `\.`, "."))
		default:
			return 0, false
		}
	}
	if line == 0 {
		return 0, false
	}
	var host, rest string
	switch strings.Trim(pat, `"`) {
	case "^(.*)$", "^/?(.*)$", "(.*)", "^(.*)", "^/?(.*)":
		rest = "/$1"
	case "^", ".*", "^.*$", "^.*", "^/?.*$":
		rest = "%{REQUEST_URI}"
	default:
		return 0, false
	}
	t := strings.Trim(target, `"`)
	t, ok := strings.CutPrefix(t, "https://")
	if !ok {
		return 0, false
	}
	if host, ok = strings.CutSuffix(t, rest); !ok && rest == "/$1" {
		host, ok = strings.CutSuffix(t, "%{REQUEST_URI}")
	}
	if !ok {
		return 0, false
	}
	switch {
	case host == "%{HTTP_HOST}" || host == "%{SERVER_NAME}":
		return line, true
	case hostCond != "" && strings.EqualFold(host, hostCond):
		return line, true
	}
	return 0, false
}

// rewriteRule reads RewriteRule pattern target [flags].
func (a *apacheReader) rewriteRule(line int, f []string) {
	conds := a.conds
	a.conds = nil
	if len(f) < 3 || len(f) > 4 {
		a.sink.Bad(line, "RewriteRule takes Pattern Substitution [flags]")
		return
	}
	pattern, target := f[1], f[2]
	flags := map[string]string{}
	if len(f) == 4 {
		fl := f[3]
		if !strings.HasPrefix(fl, "[") || !strings.HasSuffix(fl, "]") {
			a.sink.Bad(line, "the flags %s are not in [brackets]", fl)
			return
		}
		for _, x := range strings.Split(fl[1:len(fl)-1], ",") {
			k, v, _ := strings.Cut(strings.TrimSpace(x), "=")
			name, ok := rewriteFlags[strings.ToLower(k)]
			if !ok {
				a.sink.Bad(line, "unknown RewriteRule flag %s", x)
				return
			}
			flags[name] = v
		}
	}
	// A rule after one with the flag C runs only when that one matched.
	chained := a.chainLine
	a.chainLine = 0
	if _, ok := flags["C"]; ok {
		a.chainLine = line
	}
	// Each RewriteRule counts toward the [S=n] windows open above it:
	// covering are those windows, with left the rules each covers after
	// this one (0: its window ends here). They are bounded (skipRule), so
	// the work of a rule is too.
	for i := range a.skips {
		a.skips[i].left--
	}
	covering := slices.Clone(a.skips)
	a.skips = slices.DeleteFunc(a.skips, func(w apacheSkip) bool { return w.left <= 0 })
	skipConds := func() {
		for _, c := range conds {
			a.sink.Skip(c.line, "a condition of the RewriteRule on line %d, which is not imported", line)
			a.sink.Text(c.line, c.text)
		}
	}
	skip := func(format string, args ...any) {
		a.sink.Skip(line, format, args...)
		skipConds()
	}
	if !a.engine {
		skip("RewriteEngine is not On above it: Apache does not run the rule")
		return
	}
	if s, note := a.scope(); s != "" {
		skip("%s", s)
		return
	} else if note != "" {
		a.sink.Note(line, "%s", note)
	}
	if sv, ok := flags["S"]; ok {
		n, read, why := a.skipRule(line, pattern, target, sv, len(flags), len(conds), covering, chained)
		switch {
		case n < 1:
			skip("not a redirect, and it skips no rule: Apache reads S=%s as %d", sv, n)
		case why == "":
			skip("not a redirect: when its pattern matches, Apache skips the next %d RewriteRules, which are imported without the paths it matches%s", n, read)
		default:
			skip("the flag S (a skip of the next %d RewriteRules) is not importable, nor are the rules it skips: %s%s", n, why, read)
		}
		return
	}
	if chained != 0 {
		skip("it is chained to the RewriteRule on line %d (its flag C): Apache tests it only after that rule matched and rewrote the path, which no rule of ours can follow", chained)
		return
	}
	if l, ok := apacheSchemeUpgrade(conds, pattern, target); ok {
		skip("not a path redirect: its condition on line %d holds on plain HTTP only, and it sends the request to https on the host asked with the same path, a scheme redirect, which the TLS front before the edge makes (docs/migrate.md)", l)
		return
	}
	var hosts, params, excluded []string
	var groupNE map[int][]string
	excludedLine := 0
	for _, c := range conds {
		if c.backref > 0 && c.why == "" {
			if groupNE == nil {
				groupNE = map[int][]string{}
			}
			groupNE[c.backref] = append(groupNE[c.backref], c.notText)
			if excludedLine == 0 {
				excludedLine = c.line
			}
			continue
		}
		if c.uri && c.why == "" {
			excluded = append(excluded, c.excluded)
			if excludedLine == 0 {
				excludedLine = c.line
			}
			continue
		}
		if c.query && c.why == "" {
			params = append(params, c.param)
			if c.note != "" {
				a.sink.Note(line, "%s (line %d)", c.note, c.line)
			}
			continue
		}
		if !c.host && !c.query && !c.uri && c.backref == 0 {
			skip("it has a RewriteCond on %s (line %d): conditions other than a host test are not importable", c.testString, c.line)
			return
		}
		if c.why != "" {
			skip("its RewriteCond on line %d: %s", c.line, c.why)
			return
		}
		if c.query || c.uri {
			continue
		}
		if hosts != nil {
			skip("it has more than one host condition (line %d): not importable", c.line)
			return
		}
		hosts = c.hosts
	}
	size := 0
	for _, w := range covering {
		if w.why != "" {
			skip("the skip on line %d passes over it for some paths: %s", w.line, w.why)
			return
		}
		if size += len(w.re); size > maxSkipExcluded {
			skip("the skips over it, up to the one on line %d, leave out paths of more than %d bytes of expressions", w.line, maxSkipExcluded)
			return
		}
		excluded = append(excluded, w.re)
		if excludedLine == 0 {
			excludedLine = w.line
		}
	}
	for _, fl := range []string{"C", "N", "S", "P", "PT", "F", "E", "CO", "H", "T"} {
		if _, ok := flags[fl]; ok {
			skip("the flag %s (chains, loops, skips, proxies, forbids or sets more than a redirect) is not importable", fl)
			return
		}
	}
	if strings.HasPrefix(pattern, "!") {
		skip("a negated pattern %s matches every path but some", pattern)
		return
	}
	code := 0
	_, gone := flags["G"]
	if rv, ok := flags["R"]; ok {
		code = 302
		if rv != "" {
			c, ok := apacheStatus(rv)
			if !ok {
				a.sink.Bad(line, "R=%s is not a status", rv)
				return
			}
			code = c
		}
		if code < 300 || code > 399 {
			// Apache drops the substitution for a status outside 3xx.
			gone = gone || code == 410
		}
	} else if !gone && isURL(target) && !strings.HasPrefix(target, "/") {
		code = 302 // an absolute URL redirects without R
	}
	if gone {
		code = 410
	}
	if code == 0 {
		skip("an internal rewrite (no R flag): Apache serves other content, not a redirect")
		return
	}
	if !redirects.ValidStatus(code) {
		skip("status %d is not one of ours (301, 302, 303, 307, 308, 410)", code)
		return
	}
	_, nc := flags["NC"]
	dst, pq := "", false
	if code != 410 {
		if target == "-" {
			skip("no substitution (-) with R: Apache redirects to the path itself")
			return
		}
		if strings.Contains(target, "%{") || condRef(target) {
			skip("the substitution %s uses server variables or condition references", target)
			return
		}
		if !isURL(target) {
			skip("the substitution %s is relative: Apache prefixes the RewriteBase or the directory", target)
			return
		}
		dst = target
		_, qsa := flags["QSA"]
		_, qsd := flags["QSD"]
		switch {
		case strings.HasSuffix(dst, "?") && strings.Count(dst, "?") == 1:
			dst = strings.TrimSuffix(dst, "?")
		case strings.Contains(dst, "?"):
			pq = qsa && !qsd
			if _, ne := flags["NE"]; pq && !ne {
				// Found against Apache 2.4: the query is appended to the
				// substitution before it is escaped.
				a.sink.Note(line, "without [NE] Apache escapes each '%%' of the request's query it appends (%%20 becomes %%2520); here the query is passed on as sent")
			}
		default:
			pq = !qsd
		}
		if _, ne := flags["NE"]; !ne && strings.Contains(dst, "#") {
			a.sink.Note(line, "without [NE] Apache escapes the '#' of %s as %%23; here it starts a fragment", dst)
		}
	}
	_, l := flags["L"]
	_, end := flags["END"]
	if !l && !end && code != 410 {
		a.sink.Note(line, "without [L] Apache goes on with the rules below, which may change the redirect's URL; read as if [L] were set")
	}
	a.condRules, a.excluded, a.excludedLine, a.groupNE, a.skipConds = params, excluded, excludedLine, groupNE, skipConds
	a.regexRules(line, pattern, true, nc, hosts, dst, code, pq)
	a.condRules, a.excluded, a.groupNE, a.skipConds = nil, nil, nil, nil
}

// maxSkipWindows bounds the importable [S=n] windows open at once, and
// maxSkipExcluded the bytes of the skips' expressions left out of one
// rule: each rule below them builds an automaton of those expressions,
// so that a file of many skips would cost its rules' count times theirs.
// A skip past them is refused, with the rules it covers. Kafka's four
// skips take 4 windows and about 120 bytes.
const (
	maxSkipWindows  = 16
	maxSkipExcluded = 2048
)

// skipRule opens the window of a RewriteRule with the flag S=sv: the
// next n RewriteRules answer none of the paths its pattern matches.
// Apache reads sv's leading digits (atoi: "1x" is 1, "x" is 0, which
// skips nothing); read notes how when sv is not only digits. covering
// are the windows that cover this rule, with the rules each covers after
// it; chained the line of a rule this one is chained to (flag C), or 0.
// It returns why the rules it covers cannot be imported without its
// paths: a skip that rewrites too, has other flags or conditions, is
// chained, has a pattern RE2 cannot read, that a covering window ends
// before (whose skip passes over this one for the paths it matches, so
// that the paths left out are no longer the union of the patterns), or
// past the bounds above.
func (a *apacheReader) skipRule(line int, pattern, target, sv string, nflags, nconds int, covering []apacheSkip, chained int) (n int, read, why string) {
	n, ok := apacheAtoi(sv)
	if !ok {
		read = fmt.Sprintf(" (Apache reads S=%s as S=%d)", sv, n)
	}
	if n < 1 {
		return n, read, ""
	}
	w := apacheSkip{line: line, left: n}
	switch {
	case chained != 0:
		w.why = fmt.Sprintf("the skip is chained to the RewriteRule on line %d (its flag C), which runs it only when that rule matched", chained)
	case target != "-":
		w.why = "the rule rewrites the path too"
	case nflags > 1:
		w.why = "the rule has flags beside S"
	case nconds > 0:
		w.why = "the skip has conditions"
	case strings.HasPrefix(pattern, "!"):
		w.why = "the skip's pattern is negated"
	default:
		w.re, _, w.why = pcreRegex(pattern, true, false)
	}
	for _, o := range covering {
		if w.why == "" && o.left < n {
			w.why = fmt.Sprintf("the skip on line %d, whose window ends first, passes over this one for the paths it matches", o.line)
		}
	}
	open, refused := 0, -1
	for i, o := range a.skips {
		if o.why == "" {
			open++
		} else {
			refused = i
		}
	}
	if w.why == "" && open >= maxSkipWindows {
		w.why = fmt.Sprintf("more than %d skips are open at once", maxSkipWindows)
	}
	switch {
	case w.why == "" || refused < 0:
		a.skips = append(a.skips, w)
	case a.skips[refused].left < n:
		// The refused windows open cover the next rule each: the one
		// that reaches furthest covers every rule the others do.
		a.skips[refused] = w
	}
	return n, read, w.why
}

// apacheAtoi reads s as C's atoi does, which Apache uses for S=n: blanks,
// a sign, then the leading digits (none: 0); ok reports that s is only
// digits. A count past a billion is read as a billion (any file's rules
// are fewer).
func apacheAtoi(s string) (n int, ok bool) {
	t := strings.TrimLeft(s, " \t\n\v\f\r")
	neg := false
	if t != "" && (t[0] == '+' || t[0] == '-') {
		neg = t[0] == '-'
		t = t[1:]
	}
	i := 0
	for ; i < len(t) && '0' <= t[i] && t[i] <= '9'; i++ {
		if n < 1e9 {
			n = n*10 + int(t[i]-'0')
		}
	}
	n = min(n, 1e9)
	if neg {
		n = -n
	}
	return n, i > 0 && i == len(s)
}

// condRef reports whether s holds a RewriteCond back-reference %0..%9.
func condRef(s string) bool {
	for i := 0; i+1 < len(s); i++ {
		if s[i] == '%' && '0' <= s[i+1] && s[i+1] <= '9' {
			return true
		}
	}
	return false
}

// apacheQueryCond reads the CondPattern of a RewriteCond on
// %{QUERY_STRING} that tests one parameter: (^|&)key=value(&|$) is the
// query condition key=value, as is; ^key=value$, ^key=value and
// key=value are read as it too, with a note (Apache tests the whole
// query string, or a part of it). Keys and values are letters, digits and
// - _ . ~ (the raw query and its decoded form alike). It returns why not
// for any other test.
func apacheQueryCond(pat string, flags []string) (param, note, why string) {
	if len(flags) > 0 {
		return "", "", fmt.Sprintf("the query condition's flags %s are not importable", excerpt(strings.Join(flags, " ")))
	}
	body := pat
	switch {
	case strings.HasPrefix(body, "(^|&)") && strings.HasSuffix(body, "(&|$)"):
		body = body[5 : len(body)-5]
	case strings.HasPrefix(body, "^") && strings.HasSuffix(body, "$"):
		body = body[1 : len(body)-1]
		note = fmt.Sprintf("Apache requires the whole query string to be %s; here a parameter %s among any others", excerpt(body), excerpt(body))
	default:
		body = strings.TrimPrefix(body, "^")
		note = fmt.Sprintf("Apache tests %s as a regular expression on the raw query string; here a parameter %s among any others", excerpt(pat), excerpt(body))
	}
	body = strings.ReplaceAll(body, `\.`, ".")
	k, v, ok := strings.Cut(body, "=")
	if !ok || k == "" || v == "" {
		return "", "", fmt.Sprintf("the query condition %s is not a test of one parameter's value", excerpt(pat))
	}
	for i := 0; i < len(body); i++ {
		if c := body[i]; !isAlnum(c) && strings.IndexByte("-_.~=", c) < 0 {
			return "", "", fmt.Sprintf("the query condition %s is not a test of one parameter's literal value", excerpt(pat))
		}
	}
	if strings.Count(body, "=") != 1 {
		return "", "", fmt.Sprintf("the query condition %s is not a test of one parameter's value", excerpt(pat))
	}
	return body, note, ""
}

// apacheURIExpr reads an ap_expr that tests %{REQUEST_URI} against a
// regular expression it must not match, m|re| (any delimiter but a
// letter, digit or space) or /re/, and returns the expression.
func apacheURIExpr(s string) (string, bool) {
	s, ok := strings.CutPrefix(strings.TrimSpace(s), "%{REQUEST_URI}")
	if !ok {
		return "", false
	}
	s, ok = strings.CutPrefix(strings.TrimSpace(s), "!~")
	if !ok {
		return "", false
	}
	s = strings.TrimPrefix(strings.TrimSpace(s), "m")
	if len(s) < 2 || isAlnum(s[0]) || s[0] == ' ' || s[len(s)-1] != s[0] || strings.IndexByte(s[1:len(s)-1], s[0]) >= 0 {
		return "", false
	}
	return s[1 : len(s)-1], true
}

// apacheURIExcluded reads the CondPattern of a negated test of
// %{REQUEST_URI} (the decoded path, which the rule's paths are too): an
// expression anchored at the path's start, which excludes the paths it
// matches (all that start so, unless it ends with $). It returns the RE2
// expression of those paths, matched against the whole path, or why not.
func apacheURIExcluded(pat string, flags []string) (string, string) {
	if len(flags) > 0 {
		return "", fmt.Sprintf("the path condition's flags %s are not importable", excerpt(strings.Join(flags, " ")))
	}
	body, ok := strings.CutPrefix(pat, "^")
	if !ok {
		return "", fmt.Sprintf("the path condition %s searches the path anywhere, not from its start", excerpt(pat))
	}
	whole := endsWithDollar(body)
	if whole {
		body = body[:len(body)-1]
	}
	conv, why := re2Bytes(body, false)
	if why != "" {
		return "", why
	}
	if !whole {
		conv = "(?:" + conv + ")(?s:.*)"
	}
	if _, err := syntax.Parse(conv, syntax.Perl); err != nil {
		return "", fmt.Sprintf("the path condition %s uses what RE2 does not have (%v)", excerpt(pat), syntaxCode(err))
	}
	return conv, ""
}
