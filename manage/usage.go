package manage

import (
	"context"
	"net/http"
	"slices"
	"time"

	"redirects"
)

// The API's usage answer and the dashboard's Usage page are built by
// FindOrgUsage, so that the two never disagree.
type (
	usageJSON    = OrgUsage
	dayJSON      = DayCount
	keyUsageJSON = KeyUsage
)

// OrgUsage is an organization's usage in a month. Total is the monthly
// usage the quota counts; Days and Keys break the live lookups down per
// UTC day and per edge key, as the edge nodes count and flush them.
type OrgUsage struct {
	Month string `json:"month"`
	Total int64  `json:"total"`
	// Quota is the monthly quota in force: a number or "unlimited";
	// RateLimit the requests per minute.
	Quota     string `json:"quota"`
	RateLimit string `json:"rateLimit"`
	// Days lists every day of the month (up to today for this month) with
	// its count, zeros included.
	Days []dayJSON `json:"days"`
	// Keys lists the organization's live keys that are not revoked, and
	// any other key with usage in the month, by count, highest first.
	Keys []keyUsageJSON `json:"keys"`
}

// DayCount is the live lookups of one UTC day.
type DayCount struct {
	Day   string `json:"day"`
	Count int64  `json:"count"`
}

// KeyUsage is one key's usage in the month: its days with usage only.
// A key of a deleted project keeps its ID and usage, with no project, name
// or last4.
type KeyUsage struct {
	ID        string    `json:"id"`
	ProjectID string    `json:"projectId"`
	Name      string    `json:"name"`
	Last4     string    `json:"last4"`
	Count     int64     `json:"count"`
	Days      []dayJSON `json:"days"`
}

// usage answers ?month=YYYY-MM (default: this month, UTC). Any month may
// be asked for; months before the per-key counting have days and keys of
// zero.
func (h *handler) usage(w http.ResponseWriter, r *http.Request) error {
	o, err := h.authorizeOrg(r, redirects.ActionRead)
	if err != nil {
		return err
	}
	month, err := query(r, "month")
	if err != nil {
		return err
	}
	now := h.clock.Now().UTC()
	if month == "" {
		month = now.Format("2006-01")
	}
	start, err := time.Parse("2006-01", month)
	if err != nil || start.Format("2006-01") != month {
		return badQuery("the query parameter \"month\" is %q, not a month such as 2026-03", month)
	}
	out, err := FindOrgUsage(r.Context(), h.store, o, start, now)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// UsageReader is what FindOrgUsage reads of a store.
type UsageReader interface {
	DailyUsageReader
	FindUsage(ctx context.Context, period string) (map[string]int64, error)
	FindProjects(ctx context.Context, orgID string) ([]*redirects.Project, error)
	FindKeys(ctx context.Context, projectID string) ([]*redirects.Key, error)
}

// FindOrgUsage returns the usage of organization o in the month that
// starts at start (UTC): the month's total, every day up to now's, and
// every key with usage or in force.
func FindOrgUsage(ctx context.Context, store UsageReader, o *redirects.Org, start, now time.Time) (*OrgUsage, error) {
	month := start.Format("2006-01")
	counts, err := store.FindUsage(ctx, month)
	if err != nil {
		return nil, err
	}
	daily, err := store.FindDailyUsage(ctx, o.ID, month)
	if err != nil {
		return nil, err
	}
	projects, err := store.FindProjects(ctx, o.ID)
	if err != nil {
		return nil, err
	}
	out := &OrgUsage{Month: month, Total: counts[o.ID], Quota: o.MonthlyQuota().String(), RateLimit: o.RateLimit().String(),
		Days: []dayJSON{}, Keys: []keyUsageJSON{}}

	// Every day of the month up to today, zeros included.
	perDay := map[string]int64{}
	for _, u := range daily {
		perDay[u.Day] += u.Count
	}
	today := redirects.UsageDay(now)
	for d := start; d.Month() == start.Month(); d = d.AddDate(0, 0, 1) {
		day := redirects.UsageDay(d)
		if day > today {
			break
		}
		out.Days = append(out.Days, dayJSON{Day: day, Count: perDay[day]})
	}

	// The keys: those with usage, then the live keys in force without.
	byID := map[string]*keyUsageJSON{}
	var order []string
	for _, u := range daily {
		k := byID[u.KeyID]
		if k == nil {
			k = &keyUsageJSON{ID: u.KeyID, Days: []dayJSON{}}
			byID[u.KeyID] = k
			order = append(order, u.KeyID)
		}
		k.Count += u.Count
		k.Days = append(k.Days, dayJSON{Day: u.Day, Count: u.Count})
	}
	for _, p := range projects {
		ks, err := store.FindKeys(ctx, p.ID)
		if err != nil {
			return nil, err
		}
		for _, key := range ks {
			k := byID[key.ID]
			if k == nil {
				if key.Test || key.RevokedAt != nil {
					continue
				}
				k = &keyUsageJSON{ID: key.ID, Days: []dayJSON{}}
				byID[key.ID] = k
				order = append(order, key.ID)
			}
			k.ProjectID, k.Name, k.Last4 = key.ProjectID, key.Name, key.Last4
		}
	}
	for _, id := range order {
		out.Keys = append(out.Keys, *byID[id])
	}
	slices.SortStableFunc(out.Keys, func(a, b keyUsageJSON) int {
		switch {
		case a.Count > b.Count:
			return -1
		case a.Count < b.Count:
			return 1
		}
		return 0
	})
	return out, nil
}
