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
