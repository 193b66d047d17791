package importer

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"redirects"
)

// WordPress Redirection's exports (docs/migrate.md#wordpress-redirection),
// read as the plugin matches (johngodley/redirection 5.4: models/url/*.php,
// models/regex.php, models/redirect/redirect.php): a redirect's source path
// compared, once decoded, with the request's, lower-cased when flag_case
// (ignore case) is set and without a trailing slash when flag_trailing
// (ignore the trailing slash) is; a regex source tried with preg_match on
// the request URL (query included) and its target made with preg_replace;
// the query matched as flag_query says (exact: the request's query must be
// the source's, ignore, pass: passed on); the first enabled redirect by
// position (then id) that matches answers. A fresh install sets flag_case
// and flag_trailing and leaves flag_query exact (redirection-settings.php);
// an export leaves out the flags equal to the site's, so a redirect
// without them is read under those defaults.
func init() {
	Register(&Format{
		Name:       "wordpress",
		MayBeJSON:  true,
		Title:      "WordPress Redirection export (CSV or JSON)",
		FirstMatch: true,
		Defaults:   &redirects.Settings{CaseInsensitive: true, IgnoreTrailingSlash: true},
		DefaultsWhy: "WordPress Redirection (a fresh install's settings, which its exports assume) ignores case and a trailing slash; " +
			"its default query matching (exact) does not redirect a request whose query the source does not name, which the project does",
		Detect: detectWordPress,
		Read:   readWordPress,
		Example: "source,target,regex,code,type,hits,title,status\n" +
			"\"/old-page\",\"/new-page\",0,301,\"url\",12,\"Old page\",\"active\"\n" +
			"\"/shop/\",\"https://shop.example.com/\",0,302,\"url\",0,\"\",\"active\"\n" +
			"\"^/blog/(.*)$\",\"/news/$1\",1,301,\"url\",3,\"Blog moved\",\"active\"\n" +
			"\"/removed\",\"\",0,410,\"error\",0,\"\",\"active\"\n" +
			"\"/draft\",\"/x\",0,301,\"url\",0,\"\",\"disabled\"\n",
	})
}

// detectWordPress: the CSV export's header (source,target,regex,...), or
// the JSON export's "plugin" and "redirects" with match_url or
// action_data.
func detectWordPress(head []byte, _ string) (bool, string) {
	h := bytes.TrimSpace(bytes.TrimPrefix(head, []byte("\uFEFF")))
	if len(h) > 0 && h[0] == '{' {
		if bytes.Contains(h, []byte(`"redirects"`)) && (bytes.Contains(h, []byte(`"match_url"`)) || bytes.Contains(h, []byte(`"action_data"`)) || bytes.Contains(h, []byte(`"plugin"`))) {
			return true, "a JSON object with Redirection's plugin, groups and redirects (match_url, action_data)"
		}
		return false, ""
	}
	first, _, _ := bytes.Cut(h, []byte("\n"))
	var cols []string
	for _, c := range strings.Split(string(first), ",") {
		cols = append(cols, foldHeader(c))
	}
	if len(cols) >= 3 && cols[0] == "source" && cols[1] == "target" && cols[2] == "regex" {
		return true, "its header is Redirection's CSV export's: source,target,regex,code,type,..."
	}
	return false, ""
}

// wpRedirect is one redirect of either export.
type wpRedirect struct {
	line     int
	url      string
	target   string
	regex    bool
	code     int
	action   string // url, error, random, pass, nothing
	match    string // url, login, referrer, ... ("" in CSV: url)
	enabled  bool
	position int64
	id       int64
	flags    wpFlags
	text     string
	raw      []byte   // a JSON redirect, for its text
	rec      []string // a CSV redirect's fields, for its text
}

