package importer

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path"
	"regexp"
	"runtime"
	"strconv"
	"strings"

	"redirects"
	"redirects/engine/pattern"
)

// vercel.json's redirects (docs/migrate.md#vercel), read as Vercel builds
// them: @vercel/routing-utils compiles each source with path-to-regexp
// 6.1.0 (strict, sensitive, delimiter '/'), and the routes are tried in
// the array's order, after the routes of cleanUrls and trailingSlash
// (https://vercel.com/docs/project-configuration#redirects; routing-utils'
// getTransformedRoutes and convertRedirects). A redirect is 308 unless
// permanent is false (307) or statusCode names another; the request's
// query is passed on, as Next.js documents for the same redirects, merged
// into a destination's own query (mergeQuery) as Next.js's
// prepareDestination merges it.
func init() {
	Register(&Format{
		Name:       "vercel",
		MayBeJSON:  true,
		Title:      "Vercel vercel.json",
		FirstMatch: true,
		Defaults:   &redirects.Settings{},
		DefaultsWhy: "Vercel compares a vercel.json redirect's source with the path case-sensitively " +
			"and with its trailing slash exactly (path-to-regexp, sensitive and strict)",
		Detect: detectVercelJSON,
		Read:   readVercelJSON,
		Example: `{
  "trailingSlash": false,
  "redirects": [
    { "source": "/me", "destination": "/profile" },
    { "source": "/user", "destination": "/api/user", "permanent": false },
    { "source": "/old", "destination": "https://example.com/new", "statusCode": 301 },
    { "source": "/blog/:path*", "destination": "/news/:path*" },
    { "source": "/docs/(.*)", "destination": "/guide/$1" },
    { "source": "/:lang/about", "destination": "/:lang/company" },
    { "source": "/beta", "destination": "/", "has": [{ "type": "cookie", "key": "beta" }] }
  ]
}
`,
	})
}

// detectVercelJSON: a file named vercel.json, or a JSON object with a
// "redirects" key whose entries have "source" and "destination" (and not
// WordPress Redirection's "match_url" or "action_data").
func detectVercelJSON(head []byte, fileName string) (bool, string) {
	if path.Base(strings.ReplaceAll(fileName, "\\", "/")) == "vercel.json" {
		return true, "the file is named vercel.json"
	}
	h := bytes.TrimSpace(bytes.TrimPrefix(head, []byte("\uFEFF")))
	if len(h) == 0 || h[0] != '{' {
		return false, ""
	}
	if bytes.Contains(h, []byte(`"redirects"`)) && bytes.Contains(h, []byte(`"source"`)) &&
		bytes.Contains(h, []byte(`"destination"`)) && !bytes.Contains(h, []byte(`"match_url"`)) && !bytes.Contains(h, []byte(`"action_data"`)) {
		return true, `a JSON object with a "redirects" array of source and destination entries`
	}
	return false, ""
}

// vcEntry is one redirect of a vercel.json, as the file holds it.
type vcEntry struct {
	Source      *string           `json:"source,omitempty"`
	Destination *string           `json:"destination,omitempty"`
	Permanent   *bool             `json:"permanent,omitempty"`
	StatusCode  *json.Number      `json:"statusCode,omitempty"`
	Has         []vcCondition     `json:"has,omitempty"`
	Missing     []vcCondition     `json:"missing,omitempty"`
	Env         []json.RawMessage `json:"env,omitempty"`
}

type vcCondition struct {
	Type  string          `json:"type"`
	Key   string          `json:"key,omitempty"`
	Value json.RawMessage `json:"value,omitempty"`
}

// vcLine is a redirect and its line. Its text is made again from it for
// the lines the report lists, and for those that become rules (which the
// Sink keeps cut, in an arena, for a shadowed line listed later).
type vcLine struct {
	line int
	e    vcEntry
	pat  *vcPattern
}

// vcHeld is a redirect as the reader holds it until the file's settings
// are known: a fifth of a vcLine and its pattern (made again from the
// source), so that a million redirects take little.
type vcHeld struct {
	source, destination string
	statusCode          string
	// extra holds has, missing and env, when the redirect has one.
	extra *vcExtra
	line  int32
	flags uint8
}

type vcExtra struct {
	has, missing []vcCondition
	env          []json.RawMessage
}

const (
	vcHasPermanent = 1 << iota
	vcPermanent
	vcHasStatus
)

func holdVercel(line int, e vcEntry) vcHeld {
	h := vcHeld{source: *e.Source, destination: *e.Destination, line: int32(line)}
	if e.Permanent != nil {
		h.flags |= vcHasPermanent
		if *e.Permanent {
			h.flags |= vcPermanent
		}
	}
	if e.StatusCode != nil {
		h.flags |= vcHasStatus
		h.statusCode = string(*e.StatusCode)
	}
	if e.Has != nil || e.Missing != nil || e.Env != nil {
		h.extra = &vcExtra{e.Has, e.Missing, e.Env}
	}
	return h
}

