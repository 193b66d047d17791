package api

import (
	"encoding/json"
	"strconv"
	"time"

	"redirects"
)

// Org is an organization: the command line's org list --json element, and
// the fields of the API's (OrgOfCaller).
type Org struct {
	ID           string `json:"id"`
	Name         string `json:"name"`
	Tier         string `json:"tier"`
	RateLimit    string `json:"rateLimit"`
	MonthlyQuota string `json:"monthlyQuota"`
	// RateLimitOverride and QuotaOverride say whether the limits are the
	// tier's or the organization's own.
	RateLimitOverride bool   `json:"rateLimitOverride"`
	QuotaOverride     bool   `json:"monthlyQuotaOverride"`
	CreatedAt         string `json:"createdAt"`
}

// OrgOf returns the shape of o.
func OrgOf(o *redirects.Org) Org {
	return Org{ID: o.ID, Name: o.Name, Tier: string(o.Tier), RateLimit: o.RateLimit().String(),
		MonthlyQuota: o.MonthlyQuota().String(), RateLimitOverride: o.RateLimitOverride != nil,
		QuotaOverride: o.QuotaOverride != nil, CreatedAt: orgTime(o.CreatedAt)}
}

// ToOrg returns the organization j shows.
func (j *Org) ToOrg() *redirects.Org {
	o := &redirects.Org{ID: j.ID, Name: j.Name, Tier: redirects.Tier(j.Tier), CreatedAt: parseOrgTime(j.CreatedAt)}
	if j.RateLimitOverride {
		if l, err := redirects.ParseLimit("rateLimit", j.RateLimit); err == nil {
			o.RateLimitOverride = &l
		}
	}
	if j.QuotaOverride {
		if l, err := redirects.ParseLimit("monthlyQuota", j.MonthlyQuota); err == nil {
			o.QuotaOverride = &l
		}
	}
	return o
}

// OrgOfCaller is an organization as the API answers one: with the
// caller's role in it, null for none (an operator's view).
type OrgOfCaller struct {
	Org
	Role *string `json:"role"`
}

// Orgs is the answer of GET /orgs.
type Orgs struct {
	Orgs []OrgOfCaller `json:"orgs"`
}

// OrgRequest is the body of POST /orgs and PATCH /orgs/{org}: a limit is
// a whole number >= 0 or "unlimited", as a JSON number or string; in an
// update, "default" or null drops the override. Fields not given are
// left out when the command line's client sends one.
type OrgRequest struct {
	Name         *string `json:"name,omitempty"`
	Tier         *string `json:"tier,omitempty"`
	RateLimit    Limit   `json:"rateLimit,omitzero"`
	MonthlyQuota Limit   `json:"monthlyQuota,omitzero"`
}

// Limit is a rate limit or quota in a request (see OrgRequest).
type Limit struct {
	// Set says the field was given; Clear that it was "default" or null.
	Set   bool
	Clear bool
	Value redirects.Limit
}

// LimitOf returns the request value of an override: nil drops it.
func LimitOf(l *redirects.Limit) Limit {
	if l == nil {
		return Limit{Set: true, Clear: true}
	}
	return Limit{Set: true, Value: *l}
}

// MarshalJSON writes "default" for a dropped override, else the limit as
// its string.
func (l Limit) MarshalJSON() ([]byte, error) {
	if l.Clear {
		return []byte(`"default"`), nil
	}
	return []byte(`"` + l.Value.String() + `"`), nil
}

// UnmarshalJSON reads a limit, "default" or null.
func (l *Limit) UnmarshalJSON(b []byte) error {
	l.Set = true
	if string(b) == "null" {
		l.Clear = true
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		s = string(b)
	}
	if s == "default" {
		l.Clear = true
		return nil
	}
	v, err := redirects.ParseLimit("limit", s)
	if err != nil {
		return redirects.Errorf(redirects.EINVALID, "a limit must be a whole number >= 0, \"unlimited\" or \"default\", not %s", strconv.Quote(s))
	}
	l.Value = v
	return nil
}

// Update returns the update r asks for.
func (r *OrgRequest) Update() (redirects.OrgUpdate, error) {
	var u redirects.OrgUpdate
	u.Name = r.Name
	if r.Tier != nil {
		t, err := redirects.ParseTier(*r.Tier)
		if err != nil {
			return u, err
		}
		u.Tier = &t
	}
	if r.RateLimit.Set {
		u.ClearRateLimit = r.RateLimit.Clear
		if !r.RateLimit.Clear {
			u.RateLimit = &r.RateLimit.Value
		}
	}
	if r.MonthlyQuota.Set {
		u.ClearQuota = r.MonthlyQuota.Clear
		if !r.MonthlyQuota.Clear {
			u.MonthlyQuota = &r.MonthlyQuota.Value
		}
	}
	return u, nil
}

// Confirm is the body of a deletion: the name typed back.
type Confirm struct {
	Confirm *string `json:"confirm"`
}

// orgTime is the API's time format: RFC 3339 in UTC, to the second.
func orgTime(t time.Time) string { return t.UTC().Format(time.RFC3339) }

func parseOrgTime(s string) time.Time {
	t, _ := time.Parse(time.RFC3339Nano, s)
	return t
}