// wpFlags are a redirect's source flags; nil fields take the site's
// defaults.
type wpFlags struct {
	Query    *string `json:"flag_query"`
	Case     *bool   `json:"flag_case"`
	Trailing *bool   `json:"flag_trailing"`
	Regex    *bool   `json:"flag_regex"`
}

func readWordPress(in io.Reader, o *Options, sink *Sink) error {
	br := bufio.NewReaderSize(in, 1<<20)
	wp := &wpFile{o: o, sink: sink}
	if peekFirstByte(br) == '{' {
		return wp.readJSON(br)
	}
	return wp.readCSV(br)
}

type wpFile struct {
	o    *Options
	sink *Sink
	// The greatest (position, id) so far, and its line: a redirect that
	// the plugin tries before an earlier line of the file is noted.
	maxPos, maxID int64
	maxLine       int
}

func (wp *wpFile) readCSV(in io.Reader) error {
	r := newCSVReader(in)
	first := true
	for {
		rec, err := r.Read()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				wp.sink.Bad(pe.Line, "not valid CSV: %v", pe.Err)
				return nil
			}
			if csvRecordTooLong(err, wp.sink) {
				return nil
			}
			return err
		}
		line, _ := r.FieldPos(0)
		if first {
			first = false
			if len(rec) > 0 && foldHeader(strings.TrimPrefix(rec[0], "\uFEFF")) == "source" {
				continue
			}
			if len(rec) < 2 {
				// One message for a file of another format, not one a line.
				wp.sink.Bad(line, "this is not a Redirection CSV export: its first line is neither the header source,target,regex,code,type,hits,title,status nor a source,target line")
				return nil
			}
		}
		if len(rec) == 1 && strings.TrimSpace(rec[0]) == "" {
			continue
		}
		if len(rec) < 2 {
			wp.sink.Bad(line, "a line needs at least a source and a target")
			continue
		}
		w := &wpRedirect{line: line, url: strings.TrimSpace(rec[0]), target: strings.TrimSpace(rec[1]), code: 301, action: "url", enabled: true}
		w.rec = rec // joined for its text only when the line is listed
		if len(rec) > 2 {
			// The plugin's import: intval(regex) === 1 (parse_regex).
			w.regex = wpIntval(rec[2]) == 1
		} else {
			// Without the column, a source holding one of ()[]$^* (is_regex).
			w.regex = strings.ContainsAny(w.url, "()[]$^*")
		}
		if len(rec) > 3 && rec[3] != "" {
			n, err := strconv.Atoi(strings.TrimSpace(rec[3]))
			if err != nil {
				wp.sink.Bad(line, "code %q is not a number", rec[3])
				continue
			}
			w.code = n
			if n > 400 && n < 500 {
				w.action = "error"
			}
		}
		if len(rec) > 4 && rec[4] != "" {
			w.action = rec[4]
		}
		if len(rec) > 7 && rec[7] == "disabled" {
			w.enabled = false
		}
		wp.redirect(w)
	}
}

// wpJSONRedirect is a redirect of the JSON export (Red_Item::to_json).
type wpJSONRedirect struct {
	ID         json.Number     `json:"id"`
	URL        *string         `json:"url"`
	MatchURL   string          `json:"match_url"`
	MatchData  *wpMatchData    `json:"match_data"`
	ActionCode json.Number     `json:"action_code"`
	ActionType string          `json:"action_type"`
	ActionData *wpActionData   `json:"action_data"`
	MatchType  string          `json:"match_type"`
	Regex      json.RawMessage `json:"regex"`
	Position   json.Number     `json:"position"`
	Enabled    *bool           `json:"enabled"`
	Status     string          `json:"status"`
}

// wpMatchData and wpActionData are decoded in place: the plugin writes
// an empty PHP array ([]) for no match data, and older exports a string
// for the action's URL, which the decoder reports as type errors of these
// fields alone (see jsonRedirect).
type wpMatchData struct {
	Source wpFlags `json:"source"`
}

type wpActionData struct {
	URL string `json:"url"`
}

