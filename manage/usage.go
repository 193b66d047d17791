package manage

import (
	"net/http"
	"time"

	"redirects"
)

// usageJSON is an organization's usage in a month. Days and Keys are the
// per-day and per-key breakdowns; the store counts usage per organization
// and month only, so they are empty until it counts more.
type usageJSON struct {
	Month string `json:"month"`
	Total int64  `json:"total"`
	// Quota is the monthly quota in force: a number or "unlimited".
	Quota string `json:"quota"`
	Days  []any  `json:"days"`
	Keys  []any  `json:"keys"`
}

// usage answers ?month=YYYY-MM (default: this month, UTC).
func (h *handler) usage(w http.ResponseWriter, r *http.Request) error {
	o, err := h.authorizeOrg(r, redirects.ActionRead)
	if err != nil {
		return err
	}
	month, err := query(r, "month")
	if err != nil {
		return err
	}
	if month == "" {
		month = h.clock.Now().UTC().Format("2006-01")
	} else if t, err := time.Parse("2006-01", month); err != nil || t.Format("2006-01") != month {
		return badQuery("the query parameter \"month\" is %q, not a month such as 2026-03", month)
	}
	counts, err := h.store.FindUsage(r.Context(), month)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, usageJSON{Month: month, Total: counts[o.ID], Quota: o.MonthlyQuota().String(), Days: []any{}, Keys: []any{}})
	return nil
}
