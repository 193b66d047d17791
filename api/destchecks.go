package api

import (
	"context"
	"net/url"
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
// check --last --json): the results of the last checks, broken first,
// how many are broken, and the check that runs now, if one does.
type DestinationChecks struct {
	Checks  []DestinationCheck `json:"checks"`
	Broken  int                `json:"broken"`
	Running *CheckJob          `json:"running,omitempty"`
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

// CheckReport is a done check's report: POST
// .../destination-checks?wait=true's answer when the check ends within
// the request, a CheckJob's report (and redirects check --json): every destination checked, in the order of the rules,
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

// CheckJob is a check that runs in the background: POST
// .../destination-checks's answer (202 Accepted, with its Location) and
// GET .../destination-checks/{id}'s. state is running, done or failed;
// total is the destinations it requests, checked those done so far and
// broken those of them that are broken; a failed check says why in
// error, a done one carries its report, as POST ...?wait=true answers it.
type CheckJob struct {
	ID         string       `json:"id"`
	Project    string       `json:"project"`
	State      string       `json:"state"`
	BaseURL    string       `json:"baseUrl"`
	Total      int          `json:"total"`
	Checked    int          `json:"checked"`
	Broken     int          `json:"broken"`
	Skipped    int          `json:"skipped"`
	StartedAt  string       `json:"startedAt"`
	FinishedAt string       `json:"finishedAt,omitempty"`
	Error      string       `json:"error,omitempty"`
	Report     *CheckReport `json:"report,omitempty"`
}

// CheckJobOf is j as the API shows it.
func CheckJobOf(j *redirects.CheckJob) CheckJob {
	out := CheckJob{ID: j.ID, Project: j.ProjectID, State: string(j.State), BaseURL: j.BaseURL, Total: j.Total, Checked: j.Checked,
		Broken: j.Broken, Skipped: j.Skipped, StartedAt: j.StartedAt.UTC().Format(time.RFC3339), Error: j.Error}
	if !j.FinishedAt.IsZero() {
		out.FinishedAt = j.FinishedAt.UTC().Format(time.RFC3339)
	}
	if j.Report != nil {
		r := CheckReportOf(j.Report)
		out.Report = &r
	}
	return out
}

// Job returns j as the domain holds it.
func (j *CheckJob) Job() *redirects.CheckJob {
	out := &redirects.CheckJob{ID: j.ID, ProjectID: j.Project, State: redirects.CheckJobState(j.State), BaseURL: j.BaseURL,
		Total: j.Total, Checked: j.Checked, Broken: j.Broken, Skipped: j.Skipped, Error: j.Error}
	out.StartedAt, _ = time.Parse(time.RFC3339, j.StartedAt)
	if j.FinishedAt != "" {
		out.FinishedAt, _ = time.Parse(time.RFC3339, j.FinishedAt)
	}
	if j.Report != nil {
		out.Report = j.Report.Report()
	}
	return out
}

// ChecksURL is the path, under /manage/v1, of the project's checks.
func ChecksURL(project string) string {
	return "/projects/" + url.PathEscape(project) + "/destination-checks"
}

// CheckURL is the path, under /manage/v1, of the project's check id:
// the Location of POST .../destination-checks's answer.
func CheckURL(project, id string) string { return ChecksURL(project) + "/" + url.PathEscape(id) }

// DestinationChecksOp is GET /projects/{project}/destination-checks: the
// results of the last checks (CheckService.FindDestinationChecks; reading
// the project).
var DestinationChecksOp = Declare(&Op[None, DestinationChecks]{Method: "GET", Path: "/projects/{project}/destination-checks", Action: redirects.ActionRead,
	Call: func(ctx context.Context, svc redirects.Services, project string, _ None) (DestinationChecks, error) {
		cs, err := svc.Checks.FindDestinationChecks(ctx, project)
		if err != nil {
			return DestinationChecks{}, err
		}
		out := DestinationChecksOf(cs)
		run, err := svc.Checks.RunningDestinationCheck(ctx, project)
		if err != nil {
			return DestinationChecks{}, err
		}
		if run != nil {
			j := CheckJobOf(run)
			out.Running = &j
		}
		return out, nil
	}})
