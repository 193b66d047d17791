package manage

import (
	"encoding/json"
	"net/http"
	"strconv"

	"redirects"
)

// versionParam reads ?version=: "draft" for the draft rules, a positive
// version, or "" for the latest deployment (as the CLI's lookup).
func versionParam(r *http.Request, name string) (draft bool, version int, err error) {
	s, err := query(r, name)
	if err != nil || s == "" {
		return false, 0, err
	}
	if s == "draft" {
		return true, 0, nil
	}
	v, err := strconv.Atoi(s)
	if err != nil || v <= 0 {
		return false, 0, badQuery("the query parameter %q is %q, neither draft nor a positive version", name, s)
	}
	return false, v, nil
}

// lookupJSON answers a lookup. Answer is what the edge's /v1/lookup
// would answer for the path, or null for no rule (the edge's 204).
type lookupJSON struct {
	Path    string          `json:"path"`
	Version any             `json:"version"`
	Answer  json.RawMessage `json:"answer"`
}

// lookup answers ?path= against the draft (version=draft), a deployed
// version, or the latest deployment (no version), with the engine the edge
// runs.
func (h *handler) lookup(w http.ResponseWriter, r *http.Request) error {
	p, err := h.authorizeProject(r, redirects.ActionRead)
	if err != nil {
		return err
	}
	path, err := query(r, "path")
	if err != nil {
		return err
	}
	if path == "" || path[0] != '/' || len(path) > redirects.MaxSourceLen {
		return badQuery("the query parameter \"path\" must start with / and be at most %d bytes", redirects.MaxSourceLen)
	}
	draft, version, err := versionParam(r, "version")
	if err != nil {
		return err
	}
	ctx := r.Context()
	var (
		rules []redirects.Rule
		out   = lookupJSON{Path: path, Answer: json.RawMessage("null")}
	)
	if draft {
		out.Version = "draft"
		if rules, err = h.store.FindRules(ctx, p.ID); err != nil {
			return err
		}
	} else {
		var d *redirects.Deployment
		if d, rules, err = h.store.FindDeployment(ctx, p.ID, version); err != nil {
			return err
		}
		out.Version = d.Version
	}
	if m, ok := redirects.Compile(rules).Lookup(path); ok {
		out.Answer = json.RawMessage(m.JSON())
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// diff will answer what changes between two versions (or the draft):
// added, removed, changed rules. The service that computes it is not in
// the domain yet, so the route answers 501.
func (h *handler) diff(w http.ResponseWriter, r *http.Request) error {
	if _, err := h.authorizeProject(r, redirects.ActionRead); err != nil {
		return err
	}
	return notImplemented("the diff of two versions")
}
