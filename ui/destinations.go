package ui

import (
	"net/http"

	"redirects"
)

// destinationsData is the destinations page: the last check's results,
// broken first, and whether the viewer may check again.
type destinationsData struct {
	Checks  []redirects.DestinationCheck
	Broken  int
	CanEdit bool
}

// destinationsPage lists where the live version's destinations led when
// last checked (docs/contract.md#destination-checks), broken ones first.
// It changes nothing.
func (h *handler) destinationsPage(w http.ResponseWriter, r *http.Request) error {
	ph, o, err := h.project(r, redirects.ActionRead)
	if err != nil {
		return err
	}
	cs, err := h.svc.Checks.FindDestinationChecks(r.Context(), ph.ID)
	if err != nil {
		return err
	}
	d := destinationsData{Checks: cs, CanEdit: may(r, ph.OrgID, redirects.ActionEditRules)}
	for i := range cs {
		if cs[i].Broken() {
			d.Broken++
		}
	}
	return h.render(w, r, http.StatusOK, "destinations", &page{Title: "Destinations · " + ph.Name, Org: o, Project: ph, Tab: "history", Data: d})
}

// destinationsCheck checks every destination of the live version now
// (an editor's action) and shows the page again.
func (h *handler) destinationsCheck(w http.ResponseWriter, r *http.Request) error {
	ph, _, err := h.project(r, redirects.ActionEditRules)
	if err != nil {
		return err
	}
	back := "/projects/" + ph.ID + "/destinations"
	rep, err := h.svc.Checks.CheckDestinations(r.Context(), ph.ID, redirects.CheckOptions{})
	if err != nil {
		if statusOf(err) < 500 {
			return h.redirect(w, r, back, flashErr, "Nothing was checked: "+message(err))
		}
		return err
	}
	broken := 0
	for i := range rep.Checks {
		if rep.Checks[i].Broken() {
			broken++
		}
	}
	msg := "Checked " + plural(len(rep.Checks), "destination") + ": " + thousands(broken) + " broken."
	if rep.Skipped > 0 {
		msg += " " + plural(rep.Skipped, "destination") + " with captures skipped."
	}
	return h.redirect(w, r, back, flashOK, msg)
}
