package ui

import (
	"net/http"
	"time"

	"redirects"
)

// usageMonths is how many months the usage chart shows, this one last.
const usageMonths = 12

type usageMonth struct {
	Month string
	Total int64
	// Height and Y draw the month's bar in a 100-high chart scaled to the
	// busiest month (the quota is in the text: beside it a small month
	// would not show at all).
	Height, Y int
	X         int
}

type usageData struct {
	Months []usageMonth
	This   usageMonth
	Quota  redirects.Limit
	// UsedPercent is this month's share of the quota, when it has one.
	UsedPercent int
}

// usagePage is the organization's Usage tab: the live lookups counted in
// each of the last 12 months against the monthly quota, as the API's GET
// /orgs/{org}/usage answers month by month.
func (h *handler) usagePage(w http.ResponseWriter, r *http.Request) error {
	o, err := h.org(r, r.PathValue("org"))
	if err != nil {
		return err
	}
	now := h.clock.Now().UTC()
	first := time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC)
	d := usageData{Quota: o.MonthlyQuota()}
	var peak int64
	for i := usageMonths - 1; i >= 0; i-- {
		month := first.AddDate(0, -i, 0).Format("2006-01")
		counts, err := h.store.FindUsage(r.Context(), month)
		if err != nil {
			return err
		}
		d.Months = append(d.Months, usageMonth{Month: month, Total: counts[o.ID]})
		peak = max(peak, counts[o.ID])
	}
	for i := range d.Months {
		m := &d.Months[i]
		if peak > 0 {
			m.Height = int(m.Total * 100 / peak)
		}
		if m.Total > 0 && m.Height == 0 {
			m.Height = 1
		}
		m.Y, m.X = 100-m.Height, i*10
	}
	d.This = d.Months[len(d.Months)-1]
	if !d.Quota.IsUnlimited() && d.Quota > 0 {
		d.UsedPercent = int(d.This.Total * 100 / int64(d.Quota))
	}
	return h.render(w, r, http.StatusOK, "usage", &page{Title: "Usage · " + o.Name, Org: o, Tab: "usage", Data: d})
}
