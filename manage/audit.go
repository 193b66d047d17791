package manage

import (
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"

	"redirects"
	"redirects/api"
	"redirects/export"
)

// auditPageJSON is a page of the audit log.
type auditPageJSON = api.AuditPage

// timeParam reads an RFC 3339 time or a date (midnight UTC).
func timeParam(r *http.Request, name string) (time.Time, error) {
	s, err := query(r, name)
	if err != nil || s == "" {
		return time.Time{}, err
	}
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t.UTC(), nil
	}
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t, nil
	}
	return time.Time{}, badQuery("the query parameter %q is %q, neither a time (2026-03-14T15:09:26Z) nor a date (2026-03-14)", name, s)
}

// wantsCSV reports whether the Accept header asks for text/csv before
// JSON.
func wantsCSV(r *http.Request) bool {
	for _, part := range strings.Split(r.Header.Get("Accept"), ",") {
		mt, _, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err != nil {
			continue
		}
		switch mt {
		case "text/csv":
			return true
		case "application/json", "*/*":
			return false
		}
	}
	return false
}

// audit answers the organization's audit entries, newest first, filtered
// by ?project=&actor=&action=&since=&until=, at most ?limit= (default
// 100), older than ?before= (an entry ID, for paging); as CSV with
// Accept: text/csv.
func (h *handler) audit(w http.ResponseWriter, r *http.Request) error {
	orgID := r.PathValue("org")
	if _, err := h.authorizeOrg(r, redirects.ActionRead); err != nil {
		return err
	}
	f := redirects.AuditFilter{OrgID: orgID}
	var err error
	if f.ProjectID, err = query(r, "project"); err != nil {
		return err
	}
	if f.Actor, err = query(r, "actor"); err != nil {
		return err
	}
	if f.Action, err = query(r, "action"); err != nil {
		return err
	}
	if f.Since, err = timeParam(r, "since"); err != nil {
		return err
	}
	if f.Until, err = timeParam(r, "until"); err != nil {
		return err
	}
	if f.Limit, err = queryInt(r, "limit"); err != nil {
		return err
	}
	before, err := queryInt(r, "before")
	if err != nil {
		return err
	}
	if before < 0 {
		return badQuery("the query parameter \"before\" is %d, not an entry ID", before)
	}
	f.BeforeID = int64(before)
	if err := f.Validate(); err != nil {
		return err
	}
	entries, err := h.svc.Insight.FindAudit(r.Context(), f)
	if err != nil {
		return err
	}
	if wantsCSV(r) {
		w.Header().Set("Content-Type", "text/csv; charset=utf-8")
		w.Header().Set("Content-Disposition", `attachment; filename="audit-`+orgID+`.csv"`)
		return export.WriteAuditCSV(w, entries)
	}
	out := api.AuditPage{Entries: entries}
	if out.Entries == nil {
		out.Entries = []*redirects.AuditEntry{}
	}
	if len(entries) == f.Limit && len(entries) > 0 {
		next := strconv.FormatInt(entries[len(entries)-1].ID, 10)
		out.Next = &next
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}
