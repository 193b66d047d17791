package manage

import (
	"errors"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"

	"redirects"
	"redirects/safety"
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
	// CaseSensitive and TrailingSlash are the matching settings the deploy
	// froze: lookups of this version compare paths with them.
	CaseSensitive bool   `json:"caseSensitive"`
	TrailingSlash string `json:"trailingSlash"`
	// Live is set on the version the edge answers without a version;
	// Staged on a version deployed with stage and never promoted;
	// PromotedAt is when a promote last made the version live, null when
	// none did (docs/contract.md#staged-deploys).
	Live       bool    `json:"live"`
	Staged     bool    `json:"staged"`
	PromotedAt *string `json:"promotedAt"`
}

func toDeploymentJSON(d *redirects.Deployment) deploymentJSON {
	j := deploymentJSON{Version: d.Version, CreatedAt: formatTime(d.CreatedAt), ExactRules: d.ExactCount,
		PrefixRules: d.PrefixCount, Message: d.Message, Report: d.Report,
		CaseSensitive: d.Settings.CaseSensitive(), TrailingSlash: d.Settings.TrailingSlash()}
	if d.FromVersion > 0 {
		v := d.FromVersion
		j.FromVersion = &v
	}
	j.Live, j.Staged = d.Live, d.Staged
	if !d.PromotedAt.IsZero() {
		at := formatTime(d.PromotedAt)
		j.PromotedAt = &at
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
	// Force, with Reason, deploys past lint errors and failing
	// expected-outcome cases; AllowShrink past the shrink guard.
	Force       bool   `json:"force"`
	Reason      string `json:"reason"`
	AllowShrink bool   `json:"allowShrink"`
	// Stage stores the version without making it live; promote does.
	Stage bool `json:"stage"`
}

// codeDeployBlocked is the answer to a deploy the gate refused.
const codeDeployBlocked = "DEPLOY_BLOCKED"

// blockedBody is the 409 of a blocked deploy: the error, and the gate's
// report of why.
type blockedBody struct {
	errorBody
	Gate *safety.GateResult `json:"gate"`
}

// deploymentCreate deploys the draft rules, or with fromVersion the rules
// of that version again (a rollback), with the builder the command line
// deploys with, after the checks of package safety, and answers the new
// version. A blocked deploy changes nothing and answers 409 DEPLOY_BLOCKED
// with the report.
func (h *handler) deploymentCreate(w http.ResponseWriter, r *http.Request) error {
	p, err := h.authorizeProject(r, redirects.ActionDeploy)
	if err != nil {
		return err
	}
	var req deployRequest
	if err := h.decodeJSON(w, r, &req, true); err != nil {
		return err
	}
	opts := redirects.DeployOptions{Message: req.Message, Stage: req.Stage,
		Override: redirects.DeployOverride{Force: req.Force, Reason: req.Reason, AllowShrink: req.AllowShrink}}
	if req.FromVersion != nil {
		if *req.FromVersion <= 0 {
			return redirects.Errorf(redirects.EINVALID, "fromVersion %d is not a positive version number", *req.FromVersion)
		}
		opts.FromVersion = *req.FromVersion
	}
	if err := opts.Validate(); err != nil {
		return err
	}
	d, g, err := safety.Deploy(r.Context(), h.store, p.ID, opts, h.builder)
	var be *safety.BlockedError
	if errors.As(err, &be) {
		writeJSON(w, http.StatusConflict, blockedBody{errorBody: errorBody{Error: redirects.ErrorMessage(err), Code: codeDeployBlocked}, Gate: g})
		return nil
	}
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, toDeploymentJSON(d))
	return nil
}

// deploymentVersion reads the path's {version}.
func deploymentVersion(r *http.Request) (int, error) {
	s := r.PathValue("version")
	v, err := strconv.Atoi(s)
	if err != nil || v <= 0 {
		return 0, newError(http.StatusNotFound, "NOT_FOUND", "deployment version %q not found: versions are positive whole numbers", s)
	}
	return v, nil
}