func (wp *wpFile) readJSON(in io.Reader) error {
	sink := wp.sink
	j := newJSONLines(in)
	t, err := j.token()
	if err != nil {
		return jsonBad(sink, err)
	}
	if d, ok := t.(json.Delim); !ok || d != '{' {
		sink.Bad(1, "a Redirection JSON export is an object with a \"redirects\" array")
		return nil
	}
	saw := false
	for j.dec.More() {
		kt, err := j.token()
		if err != nil {
			return jsonBad(sink, err)
		}
		if k, _ := kt.(string); k != "redirects" {
			if err := j.skipValue(); err != nil {
				return jsonBad(sink, err)
			}
			continue
		}
		saw = true
		t, err := j.token()
		if err != nil {
			return jsonBad(sink, err)
		}
		if d, ok := t.(json.Delim); !ok || d != '[' {
			sink.Bad(j.lineAt(j.dec.InputOffset()), "\"redirects\" must be an array")
			return nil
		}
		for j.dec.More() {
			if err := sink.stopped(); err != nil {
				return err
			}
			var e wpJSONRedirect
			line, raw, err := j.decodeValue(&e)
			var te *json.UnmarshalTypeError
			switch {
			case errors.As(err, &te) && (te.Field == "match_data" || te.Field == "action_data"):
				// PHP's empty array ([]) for no data, or an older export's
				// action_data that is the URL itself: read the two again.
				var again struct {
					MatchData  json.RawMessage `json:"match_data"`
					ActionData json.RawMessage `json:"action_data"`
				}
				_ = json.Unmarshal(raw, &again)
				e.MatchData, e.ActionData, te = nil, nil, nil
				if m := again.MatchData; len(m) > 0 && m[0] == '{' {
					e.MatchData = &wpMatchData{}
					if err := json.Unmarshal(m, e.MatchData); err != nil {
						sink.Bad(line, "match_data is not Redirection's: %v", err)
						continue
					}
				}
				switch a := again.ActionData; {
				case len(a) > 0 && a[0] == '{':
					e.ActionData = &wpActionData{}
					_ = json.Unmarshal(a, e.ActionData)
				case len(a) > 0 && a[0] == '"':
					e.ActionData = &wpActionData{}
					_ = json.Unmarshal(a, &e.ActionData.URL)
				}
			case te != nil:
				sink.Bad(line, "the redirect is not one Redirection exports: %v", err)
				continue
			case err != nil:
				return jsonBad(sink, err)
			}
			if w := wp.jsonRedirect(line, raw, &e); w != nil {
				wp.redirect(w)
			}
		}
		if _, err := j.token(); err != nil {
			return jsonBad(sink, err)
		}
	}
	if _, err := j.token(); err != nil {
		return jsonBad(sink, err)
	}
	if !saw {
		sink.Bad(1, "the export has no \"redirects\" array")
	}
	return nil
}

func (wp *wpFile) jsonRedirect(line int, raw []byte, e *wpJSONRedirect) *wpRedirect {
	sink := wp.sink
	if e.URL == nil {
		sink.Bad(line, "a redirect needs its url")
		return nil
	}
	w := &wpRedirect{line: line, url: *e.URL, action: e.ActionType, match: e.MatchType, enabled: true, raw: raw}
	if w.action == "" {
		w.action = "url"
	}
	if e.Enabled != nil {
		w.enabled = *e.Enabled
	} else if e.Status == "disabled" {
		w.enabled = false
	}
	var err error
	if e.ActionCode != "" {
		if w.code, err = strconv.Atoi(e.ActionCode.String()); err != nil {
			sink.Bad(line, "action_code %s is not a number", e.ActionCode)
			return nil
		}
	}
	w.position, _ = strconv.ParseInt(e.Position.String(), 10, 64)
	w.id, _ = strconv.ParseInt(e.ID.String(), 10, 64)
	// regex: true, false, 1 or 0.
	switch string(e.Regex) {
	case "true", "1", `"1"`:
		w.regex = true
	}
	// action_data: {"url": ...} for a URL match, or a string (older exports).
	if e.ActionData != nil {
		w.target = e.ActionData.URL
	}
	if e.MatchData != nil {
		w.flags = e.MatchData.Source
		if w.flags.Regex != nil {
			w.regex = *w.flags.Regex
		}
	}
	return w
}