// vcLine returns the redirect h holds, its pattern parsed again.
func (h *vcHeld) vcLine() vcLine {
	src, dst := h.source, h.destination
	e := vcEntry{Source: &src, Destination: &dst}
	if h.flags&vcHasPermanent != 0 {
		p := h.flags&vcPermanent != 0
		e.Permanent = &p
	}
	if h.flags&vcHasStatus != 0 {
		n := json.Number(h.statusCode)
		e.StatusCode = &n
	}
	if h.extra != nil {
		e.Has, e.Missing, e.Env = h.extra.has, h.extra.missing, h.extra.env
	}
	pat, _ := parseVercelSource(src) // it parsed when read
	return vcLine{line: int(h.line), e: e, pat: pat}
}

func readVercelJSON(in io.Reader, o *Options, sink *Sink) error {
	j := newJSONLines(in)
	t, err := j.token()
	if err != nil {
		return jsonBad(sink, err)
	}
	if d, ok := t.(json.Delim); !ok || d != '{' {
		sink.Bad(j.lineAt(j.dec.InputOffset()), "vercel.json must be a JSON object, with a \"redirects\" array")
		return nil
	}
	var (
		entries       []vcHeld
		trailingSlash *bool
		cleanURLs     bool
		sawRedirects  bool
	)
	for j.dec.More() {
		kt, err := j.token()
		if err != nil {
			return jsonBad(sink, err)
		}
		key, _ := kt.(string)
		switch key {
		case "redirects":
			sawRedirects = true
			if entries, err = readVercelArray(j, sink); err != nil {
				return jsonBad(sink, err)
			}
		case "trailingSlash", "cleanUrls":
			var raw json.RawMessage
			line, err := j.value(&raw)
			if err != nil {
				return jsonBad(sink, err)
			}
			var b bool
			if err := json.Unmarshal(raw, &b); err != nil {
				sink.Bad(line, "%s must be true or false, not %s", key, jsonText(raw))
				continue
			}
			if key == "cleanUrls" {
				cleanURLs = b
			} else {
				trailingSlash = &b
			}
		default:
			if err := j.skipValue(); err != nil {
				return jsonBad(sink, err)
			}
		}
	}
	if _, err := j.token(); err != nil { // the closing '}'
		return jsonBad(sink, err)
	}
	if _, err := j.dec.Token(); err != io.EOF {
		sink.Bad(j.lineAt(j.dec.InputOffset()), "more after the end of the JSON object")
		return nil
	}
	if !sawRedirects {
		sink.Bad(1, "vercel.json has no \"redirects\" array")
		return nil
	}
	if sink.HasBad() {
		return nil
	}
	if trailingSlash != nil {
		sink.SetDefaults(redirects.Settings{IgnoreTrailingSlash: true}, fmt.Sprintf(
			"Vercel compares a vercel.json redirect's source case-sensitively; with trailingSlash: %t it first redirects "+
				"a path to its form %s a trailing slash, so that a redirect answers both forms (the other after one more 308; "+
				"with false every trailing slash goes, one 308 each, where trailingSlash ignore removes one)",
			*trailingSlash, map[bool]string{true: "with", false: "without"}[*trailingSlash]))
	}
	vc := vcFile{o: o, sink: sink, trailingSlash: trailingSlash, cleanURLs: cleanURLs}
	for i := range entries {
		vc.entry(entries[i].vcLine())
		entries[i] = vcHeld{}
	}
	return nil
}