// deploymentPromote makes a version live: the project's live pointer moves
// to it, its content unchanged, and every edge node answers from it. It is
// not gated again: the gate ran when it was deployed or staged. Promoting
// the live version changes nothing.
func (h *handler) deploymentPromote(w http.ResponseWriter, r *http.Request) error {
	p, err := h.authorizeProject(r, redirects.ActionDeploy)
	if err != nil {
		return err
	}
	v, err := deploymentVersion(r)
	if err != nil {
		return err
	}
	d, err := h.store.PromoteDeployment(r.Context(), p.ID, v)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, toDeploymentJSON(d))
	return nil
}

// deploymentDiscard discards a staged version that was never promoted; the
// live version, or one that was ever live, is refused (409 CONFLICT).
func (h *handler) deploymentDiscard(w http.ResponseWriter, r *http.Request) error {
	p, err := h.authorizeProject(r, redirects.ActionDeploy)
	if err != nil {
		return err
	}
	v, err := deploymentVersion(r)
	if err != nil {
		return err
	}
	if err := h.store.DiscardDeployment(r.Context(), p.ID, v); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// deployCheck answers the gate's report on a deploy of the draft, or with
// ?fromVersion=N of that version, without deploying: what a deploy would be
// refused for, with no override. The dashboard shows it before a deploy.
func (h *handler) deployCheck(w http.ResponseWriter, r *http.Request) error {
	p, err := h.authorizeProject(r, redirects.ActionRead)
	if err != nil {
		return err
	}
	var opts redirects.DeployOptions
	if v := r.URL.Query().Get("fromVersion"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 {
			return badQuery("fromVersion %q is not a positive version number", v)
		}
		opts.FromVersion = n
	}
	g, err := safety.CheckDeploy(r.Context(), h.store, p.ID, opts)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, g)
	return nil
}

// testsGet answers the project's stored test file as CSV.
func (h *handler) testsGet(w http.ResponseWriter, r *http.Request) error {
	p, err := h.authorizeProject(r, redirects.ActionRead)
	if err != nil {
		return err
	}
	csv, err := h.store.FindProjectTests(r.Context(), p.ID)
	if err != nil {
		return err
	}
	if csv == "" {
		return newError(http.StatusNotFound, "NOT_FOUND", "project %s has no stored test file", p.ID)
	}
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	io.WriteString(w, csv) // a failed write is the client's loss
	return nil
}

// testsPut stores the project's test file, sent as text/csv; a file with a
// bad line is refused whole, with every bad line named.
func (h *handler) testsPut(w http.ResponseWriter, r *http.Request) error {
	p, err := h.authorizeProject(r, redirects.ActionDeploy)
	if err != nil {
		return err
	}
	ct := r.Header.Get("Content-Type")
	if mt, _, err := mime.ParseMediaType(ct); err != nil || mt != "text/csv" {
		if ct == "" {
			ct = "none"
		}
		return newError(http.StatusUnsupportedMediaType, codeUnsupportedMedia, "Content-Type is %s; send text/csv", ct)
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, redirects.MaxTestsLen))
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return newError(http.StatusRequestEntityTooLarge, codeBodyTooLarge, "the test file is larger than the %d bytes allowed", redirects.MaxTestsLen)
	} else if err != nil {
		return newError(http.StatusBadRequest, "INVALID_INPUT", "reading the body: %v", err)
	}
	if len(body) == 0 {
		return redirects.Errorf(redirects.EINVALID, "the test file is empty; its first line must be the header %s (DELETE removes the stored file)",
			strings.Join(safety.CasesHeader[:3], ","))
	}
	n, err := safety.CountTests(string(body))
	if err != nil {
		return err
	}
	if err := h.store.SetProjectTests(r.Context(), p.ID, string(body)); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"cases": n})
	return nil
}

// testsDelete removes the project's stored test file; deploys then run no
// cases.
func (h *handler) testsDelete(w http.ResponseWriter, r *http.Request) error {
	p, err := h.authorizeProject(r, redirects.ActionDeploy)
	if err != nil {
		return err
	}
	if err := h.store.SetProjectTests(r.Context(), p.ID, ""); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
