package ui

import (
	"net/http"
	"strconv"
	"strings"
	"unicode/utf8"

	"redirects"
)

// Rule options and matching settings on the dashboard
// (docs/contract.md#rule-options): the status codes the forms offer, the
// words the tables show, and the settings form with its preview of what a
// change would clash.

// statusNames are the statuses' names for people, as the badges' titles
// say them; statusShort as the status selects list them.
var statusNames = map[int]string{
	301: "Moved Permanently",
	302: "Found (temporary)",
	303: "See Other (the next request is a GET)",
	307: "Temporary Redirect (keeps the method and body)",
	308: "Permanent Redirect (keeps the method and body)",
	410: "Gone (no destination)",
}

var statusShort = map[int]string{
	301: "permanent",
	302: "temporary",
	303: "see other",
	307: "temporary, same method",
	308: "permanent, same method",
	410: "gone",
}

// statusOptions are the status select's options, in redirects.StatusCodes'
// order.
var statusOptions = func() []option {
	out := make([]option, len(redirects.StatusCodes))
	for i, c := range redirects.StatusCodes {
		out[i] = option{Value: strconv.Itoa(c), Label: strconv.Itoa(c) + " " + statusShort[c]}
	}
	return out
}()

// statusTitle is a status badge's title: "308 Permanent Redirect (keeps
// the method and body)".
func statusTitle(code int) string {
	if n, ok := statusNames[code]; ok {
		return strconv.Itoa(code) + " " + n
	}
	return strconv.Itoa(code)
}

// optionWords lists what a rule does beyond its status and destination,
// as the badges of the tables name it: "keeps path", "keeps query".
func optionWords(r redirects.Rule) []string {
	var out []string
	if r.PreservePath {
		out = append(out, "keeps path")
	}
	if r.PreserveQuery {
		out = append(out, "keeps query")
	}
	if r.QueryAfterFragment {
		out = append(out, "query after fragment")
	}
	if r.MergeQuery {
		out = append(out, "merges query")
	}
	if len(r.ExceptHosts) > 0 {
		out = append(out, "not on "+strings.Join(r.ExceptHosts, ", "))
	}
	return out
}

// ruleTarget is what a rule answers, for a flash message: its destination,
// "410 Gone", with its options in parentheses.
func ruleTarget(r *redirects.Rule) string {
	s := r.Destination
	if r.StatusCode == redirects.StatusGone {
		s = "410 Gone"
	}
	if w := optionWords(*r); len(w) > 0 {
		s += " (" + strings.Join(w, ", ") + ")"
	}
	return s
}

// checked reads a checkbox of a form: present with any value is true. A
// checkbox the form disabled (an option that does not apply) is not sent,
// so it is false.
func checked(r *http.Request, name string) bool {
	_, ok := r.PostForm[name]
	return ok
}

// settingChoice is one value of a setting as the settings form offers it.
type settingChoice struct {
	Value, Label string
}

// caseChoices and slashChoices are the settings form's choices: the first
// is the default.
var (
	caseChoices  = []settingChoice{{"sensitive", "Case-sensitive: /About and /about are different paths"}, {"ignore", "Ignore case: /About and /about are the same path"}}
	slashChoices = []settingChoice{{redirects.TrailingSlashExact, "Exact: /docs and /docs/ are different paths"}, {redirects.TrailingSlashIgnore, "Ignore: /docs and /docs/ are the same path"}}
)

// parseSettings reads the settings form's "case" and "trailing-slash".
func parseSettings(r *http.Request) (redirects.Settings, error) {
	var s redirects.Settings
	switch v := r.PostFormValue("case"); v {
	case "sensitive":
	case "ignore":
		s.CaseInsensitive = true
	default:
		return s, &pageError{status: http.StatusBadRequest, msg: "Letter case: choose case-sensitive or ignore case, not " + strconv.Quote(v) + "."}
	}
	ignore, err := redirects.ParseTrailingSlash(r.PostFormValue("trailing-slash"))
	if err != nil {
		return s, &pageError{status: http.StatusBadRequest, msg: "Trailing slash: choose exact or ignore, not " + strconv.Quote(r.PostFormValue("trailing-slash")) + "."}
	}
	s.IgnoreTrailingSlash = ignore
	return s, nil
}

// caseValue and slashValue are the settings form's values of s.
func caseValue(s redirects.Settings) string {
	if s.CaseInsensitive {
		return "ignore"
	}
	return "sensitive"
}

// describeSettings says in words how s compares paths: "case-sensitive,
// trailing slash exact".
func describeSettings(s redirects.Settings) string {
	c := "case-sensitive"
	if s.CaseInsensitive {
		c = "ignoring case"
	}
	return c + ", trailing slash " + s.TrailingSlash()
}

// settingChange is one setting that differs between two sides, in words.
type settingChange struct {
	Name, From, To, Effect string
}