// readVercelArray reads the redirects array: each entry with its line;
// an entry that is not valid goes to sink.Bad.
func readVercelArray(j *jsonLines, sink *Sink) ([]vcHeld, error) {
	t, err := j.token()
	if err != nil {
		return nil, err
	}
	if d, ok := t.(json.Delim); !ok || d != '[' {
		sink.Bad(j.lineAt(j.dec.InputOffset()), "\"redirects\" must be an array")
		return nil, nil
	}
	var out []vcHeld
	// The common entries first, by hand; the decoder reads from the first
	// entry the fast reader does not take.
	fast, first := vcFastStart(j), true
	for !vcFastOff {
		if err := sink.stopped(); err != nil {
			return nil, err
		}
		var e vcEntry
		line, ok := fast.next(first, &e)
		if !ok {
			break
		}
		first = false
		if err := vcLimit(sink, line, out); err != nil {
			return nil, err
		}
		if h, ok := vcCheckEntry(sink, line, e); ok {
			out = append(out, h)
		}
	}
	if err := fast.handBack(j, first); err != nil {
		return nil, err
	}
	for j.dec.More() {
		if err := sink.stopped(); err != nil {
			return nil, err
		}
		var e vcEntry
		line, raw, err := j.decodeValue(&e)
		if err := vcLimit(sink, line, out); err != nil {
			return nil, err
		}
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			sink.Bad(line, "the redirect is not one Vercel takes: %v", err)
			continue
		} else if err != nil {
			return nil, err
		}
		unknown := ""
		jsonKeys(raw, func(k string) bool {
			switch k {
			case "source", "destination", "permanent", "statusCode", "has", "missing", "env":
				return true
			}
			unknown = k
			return false
		})
		if unknown != "" {
			sink.Bad(line, "the redirect is not one Vercel takes: unknown field %q", unknown)
			continue
		}
		if h, ok := vcCheckEntry(sink, line, e); ok {
			out = append(out, h)
		}
	}
	_, err = j.token() // ']'
	return out, err
}

// vcLimit stops the read at the redirect of line when out holds as many
// as one import takes. The redirects are held until the file's settings
// (which may follow them) are known: their count is bounded as they are
// read, each counted as one rule at least.
func vcLimit(sink *Sink, line int, out []vcHeld) error {
	if sink.maxRules > 0 && len(out) >= sink.maxRules && line > 0 {
		sink.stop = redirects.Errorf(redirects.EINVALID, "the file holds more than the %d redirects one import takes (line %d holds redirect %d); split it",
			sink.maxRules, line, sink.maxRules+1)
		if ruleLimitHook != nil {
			ruleLimitHook()
			runtime.KeepAlive(out) // measured as held
		}
		return sink.stop
	}
	return nil
}

// vcCheckEntry returns the redirect e of line as the reader holds it, or
// reports on sink why Vercel refuses it.
func vcCheckEntry(sink *Sink, line int, e vcEntry) (vcHeld, bool) {
	switch {
	case e.Source == nil || e.Destination == nil:
		sink.Bad(line, "a redirect needs a source and a destination")
		return vcHeld{}, false
	case e.Permanent != nil && e.StatusCode != nil:
		sink.Bad(line, "a redirect cannot define both permanent and statusCode")
		return vcHeld{}, false
	}
	if e.StatusCode != nil {
		if n, err := strconv.Atoi(e.StatusCode.String()); err != nil || n < 100 || n > 999 {
			sink.Bad(line, "statusCode %s is not an integer from 100 to 999", e.StatusCode)
			return vcHeld{}, false
		}
	}
	if _, err := parseVercelSource(*e.Source); err != nil {
		sink.Bad(line, "source %q is not a valid path-to-regexp pattern: %v", *e.Source, err)
		return vcHeld{}, false
	}
	return holdVercel(line, e), true
}

type vcFile struct {
	o             *Options
	sink          *Sink
	trailingSlash *bool
	cleanURLs     bool
	// regexes counts the regex rules made, up to redirects.MaxRegexRules.
	regexes int
}

