package manage

import (
	"bytes"
	"errors"
	"net/http"
	"strconv"
	"strings"

	"redirects"
	"redirects/api"
	"redirects/export"
	"redirects/importer"
)

// The import route with ?from= reads another platform's file through the
// migrate pipeline (docs/migrate.md#importing); without it, the route
// answers as it always has.

// importFrom reads the ?from=, ?placeholder= and ?filename= of an
// import: from is "" when the request names no format (today's draft CSV
// import). Errors: a 400 for an unknown format or a bad placeholder, or
// placeholders without a format.
func importFrom(r *http.Request) (from string, placeholders map[string][]string, fileName string, err error) {
	if from, err = query(r, "from"); err != nil {
		return "", nil, "", err
	}
	if fileName, err = query(r, "filename"); err != nil {
		return "", nil, "", err
	}
	ph := r.URL.Query()["placeholder"]
	if from == "" {
		if len(ph) > 0 || fileName != "" {
			return "", nil, "", badQuery("the query parameters \"placeholder\" and \"filename\" go with \"from\" (the file's format, or auto)")
		}
		return "", nil, "", nil
	}
	if from != "auto" && importer.Lookup(from) == nil {
		return "", nil, "", badQuery("the query parameter \"from\" is %q, not one of %s", from, strings.Join(importer.FormatNames(), ", "))
	}
	placeholders = map[string][]string{}
	for _, v := range ph {
		if err := importer.ParsePlaceholder(placeholders, v); err != nil {
			return "", nil, "", badQuery("the query parameter \"placeholder\": %s", redirects.ErrorMessage(err))
		}
	}
	return from, placeholders, fileName, nil
}

// ruleImportFrom is ruleImport with ?from=: importer.Read reads the body,
// the store imports its rules as the mode says, and the answer adds the
// report of every line (and undoId when applied). A file with broken lines
// is refused whole, every bad line listed (422 INVALID_IMPORT, as a bad
// CSV line is); a binary file or one no format recognises is a 422 with
// its one message.
func (h *handler) ruleImportFrom(w http.ResponseWriter, r *http.Request, p *redirects.Project, body *bodyReader,
	from string, placeholders map[string][]string, fileName string, rep api.ImportReport) error {
	res, err := importer.Read(r.Context(), body, from, importer.Options{Settings: p.Settings, Hosts: p.Hosts, Placeholders: placeholders, FileName: fileName, MaxRules: MaxImportRows})
	var mbe *http.MaxBytesError
	if errors.As(body.err, &mbe) {
		return newError(http.StatusRequestEntityTooLarge, codeBodyTooLarge, "the file is larger than the %d bytes one import takes; split it", h.maxImport)
	}
	var bad *importer.BadLinesError
	switch {
	case errors.As(err, &bad):
		return writeImportFailure(w, rep, http.StatusUnprocessableEntity, codeInvalidImport, bad.Lines)
	case redirects.ErrorCode(err) == redirects.EINVALID:
		rep.Code, rep.Error = codeInvalidImport, redirects.ErrorMessage(err)+"; nothing imported"
		writeJSON(w, http.StatusUnprocessableEntity, rep)
		return nil
	case err != nil:
		return err
	}
	if len(res.Rules) > MaxImportRows {
		rep.Code, rep.Error = codeInvalidImport, "the file makes "+strconv.Itoa(len(res.Rules))+" rules, more than the "+strconv.Itoa(MaxImportRows)+" one import takes; split it"
		writeJSON(w, http.StatusUnprocessableEntity, rep)
		return nil
	}
	done, err := h.svc.Imports.Import(r.Context(), p.ID, res.Rules, redirects.ImportOptions{Mode: redirects.ImportMode(rep.Mode), DryRun: rep.DryRun})
	if code := redirects.ErrorCode(err); code == redirects.EINVALID || code == redirects.ECONFLICT {
		status, apiCode := http.StatusUnprocessableEntity, codeInvalidImport
		if code == redirects.ECONFLICT {
			status, apiCode = http.StatusConflict, "CONFLICT"
		}
		return writeImportFailure(w, rep, status, apiCode, export.StoreLineErrors(redirects.ErrorMessage(err), res.RuleLines))
	} else if err != nil {
		return err
	}
	rep.ImportCounts = api.ImportCountsOf(done)
	// The report's lines are written as they are encoded: a report of
	// half a million lines is not built whole in memory first.
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	api.WriteMigrationReport(w, api.MigrationReport{ImportReport: rep, Migration: res, UndoID: done.UndoID}) // a failed write is the client's loss
	return nil
}

