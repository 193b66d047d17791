package ui

import (
	"net/http"
	"strconv"

	"redirects"
	"redirects/safety"
)

// missesShown is how many missed paths the Misses tab lists.
const missesShown = 100

type missesData struct {
	Misses  []redirects.Miss
	CanEdit bool
	// Statuses are the statuses a rule made of a miss may have.
	Statuses []int
	// ShowHost is true when a miss was asked on a host: the table then
	// has a column for it.
	ShowHost bool
	// Suggestions are the open suggestions (ui/suggest.go).
	Suggestions []redirects.Suggestion
}

// missesPage is the Misses tab: the paths live lookups asked for most that
// no rule answered (docs/contract.md, "Hits and misses"), each with a form
// that makes a draft rule of it.
func (h *handler) missesPage(w http.ResponseWriter, r *http.Request) error {
	ph, o, err := h.project(r, redirects.ActionRead)
	if err != nil {
		return err
	}
	ms, err := h.svc.Insight.FindMisses(r.Context(), ph.ID, missesShown)
	if err != nil {
		return err
	}
	d := missesData{Misses: ms, CanEdit: may(r, o.ID, redirects.ActionEditRules), Statuses: redirects.StatusCodes}
	for _, m := range ms {
		d.ShowHost = d.ShowHost || m.Host != ""
	}
	d.Suggestions = h.openSuggestions(r, ph.ID)
	return h.render(w, r, http.StatusOK, "misses", &page{Title: "Misses · " + ph.Name, Org: o, Project: ph, Tab: "misses", Data: d})
}

// missRule puts a rule for a missed path in the draft and forgets the
// miss: "create a rule from this miss".
func (h *handler) missRule(w http.ResponseWriter, r *http.Request) error {
	ph, _, err := h.project(r, redirects.ActionEditRules)
	if err != nil {
		return err
	}
	back := "/projects/" + ph.ID + "/misses"
	path := r.PostFormValue("path")
	rule := &redirects.Rule{ProjectID: ph.ID, Source: path, Destination: r.PostFormValue("destination"),
		StatusCode: redirects.DefaultStatus, MatchType: redirects.Exact, Priority: redirects.DefaultPriority}
	if s := r.PostFormValue("status"); s != "" {
		if rule.StatusCode, err = strconv.Atoi(s); err != nil {
			return h.redirect(w, r, back, flashErr, "Status: choose one of 301, 302, 303, 307, 308, 410.")
		}
	}
	// A miss asked on a host makes a rule for that host, unless its "only
	// on" box is unchecked.
	rule.Host = r.PostFormValue("host")
	if m := r.PostFormValue("match"); m != "" {
		if rule.MatchType, err = redirects.ParseMatchType(m); err != nil {
			return h.redirect(w, r, back, flashErr, message(err))
		}
	}
	if err := h.svc.Insight.AddRuleFromMiss(r.Context(), rule); err != nil {
		if statusOf(err) < 500 {
			return h.redirect(w, r, back, flashErr, "No rule was added for "+path+": "+message(err))
		}
		return err
	}
	target := rule.Destination + " (" + strconv.Itoa(rule.StatusCode) + ")"
	if rule.StatusCode == redirects.StatusGone {
		target = "410 Gone"
	}
	return h.redirect(w, r, back, flashOK, "Added to the draft: "+ruleName(rule)+" → "+target+". Deploy to make it live.")
}

// missForget forgets a missed path nobody will make a rule of; new misses
// of it are counted again.
func (h *handler) missForget(w http.ResponseWriter, r *http.Request) error {
	ph, _, err := h.project(r, redirects.ActionEditRules)
	if err != nil {
		return err
	}
	back := "/projects/" + ph.ID + "/misses"
	path := r.PostFormValue("path")
	if err := h.svc.Insight.DeleteMiss(r.Context(), ph.ID, path); err != nil {
		if statusOf(err) < 500 {
			return h.redirect(w, r, back, flashErr, message(err))
		}
		return err
	}
	return h.redirect(w, r, back, flashOK, "Forgot "+path+". New misses of it are counted again.")
}

type settingsData struct {
	Tests     string
	Cases     int
	CanDeploy bool
	// CanManage may change the deploy gate's settings (ActionManageProjects).
	CanManage bool
	// Case and Slash are the matching settings' choices, CaseValue and
	// SlashValue the draft's.
	Case, Slash           []settingChoice
	CaseValue, SlashValue string
	// Current says in words how the draft compares paths.
	Current string
	// Previews are what each other choice of settings would clash; nil
	// when the draft has more than clashPreviewMax rules (Rules says how
	// many it has) and ?preview=1 does not ask for them.
	Previews []clashPreview
	Rules    int
	// LiveChanges are the settings the draft changes against the live
	// version.
	LiveChanges []settingChange
}

// settingsPage is the Settings tab: the project's expected-outcome test
// file, which every deploy runs, and the deploy gate's settings.
func (h *handler) settingsPage(w http.ResponseWriter, r *http.Request) error {
	ph, o, err := h.project(r, redirects.ActionRead)
	if err != nil {
		return err
	}
	tests, err := h.svc.Deploys.Tests(r.Context(), ph.ID)
	if err != nil {
		return err
	}
	d := settingsData{Tests: tests, CanDeploy: may(r, o.ID, redirects.ActionDeploy), CanManage: may(r, o.ID, redirects.ActionManageProjects),
		Case: caseChoices, Slash: slashChoices, CaseValue: caseValue(ph.Settings), SlashValue: ph.Settings.TrailingSlash(),
		Current: describeSettings(ph.Settings)}
	if ph.Live != nil {
		d.LiveChanges = settingChanges(ph.Live.Settings, ph.Settings)
	}
	pg, err := h.svc.Rules.FindRulePage(r.Context(), ph.ID, redirects.RulePageQuery{Limit: 1})
	if err != nil {
		return err
	}
	if d.Rules = pg.Total; d.Rules <= clashPreviewMax || r.URL.Query().Get("preview") == "1" {
		_, rules, err := h.svc.Rules.FindDraft(r.Context(), ph.ID)
		if err != nil {
			return err
		}
		d.Previews = previews(rules, ph.Settings)
	}
	if tests != "" {
		if d.Cases, err = safety.CountTests(tests); err != nil {
			return err
		}
	}
	return h.render(w, r, http.StatusOK, "settings", &page{Title: "Settings · " + ph.Name, Org: o, Project: ph, Tab: "settings", Data: d})
}

// settingsTests stores the project's test file (an empty one removes it).
// A bad file is refused with the line that is wrong, and nothing changes.
func (h *handler) settingsTests(w http.ResponseWriter, r *http.Request) error {
	ph, _, err := h.project(r, redirects.ActionDeploy)
	if err != nil {
		return err
	}
	back := "/projects/" + ph.ID + "/settings"
	tests := r.PostFormValue("tests")
	if tests == "" {
		err = h.svc.Deploys.DeleteTests(r.Context(), ph.ID)
	} else {
		_, err = h.svc.Deploys.SetTests(r.Context(), ph.ID, tests)
	}
	if err != nil {
		if statusOf(err) < 500 {
			return h.redirect(w, r, back, flashErr, "The test file was not saved: "+message(err))
		}
		return err
	}
	if tests == "" {
		return h.redirect(w, r, back, flashOK, "The test file is removed: deploys run no expected-outcome cases.")
	}
	n, _ := safety.CountTests(tests)
	return h.redirect(w, r, back, flashOK, "Saved "+plural(n, "case")+": every deploy runs them against the rules it puts live.")
}