func (vc *vcFile) entry(l vcLine) {
	sink, line, e := vc.sink, l.line, l.e
	defer func() {
		// The text of a line listed now, and of one that became a rule,
		// which the pipeline may list later (shadowed).
		if sink.KeepsText(line) {
			sink.Text(line, vcEntryText(&e))
		}
	}()
	status := 308
	switch {
	case e.Permanent != nil && !*e.Permanent:
		status = 307
	case e.StatusCode != nil:
		status, _ = strconv.Atoi(e.StatusCode.String())
	}
	if len(e.Env) > 0 {
		sink.Skip(line, "its destination takes environment variables (env), known only on Vercel")
		return
	}
	if len(e.Missing) > 0 {
		sink.Skip(line, "a missing condition (%s) answers only some requests there", vcConditions(e.Missing))
		return
	}
	host, conds, why := vcHas(e.Has, *e.Destination)
	if why != "" {
		sink.Skip(line, "%s", why)
		return
	}
	src, dest := *e.Source, *e.Destination
	pat := l.pat
	if !strings.HasPrefix(src, "/") {
		sink.Skip(line, "source %s is not a path", src)
		return
	}
	tail := pat.tail()
	// A source our literal rules cannot take as it is (a placeholder
	// without --placeholder values, a modifier, a constraint) becomes a
	// regex rule: path-to-regexp's own expression.
	// Past the regex rules a project holds, the rest take the literal
	// forms of before: expanded, prefix rules (changed) or skipped.
	if vcWantsRegex(pat, tail, vc.o, dest) && vc.regexes < redirects.MaxRegexRules {
		vc.regexes++
		vc.regexEntry(line, pat, src, dest, host, conds, status)
		return
	}
	if !pat.supported() {
		sink.Skip(line, "source pattern %s: the file has more than the %d regex rules a project holds, and this one has no literal form", src, redirects.MaxRegexRules)
		return
	}
	// Placeholders: each :name of the source, expanded over its values.
	names := pat.simpleNames()
	for _, n := range names {
		if len(vc.o.Placeholders[n]) == 0 {
			sink.Skip(line, "placeholder :%s has no values (give them with --placeholder %s=a,b)", n, n)
			return
		}
	}
	combos, ok := expandPlaceholders(names, vc.o.Placeholders)
	if !ok {
		sink.Skip(line, "placeholders %s would expand into more than %d rules", strings.Join(names, ", "), maxPlaceholderExpansions)
		return
	}
	// With named parameters in the source, Vercel rewrites the destination
	// through Node's url.parse and url.format, which give an absolute URL
	// without a path the path "/".
	if len(names) > 0 || tail != nil && tail.name != "" {
		dest = vcFormatURL(dest)
	}
	// The destination's reference to the tail, if any.
	var destPrefix string
	preserve := false
	if tail != nil {
		var ok bool
		destPrefix, preserve, ok = vcTailDest(dest, tail, len(names)+1)
		if !ok {
			sink.Skip(line, "its destination %s uses the source's %s elsewhere than at the end of its path", dest, tail.ref())
			return
		}
	}
	for _, n := range names {
		vals := vc.o.Placeholders[n]
		sink.Note(line, "placeholder :%s expanded over %d values (%s): Vercel matches any value there", n, len(vals), strings.Join(vals, ", "))
	}
	if vcEmptyDestQuery(dest) {
		sink.Note(line, "Vercel merges the request's query parameters into the destination's; here the destination's query is empty, so the request's query is appended as it is")
	}
	noted := map[string]bool{}
	note := func(format string, args ...any) {
		m := noteText(format, args)
		if !noted[m] {
			noted[m] = true
			sink.Note(line, "%s", m)
		}
	}
	for _, vals := range combos {
		lit := pat.literal(vals)
		d := vcSubstitute(dest, names, vals)
		if tail == nil {
			vc.rule(line, redirects.Rule{Source: lit + conds, Host: host, Destination: d, MatchType: redirects.Exact, StatusCode: status, PreserveQuery: true}, note)
			continue
		}
		dp := vcSubstitute(destPrefix, names, vals)
		switch tail.kind {
		case vcStar, vcPlus:
			if tail.kind == vcStar && lit != "" {
				// :path* also matches no segment at all: the path is the
				// literal itself, and the destination loses the reference.
				vc.rule(line, redirects.Rule{Source: lit + conds, Host: host, Destination: dp, MatchType: redirects.Exact, StatusCode: status, PreserveQuery: true}, note)
			}
			note("%s matches neither %s/ nor a path ending in '/' or holding '//' on Vercel (each segment non-empty); here starts_with %s/ answers them too", tail.ref(), lit, lit)
			vc.rule(line, redirects.Rule{Source: lit + "/" + conds, Host: host, Destination: dp, MatchType: redirects.StartsWith, StatusCode: status, PreservePath: preserve, PreserveQuery: true}, note)
		case vcAny:
			vc.rule(line, redirects.Rule{Source: lit + tail.prefix + conds, Host: host, Destination: dp, MatchType: redirects.StartsWith, StatusCode: status, PreservePath: preserve, PreserveQuery: true}, note)
		}
	}
}

