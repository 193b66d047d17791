package importer

import (
	"bytes"
	"fmt"
	"io"
	"net/url"
	"path"
	"strings"

	"redirects"
	"redirects/engine/pattern"
)

// Cloudflare Pages' _redirects (the cloudflare-pages format): Netlify's
// syntax with another default status, "code (default: 302)"
// (developers.cloudflare.com/pages/configuration/redirects/). The files
// look alike, so detection names it only when the file's first comment
// names Cloudflare Pages (it is registered before netlify, which takes
// every other _redirects file); --from cloudflare-pages chooses it.
// Cloudflare does not document how its paths compare, so it has no
// defaults to suggest.
func init() {
	Register(&Format{
		Name:       "cloudflare-pages",
		Title:      "Cloudflare Pages _redirects",
		FirstMatch: true,
		Detect:     detectCloudflarePages,
		Read: func(in io.Reader, o *Options, sink *Sink) error {
			return readRedirectsFile(in, o, sink, 302, cloudflarePages)
		},
		Example: "# Cloudflare Pages _redirects (302 by default)\n" +
			"/home301  /  301\n" +
			"/home302  /\n" +
			"/blog/*   https://blog.example.com/:splat\n" +
			"/products/:code/:name  /products?code=:code&name=:name\n" +
			"/app/*    /index.html  200\n",
	})
}

// Netlify's and Cloudflare Pages' _redirects file
// (https://docs.netlify.com/routing/redirects/ and its "Redirect options";
// https://developers.cloudflare.com/pages/configuration/redirects/). Lines
// are split as Netlify's own parser, netlify-redirect-parser, splits them:
//
//	from [query...] to [status[!]] [conditions...]   # comment
//
// Netlify answers with the first line that matches, compares paths case
// sensitively, ignores a trailing slash, and passes the request's query on
// to the destination.
func init() {
	Register(&Format{
		Name:        "netlify",
		Title:       "Netlify and Cloudflare Pages _redirects",
		FirstMatch:  true,
		Defaults:    netlifyDefaults,
		DefaultsWhy: netlifyDefaultsWhy,
		Detect:      detectNetlify,
		Read:        readNetlify,
		Example: "# Netlify _redirects\n" +
			"/home              /                    301\n" +
			"/blog/my-post.php  /blog/my-post\n" +
			"/news/*            /blog/:splat         302\n" +
			"/docs/:lang/start  /guide/:lang/start   308\n" +
			"/store id=:id      /blog/:id            301\n" +
			"/old-shop          https://shop.example.com/  301!\n" +
			"/app/*             /index.html          200\n" +
			"/                  /fr                  302  Country=fr\n",
	})
}

// Netlify's matching settings: paths are case sensitive ("Paths are
// case-sensitive", its redirects page), and a trailing slash is ignored.
var netlifyDefaults = &redirects.Settings{IgnoreTrailingSlash: true}

const netlifyDefaultsWhy = "Netlify compares paths case sensitively and ignores a trailing slash " +
	"(its CDN normalises the URL before the redirect rules run)"

// detectNetlify: a file named _redirects, or one whose first lines (up to
// twenty, comments aside) all have the shape "from to [status]" with paths
// or http(s) URLs separated by whitespace. The CSV formats have commas in
// their first field; Apache and nginx lines start with a directive, and the
// lines of an nginx map file end with ';'.
func detectNetlify(head []byte, fileName string) (bool, string) {
	if path.Base(strings.ReplaceAll(fileName, "\\", "/")) == "_redirects" {
		return true, "the file is named _redirects"
	}
	head = bytes.TrimPrefix(head, []byte("\uFEFF"))
	lines := strings.Split(string(head), "\n")
	if len(head) == HeadSize && len(lines) > 1 {
		lines = lines[:len(lines)-1] // the last may be cut
	}
	seen := 0
	for _, l := range lines {
		l = strings.TrimSpace(l)
		if l == "" || l[0] == '#' {
			continue
		}
		f := strings.Fields(l)
		if len(f) < 2 || !netlifyPathOrURL(f[0]) || strings.Contains(f[0], ",") || strings.HasSuffix(l, ";") {
			// A ';' ends the lines of an nginx map file (/old /new;).
			return false, ""
		}
		to := -1
		for i, p := range f[1:] {
			if netlifyPathOrURL(p) {
				to = i + 1
				break
			}
			if !strings.Contains(p, "=") && (len(p) == 0 || p[0] < '0' || p[0] > '9') {
				return false, ""
			}
		}
		if to < 0 && !(len(f[1]) > 0 && '0' <= f[1][0] && f[1][0] <= '9') {
			return false, ""
		}
		if seen++; seen == 20 {
			break
		}
	}
	if seen == 0 {
		return false, ""
	}
	return true, "its lines have the shape \"from to [status]\" of a _redirects file"
}

