package ui

import (
	"net/http"

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
	// UsedPercent is this month's share of the quota, when it has one;
	// QuotaBar the bar's width (at most 100) and Warn is set from
	// quotaWarnPercent on.
	UsedPercent int
	QuotaBar    int
	Warn        bool
	RateLimit   redirects.Limit
	// Days are this month's days up to today, drawn in a DaysWidth-wide
	// chart; Today is today's day.
	Days      []dayBar
	DaysWidth int
	Today     string
	// Keys are the keys with usage this month or in force, busiest first,
	// as the API's usage lists them.
	Keys []keyUsageRow
	// MonthsPeak and DaysPeak are the tops of the two charts' scales (the
	// busiest month and day), written on their axes.
	MonthsPeak, DaysPeak int64
}

// quotaWarnPercent is the share of the monthly quota from which the page
// warns.
const quotaWarnPercent = 80

// dayBar is one day's bar of a daily chart, 100 high, scaled to the
// busiest day of the chart.
type dayBar struct {
	Day          string
	Count        int64
	X, Y, Height int
}

type keyUsageRow struct {
	redirects.KeyUsage
	Project    string
	TodayCount int64
	Days       []dayBar
}

// dayBars draws days, every day of the month so far, as bars 10 wide.
func dayBars(days []redirects.DayCount) []dayBar {
	var peak int64
	for _, d := range days {
		peak = max(peak, d.Count)
	}
	out := make([]dayBar, len(days))
	for i, d := range days {
		b := dayBar{Day: d.Day, Count: d.Count, X: i * 10}
		if peak > 0 {
			b.Height = int(d.Count * 100 / peak)
		}
		if d.Count > 0 && b.Height == 0 {
			b.Height = 1
		}
		b.Y = 100 - b.Height
		out[i] = b
	}
	return out
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
	d := usageData{Quota: o.MonthlyQuota(), RateLimit: o.RateLimit(), Today: redirects.UsageDay(now)}
	months, err := h.svc.Insight.FindUsageMonths(r.Context(), o.ID, usageMonths)
	if err != nil {
		return err
	}
	var peak int64
	for _, m := range months {
		d.Months = append(d.Months, usageMonth{Month: m.Month, Total: m.Total})
		peak = max(peak, m.Total)
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
	d.MonthsPeak = peak
	d.This = d.Months[len(d.Months)-1]
	if !d.Quota.IsUnlimited() && d.Quota > 0 {
		d.UsedPercent = int(d.This.Total * 100 / int64(d.Quota))
		d.QuotaBar, d.Warn = min(d.UsedPercent, 100), d.UsedPercent >= quotaWarnPercent
	}
	if err := h.dailyUsage(r, o, &d); err != nil {
		return err
	}
	return h.render(w, r, http.StatusOK, "usage", &page{Title: "Usage · " + o.Name, Org: o, Tab: "usage", Data: d})
}

// dailyUsage adds this month's days and keys to d, from the service the
// API's usage answers with.
func (h *handler) dailyUsage(r *http.Request, o *redirects.Org, d *usageData) error {
	u, err := h.svc.Insight.FindOrgUsage(r.Context(), o.ID, "")
	if err != nil {
		return err
	}
	d.Days, d.DaysWidth = dayBars(u.Days), len(u.Days)*10
	for _, x := range u.Days {
		d.DaysPeak = max(d.DaysPeak, x.Count)
	}
	projects, err := h.svc.Projects.Projects(r.Context(), o.ID)
	if err != nil {
		return err
	}
	names := map[string]string{}
	for _, p := range projects {
		names[p.ID] = p.Name
	}
	for _, k := range u.Keys {
		perDay := map[string]int64{}
		for _, day := range k.Days {
			perDay[day.Day] = day.Count
		}
		all := make([]redirects.DayCount, len(u.Days))
		for i, day := range u.Days {
			all[i] = redirects.DayCount{Day: day.Day, Count: perDay[day.Day]}
		}
		d.Keys = append(d.Keys, keyUsageRow{KeyUsage: k, Project: names[k.ProjectID], TodayCount: perDay[d.Today], Days: dayBars(all)})
	}
	return nil
}
