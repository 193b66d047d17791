package ui

// Staged deploys on the History tab (docs/contract.md#staged-deploys): the
// live and the newest staged version side by side, with the diff between
// them, and the forms that promote and discard.

import (
	"net/http"

	"redirects"
	"redirects/safety"
)

// stagedView is the History tab's comparison of the live version and the
// newest staged one.
type stagedView struct {
	Live   *redirects.Deployment
	Staged *redirects.Deployment
	// Diff is what promoting Staged changes against Live (safety.Diff, as
	// the Deploy tab's), with its lists capped.
	Diff                   safety.DiffResult
	Added, Removed         []safety.RuleRef
	Changed                []safety.RuleChange
	MoreAdded, MoreRemove  int
	MoreChange             int
	Changes                int
	Settings               []settingChange
	LiveRules, StagedRules map[int64]redirects.Rule
	ShowOptions            bool
	// StagedCount is the number of staged versions; the newest is shown.
	StagedCount int
}

// stagedComparison returns the comparison of the live version and the
// newest staged one in ds, or nil when none is staged.
func (h *handler) stagedComparison(r *http.Request, projectID string, ds []*redirects.Deployment) (*stagedView, error) {
	v := &stagedView{}
	for _, d := range ds {
		if d.Live {
			v.Live = d
		}
		if d.Staged {
			v.Staged = d
			v.StagedCount++
		}
	}
	if v.Staged == nil {
		return nil, nil
	}
	ctx := r.Context()
	var live []redirects.Rule
	var liveSettings redirects.Settings // nothing live: the default
	if v.Live != nil {
		var err error
		if _, live, err = h.svc.Deploys.Version(ctx, projectID, v.Live.Version); err != nil {
			return nil, err
		}
		liveSettings = v.Live.Settings
	}
	_, staged, err := h.svc.Deploys.Version(ctx, projectID, v.Staged.Version)
	if err != nil {
		return nil, err
	}
	v.Diff = safety.Diff(live, staged, safety.DiffOptions{MaxPaths: 50, From: liveSettings, To: v.Staged.Settings})
	v.Settings = settingChanges(liveSettings, v.Staged.Settings)
	v.Changes = len(v.Diff.Added) + len(v.Diff.Removed) + len(v.Diff.Changed) + len(v.Settings)
	v.Added, v.MoreAdded = capped(v.Diff.Added)
	v.Removed, v.MoreRemove = capped(v.Diff.Removed)
	v.Changed, v.MoreChange = capped(v.Diff.Changed)
	v.StagedRules, v.LiveRules = listedRules(staged, v.Added, v.Changed, false), listedRules(live, v.Removed, v.Changed, true)
	for _, m := range []map[int64]redirects.Rule{v.StagedRules, v.LiveRules} {
		for _, r := range m {
			v.ShowOptions = v.ShowOptions || len(optionWords(r)) > 0
		}
	}
	return v, nil
}

// promote makes a version live (the project's live pointer moves; the
// version is not gated again: it was when it was deployed or staged).
func (h *handler) promote(w http.ResponseWriter, r *http.Request) error {
	ph, _, err := h.project(r, redirects.ActionDeploy)
	if err != nil {
		return err
	}
	v, err := version(r)
	if err != nil {
		return err
	}
	was := 0
	if ph.Live != nil {
		was = ph.Live.Version
	}
	d, err := h.svc.Deploys.Promote(r.Context(), ph.ID, v)
	if err != nil {
		if statusOf(err) < 500 {
			return h.redirect(w, r, "/projects/"+ph.ID+"/history", flashErr, "Nothing was promoted: "+message(err))
		}
		return err
	}
	msg := "Version " + itoa(d.Version) + " is live: edge nodes answer with it within a second."
	if was != 0 && was != d.Version {
		msg += " Promote version " + itoa(was) + " to undo."
	}
	return h.redirect(w, r, "/projects/"+ph.ID+"/history", flashOK, msg)
}

// discard discards a staged version.
func (h *handler) discard(w http.ResponseWriter, r *http.Request) error {
	ph, _, err := h.project(r, redirects.ActionDeploy)
	if err != nil {
		return err
	}
	v, err := version(r)
	if err != nil {
		return err
	}
	if err := h.svc.Deploys.Discard(r.Context(), ph.ID, v); err != nil {
		if statusOf(err) < 500 {
			return h.redirect(w, r, "/projects/"+ph.ID+"/history", flashErr, "Nothing was discarded: "+message(err))
		}
		return err
	}
	return h.redirect(w, r, "/projects/"+ph.ID+"/history", flashOK, "Discarded staged version "+itoa(v)+".")
}
