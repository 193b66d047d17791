package manage

import (
	"encoding/json"
	"net/http"

	"redirects"
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

// targetVersion is how an answer names the rule set it read: "draft", a
// version number, or null for nothing deployed.
func targetVersion(t *safety.Target) any {
	switch {
	case t.Draft:
		return "draft"
	case t.Version == 0:
		return nil
	}
	return t.Version
}

// lookupJSON answers a lookup. Answer is what the edge's /v1/lookup
// would answer for the path, or null for no rule (the edge's 204);
// Explanation is which rules matched and why the answering one won, as
// `redirects explain --json` prints it.
type lookupJSON struct {
	Path        string             `json:"path"`
	Version     any                `json:"version"`
	Answer      json.RawMessage    `json:"answer"`
	Explanation safety.Explanation `json:"explanation"`
}

// lookup answers ?path= against the draft (version=draft), a deployed
// version, or the latest deployment (no version, or version=live), with
// the engine the edge runs, and explains the answer.
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
	spec, err := versionParam(r, "version", "live")
	if err != nil {
		return err
	}
	t, err := safety.Load(r.Context(), h.store, p.ID, spec, false)
	if err != nil {
		return err
	}
	out := lookupJSON{Path: path, Version: targetVersion(t), Answer: json.RawMessage("null"), Explanation: t.Explain(path)}
	if m, ok := engine.CompileWith(t.Rules, t.Settings).Lookup(path); ok {
		out.Answer = json.RawMessage(m.AppendJSON(nil, path))
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// diffJSON answers a diff: `redirects diff --json` with the versions
// compared.
type diffJSON struct {
	From        string `json:"from"`
	To          string `json:"to"`
	FromVersion any    `json:"fromVersion"`
	ToVersion   any    `json:"toVersion"`
	safety.DiffResult
}

// diff answers what changes from ?from= to ?to= (each draft, live or a
// version; by default from the live version to the draft): the rules
// added, removed and changed, and the sample paths whose answer changes,
// at most ?maxPaths= of them (default safety.DefaultMaxPaths, -1 for all).
// A project with nothing deployed diffs from an empty "live".
func (h *handler) diff(w http.ResponseWriter, r *http.Request) error {
	p, err := h.authorizeProject(r, redirects.ActionRead)
	if err != nil {
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
	a, err := safety.Load(ctx, h.store, p.ID, from, true)
	if err != nil {
		return err
	}
	b, err := safety.Load(ctx, h.store, p.ID, to, true)
	if err != nil {
		return err
	}
	d := a.Diff(b, safety.DiffOptions{MaxPaths: maxPaths})
	writeJSON(w, http.StatusOK, diffJSON{From: a.Name, To: b.Name, FromVersion: targetVersion(a), ToVersion: targetVersion(b), DiffResult: d})
	return nil
}
