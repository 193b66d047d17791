package manage

import (
	"encoding/json"
	"net/http"

	"redirects"
	"redirects/api"
	"redirects/engine"
	"redirects/safety"
)

// versionParam reads a version query parameter: "draft" for the draft
// rules, "live" for the latest deployment, or a positive version; def when
// absent. The value is checked as the command line checks its --version,
// --from and --to (safety.ParseVersion), so both accept the same names.
func versionParam(r *http.Request, name, def string) (string, error) {
	s, err := query(r, name)
	if err != nil {
		return "", err
	}
	if s == "" {
		return def, nil
	}
	if _, err := safety.ParseVersion(s); err != nil {
		return "", badQuery("the query parameter %q is %q, neither draft, live nor a positive version", name, s)
	}
	return s, nil
}

// lookup answers ?path= against the draft (version=draft), a deployed
// version, or the latest deployment (no version, or version=live), with
// the engine the edge runs, and explains the answer.
func (h *handler) lookup(w http.ResponseWriter, r *http.Request) error {
	// Authorized first, as every route is (authz.go): a caller who may
	// not see the project learns nothing from a mistake in the request.
	if _, err := h.authorizeProject(r, redirects.ActionRead); err != nil {
		return err
	}
	path, err := query(r, "path")
	if err != nil {
		return err
	}
	if path == "" || path[0] != '/' || len(path) > redirects.MaxSourceLen {
		return badQuery("the query parameter \"path\" must start with / and be at most %d bytes", redirects.MaxSourceLen)
	}
	host, err := query(r, "host")
	if err != nil {
		return err
	}
	if host != "" && !redirects.ValidLookupHost(host) {
		return badQuery("the query parameter \"host\" is %q, not a host name (labels of letters, digits and '-', an optional :port)", host)
	}
	spec, err := versionParam(r, "version", "live")
	if err != nil {
		return err
	}
	rs, err := h.svc.Deploys.RuleSet(r.Context(), r.PathValue("project"), spec, false)
	if err != nil {
		return err
	}
	// The answer is the edge's engine's (engine.AnswerJSON), every kind of
	// rule alike; the explanation says why (safety.ExplainFor).
	out := api.Lookup{Path: path, Version: api.RuleSetVersion(rs), Answer: json.RawMessage("null"), Explanation: safety.ExplainFor(rs.Rules, rs.Settings, host, path)}
	body, err := engine.AnswerJSON(rs.Rules, rs.Settings, host, path)
	if err != nil {
		return err
	}
	if body != nil {
		out.Answer = json.RawMessage(body)
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// diff answers what changes from ?from= to ?to= (each draft, live or a
// version; by default from the live version to the draft): the rules
// added, removed and changed, and the sample paths whose answer changes,
// at most ?maxPaths= of them (default safety.DefaultMaxPaths, -1 for all).
// A project with nothing deployed diffs from an empty "live".
func (h *handler) diff(w http.ResponseWriter, r *http.Request) error {
	// Authorized first, as every route is (authz.go): a caller who may
	// not see the project learns nothing from a mistake in the request.
	if _, err := h.authorizeProject(r, redirects.ActionRead); err != nil {
		return err
	}
	from, err := versionParam(r, "from", "live")
	if err != nil {
		return err
	}
	to, err := versionParam(r, "to", "draft")
	if err != nil {
		return err
	}
	maxPaths := safety.DefaultMaxPaths
	if s, err := query(r, "maxPaths"); err != nil {
		return err
	} else if s != "" {
		n, _ := queryInt(r, "maxPaths")
		if n == 0 || n < -1 {
			return badQuery("the query parameter \"maxPaths\" is %q, neither a positive number nor -1 (all)", s)
		}
		maxPaths = n
	}
	ctx := r.Context()
	a, err := h.svc.Deploys.RuleSet(ctx, r.PathValue("project"), from, true)
	if err != nil {
		return err
	}
	b, err := h.svc.Deploys.RuleSet(ctx, r.PathValue("project"), to, true)
	if err != nil {
		return err
	}
	d := safety.Diff(a.Rules, b.Rules, safety.DiffOptions{MaxPaths: maxPaths, From: a.Settings, To: b.Settings})
	writeJSON(w, http.StatusOK, api.Diff{From: a.Name, To: b.Name, FromVersion: api.RuleSetVersion(a), ToVersion: api.RuleSetVersion(b), DiffResult: d})
	return nil
}