// redirect tells the sink what one redirect becomes.
func (wp *wpFile) redirect(w *wpRedirect) {
	sink, line, o := wp.sink, w.line, wp.o
	defer func() {
		if sink.hasOut(line) {
			switch {
			case w.raw != nil:
				w.text = jsonText(w.raw)
			case w.rec != nil:
				w.text = strings.Join(w.rec, ",")
			}
			sink.Text(line, w.text)
		}
	}()
	if w.position < wp.maxPos || w.position == wp.maxPos && w.id < wp.maxID && w.id != 0 {
		sink.Note(line, "Redirection tries it (position %d) before line %d: here the file's order decides between lines that overlap", w.position, wp.maxLine)
	} else {
		wp.maxPos, wp.maxID, wp.maxLine = w.position, w.id, line
	}
	if !w.enabled {
		sink.Skip(line, "the redirect is disabled")
		return
	}
	if w.match != "" && w.match != "url" {
		sink.Skip(line, "it matches on %s as well as the URL: it answers only some requests there", w.match)
		return
	}
	status := w.code
	switch w.action {
	case "url":
	case "error":
		if w.code != 410 {
			sink.Skip(line, "it answers with the error %d, not a redirect", w.code)
			return
		}
		w.target = ""
	case "pass":
		sink.Skip(line, "a pass-through (the plugin serves the target's content under this URL), not a redirect")
		return
	case "random":
		sink.Skip(line, "it redirects to a random post")
		return
	case "nothing":
		sink.Skip(line, "it does nothing (it only records the hit)")
		return
	default:
		sink.Skip(line, "action type %q is not a redirect", w.action)
		return
	}
	ignoreCase, ignoreSlash := true, true
	if w.flags.Case != nil {
		ignoreCase = *w.flags.Case
	}
	if w.flags.Trailing != nil {
		ignoreSlash = *w.flags.Trailing
	}
	query := "exact"
	if w.flags.Query != nil {
		query = *w.flags.Query
	}
	// A redirect that keeps the plugin's defaults differs from the
	// project's settings as the suggestion says; one whose own flags
	// differ from the defaults and from the project's settings is noted.
	if !ignoreCase && o.Settings.CaseInsensitive {
		sink.Note(line, "Redirection compares this source case-sensitively (flag_case false); the project ignores case, so other spellings of it are redirected too")
	}
	if w.regex {
		wp.regexRedirect(w, status, ignoreCase)
		return
	}
	src := w.url
	// An absolute source: the plugin compares its path only.
	if strings.HasPrefix(src, "http://") || strings.HasPrefix(src, "https://") {
		rest := src[strings.Index(src, "://")+3:]
		host, p, _ := strings.Cut(rest, "/")
		src = "/" + p
		if !vcProjectHost(o, host) {
			sink.Note(line, "host %s dropped: the plugin compares the path only", host)
		}
	}
	if strings.Contains(src, "?") {
		sink.Skip(line, "its source names a query (%s): our rules match the path only", src)
		return
	}
	if !ignoreSlash && o.Settings.IgnoreTrailingSlash {
		sink.Note(line, "Redirection compares this source's trailing slash exactly (flag_trailing false); the project ignores it, so its other form is redirected too")
	}
	r := redirects.Rule{Source: src, Destination: w.target, MatchType: redirects.Exact, StatusCode: status}
	switch query {
	case "pass":
		r.PreserveQuery = true
		if strings.Contains(w.target, "?") {
			sink.Note(line, "Redirection merges the request's query parameters into the target's (the target's win); here the request's query is appended after the target's")
		}
	case "ignore", "exact", "exactorder":
	default:
		sink.Note(line, "flag_query %q is unknown: read as exact", query)
	}
	if status == redirects.StatusGone {
		r.PreserveQuery = false
	}
	sink.Rule(line, r)
}

