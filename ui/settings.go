package ui

import (
	"net/http"
	"strconv"
	"strings"

	"redirects"
)

// settingsShrinkLimit sets the percentage of the live rules a deploy may
// remove unconfirmed, as the API's PATCH of the project's shrinkLimit does.
func (h *handler) settingsShrinkLimit(w http.ResponseWriter, r *http.Request) error {
	ph, _, err := h.project(r, redirects.ActionManageProjects)
	if err != nil {
		return err
	}
	back := "/projects/" + ph.ID + "/settings"
	raw := strings.TrimSpace(r.PostFormValue("shrink-limit"))
	n, err := strconv.Atoi(raw)
	if err == nil {
		err = redirects.ValidateShrinkLimit(n)
	} else {
		err = redirects.Errorf(redirects.EINVALID, "the shrink limit %q is not a whole number", raw)
	}
	if err == nil {
		_, err = h.svc.Projects.UpdateProject(r.Context(), ph.ID, redirects.ProjectUpdate{ShrinkLimit: &n})
	}
	if err != nil {
		if statusOf(err) < 500 && redirects.ErrorCode(err) != redirects.EFORBIDDEN {
			return h.redirect(w, r, back, flashErr, "The shrink limit was not saved: "+message(err))
		}
		return err
	}
	return h.redirect(w, r, back, flashOK, "Saved: a deploy that removes more than "+strconv.Itoa(n)+" % of the live rules (at least 10) needs a confirmation.")
}

// settingsHosts sets the host names the project's site answers on, one a
// line or separated by commas or spaces; an empty field clears them.
func (h *handler) settingsHosts(w http.ResponseWriter, r *http.Request) error {
	ph, _, err := h.project(r, redirects.ActionManageProjects)
	if err != nil {
		return err
	}
	back := "/projects/" + ph.ID + "/settings"
	hosts := strings.FieldsFunc(r.PostFormValue("hosts"), func(c rune) bool { return c == ',' || c == ' ' || c == '\n' || c == '\r' || c == '\t' })
	if hosts == nil {
		hosts = []string{}
	}
	if _, err := redirects.NormalizeHosts(hosts); err != nil {
		return h.redirect(w, r, back, flashErr, "The hosts were not saved: "+message(err))
	}
	p, err := h.svc.Projects.UpdateProject(r.Context(), ph.ID, redirects.ProjectUpdate{Hosts: &hosts})
	if err != nil {
		if statusOf(err) < 500 && redirects.ErrorCode(err) != redirects.EFORBIDDEN {
			return h.redirect(w, r, back, flashErr, "The hosts were not saved: "+message(err))
		}
		return err
	}
	if len(p.Hosts) == 0 {
		return h.redirect(w, r, back, flashOK, "The project declares no host now: every absolute destination counts as another site's.")
	}
	return h.redirect(w, r, back, flashOK, "Saved "+plural(len(p.Hosts), "host")+": "+strings.Join(p.Hosts, ", ")+".")
}