// detectCloudflarePages: a _redirects file (by name or shape) whose first
// line is a comment that names Cloudflare Pages.
func detectCloudflarePages(head []byte, fileName string) (bool, string) {
	h := bytes.TrimLeft(bytes.TrimPrefix(head, []byte("\uFEFF")), " \t\r\n")
	first, _, _ := bytes.Cut(h, []byte("\n"))
	if len(first) == 0 || first[0] != '#' || !bytes.Contains(bytes.ToLower(first), []byte("cloudflare pages")) {
		return false, ""
	}
	if ok, _ := detectNetlify(head, fileName); !ok {
		return false, ""
	}
	return true, "a _redirects file whose first comment names Cloudflare Pages"
}

func netlifyPathOrURL(s string) bool {
	return strings.HasPrefix(s, "/") || strings.HasPrefix(s, "http://") || strings.HasPrefix(s, "https://")
}

// netlifyLine is one redirect line as netlify-redirect-parser reads it.
type netlifyLine struct {
	from  string
	query [][2]string // key, value ("" when the part has no '=')
	to    string
	// status is 0 when the line gives none (301); statusText is the part.
	status     int
	statusText string
	force      bool
	conditions [][2]string
}

// parseNetlifyLine splits a trimmed, non-comment line as Netlify's parser
// does, or returns why the line is broken.
func parseNetlifyLine(line string) (netlifyLine, string) {
	var l netlifyLine
	parts := strings.Fields(line)
	for i, p := range parts {
		if p[0] == '#' {
			parts = parts[:i]
			break
		}
	}
	l.from, parts = parts[0], parts[1:]
	if len(parts) == 0 {
		return l, "missing destination path/URL after " + quoteField(l.from)
	}
	var last []string
	if _, ok := jsParseInt(parts[0]); ok {
		// A forward rule: no destination (valid only for a 2xx splat).
		last = parts
	} else {
		to := -1
		for i, p := range parts {
			if netlifyPathOrURL(p) {
				to = i
				break
			}
		}
		if to < 0 {
			return l, "the destination must start with \"/\", \"http:\" or \"https:\""
		}
		for _, q := range parts[:to] {
			k, v, _ := strings.Cut(q, "=")
			l.query = append(l.query, [2]string{k, v})
		}
		l.to, last = parts[to], parts[to+1:]
	}
	if len(last) > 0 {
		n, ok := jsParseInt(last[0])
		if !ok {
			return l, "invalid status code " + quoteField(last[0])
		}
		l.status, l.statusText, l.force = n, last[0], strings.HasSuffix(last[0], "!")
		for _, c := range last[1:] {
			k, v, _ := strings.Cut(c, "=")
			l.conditions = append(l.conditions, [2]string{k, v})
		}
	}
	if l.to == "" {
		if strings.HasSuffix(l.from, "/*") && l.status >= 200 && l.status < 300 {
			l.to = strings.TrimSuffix(l.from, "/*") + "/:splat"
		} else {
			return l, "missing destination path/URL (only a 2xx splat rule may leave it out)"
		}
	}
	p := l.from
	if _, _, up, ok := splitSourceURL(l.from); ok {
		p = up
	} else if netlifyPathOrURL(l.from) && !strings.HasPrefix(l.from, "/") {
		return l, "invalid URL " + quoteField(l.from)
	}
	if strings.HasPrefix(p, "/.netlify") {
		return l, "the path must not start with /.netlify"
	}
	return l, ""
}

