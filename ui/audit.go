package ui

import (
	"net/http"
	"strconv"
	"strings"

	"redirects"
	"redirects/export"
)

// auditPerPage is the size of a page of the audit log.
const auditPerPage = 50

type auditQuery struct{ Action, Actor, Before string }

// Params returns the filters, for links (without the cursor).
func (q auditQuery) Params() map[string]string {
	return map[string]string{"action": q.Action, "actor": q.Actor}
}

type auditData struct {
	Query   auditQuery
	Entries []*redirects.AuditEntry
	Older   string
}

// auditFilter reads the audit page's filters: an action ("rule.create",
// or "rule.*"), an actor (email, label or ID) and a cursor.
func auditFilter(r *http.Request, orgID string, limit int) (redirects.AuditFilter, auditQuery, error) {
	v := r.URL.Query()
	q := auditQuery{Action: strings.TrimSpace(v.Get("action")), Actor: strings.TrimSpace(v.Get("actor")), Before: v.Get("before")}
	f := redirects.AuditFilter{OrgID: orgID, Action: q.Action, Actor: q.Actor, Limit: limit}
	if q.Before != "" {
		id, err := strconv.ParseInt(q.Before, 10, 64)
		if err != nil || id <= 0 {
			return f, q, &pageError{status: http.StatusBadRequest, msg: "The page cursor " + strconv.Quote(q.Before) + " is not an entry number: go back to the first page."}
		}
		f.BeforeID = id
	}
	return f, q, f.Validate()
}

// auditPage is the organization's audit log, newest first, filtered, by
// pages of auditPerPage.
func (h *handler) auditPage(w http.ResponseWriter, r *http.Request) error {
	o, err := h.org(r, r.PathValue("org"))
	if err != nil {
		return err
	}
	f, q, err := auditFilter(r, o.ID, auditPerPage+1)
	if err != nil {
		return err
	}
	es, err := h.svc.Insight.FindAudit(r.Context(), f)
	if err != nil {
		return err
	}
	d := auditData{Query: q, Entries: es}
	if len(es) > auditPerPage {
		d.Entries = es[:auditPerPage]
		m := q.Params()
		m["before"] = strconv.FormatInt(d.Entries[auditPerPage-1].ID, 10)
		d.Older = "?" + encodeQuery(m)
	}
	return h.render(w, r, http.StatusOK, "audit", &page{Title: "Audit log · " + o.Name, Org: o, Tab: "audit", Data: d})
}

// auditCSV downloads the filtered audit log, newest first, up to
// redirects.MaxAuditLimit entries.
func (h *handler) auditCSV(w http.ResponseWriter, r *http.Request) error {
	o, err := h.org(r, r.PathValue("org"))
	if err != nil {
		return err
	}
	f, _, err := auditFilter(r, o.ID, redirects.MaxAuditLimit)
	if err != nil {
		return err
	}
	es, err := h.svc.Insight.FindAudit(r.Context(), f)
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="audit-`+safeFilename(o.ID)+`.csv"`)
	// The CSV of the command line's audit --csv, from one writer.
	return export.WriteAuditCSV(w, es)
}