// settingChanges lists the settings that differ from from to to, with
// what the change does to answers.
func settingChanges(from, to redirects.Settings) []settingChange {
	var out []settingChange
	if from.CaseInsensitive != to.CaseInsensitive {
		c := settingChange{Name: "Letter case", From: "case-sensitive", To: "ignore case",
			Effect: "Paths that differ from a source only in the case of letters (/ABOUT for /about) will be answered by its rule; today they are not."}
		if from.CaseInsensitive {
			c.From, c.To = c.To, c.From
			c.Effect = "Paths that differ from a source only in the case of letters will no longer be answered by its rule."
		}
		out = append(out, c)
	}
	if from.IgnoreTrailingSlash != to.IgnoreTrailingSlash {
		c := settingChange{Name: "Trailing slash", From: redirects.TrailingSlashExact, To: redirects.TrailingSlashIgnore,
			Effect: "An exact rule will also answer its path with or without one trailing / (/docs and /docs/); today only its own spelling."}
		if from.IgnoreTrailingSlash {
			c.From, c.To = c.To, c.From
			c.Effect = "An exact rule will answer only its own spelling of the path again: /docs/ no longer answers for /docs."
		}
		out = append(out, c)
	}
	return out
}

// clashPreviewMax is the most draft rules the settings page reads on every
// visit to show what a change of setting would clash (at 100,000 rules
// the page took 300 ms, most of it FindRules: BenchmarkSettingsPage).
// Past it, the page offers the preview as a link (?preview=1), and saving
// checks either way.
var clashPreviewMax = 50_000

// clashShown is how many pairs of rules a preview lists.
const clashShown = 20

// clashPreview is what one other choice of settings would clash.
type clashPreview struct {
	Settings redirects.Settings
	Words    string
	Pairs    []redirects.Clash
	// More is true when there are more pairs than listed.
	More bool
}

// previews returns, for each choice of settings other than cur, the pairs
// of rules it would make clash (docs/contract.md#rule-options): what the
// settings form would refuse, before anyone saves it.
func previews(rules []redirects.Rule, cur redirects.Settings) []clashPreview {
	var out []clashPreview
	for _, ci := range []bool{false, true} {
		for _, ts := range []bool{false, true} {
			s := redirects.Settings{CaseInsensitive: ci, IgnoreTrailingSlash: ts}
			if s == cur {
				continue
			}
			pairs := redirects.Clashes(rules, s, clashShown+1)
			p := clashPreview{Settings: s, Words: describeSettings(s), Pairs: pairs}
			if len(pairs) > clashShown {
				p.Pairs, p.More = pairs[:clashShown], true
			}
			out = append(out, p)
		}
	}
	return out
}

// settingsMatching saves the project's matching settings, as the API's
// PATCH of caseSensitive and trailingSlash does: a change under which
// draft rules would clash is refused, and the page lists the pairs.
func (h *handler) settingsMatching(w http.ResponseWriter, r *http.Request) error {
	ph, _, err := h.project(r, redirects.ActionManageProjects)
	if err != nil {
		return err
	}
	back := "/projects/" + ph.ID + "/settings"
	s, err := parseSettings(r)
	if err != nil {
		return h.redirect(w, r, back, flashErr, "The matching settings were not saved: "+message(err))
	}
	if s == ph.Settings {
		return h.redirect(w, r, back, flashOK, "Nothing to change: the draft already compares paths "+describeSettings(s)+".")
	}
	if _, err := h.svc.Projects.UpdateProject(r.Context(), ph.ID, settingsUpdate(s)); err != nil {
		if redirects.ErrorCode(err) == redirects.ECONFLICT {
			// The store's message lists the pairs; a flash is a cookie,
			// so a long list is cut (the page's preview lists them too).
			return h.redirect(w, r, back, flashErr, "The matching settings were not saved: "+clip(message(err), 600)+
				" Change or delete one rule of each pair, then save again.")
		}
		if statusOf(err) < 500 {
			return h.redirect(w, r, back, flashErr, "The matching settings were not saved: "+message(err))
		}
		return err
	}
	msg := "Saved: the draft compares paths " + describeSettings(s) + "."
	if ph.Live != nil {
		msg += " Deploy to make it live; version " + itoa(ph.Live.Version) + " still compares paths " + describeSettings(ph.Live.Settings) + "."
	} else {
		msg += " The first deploy makes it live."
	}
	return h.redirect(w, r, back, flashOK, msg)
}

// clip cuts s to at most n bytes, on a character boundary, marking the
// cut with "…".
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// settingsUpdate is the project update that sets the matching settings s.
func settingsUpdate(s redirects.Settings) redirects.ProjectUpdate {
	return redirects.ProjectUpdate{CaseInsensitive: &s.CaseInsensitive, IgnoreTrailingSlash: &s.IgnoreTrailingSlash}
}