// jsParseInt is JavaScript's parseInt(s, 10) as Netlify's parser applies
// it to a status ("301!" is 301): optional spaces and sign, then digits;
// ok is false when there are none (NaN).
func jsParseInt(s string) (int, bool) {
	s = strings.TrimLeft(s, " \t")
	neg := false
	if s != "" && (s[0] == '+' || s[0] == '-') {
		neg, s = s[0] == '-', s[1:]
	}
	n, digits := 0, 0
	for digits < len(s) && '0' <= s[digits] && s[digits] <= '9' {
		if n < 1e9 {
			n = n*10 + int(s[digits]-'0')
		}
		digits++
	}
	if digits == 0 {
		return 0, false
	}
	if neg {
		n = -n
	}
	return n, true
}

func quoteField(s string) string {
	if len(s) > 80 {
		s = s[:80] + "..."
	}
	return fmt.Sprintf("%q", s)
}

// The platforms whose _redirects files readRedirectsFile reads.
const (
	netlifyName     = "Netlify"
	cloudflarePages = "Cloudflare Pages"
)

func readNetlify(in io.Reader, o *Options, sink *Sink) error {
	return readRedirectsFile(in, o, sink, 301, netlifyName)
}

// readRedirectsFile reads a _redirects file of platform pf (netlifyName or
// cloudflarePages, which its notes name) whose lines without a status
// answer defStatus.

func readRedirectsFile(in io.Reader, o *Options, sink *Sink, defStatus int, pf string) error {
	sc := scanLines(in)
	n := 0
	for sc.Scan() {
		n++
		raw := sc.Text()
		if n == 1 {
			raw = trimLineBOM(raw)
		}
		line := strings.TrimSpace(raw)
		if line == "" || line[0] == '#' {
			continue
		}
		l, bad := parseNetlifyLine(line)
		if bad != "" {
			sink.Bad(n, "%s", bad)
			continue
		}
		if l.status == 0 {
			l.status = defStatus
		}
		readNetlifyRule(n, &l, o, sink, pf)
		sink.Text(n, raw)
	}
	return sc.Err()
}

// netlifyPassPaths returns the host of a line's source ("" for none), the
// source as a pattern ("" when it is none), and sample paths it matches:
// its placeholders and splat filled with "x", and a splat's bare prefix.
func netlifyPassPaths(from string) (string, string, []string) {
	host := ""
	if _, h, p, ok := splitSourceURL(from); ok {
		if key, ok := pattern.HostKey(h); ok {
			host, from = key, p
		}
	}
	segs := strings.Split(from, "/")
	for i, seg := range segs {
		if strings.HasPrefix(seg, ":") || seg == "*" {
			segs[i] = "x"
		}
	}
	paths := []string{strings.Join(segs, "/")}
	splat := strings.HasSuffix(from, "*")
	base := strings.TrimSuffix(from, "*")
	if splat && !strings.Contains(base, ":") {
		paths = append(paths, base)
	}
	src := ""
	if !strings.ContainsAny(base, "*?#") {
		src, _ = netlifyPatternSource(base, splat)
	}
	return host, src, paths
}

