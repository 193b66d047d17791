package manage

import (
	"context"
	"net/http"
	"time"

	"redirects"
	"redirects/api"
)

// checkWait bounds how long POST .../destination-checks?wait=true waits
// for the check's end: well within the listener's write timeout, after
// which the check goes on and the answer is the running check.
var checkWait = 100 * time.Second

// destinationCheckStart is POST .../destination-checks: it starts a check
// of the live version's destinations (an editor's action) and answers 202
// Accepted with it and its Location. With ?wait=true it waits for the
// check, up to checkWait, and answers 200 with its report as the route
// answered before checks ran in the background, or 202 as above if the
// check still runs or failed (its error says why). A check of the
// project that runs already is a 409 naming it.
func (h *handler) destinationCheckStart(w http.ResponseWriter, r *http.Request) error {
	if _, err := h.authorizeProject(r, redirects.ActionEditRules); err != nil {
		return err
	}
	wait := false
	switch v := r.URL.Query().Get("wait"); v {
	case "", "false":
	case "true":
		wait = true
	default:
		return badQuery("wait is true or false, not %q", v)
	}
	var in api.CheckInput
	if err := h.decodeJSONMax(w, r, &in, true, h.maxBody); err != nil {
		return err
	}
	ctx := r.Context()
	project := r.PathValue("project")
	job, err := h.svc.Checks.StartDestinationCheck(ctx, project, redirects.CheckOptions{BaseURL: in.BaseURL})
	if err != nil {
		return err
	}
	if wait {
		if job, err = h.waitForCheck(ctx, project, job); err != nil {
			return err
		}
		if job.State == redirects.CheckDone && job.Report != nil {
			writeJSON(w, http.StatusOK, api.CheckReportOf(job.Report))
			return nil
		}
	}
	w.Header().Set("Location", "/manage/v1"+api.CheckURL(job.ProjectID, job.ID))
	writeJSON(w, http.StatusAccepted, api.CheckJobOf(job))
	return nil
}

// waitForCheck reads the check until it no longer runs, checkWait has
// passed or the request ends, and returns it as last read.
func (h *handler) waitForCheck(ctx context.Context, project string, job *redirects.CheckJob) (*redirects.CheckJob, error) {
	ctx, cancel := context.WithTimeout(ctx, checkWait)
	defer cancel()
	pause := 50 * time.Millisecond
	for job.State == redirects.CheckRunning {
		select {
		case <-ctx.Done():
			return job, nil
		case <-time.After(pause):
		}
		pause = min(2*pause, time.Second)
		next, err := h.svc.Checks.FindDestinationCheck(context.WithoutCancel(ctx), project, job.ID)
		if err != nil {
			return nil, err
		}
		job = next
	}
	return job, nil
}

// destinationCheckGet is GET .../destination-checks/{id}: a check as it
// stands (reading the project), its report once done.
func (h *handler) destinationCheckGet(w http.ResponseWriter, r *http.Request) error {
	if _, err := h.authorizeProject(r, redirects.ActionRead); err != nil {
		return err
	}
	job, err := h.svc.Checks.FindDestinationCheck(r.Context(), r.PathValue("project"), r.PathValue("id"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, api.CheckJobOf(job))
	return nil
}