// importUndo puts the draft back as it was before the applied import whose
// report gave {id} (its undoId): 200 with the rules restored, 404 when
// there is no such record (undone already, or older than the project's
// last redirects.MaxImportUndos imports), 409 CONFLICT when the draft
// changed since.
func (h *handler) importUndo(w http.ResponseWriter, r *http.Request) error {
	p, err := h.svc.Imports.ImportTarget(r.Context(), r.PathValue("project"))
	if err != nil {
		return err
	}
	id, err := strconv.ParseInt(r.PathValue("id"), 10, 64)
	if err != nil || id <= 0 {
		return notFound("import", r.PathValue("id"))
	}
	n, err := h.svc.Imports.UndoImport(r.Context(), p.ID, id)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, api.ImportUndo{UndoID: id, Rules: n})
	return nil
}

// rulesExport answers the draft as another platform's file (?to=, one of
// importer.Writers(), or csv for the draft CSV), with what the format
// cannot express counted in the Redirects-Unexpressed header; with Accept:
// application/json, the file and every rule it could not express as JSON.
func (h *handler) rulesExport(w http.ResponseWriter, r *http.Request) error {
	if _, err := h.authorizeProject(r, redirects.ActionRead); err != nil {
		return err
	}
	to, err := query(r, "to")
	if err != nil {
		return err
	}
	names := append([]string{"csv"}, writerNames()...)
	wr := importer.LookupWriter(to)
	if to != "csv" && wr == nil {
		return badQuery("the query parameter \"to\" is %q, not one of %s", to, strings.Join(names, ", "))
	}
	p, rules, err := h.svc.Rules.FindDraft(r.Context(), r.PathValue("project"))
	if err != nil {
		return err
	}
	var (
		b           bytes.Buffer
		unexpressed = []importer.Unexpressed{}
		fileName    = p.ID + "-draft.csv"
		ctype       = "text/csv; charset=utf-8"
	)
	if wr == nil {
		err = export.WriteDraftCSV(&b, rules)
	} else {
		var u []importer.Unexpressed
		u, err = wr.Write(&b, rules, p.Settings, p.Hosts)
		if u != nil {
			unexpressed = u
		}
		fileName, ctype = wr.FileName, wr.ContentType
	}
	if err != nil {
		return err
	}
	w.Header().Set("Redirects-Unexpressed", strconv.Itoa(len(unexpressed)))
	if wantsJSON(r) {
		writeJSON(w, http.StatusOK, api.RulesExport{To: to, FileName: fileName, Rules: len(rules), Content: b.String(), Unexpressed: unexpressed})
		return nil
	}
	w.Header().Set("Content-Type", ctype)
	w.Header().Set("Content-Disposition", `attachment; filename="`+fileName+`"`)
	w.Write(b.Bytes())
	return nil
}

// wantsJSON reports whether the request's Accept names application/json.
func wantsJSON(r *http.Request) bool {
	for _, a := range strings.Split(r.Header.Get("Accept"), ",") {
		mt, _, _ := strings.Cut(a, ";")
		if strings.EqualFold(strings.TrimSpace(mt), "application/json") {
			return true
		}
	}
	return false
}

func writerNames() []string {
	var names []string
	for _, w := range importer.Writers() {
		names = append(names, w.Name)
	}
	return names
}
