package manage

import (
	"net/http"
	"redirects"
	"strconv"

	"redirects/export"
)

// versionRulesCSV answers the rules of one deployed version as the draft
// CSV (rules.csv's columns, in deployment order, with the rules' IDs as the
// version stores them), so that a client can read a version whole: the
// command line through this API (package remote) lints, diffs and looks up
// versions from it. The version's settings are in the deployments list.
func (h *handler) versionRulesCSV(w http.ResponseWriter, r *http.Request) error {
	// Authorized first, as every route is (authz.go): a caller who may
	// not see the project learns nothing from a mistake in the request.
	if _, err := h.authorizeProject(r, redirects.ActionRead); err != nil {
		return err
	}
	id := r.PathValue("project")
	s := r.PathValue("version")
	v, err := strconv.Atoi(s)
	if err != nil || v <= 0 {
		return newError(http.StatusNotFound, "NOT_FOUND", "version %q not found: versions are positive whole numbers", s)
	}
	d, rules, err := h.svc.Deploys.Version(r.Context(), id, v)
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="`+id+`-v`+strconv.Itoa(d.Version)+`.csv"`)
	w.Header().Set("Redirects-Version", strconv.Itoa(d.Version))
	return export.WriteDraftCSV(w, rules)
}
