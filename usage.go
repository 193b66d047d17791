package redirects

import "time"

// ValidatePeriod checks a billing period's form, "2006-01" (as
// BillingPeriod names it), so a typo never files counts under a period
// nobody reads. Errors: EINVALID.
func ValidatePeriod(period string) error {
	if t, err := time.Parse("2006-01", period); err != nil || t.Format("2006-01") != period {
		return Errorf(EINVALID, "usage period %q is not a month of the form 2006-01", period)
	}
	return nil
}

// ValidateUsage checks the arguments of Store.AddUsage: the period's form
// and that no count is negative. Errors: EINVALID.
func ValidateUsage(period string, counts map[string]int64) error {
	if err := ValidatePeriod(period); err != nil {
		return err
	}
	for org, n := range counts {
		if n < 0 {
			return Errorf(EINVALID, "usage count %d of organization %s is negative", n, org)
		}
	}
	return nil
}

// DailyUsage is the live lookups of one edge key on one UTC day: the
// lookups that consumed the organization's monthly quota, so an
// organization's days and keys add up to its monthly usage.
type DailyUsage struct {
	KeyID string
	// Day is the UTC day, "2006-01-02".
	Day   string
	Count int64
}

// UsageDay returns the UTC day holding t, as DailyUsage names it.
func UsageDay(t time.Time) string { return t.UTC().Format(time.DateOnly) }

// ValidateDailyUsage checks the arguments of Store.AddKeyUsage: each day's
// form, a key, and that no count is negative. Errors: EINVALID.
func ValidateDailyUsage(counts []DailyUsage) error {
	for _, c := range counts {
		if t, err := time.Parse(time.DateOnly, c.Day); err != nil || t.Format(time.DateOnly) != c.Day {
			return Errorf(EINVALID, "usage day %q is not a day of the form 2006-01-02", c.Day)
		}
		if c.KeyID == "" {
			return Errorf(EINVALID, "usage of day %s names no key", c.Day)
		}
		if c.Count < 0 {
			return Errorf(EINVALID, "usage count %d of key %s on %s is negative", c.Count, c.KeyID, c.Day)
		}
	}
	return nil
}
