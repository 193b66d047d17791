package api

import (
	"context"
	"time"

	"redirects"
)

// DestinationCheck is where one destination led when last checked
// (docs/contract.md#destination-checks): outcome is ok, offsite, broken,
// timeout, loop, error or refused; broken is true for broken, timeout,
// loop and error; status is 0 when no answer came.
type DestinationCheck struct {
	Destination string `json:"destination"`
	URL         string `json:"url"`
	Outcome     string `json:"outcome"`
	Broken      bool   `json:"broken"`
	Status      int    `json:"status"`
	FinalURL    string `json:"finalUrl"`
	Hops        int    `json:"hops"`
	DurationMs  int64  `json:"durationMs"`
	CheckedAt   string `json:"checkedAt"`
	Error       string `json:"error,omitempty"`
}

// DestinationCheckOf is d as the API shows it.
func DestinationCheckOf(d *redirects.DestinationCheck) DestinationCheck {
	return DestinationCheck{Destination: d.Destination, URL: d.URL, Outcome: string(d.Outcome), Broken: d.Broken(),
		Status: d.Status, FinalURL: d.FinalURL, Hops: d.Hops, DurationMs: d.Duration.Milliseconds(),
		CheckedAt: d.CheckedAt.UTC().Format(time.RFC3339), Error: d.Error}
}

// Check returns j as the domain holds it, to the millisecond and second
// the API shows.
func (j *DestinationCheck) Check() redirects.DestinationCheck {
	at, _ := time.Parse(time.RFC3339, j.CheckedAt)
	return redirects.DestinationCheck{Destination: j.Destination, URL: j.URL, Outcome: redirects.CheckOutcome(j.Outcome),
		Status: j.Status, FinalURL: j.FinalURL, Hops: j.Hops, Duration: time.Duration(j.DurationMs) * time.Millisecond,
		CheckedAt: at, Error: j.Error}
}

func checksOf(cs []redirects.DestinationCheck) ([]DestinationCheck, int) {
	out := make([]DestinationCheck, len(cs))
	broken := 0
	for i := range cs {
		out[i] = DestinationCheckOf(&cs[i])
		if out[i].Broken {
			broken++
		}
	}
	return out, broken
}

func checksFrom(js []DestinationCheck) []redirects.DestinationCheck {
	out := make([]redirects.DestinationCheck, len(js))
	for i := range js {
		out[i] = js[i].Check()
	}
	return out
}

// DestinationChecks is GET .../destination-checks's answer (and redirects
// check --list --json): the results of the last checks, broken first,
// and how many are broken.
type DestinationChecks struct {
	Checks []DestinationCheck `json:"checks"`
	Broken int                `json:"broken"`
}

// DestinationChecksOf is the answer listing cs.
func DestinationChecksOf(cs []redirects.DestinationCheck) DestinationChecks {
	out, broken := checksOf(cs)
	return DestinationChecks{Checks: out, Broken: broken}
}

// Checks returns the results as the domain holds them.
func (j *DestinationChecks) Results() []redirects.DestinationCheck { return checksFrom(j.Checks) }

// CheckInput is POST .../destination-checks's body: the base URL of
// relative destinations ("" or absent: https:// and the project's first
// host).
type CheckInput struct {
	BaseURL string `json:"baseUrl,omitempty"`
}

// CheckReport is POST .../destination-checks's answer (and redirects
// check --json): every destination checked, in the order of the rules,
// how many are broken, how many were skipped for inserting captures, and
// those that worked at the check before and are broken now.
type CheckReport struct {
	Checks      []DestinationCheck `json:"checks"`
	Broken      int                `json:"broken"`
	Skipped     int                `json:"skipped"`
	NewlyBroken []string           `json:"newlyBroken"`
}

// CheckReportOf is rep as the API shows it.
func CheckReportOf(rep *redirects.CheckReport) CheckReport {
	out, broken := checksOf(rep.Checks)
	nb := rep.NewlyBroken
	if nb == nil {
		nb = []string{}
	}
	return CheckReport{Checks: out, Broken: broken, Skipped: rep.Skipped, NewlyBroken: nb}
}

// Report returns j as the domain holds it.
func (j *CheckReport) Report() *redirects.CheckReport {
	return &redirects.CheckReport{Checks: checksFrom(j.Checks), Skipped: j.Skipped, NewlyBroken: j.NewlyBroken}
}

// CheckDestinationsOp is POST /projects/{project}/destination-checks,
// declared once for the management API and its client: check every
// destination of the live version (CheckService.CheckDestinations; an
// editor's action).
var CheckDestinationsOp = Declare(&Op[CheckInput, CheckReport]{Method: "POST", Path: "/projects/{project}/destination-checks", Action: redirects.ActionEditRules,
	Call: func(ctx context.Context, svc redirects.Services, project string, in CheckInput) (CheckReport, error) {
		rep, err := svc.Checks.CheckDestinations(ctx, project, redirects.CheckOptions{BaseURL: in.BaseURL})
		if err != nil {
			return CheckReport{}, err
		}
		return CheckReportOf(rep), nil
	}})

// DestinationChecksOp is GET /projects/{project}/destination-checks: the
// results of the last checks (CheckService.FindDestinationChecks; reading
// the project).
var DestinationChecksOp = Declare(&Op[None, DestinationChecks]{Method: "GET", Path: "/projects/{project}/destination-checks", Action: redirects.ActionRead,
	Call: func(ctx context.Context, svc redirects.Services, project string, _ None) (DestinationChecks, error) {
		cs, err := svc.Checks.FindDestinationChecks(ctx, project)
		if err != nil {
			return DestinationChecks{}, err
		}
		return DestinationChecksOf(cs), nil
	}})
