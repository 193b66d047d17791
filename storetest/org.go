package storetest

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"redirects"
)

func testOrgCreateAndFind(t *testing.T, e *env) {
	o := &redirects.Org{Name: "Acme", Tier: redirects.TierPro, RateLimitOverride: limit(5), QuotaOverride: limit(int64(redirects.Unlimited))}
	if err := e.s.CreateOrg(e.ctx, o); err != nil {
		t.Fatalf("CreateOrg: %v", err)
	}
	if !strings.HasPrefix(o.ID, "org_") {
		t.Errorf("ID = %q, want org_...", o.ID)
	}
	wantTime(t, "CreatedAt", o.CreatedAt, Start)

	got, err := e.s.FindOrgByID(e.ctx, o.ID)
	if err != nil {
		t.Fatalf("FindOrgByID: %v", err)
	}
	if got.ID != o.ID || got.Name != "Acme" || got.Tier != redirects.TierPro {
		t.Errorf("FindOrgByID = %+v, want %+v", got, o)
	}
	wantTime(t, "found CreatedAt", got.CreatedAt, Start)
	if limitString(got.RateLimitOverride) != "5" || limitString(got.QuotaOverride) != "unlimited" {
		t.Errorf("overrides = %s, %s; want 5, unlimited", limitString(got.RateLimitOverride), limitString(got.QuotaOverride))
	}
	if got.RateLimit() != 5 || !got.MonthlyQuota().IsUnlimited() {
		t.Errorf("limits in force = %v, %v; want 5, unlimited", got.RateLimit(), got.MonthlyQuota())
	}

	later := e.clock.Add(time.Second)
	o2 := &redirects.Org{Name: "Beta", Tier: redirects.TierFree}
	if err := e.s.CreateOrg(e.ctx, o2); err != nil {
		t.Fatalf("CreateOrg: %v", err)
	}
	if o2.ID == o.ID {
		t.Errorf("two organizations got the ID %s", o.ID)
	}
	got2, err := e.s.FindOrgByID(e.ctx, o2.ID)
	if err != nil {
		t.Fatalf("FindOrgByID: %v", err)
	}
	if got2.RateLimitOverride != nil || got2.QuotaOverride != nil {
		t.Errorf("overrides = %s, %s; want none", limitString(got2.RateLimitOverride), limitString(got2.QuotaOverride))
	}
	wantTime(t, "second CreatedAt", got2.CreatedAt, later)

	orgs, err := e.s.FindOrgs(e.ctx)
	if err != nil {
		t.Fatalf("FindOrgs: %v", err)
	}
	if len(orgs) != 2 || orgs[0].ID != o.ID || orgs[1].ID != o2.ID {
		t.Errorf("FindOrgs = %v, want [%s %s] (oldest first)", orgIDs(orgs), o.ID, o2.ID)
	}
}

func orgIDs(orgs []*redirects.Org) []string {
	var out []string
	for _, o := range orgs {
		out = append(out, o.ID)
	}
	return out
}

func testOrgInvalid(t *testing.T, e *env) {
	for _, o := range []*redirects.Org{
		{Name: "", Tier: redirects.TierFree},
		{Name: "Acme", Tier: "gold"},
		{Name: strings.Repeat("x", 201), Tier: redirects.TierFree},
	} {
		wantCode(t, fmt.Sprintf("CreateOrg(%q, %q)", o.Name, o.Tier), e.s.CreateOrg(e.ctx, o), redirects.EINVALID)
	}
	orgs, err := e.s.FindOrgs(e.ctx)
	if err != nil {
		t.Fatalf("FindOrgs: %v", err)
	}
	if len(orgs) != 0 {
		t.Errorf("FindOrgs after invalid creates = %v, want none", orgIDs(orgs))
	}
}

