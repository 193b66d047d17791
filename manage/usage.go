package manage

import (
	"net/http"
	"time"

	"redirects"
	"redirects/api"
)

// usageJSON is the API's usage answer; the dashboard's Usage page reads the
// same InsightService.FindOrgUsage, so that the two never disagree.
type (
	usageJSON = api.OrgUsage
	dayJSON   = api.DayCount
)

// usage answers ?month=YYYY-MM (default: this month, UTC). Any month may
// be asked for; months before the per-key counting have days and keys of
// zero.
func (h *handler) usage(w http.ResponseWriter, r *http.Request) error {
	if _, err := h.authorizeOrg(r, redirects.ActionRead); err != nil {
		return err
	}
	month, err := query(r, "month")
	if err != nil {
		return err
	}
	if month != "" {
		if start, err := time.Parse("2006-01", month); err != nil || start.Format("2006-01") != month {
			return badQuery("the query parameter \"month\" is %q, not a month such as 2026-03", month)
		}
	}
	u, err := h.svc.Insight.FindOrgUsage(r.Context(), r.PathValue("org"), month)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, api.OrgUsageOf(u))
	return nil
}
