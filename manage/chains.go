package manage

import (
	"net/http"
	"strings"

	"redirects"
	"redirects/api"
)

// flattenOptions reads the repeatable host parameter: the hosts whose
// absolute destinations lead back into the project, instead of the
// project's declared ones.
func flattenOptions(r *http.Request, write bool) (redirects.FlattenOptions, error) {
	opts := redirects.FlattenOptions{Write: write}
	for _, h := range r.URL.Query()["host"] {
		if strings.TrimSpace(h) == "" {
			return opts, badQuery("the query parameter \"host\" is empty")
		}
		opts.Hosts = append(opts.Hosts, h)
	}
	return opts, nil
}

// chains answers what flattening the draft's chains would change.
func (h *handler) chains(w http.ResponseWriter, r *http.Request) error {
	p, err := h.authorizeProject(r, redirects.ActionRead)
	if err != nil {
		return err
	}
	opts, err := flattenOptions(r, false)
	if err != nil {
		return err
	}
	rep, err := h.svc.Rules.FlattenChains(r.Context(), p.ID, opts)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, api.FlattenReportOf(rep))
	return nil
}

// chainsFlatten flattens the draft's chains: one upsert of the rewritten
// rules, undone as an import.
func (h *handler) chainsFlatten(w http.ResponseWriter, r *http.Request) error {
	p, err := h.authorizeProject(r, redirects.ActionEditRules)
	if err != nil {
		return err
	}
	opts, err := flattenOptions(r, true)
	if err != nil {
		return err
	}
	rep, err := h.svc.Rules.FlattenChains(r.Context(), p.ID, opts)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, api.FlattenReportOf(rep))
	return nil
}
