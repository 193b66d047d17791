package manage

import (
	"errors"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"

	"redirects"
	"redirects/api"
	"redirects/safety"
)

// deploymentJSON is a deployment as the API shows one.
type deploymentJSON = api.Deployment

func toDeploymentJSON(d *redirects.Deployment) deploymentJSON { return api.DeploymentOf(d) }

// deploymentList answers a project's deployments, version 1 first.
func (h *handler) deploymentList(w http.ResponseWriter, r *http.Request) error {
	// Authorized first, as every route is (authz.go): a caller who may
	// not see the project learns nothing from a mistake in the request.
	if _, err := h.authorizeProject(r, redirects.ActionRead); err != nil {
		return err
	}
	ds, err := h.svc.Deploys.Deployments(r.Context(), r.PathValue("project"))
	if err != nil {
		return err
	}
	out := api.Deployments{Deployments: make([]api.Deployment, 0, len(ds))}
	for _, d := range ds {
		out.Deployments = append(out.Deployments, api.DeploymentOf(d))
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// codeDeployBlocked is the answer to a deploy the gate refused.
const codeDeployBlocked = api.CodeDeployBlocked

// deploymentCreate deploys the draft rules, or with fromVersion the rules
// of that version again (a rollback), through the deploy service, whose
// gate checks them in the deploy's transaction, and answers the new
// version. A blocked deploy changes nothing and answers 409 DEPLOY_BLOCKED
// with the report.
func (h *handler) deploymentCreate(w http.ResponseWriter, r *http.Request) error {
	// Authorized first, as every route is (authz.go): a caller who may
	// not see the project learns nothing from a mistake in the request.
	if _, err := h.authorizeProject(r, redirects.ActionDeploy); err != nil {
		return err
	}
	var req api.DeployRequest
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
	d, g, err := h.svc.Deploys.Deploy(r.Context(), r.PathValue("project"), opts)
	var be *redirects.DeployBlockedError
	if errors.As(err, &be) {
		writeJSON(w, http.StatusConflict, api.DeployBlocked{Error: redirects.ErrorMessage(err), Code: codeDeployBlocked, Gate: g})
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
	// Authorized first, as every route is (authz.go): a caller who may
	// not see the project learns nothing from a mistake in the request.
	if _, err := h.authorizeProject(r, redirects.ActionDeploy); err != nil {
		return err
	}
	v, err := deploymentVersion(r)
	if err != nil {
		return err
	}
	d, err := h.svc.Deploys.Promote(r.Context(), r.PathValue("project"), v)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, toDeploymentJSON(d))
	return nil
}

// deploymentDiscard discards a staged version that was never promoted; the
// live version, or one that was ever live, is refused (409 CONFLICT).
func (h *handler) deploymentDiscard(w http.ResponseWriter, r *http.Request) error {
	// Authorized first, as every route is (authz.go): a caller who may
	// not see the project learns nothing from a mistake in the request.
	if _, err := h.authorizeProject(r, redirects.ActionDeploy); err != nil {
		return err
	}
	v, err := deploymentVersion(r)
	if err != nil {
		return err
	}
	if err := h.svc.Deploys.Discard(r.Context(), r.PathValue("project"), v); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// deployCheck answers the gate's report on a deploy of the draft, or with
// ?fromVersion=N of that version, without deploying: what a deploy would be
// refused for, with no override. The dashboard shows it before a deploy.
func (h *handler) deployCheck(w http.ResponseWriter, r *http.Request) error {
	// Authorized first, as every route is (authz.go): a caller who may
	// not see the project learns nothing from a mistake in the request.
	if _, err := h.authorizeProject(r, redirects.ActionRead); err != nil {
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
	g, err := h.svc.Deploys.CheckDeploy(r.Context(), r.PathValue("project"), opts)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, g)
	return nil
}

// testsGet answers the project's stored test file as CSV.
func (h *handler) testsGet(w http.ResponseWriter, r *http.Request) error {
	// Authorized first, as every route is (authz.go): a caller who may
	// not see the project learns nothing from a mistake in the request.
	if _, err := h.authorizeProject(r, redirects.ActionRead); err != nil {
		return err
	}
	id := r.PathValue("project")
	csv, err := h.svc.Deploys.Tests(r.Context(), id)
	if err != nil {
		return err
	}
	if csv == "" {
		return newError(http.StatusNotFound, "NOT_FOUND", "project %s has no stored test file", id)
	}
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	io.WriteString(w, csv) // a failed write is the client's loss
	return nil
}

// testsPut stores the project's test file, sent as text/csv; a file with a
// bad line is refused whole, with every bad line named.
func (h *handler) testsPut(w http.ResponseWriter, r *http.Request) error {
	// A caller who may not change the file hears so before anything about
	// the body: the service decides again when it stores it.
	if _, err := h.authorizeProject(r, redirects.ActionDeploy); err != nil {
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
	n, err := h.svc.Deploys.SetTests(r.Context(), r.PathValue("project"), string(body))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, api.TestsStored{Cases: n})
	return nil
}

// testsDelete removes the project's stored test file; deploys then run no
// cases.
func (h *handler) testsDelete(w http.ResponseWriter, r *http.Request) error {
	// Authorized first, as every route is (authz.go): a caller who may
	// not see the project learns nothing from a mistake in the request.
	if _, err := h.authorizeProject(r, redirects.ActionDeploy); err != nil {
		return err
	}
	if err := h.svc.Deploys.DeleteTests(r.Context(), r.PathValue("project")); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
