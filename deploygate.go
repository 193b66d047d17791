package redirects

import (
	"context"
	"time"
)

// DefaultShrinkLimit is the percentage of the live rules a deploy may
// remove before it needs an explicit confirmation, unless the project sets
// another.
const DefaultShrinkLimit = 10

// ValidateShrinkLimit checks a project's shrink limit: a percentage from 0
// (every removal of more than a few rules needs a confirmation, see
// safety.MinShrinkRemoved) to 100 (only a deploy that leaves no rule does).
// Errors: EINVALID.
func ValidateShrinkLimit(percent int) error {
	if percent < 0 || percent > 100 {
		return Errorf(EINVALID, "shrink limit %d is not a percentage from 0 to 100", percent)
	}
	return nil
}

// MaxTestsLen bounds a project's stored test file.
const MaxTestsLen = 4 << 20

// ShrinkLimitAuditEntry returns the project.update entry of a change of
// project p's shrink limit from before, by the actor in ctx.
func ShrinkLimitAuditEntry(ctx context.Context, at time.Time, p *Project, before int) *AuditEntry {
	return NewAuditEntry(ctx, at, AuditProjectUpdate, p.OrgID, p.ID, "project", p.ID,
		map[string]any{"shrinkLimit": before}, map[string]any{"shrinkLimit": p.ShrinkLimit})
}

// TestsAuditEntry returns the project.tests entry of a change of project
// p's test file, by the actor in ctx: the number of cases before and after,
// -1 for no file (recorded as nothing on that side).
func TestsAuditEntry(ctx context.Context, at time.Time, p *Project, before, after int) *AuditEntry {
	side := func(n int) map[string]any {
		if n < 0 {
			return nil
		}
		return map[string]any{"cases": n}
	}
	return NewAuditEntry(ctx, at, AuditProjectTests, p.OrgID, p.ID, "project", p.ID, side(before), side(after))
}
