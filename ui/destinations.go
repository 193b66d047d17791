package ui

import (
	"net/http"
	"net/url"

	"redirects"
)

// destinationsData is the destinations page: the last check's results,
// broken first, whether the viewer may check again, the check that runs
// now (if one does) and the outcome of the check the viewer started.
type destinationsData struct {
	Checks  []redirects.DestinationCheck
	Broken  int
	CanEdit bool
	Running *redirects.CheckJob
	// CheckID is the check the viewer started (?check=ID), Ended says how
	// it ended, and Failed whether it failed.
	CheckID string
	Ended   string
	Failed  bool
}

// destinationsPage lists where the live version's destinations led when
// last checked (docs/contract.md#destination-checks), broken ones first,
// and the progress of a check that runs, with a link to read it again
// (a page that reloads itself by a timer fails WCAG 2.2.1). It changes
// nothing.
func (h *handler) destinationsPage(w http.ResponseWriter, r *http.Request) error {
	ph, o, err := h.project(r, redirects.ActionRead)
	if err != nil {
		return err
	}
	ctx := r.Context()
	d := destinationsData{CanEdit: may(r, ph.OrgID, redirects.ActionEditRules)}
	// The running check first, then the one asked about: a check that
	// ends between the two reads is shown ended, not neither.
	if d.Running, err = h.svc.Checks.RunningDestinationCheck(ctx, ph.ID); err != nil {
		return err
	}
	if id := r.URL.Query().Get("check"); id != "" {
		d.CheckID = id
		job, err := h.svc.Checks.FindDestinationCheck(ctx, ph.ID, id)
		if err != nil {
			return err
		}
		switch job.State {
		case redirects.CheckDone:
			d.Ended = "Checked " + plural(job.Checked, "destination") + ": " + thousands(job.Broken) + " broken."
			if job.Skipped > 0 {
				d.Ended += " " + plural(job.Skipped, "destination") + " with captures skipped."
			}
		case redirects.CheckFailed:
			d.Ended, d.Failed = "The check failed: "+job.Error, true
		}
		if d.Ended != "" && d.Running != nil && d.Running.ID == job.ID {
			d.Running = nil
		}
	}
	cs, err := h.svc.Checks.FindDestinationChecks(ctx, ph.ID)
	if err != nil {
		return err
	}
	d.Checks = cs
	for i := range cs {
		if cs[i].Broken() {
			d.Broken++
		}
	}
	return h.render(w, r, http.StatusOK, "destinations", &page{Title: "Destinations · " + ph.Name, Org: o, Project: ph, Tab: "history", Data: d})
}

// destinationsCheck starts a check of every destination of the live
// version (an editor's action), which runs in the background, and shows
// the page, which follows it.
func (h *handler) destinationsCheck(w http.ResponseWriter, r *http.Request) error {
	ph, _, err := h.project(r, redirects.ActionEditRules)
	if err != nil {
		return err
	}
	back := "/projects/" + ph.ID + "/destinations"
	job, err := h.svc.Checks.StartDestinationCheck(r.Context(), ph.ID, redirects.CheckOptions{})
	if err != nil {
		if statusOf(err) < 500 {
			return h.redirect(w, r, back, flashErr, "Nothing was checked: "+message(err))
		}
		return err
	}
	return h.redirect(w, r, back+"?check="+url.QueryEscape(job.ID), flashOK,
		"Check started: "+plural(job.Total, "destination")+" to request. It runs on the server; this page shows its progress, and its results once it ends.")
}
