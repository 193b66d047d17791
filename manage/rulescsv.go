package manage

import (
	"encoding/csv"
	"net/http"
	"strconv"

	"redirects"
)

// rulesCSVColumns are the columns of GET .../rules.csv: the import
// columns, then each rule's ID, so the file can be edited and read back.
var rulesCSVColumns = []string{"source", "destination", "statusCode", "matchType", "priority", "id"}

// rulesCSV answers the draft rules as CSV, in deployment order. Sources
// start with '/' and destinations with '/' or http, so no cell can start
// a spreadsheet formula.
func (h *handler) rulesCSV(w http.ResponseWriter, r *http.Request) error {
	p, err := h.authorizeProject(r, redirects.ActionRead)
	if err != nil {
		return err
	}
	rules, err := h.store.FindRules(r.Context(), p.ID)
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="`+p.ID+`-draft.csv"`)
	cw := csv.NewWriter(w)
	cw.UseCRLF = true
	cw.Write(rulesCSVColumns)
	for _, rule := range rules {
		cw.Write([]string{rule.Source, rule.Destination, strconv.Itoa(rule.StatusCode), rule.MatchType.String(),
			strconv.Itoa(rule.Priority), strconv.FormatInt(rule.ID, 10)})
	}
	cw.Flush()
	return cw.Error()
}

// ruleImport will import a CSV file into the draft: ?mode=append, upsert or
// replace and ?dry_run=true|false, answering {added, updated, removed,
// errors: [{line, message}], errorCount}. The CSV reader and the import
// modes are not in a shared package yet, so the route answers 501 after
// authorizing.
func (h *handler) ruleImport(w http.ResponseWriter, r *http.Request) error {
	if _, err := h.authorizeProject(r, redirects.ActionEditRules); err != nil {
		return err
	}
	return notImplemented("importing CSV through the API (use redirects rule import)")
}
