package manage

import (
	"net/http"
	"slices"
	"strconv"
	"strings"

	"redirects"
)

// versionExport answers one export file of a deployed version, the bytes
// the edge API's GET /v1/export serves for it: a version whose files the
// retention pruned is rendered again with the deploy's builder, as the edge
// and the command line do (redirects.FindExport). The command line's
// export through this API (package remote) prints it.
func (h *handler) versionExport(w http.ResponseWriter, r *http.Request) error {
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
	format := r.PathValue("format")
	if !slices.Contains(redirects.Formats, format) {
		return newError(http.StatusNotFound, "NOT_FOUND", "export format %q not found: the formats are %s", format, strings.Join(redirects.Formats, ", "))
	}
	d, e, err := h.svc.Deploys.Export(r.Context(), id, v, format)
	if err != nil {
		return err
	}
	ct := "text/plain; charset=utf-8"
	if format == "csv" {
		ct = "text/csv; charset=utf-8"
	}
	w.Header().Set("Content-Type", ct)
	w.Header().Set("Content-Disposition", `attachment; filename="`+id+`-v`+strconv.Itoa(d.Version)+`-`+format+`.`+redirects.FormatExtension(format)+`"`)
	w.Header().Set("Redirects-Version", strconv.Itoa(d.Version))
	if e.ETag != "" {
		w.Header().Set("ETag", e.ETag)
	}
	_, err = w.Write(e.Body)
	return err
}
