package ui

import (
	"context"
	"errors"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"redirects"
	"redirects/engine/pattern"
)

// The rule form, to add a rule and to edit one (docs/contract.md#pattern-
// rules): its fields as posted, each refusal shown beside the field it
// names with the position in the value, and a preview of what the rule
// answers for a sample path and host, computed by the pattern engine on
// the one rule, before anything is saved.

// ruleValues are the rule form's fields as the user typed them: a form
// shown again after a preview or a refusal keeps every one.
type ruleValues struct {
	Source, Destination, Host   string
	Status, Match, Priority     string
	PreservePath, PreserveQuery bool
	// QueryAfterFragment is the "query after the fragment" checkbox.
	QueryAfterFragment bool
	// MergeQuery is the "merge the query" checkbox.
	MergeQuery bool
	// ExceptHosts is the "except on" field: hosts separated by commas or
	// spaces.
	ExceptHosts string
	// SamplePath and SampleHost are the preview's request.
	SamplePath, SampleHost string
}

// valuesOf are the form's fields for a stored rule.
func valuesOf(r *redirects.Rule) ruleValues {
	return ruleValues{Source: r.Source, Destination: r.Destination, Host: r.Host,
		Status: strconv.Itoa(r.StatusCode), Match: r.MatchType.String(), Priority: strconv.Itoa(r.Priority),
		PreservePath: r.PreservePath, PreserveQuery: r.PreserveQuery, QueryAfterFragment: r.QueryAfterFragment,
		MergeQuery: r.MergeQuery, ExceptHosts: strings.Join(r.ExceptHosts, ", ")}
}

// readValues reads the rule form's fields from a posted form.
func readValues(r *http.Request) ruleValues {
	return ruleValues{
		Source:             strings.TrimSpace(r.PostFormValue("source")),
		Destination:        strings.TrimSpace(r.PostFormValue("destination")),
		Host:               strings.TrimSpace(r.PostFormValue("host")),
		Status:             r.PostFormValue("status"),
		Match:              r.PostFormValue("match"),
		Priority:           strings.TrimSpace(r.PostFormValue("priority")),
		PreservePath:       checked(r, "preserve-path"),
		PreserveQuery:      checked(r, "preserve-query"),
		QueryAfterFragment: checked(r, "query-after-fragment"),
		MergeQuery:         checked(r, "merge-query"),
		ExceptHosts:        strings.TrimSpace(r.PostFormValue("except-hosts")),
		SamplePath:         strings.TrimSpace(r.PostFormValue("sample-path")),
		SampleHost:         strings.TrimSpace(r.PostFormValue("sample-host")),
	}
}

// previewing reports whether the form was sent with its Preview button.
func previewing(r *http.Request) bool { return r.PostFormValue("action") == "preview" }

// fieldError is a refusal shown beside a field: the message and, when it
// names one, the byte offset in the value as written (-1 for none).
type fieldError struct {
	Msg   string
	Value string
	Pos   int
}

// Marked reports whether the error points at a position of the value.
func (e *fieldError) Marked() bool { return e.Pos >= 0 && e.Pos <= len(e.Value) }

// Before, At and After split the value at the position: At is the
// character there ("" at the end of the value).
func (e *fieldError) Before() string { return e.Value[:e.Pos] }
func (e *fieldError) At() string {
	if e.Pos >= len(e.Value) {
		return ""
	}
	_, n := utf8.DecodeRuneInString(e.Value[e.Pos:])
	return e.Value[e.Pos : e.Pos+n]
}
func (e *fieldError) After() string {
	if e.Pos >= len(e.Value) {
		return ""
	}
	_, n := utf8.DecodeRuneInString(e.Value[e.Pos:])
	return e.Value[e.Pos+n:]
}

// PosNote names the position when the message does not: "(position 4)".
func (e *fieldError) PosNote() string {
	if !e.Marked() || atByte.MatchString(e.Msg) || atPosition.MatchString(e.Msg) {
		return ""
	}
	return "(position " + strconv.Itoa(e.Pos+1) + ")"
}

// fieldErrorView is a field's error as the template shows it, with the id
// the field's aria-describedby names.
type fieldErrorView struct {
	E  *fieldError
	ID string
}

// formErrors are a form's refusals by field: source, destination, host,
// status, match, priority, options, sample-path, sample-host.
type formErrors map[string]*fieldError

// add records msg against field, unless the field has an error already.
func (fe formErrors) add(field, value, msg string, pos int) {
	if _, ok := fe[field]; !ok {
		fe[field] = &fieldError{Msg: msg, Value: value, Pos: pos}
	}
}