// wpIntval is PHP's intval of a string: its leading digits (after
// spaces and a sign), 0 when there are none.
func wpIntval(v string) int {
	v = strings.TrimLeft(v, " \t\n\r")
	n, neg, i := 0, false, 0
	if i < len(v) && (v[i] == '-' || v[i] == '+') {
		neg = v[i] == '-'
		i++
	}
	for ; i < len(v) && v[i] >= '0' && v[i] <= '9' && n < 1<<30; i++ {
		n = n*10 + int(v[i]-'0')
	}
	if neg {
		return -n
	}
	return n
}

// regexRedirect reads a regex source when it has an exact equivalent: an
// anchored literal (^/a$), with an optional trailing slash (^/a/?$), or an
// anchored literal prefix whose rest is passed on (^/a/(.*)$ with the
// target /b/$1, or ^/a/ alone: preg_replace keeps what follows the match).
func (wp *wpFile) regexRedirect(w *wpRedirect, status int, ignoreCase bool) {
	sink, line, o := wp.sink, w.line, wp.o
	re := w.url
	skip := func(why string) {
		sink.Skip(line, "regex %s has no exact equivalent here: %s", re, why)
	}
	if !strings.HasPrefix(re, "^/") {
		skip("it is not anchored at the start of the path")
		return
	}
	body := re[1:]
	kind := "prefix" // ^/a/... : everything after the match is kept
	switch {
	case strings.HasSuffix(body, "/?$"):
		kind, body = "slash", strings.TrimSuffix(body, "/?$")
	case strings.HasSuffix(body, "(.*)$"):
		kind, body = "capture", strings.TrimSuffix(body, "(.*)$")
	case strings.HasSuffix(body, "(.*)"):
		kind, body = "capture", strings.TrimSuffix(body, "(.*)")
	case strings.HasSuffix(body, "$") && !strings.HasSuffix(body, "\\$"):
		kind, body = "exact", strings.TrimSuffix(body, "$")
	}
	lit, ok := wpRegexLiteral(body)
	if !ok {
		wp.regexRule(w, status, ignoreCase, skip)
		return
	}
	target := w.target
	if status == redirects.StatusGone {
		target = ""
	}
	var rules []redirects.Rule
	switch kind {
	case "exact":
		if strings.Contains(target, "$") {
			skip("its target refers to a group it does not have")
			return
		}
		rules = append(rules, redirects.Rule{Source: lit, Destination: target, MatchType: redirects.Exact, StatusCode: status})
	case "slash":
		if strings.Contains(target, "$") {
			skip("its target refers to a group it does not have")
			return
		}
		bare := strings.TrimSuffix(lit, "/")
		rules = append(rules, redirects.Rule{Source: bare, Destination: target, MatchType: redirects.Exact, StatusCode: status})
		if !o.Settings.IgnoreTrailingSlash && bare != "" {
			rules = append(rules, redirects.Rule{Source: bare + "/", Destination: target, MatchType: redirects.Exact, StatusCode: status})
		}
		if bare == "" {
			rules[0].Source = "/"
		}
	case "capture", "prefix":
		preserve := true
		switch {
		case kind == "prefix":
			if strings.Contains(target, "$") {
				skip("its target refers to a group it does not have")
				return
			}
		case strings.HasSuffix(target, "$1") && strings.Count(target, "$") == 1 && !strings.ContainsAny(target, "?#"):
			target = strings.TrimSuffix(target, "$1")
		case !strings.Contains(target, "$"):
			// The whole URL is replaced: nothing is kept.
			preserve = false
		default:
			skip("its target uses the group elsewhere than at its end")
			return
		}
		if status == redirects.StatusGone {
			preserve = false
		}
		rules = append(rules, redirects.Rule{Source: lit, Destination: target, MatchType: redirects.StartsWith, StatusCode: status, PreservePath: preserve, PreserveQuery: preserve})
		if o.Settings.IgnoreTrailingSlash && strings.HasSuffix(lit, "/") && len(lit) > 1 {
			sink.Note(line, "regex %s does not match %s; under trailingSlash ignore the rule here answers it too", re, strings.TrimSuffix(lit, "/"))
		}
	}
	if kind == "exact" && o.Settings.IgnoreTrailingSlash && lit != "/" {
		sink.Note(line, "regex %s does not match %s with its trailing slash changed; under trailingSlash ignore the rule here answers it too", re, lit)
	}
	for _, r := range rules {
		sink.Rule(line, r)
	}
}

