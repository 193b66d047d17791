package ui

import (
	"encoding/csv"
	"net/http"
	"strconv"
	"strings"
	"time"

	"redirects"
)

// auditPerPage is the size of a page of the audit log.
const auditPerPage = 50

type auditQuery struct{ Action, Actor, Before string }

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
	es, err := h.accounts.FindAudit(r.Context(), f)
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
	es, err := h.accounts.FindAudit(r.Context(), f)
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "text/csv; charset=utf-8")
	w.Header().Set("Content-Disposition", `attachment; filename="audit-`+safeFilename(o.ID)+`.csv"`)
	cw := csv.NewWriter(w)
	cw.Write([]string{"id", "time", "actor_kind", "actor", "remote_addr", "action", "object_type", "object_id", "project_id", "before", "after"})
	for _, e := range es {
		cw.Write([]string{strconv.FormatInt(e.ID, 10), e.Time.UTC().Format(time.RFC3339), string(e.Actor.Kind), csvSafe(e.Actor.Label),
			e.Actor.RemoteAddr, e.Action, e.ObjectType, e.ObjectID, e.ProjectID, csvSafe(string(e.Before)), csvSafe(string(e.After))})
	}
	cw.Flush()
	return cw.Error()
}

// csvSafe keeps a spreadsheet from reading a cell as a formula.
func csvSafe(s string) string {
	if s != "" && strings.ContainsRune("=+-@", rune(s[0])) {
		return "'" + s
	}
	return s
}