// ruleOf turns the form's values into a rule, recording what is wrong
// in the form's words (Rule.Validate checks the rest, in the API's).
func ruleOf(v ruleValues, fe formErrors) *redirects.Rule {
	rule := &redirects.Rule{Source: v.Source, Destination: v.Destination, Host: v.Host,
		PreservePath: v.PreservePath, PreserveQuery: v.PreserveQuery, QueryAfterFragment: v.QueryAfterFragment,
		MergeQuery: v.MergeQuery, ExceptHosts: hostWords(v.ExceptHosts), Priority: redirects.DefaultPriority}
	var err error
	if rule.StatusCode, err = strconv.Atoi(v.Status); err != nil || !redirects.ValidStatus(rule.StatusCode) {
		fe.add("status", v.Status, "Status: choose one of 301, 302, 303, 307, 308, 410.", -1)
	}
	if rule.MatchType, err = redirects.ParseMatchType(v.Match); err != nil {
		fe.add("match", v.Match, "Match type: choose exact, starts_with, pattern or regex.", -1)
	}
	if v.Source == "" {
		fe.add("source", v.Source, "Source: give the path to redirect, starting with /.", -1)
	}
	switch {
	case rule.Destination == "" && rule.StatusCode != redirects.StatusGone:
		fe.add("destination", v.Destination, "Destination: give a path starting with / or an http(s):// URL. Only a 410 (Gone) has none.", -1)
	case rule.StatusCode == redirects.StatusGone && rule.Destination != "":
		fe.add("destination", v.Destination, "Destination: a 410 (Gone) has none. Empty it, or choose another status.", -1)
	}
	if v.Priority != "" {
		if rule.Priority, err = strconv.Atoi(v.Priority); err != nil {
			fe.add("priority", v.Priority, "Priority "+strconv.Quote(v.Priority)+" is not a whole number.", -1)
		}
	}
	switch {
	case rule.StatusCode == redirects.StatusGone && (rule.PreservePath || rule.PreserveQuery || rule.QueryAfterFragment || rule.MergeQuery):
		fe.add("options", "", "Options: a 410 (Gone) keeps nothing of the request. Uncheck them, or choose another status.", -1)
	case rule.PreservePath && rule.MatchType != redirects.StartsWith:
		fe.add("options", "", "Keep the rest of the path: only a starts_with rule has a rest to keep. Choose starts_with, or uncheck it. A pattern keeps the rest with a splat: /old/* → /new/:splat.", -1)
	case rule.QueryAfterFragment && !rule.PreserveQuery:
		fe.add("options", "", "Query after the fragment: it says where the kept query goes. Check Keep the query string too, or uncheck it.", -1)
	case rule.QueryAfterFragment && !strings.Contains(rule.Destination, "#"):
		fe.add("options", "", "Query after the fragment: the destination has no #fragment to put the query after. Add one, or uncheck it.", -1)
	case rule.MergeQuery && !rule.PreserveQuery:
		fe.add("options", "", "Merge the query: it says how the kept query joins the destination's. Check Keep the query string too, or uncheck it.", -1)
	case rule.MergeQuery && rule.QueryAfterFragment:
		fe.add("options", "", "Merge the query and Query after the fragment do not go together: the merged query stays before the #fragment. Uncheck one.", -1)
	case rule.MergeQuery && !destinationHasQuery(rule.Destination):
		fe.add("options", "", "Merge the query: the destination has no ?query to merge the request's into. Add one (/items?name=x), or uncheck it.", -1)
	}
	return rule
}

// hostWords is the "except on" field's hosts: separated by commas or
// spaces, none when empty.
func hostWords(v string) []string {
	hs := strings.FieldsFunc(v, func(c rune) bool { return c == ',' || c == ' ' || c == '\t' })
	if len(hs) == 0 {
		return nil
	}
	return hs
}

// ruleFields are the form fields a domain error can name by its first
// word (Rule.Validate's messages start with the field's API name).
var ruleFields = map[string]string{
	"source": "source", "destination": "destination", "host": "host",
	"statuscode": "status", "status": "status", "matchtype": "match", "match": "match",
	"priority": "priority", "preservepath": "options", "preservequery": "options",
	"queryafterfragment": "options", "mergequery": "options", "excepthosts": "except-hosts",
}

var (
	atByte     = regexp.MustCompile(`\bat byte (\d+)`)
	atPosition = regexp.MustCompile(`\bposition (\d+)`)
)