// readNetlifyRule tells sink what one parsed line (of a _redirects file or
// a netlify.toml [[redirects]] table) becomes.
func readNetlifyRule(n int, l *netlifyLine, o *Options, sink *Sink, pf string) {
	cf := pf == cloudflarePages
	status := l.status
	if status == 0 {
		status = 301
	}
	if status == 200 || status == 404 || !redirects.ValidStatus(status) && status != 410 {
		// The line answers its paths without a redirect (unless it has
		// conditions the requests may not meet): a later line that
		// matches them answers them here.
		if len(l.conditions) == 0 && len(l.query) == 0 {
			host, src, paths := netlifyPassPaths(l.from)
			sink.Pass(n, host, src, paths...)
		}
	}
	switch {
	case status == 200 && (strings.HasPrefix(l.to, "http://") || strings.HasPrefix(l.to, "https://")):
		sink.Skip(n, "a proxy (status 200 to %s): "+pf+" fetches that URL and serves it here, which is not a redirect", l.to)
		return
	case status == 200:
		sink.Skip(n, "a rewrite (status 200): "+pf+" serves %s at this path without redirecting", l.to)
		return
	case status == 404:
		sink.Skip(n, "a custom 404 page (status 404): "+pf+" serves %s with a 404, which is not a redirect", l.to)
		return
	case status == 410:
		sink.Note(n, pf+" serves %s with status 410; here the 410 answers without a page", l.to)
	case redirects.ValidStatus(status):
	default:
		sink.Skip(n, "status %d: "+pf+" serves %s with status %d (a rewrite), not a redirect our rules can make", status, l.to, status)
		return
	}
	if len(l.conditions) > 0 {
		var names []string
		for _, c := range l.conditions {
			names = append(names, c[0]+"="+c[1])
		}
		sink.Skip(n, "condition %s: our rules cannot redirect by country, language, role, cookie or signature", strings.Join(names, " "))
		return
	}
	if cf && len(l.query) > 0 {
		sink.Skip(n, "query condition %s: Cloudflare Pages matches no query parameters, so the line never answers there", netlifyQueryText(l.query))
		return
	}
	from, host := l.from, ""
	if _, _, _, ok := splitSourceURL(from); ok && cf {
		sink.Skip(n, "a domain-level source (%s): Cloudflare Pages takes only paths, so the line never answers there", l.from)
		return
	}
	if _, h, p, ok := splitSourceURL(from); ok {
		// A domain line: the rule answers on that host only, as on Netlify.
		key, ok := pattern.HostKey(h)
		if !ok {
			sink.Skip(n, "the host of %s is not a host name our rules take", l.from)
			return
		}
		host, from = key, p
	}
	if i := strings.IndexAny(from, "?#"); i >= 0 {
		sink.Skip(n, "the source %s holds a query or fragment, which "+pf+" never matches in a path", from)
		return
	}
	conds, bad := netlifyConditions(l.query)
	if bad != "" {
		sink.Skip(n, "%s", bad)
		return
	}
	splat := strings.HasSuffix(from, "*")
	if splat {
		from = from[:len(from)-1]
	}
	if strings.IndexByte(from, '*') >= 0 {
		sink.Skip(n, "a '*' before the end of the source %s: "+pf+" reads a splat only at its end", l.from)
		return
	}
	// Placeholders: whole segments ":name" of the source.
	var names []string
	if strings.Contains(from, "/:") {
		for _, seg := range strings.Split(from, "/") {
			if len(seg) > 1 && seg[0] == ':' {
				names = append(names, seg[1:])
			}
		}
	}
	expand := len(names) > 0
	for _, name := range names {
		if len(o.Placeholders[name]) == 0 {
			expand = false
		}
	}
	to, preservePath, splatAt := l.to, false, 0
	literal := len(names) == 0 || expand
	if strings.ContainsAny(from, "${}\\") {
		// Literal sources refuse these bytes; a pattern holds them
		// percent-encoded, as literal text (netlifyPatternSource).
		literal = false
	}
	if k := strings.Count(to, ":splat"); literal && splat && k > 0 {
		end := len(to)
		if i := strings.IndexAny(to, "?#"); i >= 0 {
			end = i
		}
		if k > 1 || !strings.HasSuffix(to[:end], ":splat") {
			literal = false // the splat goes elsewhere than the end: a pattern
		} else {
			to, preservePath, splatAt = to[:end-len(":splat")]+to[end:], true, end-len(":splat")
		}
	}
	if !literal {
		src, why := netlifyPatternSource(from, splat)
		if why != "" {
			sink.Skip(n, "%s", why)
			return
		}
		if status == 307 && !cf {
			sink.Note(n, pf+" documents 307 as unsupported (it suggests 302); here the rule answers 307")
		}
		r := redirects.Rule{Source: src + conds, Destination: l.to, StatusCode: status, MatchType: redirects.Pattern,
			Host: host, PreserveQuery: true}
		if status == 410 {
			r.Destination, r.PreserveQuery = "", false
		}
		sink.Rule(n, r)
		return
	}
	if status == 307 && !cf {
		sink.Note(n, pf+" documents 307 as unsupported (it suggests 302); here the rule answers 307")
	}
	mt := redirects.Exact
	if splat {
		mt = redirects.StartsWith
	}
	rule := func(src, dst string) redirects.Rule {
		r := redirects.Rule{Source: src + conds, Destination: dst, StatusCode: status, MatchType: mt,
			Host: host, PreservePath: preservePath, PreserveQuery: true}
		if status == 410 {
			r.Destination, r.PreservePath, r.PreserveQuery = "", false, false
		}
		return r
	}
	if len(names) == 0 {
		if r, ok := netlifyAfterPasses(sink, o.Settings, rule(from, to), splatAt); ok {
			sink.Rule(n, r)
			return
		}
		sink.Rule(n, rule(from, to))
		return
	}
	combos, ok := expandPlaceholders(names, o.Placeholders)
	if !ok {
		sink.Skip(n, "placeholders %s would expand into more than %d rules", strings.Join(names, ", "), maxPlaceholderExpansions)
		return
	}
	var desc []string
	for _, name := range names {
		desc = append(desc, ":"+name+" ("+strings.Join(o.Placeholders[name], ", ")+")")
	}
	sink.Note(n, "placeholder %s expanded into %d rules: other values are not redirected", strings.Join(desc, ", "), len(combos))
	for _, vals := range combos {
		var b strings.Builder
		for i, seg := range strings.Split(from, "/") {
			if i > 0 {
				b.WriteByte('/')
			}
			if len(seg) > 1 && seg[0] == ':' {
				seg = vals[seg[1:]]
			}
			b.WriteString(seg)
		}
		sink.Rule(n, rule(b.String(), substitutePlaceholders(to, vals)))
	}
}