func testOrgUpdate(t *testing.T, e *env) {
	o := e.org("Acme")
	created := o.CreatedAt
	e.clock.Add(time.Hour)

	name, tier := "Acme Inc", redirects.TierEnterprise
	got, err := e.s.UpdateOrg(e.ctx, o.ID, redirects.OrgUpdate{Name: &name, Tier: &tier, RateLimit: limit(7), MonthlyQuota: limit(-1)})
	if err != nil {
		t.Fatalf("UpdateOrg: %v", err)
	}
	check := func(what string, got *redirects.Org, name string, tier redirects.Tier, rate, quota string) {
		t.Helper()
		if got.ID != o.ID || got.Name != name || got.Tier != tier {
			t.Errorf("%s = %s %q %s, want %s %q %s", what, got.ID, got.Name, got.Tier, o.ID, name, tier)
		}
		if r, q := limitString(got.RateLimitOverride), limitString(got.QuotaOverride); r != rate || q != quota {
			t.Errorf("%s overrides = %s, %s; want %s, %s", what, r, q, rate, quota)
		}
		wantTime(t, what+" CreatedAt", got.CreatedAt, created)
	}
	check("UpdateOrg", got, "Acme Inc", redirects.TierEnterprise, "7", "unlimited")
	found, err := e.s.FindOrgByID(e.ctx, o.ID)
	if err != nil {
		t.Fatalf("FindOrgByID: %v", err)
	}
	check("FindOrgByID after update", found, "Acme Inc", redirects.TierEnterprise, "7", "unlimited")

	// Clearing one override leaves the other; a zero limit is a limit.
	got, err = e.s.UpdateOrg(e.ctx, o.ID, redirects.OrgUpdate{ClearRateLimit: true, MonthlyQuota: limit(0)})
	if err != nil {
		t.Fatalf("UpdateOrg(clear rate): %v", err)
	}
	check("UpdateOrg(clear rate)", got, "Acme Inc", redirects.TierEnterprise, "<nil>", "0")
	if !got.RateLimit().IsUnlimited() {
		t.Errorf("rate limit after clearing = %v, want the enterprise tier's unlimited", got.RateLimit())
	}

	got, err = e.s.UpdateOrg(e.ctx, o.ID, redirects.OrgUpdate{ClearQuota: true})
	if err != nil {
		t.Fatalf("UpdateOrg(clear quota): %v", err)
	}
	check("UpdateOrg(clear quota)", got, "Acme Inc", redirects.TierEnterprise, "<nil>", "<nil>")

	// An invalid update changes nothing.
	empty, bad := "", redirects.Tier("gold")
	_, err = e.s.UpdateOrg(e.ctx, o.ID, redirects.OrgUpdate{Name: &empty, RateLimit: limit(1)})
	wantCode(t, "UpdateOrg(empty name)", err, redirects.EINVALID)
	_, err = e.s.UpdateOrg(e.ctx, o.ID, redirects.OrgUpdate{Tier: &bad})
	wantCode(t, "UpdateOrg(bad tier)", err, redirects.EINVALID)
	found, err = e.s.FindOrgByID(e.ctx, o.ID)
	if err != nil {
		t.Fatalf("FindOrgByID: %v", err)
	}
	check("FindOrgByID after invalid updates", found, "Acme Inc", redirects.TierEnterprise, "<nil>", "<nil>")

	_, err = e.s.UpdateOrg(e.ctx, "org_nope", redirects.OrgUpdate{Name: &name})
	wantCode(t, "UpdateOrg(unknown)", err, redirects.ENOTFOUND, "org_nope")
}

func testOrgNotFound(t *testing.T, e *env) {
	_, err := e.s.FindOrgByID(e.ctx, "org_nope")
	wantCode(t, "FindOrgByID(unknown)", err, redirects.ENOTFOUND, "org_nope")
	orgs, err := e.s.FindOrgs(e.ctx)
	if err != nil || len(orgs) != 0 {
		t.Errorf("FindOrgs on an empty store = %v, %v; want none, nil", orgIDs(orgs), err)
	}
}