// locate records a refusal of the service against the field it names, with
// the position in the value as typed: the pattern engine's, when the error
// carries it or the engine refuses the same field of the rule; otherwise
// the one the message names ("at byte 3", 0-based; "position 4",
// 1-based). It reports false when the error names no field of the form.
func locate(err error, rule *redirects.Rule, v ruleValues, fe formErrors) bool {
	msg := message(err)
	word := strings.ToLower(strings.TrimRight(strings.Fields(msg + " x")[0], ":,"))
	word, _, _ = strings.Cut(word, "[") // exceptHosts[1]: the list's field
	var pe *pattern.Error
	if !errors.As(err, &pe) {
		pe = nil
		var ce *pattern.Error
		if errors.As(pattern.Check(rule.PatternRule()), &ce) {
			pe = ce
		}
	}
	field, ok := ruleFields[word]
	if pe != nil && (!ok || ruleFields[strings.ToLower(pe.Field)] == field) {
		field, ok = ruleFields[strings.ToLower(pe.Field)]
	} else {
		pe = nil
	}
	if !ok {
		return false
	}
	value := map[string]string{"source": v.Source, "destination": v.Destination, "host": v.Host, "except-hosts": v.ExceptHosts,
		"status": v.Status, "match": v.Match, "priority": v.Priority}[field]
	pos := -1
	switch {
	case pe != nil:
		pos = pe.Pos
	case atByte.MatchString(msg):
		pos, _ = strconv.Atoi(atByte.FindStringSubmatch(msg)[1])
	case atPosition.MatchString(msg):
		n, _ := strconv.Atoi(atPosition.FindStringSubmatch(msg)[1])
		pos = n - 1
	}
	if pos > len(value) {
		pos = -1
	}
	fe.add(field, value, msg, pos)
	return true
}

// capture is one placeholder's or group's text in a preview.
type capture struct{ Name, Value string }

// rulePreview is what the rule would answer for the sample request.
type rulePreview struct {
	Path, Host string
	// Tried is false when no sample path was given: the preview only
	// says the rule is valid.
	Tried    bool
	Matches  bool
	Captures []capture
	// Status and Destination are the answer, with the captures inserted
	// and the rule's options applied, as a lookup answers.
	Status      int
	Destination string
	// Why says why a rule that does not match does not.
	Why string
	// Settings says how paths are compared, when not the default.
	Settings string
}

// preview validates the form's rule as saving would (Rule.Validate) and, if
// it is valid, matches the sample request against it alone with the pattern
// engine under the project's settings. Refusals go to fe; the preview is
// nil when there is one.
func preview(v ruleValues, st redirects.Settings, fe formErrors) *rulePreview {
	rule := ruleOf(v, fe)
	if len(fe) > 0 {
		return nil
	}
	valid := *rule
	if err := valid.Validate(); err != nil {
		if !locate(err, rule, v, fe) {
			fe.add("form", "", message(err), -1)
		}
		return nil
	}
	pv := &rulePreview{Path: v.SamplePath, Host: v.SampleHost}
	if !st.IsDefault() {
		pv.Settings = describeSettings(st)
	}
	if v.SamplePath == "" {
		return pv
	}
	if v.SamplePath[0] != '/' || len(v.SamplePath) > redirects.MaxSourceLen {
		fe.add("sample-path", v.SamplePath, "Sample path: start it with / (at most "+thousands(redirects.MaxSourceLen)+" bytes), as a browser asks for it: /en/docs/intro?ref=x.", -1)
	}
	host := ""
	if v.SampleHost != "" {
		h, ok := pattern.HostKey(v.SampleHost)
		if !ok || strings.Contains(h, "*") {
			fe.add("sample-host", v.SampleHost, "Sample host: give a host name as a browser sends it, such as www.example.com.", -1)
		}
		host = h
	}
	if len(fe) > 0 {
		return nil
	}
	set, err := pattern.Compile([]pattern.Rule{valid.PatternRule()}, st.PatternSettings())
	if err != nil { // Validate took it: the engine takes it too
		if !locate(err, rule, v, fe) {
			fe.add("form", "", message(err), -1)
		}
		return nil
	}
	pv.Tried = true
	var m pattern.Match
	if !set.Lookup(host, v.SamplePath, &m) {
		switch {
		case valid.Host != "" && host == "":
			pv.Why = "This rule answers only requests for " + valid.Host + ": give a sample host."
		case valid.Host != "" && !hostCovers(valid.Host, host):
			pv.Why = "This rule answers only requests for " + valid.Host + ", not " + host + "."
		case host != "" && slices.ContainsFunc(valid.ExceptHosts, func(e string) bool { return hostCovers(e, host) }):
			pv.Why = "This rule answers every host but " + strings.Join(valid.ExceptHosts, ", ") + ", so not " + host + "."
		default:
			pv.Why = "The sample path does not match the source" + conditionsWord(&valid) + "."
		}
		return pv
	}
	pv.Matches = true
	m.Captures(func(name, value string) {
		pv.Captures = append(pv.Captures, capture{captureName(valid.MatchType, name), value})
	})
	pv.Status = valid.StatusCode
	if valid.StatusCode != redirects.StatusGone {
		expanded := valid
		expanded.Destination = string(m.AppendDestination(nil))
		matched := 0
		if expanded.MatchType == redirects.StartsWith && expanded.PreservePath {
			if p, err := redirects.DecodePath(v.SamplePath); err == nil {
				src := expanded
				src.Source = redirects.WirePath(src.Source)
				matched, _ = st.Matches(&src, p)
			}
		}
		pv.Destination = redirects.Target(&expanded, v.SamplePath, matched)
	}
	return pv
}

