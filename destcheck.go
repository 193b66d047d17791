package redirects

import (
	"context"
	"net/url"
	"strings"
	"time"

	"redirects/engine/pattern"
)

// The limits of a check (docs/contract.md#destination-checks).
const (
	CheckPerHost   = 2
	CheckTotal     = 16
	CheckTimeout   = 5 * time.Second
	CheckMaxHops   = 5
	CheckMaxBody   = 64 << 10
	CheckUserAgent = "redirects-check"
)

// CheckOutcome says what a destination led to.
type CheckOutcome string

// The outcomes of a destination's check.
const (
	// CheckOK: a final answer below 400 on the destination's own host.
	CheckOK CheckOutcome = "ok"
	// CheckOffsite: a final answer below 400 after redirects that left
	// the destination's host.
	CheckOffsite CheckOutcome = "offsite"
	// CheckBroken: a final answer of 400 or more.
	CheckBroken CheckOutcome = "broken"
	// CheckTimedOut: no answer within CheckTimeout.
	CheckTimedOut CheckOutcome = "timeout"
	// CheckLoop: redirects that come back to a URL already requested, or
	// more than CheckMaxHops of them.
	CheckLoop CheckOutcome = "loop"
	// CheckError: the request failed (no such host, connection refused,
	// a bad Location).
	CheckError CheckOutcome = "error"
	// CheckRefused: the target is a loopback, private or link-local
	// address, which the process was not started to allow.
	CheckRefused CheckOutcome = "refused"
)

// DestinationCheck is what one destination led to when last checked.
type DestinationCheck struct {
	// Destination is the destination as the rules hold it, URL what was
	// requested first (a relative destination resolved).
	Destination string
	URL         string
	Outcome     CheckOutcome
	// Status is the final answer's status (0 when none came), FinalURL
	// the URL that gave it and Hops the redirects followed to it.
	Status   int
	FinalURL string
	Hops     int
	// Duration is the time all the requests took, CheckedAt when the
	// first started.
	Duration  time.Duration
	CheckedAt time.Time
	// Error says why a request failed; "" when an answer came.
	Error string
}

// Broken reports whether the destination does not work: a final answer
// of 400 or more, a timeout, a loop, or a failed request.
func (d *DestinationCheck) Broken() bool {
	switch d.Outcome {
	case CheckBroken, CheckTimedOut, CheckLoop, CheckError:
		return true
	}
	return false
}

// Worked reports whether the destination answered below 400.
func (d *DestinationCheck) Worked() bool {
	return d.Outcome == CheckOK || d.Outcome == CheckOffsite
}

// CheckReport is a check's result: every destination checked, in the
// order of the destinations, how many were skipped for holding captures,
// and those that broke since the check before.
type CheckReport struct {
	Checks []DestinationCheck
	// Skipped counts the distinct destinations that insert captures,
	// which cannot be requested as written.
	Skipped int
	// NewlyBroken are the destinations that worked when last checked and
	// are broken now.
	NewlyBroken []string
}

// CheckTarget is one URL to request for a destination.
type CheckTarget struct {
	Destination string
	URL         string
}

// DestinationChecker requests URLs as a check does: HEAD (GET when the
// server refuses HEAD), following redirects, within the limits above,
// with a User-Agent of CheckUserAgent, the version and projectURL (when
// not ""). Check returns one result per target, in their order, or the
// context's error when it is cancelled before every target is done.
type DestinationChecker interface {
	Check(ctx context.Context, targets []CheckTarget, projectURL string) ([]DestinationCheck, error)
}

// CheckStore keeps the results of destination checks (both SQL stores
// implement it).
type CheckStore interface {
	// RecordDestinationChecks replaces the project's results with checks
	// in one transaction, records a destination.check audit entry and a
	// destination.broken entry for each destination that worked and is
	// broken now, and returns those destinations. Errors: ENOTFOUND (the
	// project).
	RecordDestinationChecks(ctx context.Context, projectID string, checks []DestinationCheck, skipped int) ([]string, error)
	// FindDestinationChecks returns the project's results, by
	// destination.
	FindDestinationChecks(ctx context.Context, projectID string) ([]DestinationCheck, error)
	// ClaimDestinationCheck takes the project's lease of scheduled checks
	// for owner until now + lease and reports whether it did: only when
	// the last scheduled check started at least every ago and no other
	// owner holds the lease. Of owners that race, one gets it.
	ClaimDestinationCheck(ctx context.Context, projectID, owner string, every, lease time.Duration) (bool, error)
	// ReleaseDestinationCheck gives the lease back if owner holds it.
	ReleaseDestinationCheck(ctx context.Context, projectID, owner string) error
}

// CheckBaseURL returns the URL relative destinations are resolved
// against: base when given, else https:// and the first of hosts.
// Errors: EINVALID (base is not an http:// or https:// URL with a host
// and nothing else than a path; neither base nor a host).
func CheckBaseURL(base string, hosts []string) (*url.URL, error) {
	if base == "" {
		if len(hosts) == 0 {
			return nil, Errorf(EINVALID, "the project declares no host: give a base URL for its relative destinations (--base-url URL)")
		}
		base = "https://" + hosts[0]
	}
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" {
		return nil, Errorf(EINVALID, "base URL %s is not an http:// or https:// URL with a host", quoteShort(base))
	}
	return u, nil
}

// CheckTargets returns the distinct destinations of rules to request,
// in their first rule's order, each relative one resolved against base,
// and how many distinct destinations were skipped for inserting captures.
func CheckTargets(rules []Rule, base *url.URL) ([]CheckTarget, int) {
	seen := map[string]bool{}
	var out []CheckTarget
	skipped := 0
	for i := range rules {
		r := &rules[i]
		d := r.Destination
		if d == "" || seen[d] {
			continue
		}
		seen[d] = true
		if r.DestinationCaptures() {
			skipped++
			continue
		}
		u := d
		if strings.HasPrefix(d, "/") {
			u = base.Scheme + "://" + base.Host + strings.TrimSuffix(base.Path, "/") + d
		}
		if k := strings.IndexByte(u, '#'); k >= 0 {
			u = u[:k]
		}
		out = append(out, CheckTarget{Destination: d, URL: u})
	}
	return out, skipped
}

// DestinationCaptures reports whether r's destination inserts a capture,
// which only pattern and regex rules and rules whose query conditions
// capture can do.
func (r *Rule) DestinationCaptures() bool {
	return r.Extended() && pattern.DestinationCaptures(r.PatternRule())
}