// rule records r unless vercel.json's cleanUrls or trailingSlash keep
// every path it matches from reaching it, and notes how they change it.
func (vc *vcFile) rule(line int, r redirects.Rule, note func(string, ...any)) {
	src := r.Source
	if r.MatchType.Literal() {
		src, _, _ = strings.Cut(src, "?")
	}
	if r.MatchType == redirects.Exact {
		if t := strings.TrimSuffix(src, "/"); vc.cleanURLs && (strings.HasSuffix(t, ".html") || path.Base(t) == "index") {
			vc.sink.Skip(line, "cleanUrls: Vercel redirects %s to its clean form before its redirects, so this source never matches there", src)
			return
		}
		if vc.cleanURLs && src != "/" {
			t := strings.TrimSuffix(src, "/")
			note("cleanUrls: Vercel also answers %s.html, %s/index and %s/index.html with this rule (after one 308 to %s); here they are not redirected", t, t, t, src)
		}
		if ts := vc.trailingSlash; ts != nil && src != "/" {
			slash := strings.HasSuffix(src, "/")
			lastDot := strings.Contains(path.Base(src), ".")
			switch {
			case !*ts && slash:
				vc.sink.Skip(line, "trailingSlash: false: Vercel redirects %s to %s before its redirects, so this source never matches there", src, strings.TrimSuffix(src, "/"))
				return
			case *ts && !slash && !lastDot:
				vc.sink.Skip(line, "trailingSlash: true: Vercel redirects %s to %s/ before its redirects, so this source never matches there", src, src)
				return
			case *ts && slash && lastDot:
				vc.sink.Skip(line, "trailingSlash: true: Vercel redirects %s (a file name) to %s before its redirects, so this source never matches there", src, strings.TrimSuffix(src, "/"))
				return
			}
		}
	} else {
		if vc.cleanURLs {
			note("cleanUrls: a path under %s ending in .html or /index is redirected to its clean form on Vercel before this rule", src)
		}
		if ts := vc.trailingSlash; ts != nil {
			if *ts {
				note("trailingSlash: true: a path under %s without a trailing '/' (and without a '.' in its last segment) gets one on Vercel before this rule", src)
			} else {
				note("trailingSlash: false: a path under %s loses its trailing '/' on Vercel before this rule", src)
			}
		}
	}
	if _, q, _ := redirects.SplitDestination(r.Destination); r.PreserveQuery && strings.Trim(q, "&") != "" {
		// Vercel merges the request's query parameters into the
		// destination's, a name the destination holds keeping its value
		// (docs/migrate.md#vercel): mergeQuery.
		r.MergeQuery = true
	}
	vc.sink.Rule(line, r)
}

// vcEmptyDestQuery reports whether destination d has a '?' and a query
// after it that holds no parameter (empty, or '&'s only), which mergeQuery
// does not take: the request's query is passed on as preserveQuery passes
// it.
func vcEmptyDestQuery(d string) bool {
	_, q, _ := redirects.SplitDestination(d)
	i, f := strings.IndexByte(d, '?'), strings.IndexByte(d, '#')
	return strings.Trim(q, "&") == "" && i >= 0 && (f < 0 || i < f)
}

// vcFormatURL gives an absolute destination without a path the path "/",
// as url.format does.
func vcFormatURL(d string) string {
	for _, scheme := range []string{"http://", "https://"} {
		if len(d) > len(scheme) && strings.EqualFold(d[:len(scheme)], scheme) {
			rest := d[len(scheme):]
			if i := strings.IndexAny(rest, "/?#"); i < 0 {
				return d + "/"
			} else if rest[i] != '/' {
				return d[:len(scheme)+i] + "/" + rest[i:]
			}
		}
	}
	return d
}

func vcConditions(cs []vcCondition) string {
	var parts []string
	for _, c := range cs {
		s := c.Type
		if c.Key != "" {
			s += " " + c.Key
		}
		parts = append(parts, s)
	}
	return strings.Join(parts, ", ")
}

func vcProjectHost(o *Options, h string) bool {
	for _, x := range o.Hosts {
		if strings.EqualFold(x, h) {
			return true
		}
	}
	return false
}