// captureName is how a destination names a capture: ":lang" for a
// pattern's (and a literal rule's query capture), "$1" or "${page}" for a
// regex's.
func captureName(mt redirects.MatchType, name string) string {
	if mt != redirects.Regex {
		return ":" + name
	}
	if _, err := strconv.Atoi(name); err == nil {
		return "$" + name
	}
	return "${" + name + "}"
}

// hostCovers reports whether a rule's host key answers a request's.
func hostCovers(rule, host string) bool {
	if rest, ok := strings.CutPrefix(rule, "*"); ok {
		return strings.HasSuffix(host, rest)
	}
	return rule == host
}

// conditionsWord names a source's query conditions in a preview's "does
// not match".
func conditionsWord(r *redirects.Rule) string {
	if strings.IndexByte(r.Source, '?') >= 0 && r.MatchType != redirects.Regex || strings.Contains(r.Source, "$?") {
		return " or its query conditions"
	}
	return ""
}

// matchTypeOptions are the match type select's choices.
var matchTypeOptions = func() []option {
	out := make([]option, len(redirects.MatchTypes))
	for i, mt := range redirects.MatchTypes {
		out[i] = option{Value: mt.String(), Label: mt.String()}
	}
	return out
}()

// ruleFormData is the add or edit form as a page shows it.
type ruleFormData struct {
	// Prefix is put before every control's id: "new-" on the rules page,
	// whose filters use the plain ids.
	Prefix string
	Action string
	// Submit is the primary button's text; Revision is the edited rule's.
	Submit   string
	Revision int64
	Cancel   string
	V        ruleValues
	Errors   formErrors
	// Problem is the summary above the form of a refused save.
	Problem string
	Preview *rulePreview
	// Focus is the field to put the cursor in when the page loads: the
	// first refused one, or the preview's answer.
	Focus      string
	Statuses   []option
	MatchTypes []option
	// Regexes is the project's count of regex rules, -1 when unknown.
	Regexes, RegexMax int
}

// Err returns the error of a field, or nil.
func (f *ruleFormData) Err(field string) *fieldError { return f.Errors[field] }

// focusOrder is the order of the form's fields, for the first refused.
var focusOrder = []string{"source", "destination", "status", "match", "host", "priority", "options", "sample-path", "sample-host"}

// settle sets the problem summary and the field to focus once the form's
// errors are known.
func (f *ruleFormData) settle(problem string) {
	if len(f.Errors) == 0 {
		if f.Preview != nil {
			f.Focus = "preview"
		}
		return
	}
	if e := f.Errors["form"]; e != nil {
		f.Problem = problem + e.Msg
	} else {
		var first *fieldError
		for _, k := range focusOrder {
			if e := f.Errors[k]; e != nil {
				if first == nil {
					first, f.Focus = e, k
				}
			}
		}
		if first != nil {
			f.Problem = problem + first.Msg
		}
	}
}

// regexCount returns how many regex rules the project's draft holds, -1
// when the store cannot say.
func (h *handler) regexCount(ctx context.Context, projectID string) int {
	mt := redirects.Regex
	pg, err := h.svc.Rules.FindRulePage(ctx, projectID, redirects.RulePageQuery{Filter: redirects.RuleFilter{MatchType: &mt}, Limit: 1})
	if err != nil {
		return -1
	}
	return pg.Total
}

// destinationHasQuery reports whether destination d has a non-empty query
// (what mergeQuery merges into).
func destinationHasQuery(d string) bool {
	_, q, _ := redirects.SplitDestination(d)
	return q != ""
}
