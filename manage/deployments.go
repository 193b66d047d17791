package manage

import (
	"net/http"

	"redirects"
)

// deploymentJSON is a deployment as the API shows one: the CLI's
// deployments --json shape.
type deploymentJSON struct {
	Version     int    `json:"version"`
	CreatedAt   string `json:"createdAt"`
	ExactRules  int    `json:"exactRules"`
	PrefixRules int    `json:"prefixRules"`
	Message     string `json:"message"`
	FromVersion *int   `json:"fromVersion"`
	Report      string `json:"report"`
}

func toDeploymentJSON(d *redirects.Deployment) deploymentJSON {
	j := deploymentJSON{Version: d.Version, CreatedAt: formatTime(d.CreatedAt), ExactRules: d.ExactCount,
		PrefixRules: d.PrefixCount, Message: d.Message, Report: d.Report}
	if d.FromVersion > 0 {
		v := d.FromVersion
		j.FromVersion = &v
	}
	return j
}

// deploymentList answers a project's deployments, version 1 first.
func (h *handler) deploymentList(w http.ResponseWriter, r *http.Request) error {
	p, err := h.authorizeProject(r, redirects.ActionRead)
	if err != nil {
		return err
	}
	ds, err := h.store.FindDeployments(r.Context(), p.ID)
	if err != nil {
		return err
	}
	out := make([]deploymentJSON, 0, len(ds))
	for _, d := range ds {
		out = append(out, toDeploymentJSON(d))
	}
	writeJSON(w, http.StatusOK, map[string]any{"deployments": out})
	return nil
}

type deployRequest struct {
	Message     string `json:"message"`
	FromVersion *int   `json:"fromVersion"`
}

// deploymentCreate deploys the draft rules, or with fromVersion the rules
// of that version again (a rollback), with the builder the command line
// deploys with, and answers the new version.
func (h *handler) deploymentCreate(w http.ResponseWriter, r *http.Request) error {
	p, err := h.authorizeProject(r, redirects.ActionDeploy)
	if err != nil {
		return err
	}
	var req deployRequest
	if err := h.decodeJSON(w, r, &req, true); err != nil {
		return err
	}
	opts := redirects.DeployOptions{Message: req.Message}
	if req.FromVersion != nil {
		if *req.FromVersion <= 0 {
			return redirects.Errorf(redirects.EINVALID, "fromVersion %d is not a positive version number", *req.FromVersion)
		}
		opts.FromVersion = *req.FromVersion
	}
	d, err := h.store.Deploy(r.Context(), p.ID, opts, h.builder)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, toDeploymentJSON(d))
	return nil
}
