package redirects_test

import (
	"testing"
	"time"

	"redirects"
)

func TestUnlimited(t *testing.T) {
	org := &redirects.Org{ID: "org_e", Tier: redirects.TierEnterprise}
	d, consume := redirects.Decide(redirects.Usage{Org: org, Lookup: true, Now: time.Now()}, 1e9, 1e12)
	if d.Refused != redirects.NotRefused || !consume || !d.RateLimit.IsUnlimited() || !d.RateRemaining.IsUnlimited() ||
		!d.QuotaLimit.IsUnlimited() || !d.QuotaRemaining.IsUnlimited() || d.RateLimit.String() != "unlimited" {
		t.Fatalf("enterprise: %+v consume=%v", d, consume)
	}
	test, _ := redirects.Decide(redirects.Usage{Org: org, Test: true, Lookup: true, Now: time.Now()}, 101, 0)
	if test.Refused != redirects.RateLimitExceeded || test.RateLimit != 100 {
		t.Fatalf("enterprise test key over 100/min: %+v, want refused at the Free tier's 100", test)
	}
}