// netlifyConditions turns a line's query parts ("id=:id", "page=2",
// "ref") into the query conditions of a source ("?id=:id&page=2&ref"), or
// says why it cannot. Netlify matches a part with a ":name" value on any
// value of the parameter, capturing it, and another on that value.
func netlifyConditions(query [][2]string) (string, string) {
	if len(query) == 0 {
		return "", ""
	}
	var b strings.Builder
	for i, q := range query {
		if i > 0 {
			b.WriteByte('&')
		} else {
			b.WriteByte('?')
		}
		if q[0] == "" {
			return "", "query condition " + quoteField(q[0]+"="+q[1]) + " has no parameter name"
		}
		b.WriteString(conditionText(q[0]))
		switch v := q[1]; {
		case len(v) > 1 && v[0] == ':':
			if !validCaptureName(v[1:]) {
				return "", "query condition " + quoteField(q[0]+"="+v) + ": the placeholder's name holds other than letters, digits and '_'"
			}
			b.WriteString("=" + v)
		case v != "":
			b.WriteString("=" + conditionText(v))
		}
	}
	return b.String(), ""
}

// conditionText writes a condition's key or value as a source's query
// conditions hold it: the bytes they may not hold, and those that would
// read otherwise ('&', '=', '+', a leading ':'), percent-encoded.
func conditionText(s string) string {
	const hexd = "0123456789ABCDEF"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= ' ' || c == 0x7f || strings.IndexByte("?#\"'\\;{}$&=+", c) >= 0 || (i == 0 && c == ':') {
			b.WriteByte('%')
			b.WriteByte(hexd[c>>4])
			b.WriteByte(hexd[c&15])
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// validCaptureName reports whether s is a capture name: an ASCII letter,
// then letters, digits and '_'.
func validCaptureName(s string) bool {
	if s == "" || !('a' <= s[0]|0x20 && s[0]|0x20 <= 'z') {
		return false
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		if !('a' <= c|0x20 && c|0x20 <= 'z') && !('0' <= c && c <= '9') && c != '_' {
			return false
		}
	}
	return true
}

// netlifyPatternSource writes a _redirects path (its trailing '*' cut off,
// splat says it had one) as a pattern source: each whole segment ":name" a
// placeholder, the splat '*', and every other byte the pattern syntax
// reads otherwise percent-encoded, so that it stays literal text. It says
// why when the path has no such form.
func netlifyPatternSource(from string, splat bool) (string, string) {
	const hexd = "0123456789ABCDEF"
	var b strings.Builder
	for i, seg := range strings.Split(from, "/") {
		if i > 0 {
			b.WriteByte('/')
		}
		if len(seg) > 1 && seg[0] == ':' {
			if !validCaptureName(seg[1:]) {
				return "", "placeholder " + quoteField(seg) + ": its name holds other than letters, digits and '_', which our patterns do not read as Netlify does"
			}
			b.WriteString(seg)
			continue
		}
		for k := 0; k < len(seg); k++ {
			c := seg[k]
			if strings.IndexByte(":*(?\\$|{}", c) >= 0 {
				b.WriteByte('%')
				b.WriteByte(hexd[c>>4])
				b.WriteByte(hexd[c&15])
				continue
			}
			b.WriteByte(c)
		}
	}
	if splat {
		if !strings.HasSuffix(from, "/") {
			return "", "a splat inside a segment (" + quoteField(from+"*") + ") that also has placeholders or a :splat before the end: our patterns take a splat only as a whole segment"
		}
		b.WriteByte('*')
	}
	return b.String(), ""
}

// netlifyQueryText is a line's query parts as written, for a note.
func netlifyQueryText(query [][2]string) string {
	var qs []string
	for _, q := range query {
		qs = append(qs, q[0]+"="+q[1])
	}
	return strings.Join(qs, " ")
}

// netlifyAfterPasses returns a line "/* dest/:splat" that comes after
// lines answering some of its paths without a redirect (rewrites, custom
// 404 pages: sink.passes, on its host or every host) as a regex rule
// that matches every path but theirs, so that those paths stay
// unanswered, as on the platform, where the earlier line comes first
// (r: the rule the line makes otherwise, starts_with "/" with
// preservePath, its rest inserted in its destination at splatAt). It
// returns false when no such line comes before it, or when one is not a
// literal path or a literal path and a splat, which it writes as the
// paths excluded.
func netlifyAfterPasses(sink *Sink, set redirects.Settings, r redirects.Rule, splatAt int) (redirects.Rule, bool) {
	if r.MatchType != redirects.StartsWith || r.Source != "/" || !r.PreservePath || set.CaseInsensitive ||
		r.StatusCode == 410 || strings.ContainsAny(r.Destination, "${}") {
		return r, false
	}
	var excluded []string
	for _, p := range sink.passes {
		if p.host != "" && p.host != r.Host {
			continue
		}
		base, splat := strings.CutSuffix(p.src, "/*")
		if p.src == "" || strings.ContainsAny(base, ":*()") || !strings.HasPrefix(base, "/") {
			return r, false
		}
		lit, err := url.PathUnescape(base)
		if err != nil {
			return r, false
		}
		// The platform takes a path with a slash added as the path:
		// /a answers /a/, and /a/* answers /a.
		if splat {
			excluded = append(excluded, literalRE(lit)+`(?:/(?s:.*))?`)
		} else {
			excluded = append(excluded, literalRE(strings.TrimSuffix(lit, "/"))+`/?`)
		}
	}
	if len(excluded) == 0 {
		return r, false
	}
	src, why := excludeFromRest("/(.*)", excluded)
	if why != "" {
		return r, false
	}
	r.Source, r.MatchType, r.PreservePath = src, redirects.Regex, false
	r.Destination = r.Destination[:splatAt] + "$1" + r.Destination[splatAt:]
	if r.Validate() != nil {
		return redirects.Rule{}, false
	}
	return r, true
}