// vcSubstitute replaces each :name of s (not followed by a name
// character) with its value, and each $N that names the N-th group of the
// source (names are the source's groups, in order) with its group's.
func vcSubstitute(s string, names []string, vals map[string]string) string {
	if len(vals) == 0 || !strings.ContainsAny(s, ":$") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ':':
			j := i + 1
			for j < len(s) && vcNameByte(s[j]) {
				j++
			}
			if v, ok := vals[s[i+1:j]]; ok && j > i+1 {
				b.WriteString(v)
				i = j - 1
				continue
			}
		case '$':
			j := i + 1
			for j < len(s) && '0' <= s[j] && s[j] <= '9' {
				j++
			}
			if n, err := strconv.Atoi(s[i+1 : j]); err == nil && n >= 1 && n <= len(names) {
				b.WriteString(vals[names[n-1]])
				i = j - 1
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

func vcNameByte(c byte) bool {
	return c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// vcTailDest finds the destination's reference to the source's tail
// parameter, the group group of the source: it must end the destination's
// path part (":path*", ":path+", ":path" or "$N"). It returns the
// destination without it and whether the rest of the path is passed on;
// ok is false when the reference is elsewhere.
func vcTailDest(dest string, t *vcParam, group int) (prefix string, preserve, ok bool) {
	end := len(dest)
	if i := strings.IndexAny(dest, "?#"); i >= 0 {
		end = i
	}
	p, rest := dest[:end], dest[end:]
	dollar := "$" + strconv.Itoa(group)
	refs := []string{dollar}
	if t.name != "" {
		refs = append([]string{":" + t.name + "*", ":" + t.name + "+", ":" + t.name}, refs...)
	}
	count := 0
	for i := 0; i < len(dest); i++ {
		switch {
		case t.name != "" && dest[i] == ':' && strings.HasPrefix(dest[i+1:], t.name) &&
			(i+1+len(t.name) == len(dest) || !vcNameByte(dest[i+1+len(t.name)])):
			count++
		case strings.HasPrefix(dest[i:], dollar) && (i+len(dollar) == len(dest) || dest[i+len(dollar)] < '0' || dest[i+len(dollar)] > '9'):
			count++
		}
	}
	if count == 0 {
		return dest, false, true
	}
	if count > 1 {
		return "", false, false
	}
	for _, r := range refs {
		if strings.HasSuffix(p, r) {
			return p[:len(p)-len(r)] + rest, true, true
		}
	}
	return "", false, false
}

// The source patterns read: path-to-regexp 6.1.0's syntax, of which
// literal text, :name parameters without a pattern or modifier, and one
// trailing :name*, :name+, (.*) or :name(.*) have an equivalent.

type vcTailKind int

const (
	vcNone vcTailKind = iota
	vcStar            // :name* (zero or more segments)
	vcPlus            // :name+ (one or more)
	vcAny             // (.*) or :name(.*): anything
)

type vcParam struct {
	name     string // "" for an unnamed group
	pattern  string
	modifier string
	prefix   string // "/" or ""
	kind     vcTailKind
}

func (p *vcParam) ref() string {
	if p.name == "" {
		return "(" + p.pattern + ")"
	}
	s := ":" + p.name
	if p.pattern != "" {
		s += "(" + p.pattern + ")"
	}
	return s + p.modifier
}

type vcItem struct {
	lit   string
	param *vcParam
}

type vcPattern struct{ items []vcItem }

// parseVercelSource splits a source as path-to-regexp 6.1.0's lexer and
// parser do (delimiter '/', prefixes "./"), and refuses what it refuses.
func parseVercelSource(s string) (*vcPattern, error) {
	// A source of literal characters only (most of a large file's) is one
	// literal item, as the scan below makes it, without its copy.
	if !strings.ContainsAny(s, `\:(){}*+?`) {
		if s == "" {
			return &vcPattern{}, nil
		}
		return &vcPattern{items: []vcItem{{lit: s}}}, nil
	}
	return parseVercelSourceScan(s)
}

// parseVercelSourceScan is parseVercelSource's scan of every character.
func parseVercelSourceScan(s string) (*vcPattern, error) {
	p := &vcPattern{}
	var lit strings.Builder
	flush := func() {
		if lit.Len() > 0 {
			p.items = append(p.items, vcItem{lit: lit.String()})
			lit.Reset()
		}
	}
	i := 0
	for i < len(s) {
		c := s[i]
		switch c {
		case '\\':
			if i+1 >= len(s) {
				return nil, fmt.Errorf("a '\\' ends it")
			}
			lit.WriteByte(s[i+1])
			i += 2
			continue
		case ':', '(':
			prm := &vcParam{}
			if c == ':' {
				j := i + 1
				for j < len(s) && vcNameByte(s[j]) {
					j++
				}
				if j == i+1 {
					return nil, fmt.Errorf("missing parameter name at %d", i)
				}
				prm.name = s[i+1 : j]
				i = j
			}
			if i < len(s) && s[i] == '(' {
				depth, j := 1, i+1
				for j < len(s) && depth > 0 {
					switch s[j] {
					case '\\':
						j++
					case '(':
						depth++
					case ')':
						depth--
					}
					j++
				}
				if depth != 0 {
					return nil, fmt.Errorf("unbalanced pattern at %d", i)
				}
				prm.pattern = s[i+1 : j-1]
				if prm.pattern == "" {
					return nil, fmt.Errorf("missing pattern at %d", i)
				}
				i = j
			}
			if i < len(s) && (s[i] == '*' || s[i] == '+' || s[i] == '?') {
				prm.modifier = string(s[i])
				i++
			}
			// The prefix: a '/' or '.' just before, taken from the literal.
			if l := lit.String(); strings.HasSuffix(l, "/") || strings.HasSuffix(l, ".") {
				prm.prefix = l[len(l)-1:]
				lit.Reset()
				lit.WriteString(l[:len(l)-1])
			}
			flush()
			p.items = append(p.items, vcItem{param: prm})
			continue
		case '{', '}':
			// Groups: read as unsupported patterns.
			flush()
			p.items = append(p.items, vcItem{param: &vcParam{pattern: string(c), modifier: "{"}})
			i++
			continue
		case '*', '+', '?':
			return nil, fmt.Errorf("unexpected %q at %d", c, i)
		}
		lit.WriteByte(c)
		i++
	}
	flush()
	return p, nil
}

// simpleNames are the :name parameters with no pattern or modifier, and
// a '/' (or nothing) before them: placeholders.
func (p *vcPattern) simpleNames() []string {
	var out []string
	for k, it := range p.items {
		if it.param != nil && it.param.simple() && !(k == len(p.items)-1 && p.tail() != nil) {
			out = append(out, it.param.name)
		}
	}
	return out
}

func (prm *vcParam) simple() bool {
	return prm.name != "" && prm.pattern == "" && prm.modifier == "" && prm.prefix != "."
}

// tail returns the last item when it is a tail parameter.
func (p *vcPattern) tail() *vcParam {
	if len(p.items) == 0 {
		return nil
	}
	prm := p.items[len(p.items)-1].param
	if prm == nil {
		return nil
	}
	switch {
	case prm.pattern == "" && prm.name != "" && prm.prefix == "/" && prm.modifier == "*":
		prm.kind = vcStar
	case prm.pattern == "" && prm.name != "" && prm.prefix == "/" && prm.modifier == "+":
		prm.kind = vcPlus
	case prm.pattern == ".*" && prm.modifier == "" && prm.prefix != ".":
		prm.kind = vcAny
	default:
		return nil
	}
	return prm
}

// supported reports whether every parameter is a placeholder or the tail.
func (p *vcPattern) supported() bool {
	t := p.tail()
	seen := map[string]bool{}
	for k, it := range p.items {
		if it.param == nil {
			continue
		}
		if k == len(p.items)-1 && t != nil {
			continue
		}
		if !it.param.simple() || seen[it.param.name] {
			return false
		}
		seen[it.param.name] = true
	}
	return true
}

// literal is the source with its placeholders given their values, up to
// the tail (which it leaves out, with its prefix).
func (p *vcPattern) literal(vals map[string]string) string {
	var b strings.Builder
	t := p.tail()
	for k, it := range p.items {
		switch {
		case it.param == nil:
			b.WriteString(it.lit)
		case k == len(p.items)-1 && t != nil:
		default:
			b.WriteString(it.param.prefix)
			b.WriteString(vals[it.param.name])
		}
	}
	return b.String()
}

// vcHas reads a redirect's has conditions: a host (a name, not a regular
// expression) and query parameters (a key, and a value that is no regular
// expression) become the rule's host and query conditions ("?k=v&k2");
// why says what has no equivalent. A query key without a value that the
// destination names (":k") is captured.
func vcHas(has []vcCondition, dest string) (host, conds, why string) {
	var parts []string
	for _, c := range has {
		var v string
		hasV := len(c.Value) > 0 && string(c.Value) != "null"
		if hasV && json.Unmarshal(c.Value, &v) != nil {
			return "", "", fmt.Sprintf("a has condition (%s) whose value is not a string", vcConditions([]vcCondition{c}))
		}
		switch c.Type {
		case "host":
			key, ok := pattern.HostKey(v)
			switch {
			case !hasV || host != "":
				return "", "", "a has condition on the host without one value: our rules name one host"
			case !vcLiteral(v) || !ok:
				return "", "", fmt.Sprintf("a has condition on the host %s is a regular expression: our rules name one host", v)
			}
			host = key
		case "query":
			k := conditionText(c.Key)
			switch {
			case c.Key == "":
				return "", "", "a has condition on the query without a key"
			case hasV && !vcLiteral(v):
				return "", "", fmt.Sprintf("a has condition on the query parameter %s with the regular expression %s: our query conditions compare values", c.Key, v)
			case hasV && v != "":
				parts = append(parts, k+"="+conditionText(v))
			case validCaptureName(c.Key) && vcNamesParam(dest, c.Key):
				parts = append(parts, k+"=:"+c.Key)
			default:
				parts = append(parts, k)
			}
		default:
			return "", "", fmt.Sprintf("a has condition (%s) answers only some requests there", vcConditions(has))
		}
	}
	if len(parts) > 0 {
		conds = "?" + strings.Join(parts, "&")
	}
	return host, conds, ""
}

// vcNamesParam reports whether s holds ":name" not followed by a name byte.
func vcNamesParam(s, name string) bool {
	for i := 0; ; {
		j := strings.Index(s[i:], ":"+name)
		if j < 0 {
			return false
		}
		end := i + j + 1 + len(name)
		if end == len(s) || !vcNameByte(s[end]) {
			return true
		}
		i = end
	}
}

// vcLiteral reports whether a has value holds no regular expression
// syntax but a '.' (a host's dots, which match themselves too).
func vcLiteral(v string) bool {
	return !strings.ContainsAny(v, "\\^$*+?()[]{}|")
}

// vcWantsRegex reports whether a source becomes a regex rule: it has a
// parameter that is neither a placeholder given values (--placeholder)
// nor a (.*) tail whose destination reference ends the path; a :name* or
// :name+ tail too, which a prefix rule would answer more widely.
func vcWantsRegex(pat *vcPattern, tail *vcParam, o *Options, dest string) bool {
	if !pat.supported() {
		return true
	}
	for _, n := range pat.simpleNames() {
		if len(o.Placeholders[n]) == 0 {
			return true
		}
	}
	if tail == nil {
		return false
	}
	if tail.kind != vcAny {
		return true
	}
	_, _, ok := vcTailDest(dest, tail, len(pat.simpleNames())+1)
	return !ok
}

// regexEntry records a redirect whose source becomes a regex rule.
func (vc *vcFile) regexEntry(line int, pat *vcPattern, src, dest, host, conds string, status int) {
	expr, names, why := pat.regex()
	if why != "" {
		vc.sink.Skip(line, "source pattern %s: %s", src, why)
		return
	}
	if len(names) > 0 {
		dest = vcFormatURL(dest)
	}
	for _, part := range strings.Split(strings.TrimPrefix(conds, "?"), "&") {
		if _, v, ok := strings.Cut(part, "=:"); ok {
			names = append(names, v)
		}
	}
	d := vcRegexDest(dest, names)
	if vcEmptyDestQuery(dest) {
		vc.sink.Note(line, "Vercel merges the request's query parameters into the destination's; here the destination's query is empty, so the request's query is appended as it is")
	}
	source := expr
	if conds != "" {
		source += "$" + conds
	}
	noted := map[string]bool{}
	note := func(format string, args ...any) {
		m := noteText(format, args)
		if !noted[m] {
			noted[m] = true
			vc.sink.Note(line, "%s", m)
		}
	}
	vc.rule(line, redirects.Rule{Source: source, Host: host, Destination: d, MatchType: redirects.Regex, StatusCode: status, PreserveQuery: true}, note)
}

// vcRegexDest writes a destination for a regex rule: each :name of the
// source's names (a modifier '*' or '+' after it dropped, as Vercel drops
// it) becomes ${name}; $N stays; any other '$', '{' and '}' are written
// so that they stay literal.
func vcRegexDest(dest string, names []string) string {
	known := map[string]bool{}
	for _, n := range names {
		known[n] = true
	}
	var b strings.Builder
	for i := 0; i < len(dest); i++ {
		switch c := dest[i]; c {
		case ':':
			j := i + 1
			for j < len(dest) && vcNameByte(dest[j]) {
				j++
			}
			if j > i+1 && known[dest[i+1:j]] {
				b.WriteString("${" + dest[i+1:j] + "}")
				if j < len(dest) && (dest[j] == '*' || dest[j] == '+') {
					j++
				}
				i = j - 1
				continue
			}
			b.WriteByte(c)
		case '$':
			if i+1 < len(dest) && '1' <= dest[i+1] && dest[i+1] <= '9' {
				b.WriteByte(c)
			} else {
				b.WriteString("$$")
			}
		case '{':
			b.WriteString("%7B")
		case '}':
			b.WriteString("%7D")
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// regex writes the source as path-to-regexp 6.1.0's tokensToRegexp does
// (strict, sensitive: the '^' and '$' left to the regex rule's anchoring),
// a named parameter as a named group, with its default pattern [^/]+?.
// It returns the names of the named parameters, or why it cannot.
func (p *vcPattern) regex() (string, []string, string) {
	var b strings.Builder
	var names []string
	for _, it := range p.items {
		prm := it.param
		if prm == nil {
			b.WriteString(regexp.QuoteMeta(it.lit))
			continue
		}
		if prm.modifier == "{" {
			return "", nil, "a group in braces ({...}), which is not read here"
		}
		pt := prm.pattern
		if pt == "" {
			pt = `[^/]+?`
		}
		open := "("
		if prm.name != "" {
			if !validCaptureName(prm.name) {
				return "", nil, "the parameter name :" + prm.name + " does not start with a letter"
			}
			open = "(?P<" + prm.name + ">"
			names = append(names, prm.name)
		}
		pre := regexp.QuoteMeta(prm.prefix)
		switch {
		case pre != "" && (prm.modifier == "+" || prm.modifier == "*"):
			mod := ""
			if prm.modifier == "*" {
				mod = "?"
			}
			b.WriteString("(?:" + pre + open + "(?:" + pt + ")(?:" + pre + "(?:" + pt + "))*))" + mod)
		case pre != "":
			b.WriteString("(?:" + pre + open + pt + "))" + prm.modifier)
		default:
			b.WriteString(open + pt + ")" + prm.modifier)
		}
	}
	return b.String(), names, ""
}