// wpRegexLiteral returns the literal a regex body stands for when it has
// no special character unescaped.
func wpRegexLiteral(body string) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(body); i++ {
		c := body[i]
		switch {
		case c == '\\':
			if i+1 >= len(body) {
				return "", false
			}
			n := body[i+1]
			if strings.IndexByte(`./-_~+*?()[]{}|^$@`, n) < 0 {
				return "", false // \d, \w, \s...
			}
			b.WriteByte(n)
			i++
		case strings.IndexByte(`.+*?()[]{}|^$`, c) >= 0:
			return "", false
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), b.Len() > 0
}

// regexRule reads a regex source anchored at the start that is not a
// literal shape as a regex rule (docs/migrate.md#wordpress-redirection):
// the plugin runs preg_match and preg_replace on the request URL, so an
// expression ending in $ is the rule's source as it is, and one that does
// not keeps the rest of the URL after the replacement: the rule captures
// the rest of the path and inserts it at the end of the target, and passes
// the query on. flag_case is (?i).
func (wp *wpFile) regexRule(w *wpRedirect, status int, ignoreCase bool, skip func(string)) {
	sink, line, o := wp.sink, w.line, wp.o
	re := w.url
	if topLevelAlternation(re) {
		skip("an alternation outside a group: the plugin anchors its first branch only")
		return
	}
	if ignoreCase {
		for i := 0; i < len(re); i++ {
			if re[i] >= 0x80 {
				skip("it ignores case and holds a character outside ASCII, which PHP's PCRE and RE2 may fold differently")
				return
			}
		}
	}
	anchoredEnd := endsWithDollar(re)
	src, groups, why := pcreRegex(re, false, ignoreCase)
	if why != "" {
		skip(why)
		return
	}
	target := w.target
	if status == redirects.StatusGone {
		target = ""
	}
	if strings.Contains(target, `\`) {
		skip("its target uses a \\N reference")
		return
	}
	pq := false
	if !anchoredEnd {
		if groups >= 9 {
			skip("it has nine groups: the rest of the URL the plugin keeps needs a tenth")
			return
		}
		if strings.ContainsAny(target, "?#") {
			skip("the plugin appends the rest of the URL after the target's query or fragment")
			return
		}
		src = strings.TrimSuffix(src, ".*") + "(.*)"
		groups++
		if target != "" {
			target += fmt.Sprintf("$%d", groups)
		}
		pq = status != redirects.StatusGone
	}
	dst, why := pcreDestination(target, groups, false)
	if why != "" {
		skip(why)
		return
	}
	if o.Settings.IgnoreTrailingSlash {
		sink.Note(line, "regex %s: under trailingSlash ignore the rule here also answers a path with its trailing slash changed", re)
	}
	sink.Rule(line, redirects.Rule{Source: src, Destination: dst, MatchType: redirects.Regex, StatusCode: status, PreserveQuery: pq})
}
