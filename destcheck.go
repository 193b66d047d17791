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
	// progress, when not nil, is called with each result as it is done,
	// from the checker's goroutines.
	Check(ctx context.Context, targets []CheckTarget, projectURL string, progress func(*DestinationCheck)) ([]DestinationCheck, error)
}

// The limits of a check that runs in the background (docs/contract.md#destination-checks):
// the node running it records how far it has got and renews its lease
// every CheckJobBeat; a check whose lease ran out (its node stopped or
// lost the database) is failed, abandoned, and the project's results
// stay as they were. A project keeps its CheckJobsKept latest checks.
const (
	CheckJobLease = 2 * time.Minute
	CheckJobBeat  = 2 * time.Second
	CheckJobsKept = 10
)

// CheckJobState is where a check that runs in the background is.
type CheckJobState string

// The states of a check.
const (
	CheckRunning CheckJobState = "running"
	CheckDone    CheckJobState = "done"
	CheckFailed  CheckJobState = "failed"
)

// NewCheckJobID returns a new random check ID.
func NewCheckJobID() string { return "chk_" + randomBase62(16) }

// CheckJob is one check of a project's destinations, started by a caller
// or the schedule and read while it runs: how many destinations it
// requests, how many are done and broken so far, and, once done, its
// report. Only one runs per project at a time.
type CheckJob struct {
	ID        string
	ProjectID string
	State     CheckJobState
	// Owner is the node running it, and LeaseUntil when its hold ends
	// unless renewed.
	Owner      string
	LeaseUntil time.Time
	// BaseURL is what relative destinations were resolved against.
	BaseURL string
	// Total is the destinations to request, Checked those done so far,
	// Broken those of them that are broken, Skipped those that insert
	// captures.
	Total, Checked, Broken, Skipped int
	StartedAt                       time.Time
	// FinishedAt is when it ended (zero while it runs).
	FinishedAt time.Time
	// Error says why a failed check failed.
	Error string
	// Report is a done check's results (nil otherwise).
	Report *CheckReport
}

// Abandoned reports whether j is recorded as running but its lease ran
// out at now: its node stopped without ending it.
func (j *CheckJob) Abandoned(now time.Time) bool {
	return j.State == CheckRunning && !now.Before(j.LeaseUntil)
}

// AsSeen returns j as a reader sees it at now: a check whose lease ran
// out is failed, abandoned.
func (j *CheckJob) AsSeen(now time.Time) *CheckJob {
	if !j.Abandoned(now) {
		return j
	}
	c := *j
	c.State, c.FinishedAt = CheckFailed, j.LeaseUntil
	c.Error = "abandoned: the node running the check stopped renewing its lease (" + j.LeaseUntil.UTC().Format(time.RFC3339) + "); the results before it stay"
	return &c
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

	// StartCheckJob records job as its project's running check. A running
	// check of the project whose lease ran out is failed (abandoned)
	// first; the project keeps its CheckJobsKept latest checks. Errors:
	// ENOTFOUND (the project), ECONFLICT (a check of the project runs,
	// named in the message).
	StartCheckJob(ctx context.Context, job *CheckJob) error
	// ProgressCheckJob records how far the running check id has got and
	// holds it until leaseUntil. Errors: ECONFLICT (it no longer runs,
	// or its lease ran out).
	ProgressCheckJob(ctx context.Context, id string, checked, broken int, leaseUntil time.Time) error
	// FinishCheckJob ends the running check id: failed with failure when
	// not "", else done with checks, which it records as
	// RecordDestinationChecks does, in the same transaction, returning
	// the destinations that broke. Errors: ECONFLICT (it no longer runs,
	// or its lease ran out: nothing is recorded).
	FinishCheckJob(ctx context.Context, id string, checks []DestinationCheck, skipped int, failure string) ([]string, error)
	// FindCheckJob returns the project's check id, its report when
	// done. Errors: ENOTFOUND.
	FindCheckJob(ctx context.Context, projectID, id string) (*CheckJob, error)
	// FindRunningCheckJob returns the project's check recorded as
	// running (its lease may have run out), or nil.
	FindRunningCheckJob(ctx context.Context, projectID string) (*CheckJob, error)
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
