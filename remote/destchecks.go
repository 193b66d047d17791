package remote

import (
	"context"
	"time"

	"redirects"
	"redirects/api"
)

var _ redirects.CheckService = (*Client)(nil)

// CheckDestinations starts a check through POST .../destination-checks
// and reads it through GET .../destination-checks/{id} until it ends,
// so that no request lasts as long as the check: its report when done,
// its failure as an EUNAVAILABLE error naming the check.
func (c *Client) CheckDestinations(ctx context.Context, projectID string, opts redirects.CheckOptions) (*redirects.CheckReport, error) {
	job, err := c.StartDestinationCheck(ctx, projectID, opts)
	if err != nil {
		return nil, err
	}
	pause := 100 * time.Millisecond
	for job.State == redirects.CheckRunning {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(pause):
		}
		pause = min(2*pause, 2*time.Second)
		if job, err = c.FindDestinationCheck(ctx, projectID, job.ID); err != nil {
			return nil, err
		}
	}
	if job.State != redirects.CheckDone || job.Report == nil {
		return nil, redirects.Errorf(redirects.EUNAVAILABLE, "check %s failed: %s", job.ID, job.Error)
	}
	return job.Report, nil
}

// StartDestinationCheck starts a check through POST
// .../destination-checks.
func (c *Client) StartDestinationCheck(ctx context.Context, projectID string, opts redirects.CheckOptions) (*redirects.CheckJob, error) {
	var j api.CheckJob
	if err := c.do(ctx, "POST", api.ChecksURL(projectID), nil, api.CheckInput{BaseURL: opts.BaseURL}, "", &j); err != nil {
		return nil, err
	}
	return j.Job(), nil
}

// FindDestinationCheck reads GET .../destination-checks/{id}.
func (c *Client) FindDestinationCheck(ctx context.Context, projectID, id string) (*redirects.CheckJob, error) {
	var j api.CheckJob
	if err := c.do(ctx, "GET", api.CheckURL(projectID, id), nil, nil, "", &j); err != nil {
		return nil, err
	}
	return j.Job(), nil
}

// RunningDestinationCheck reads the running check of GET
// .../destination-checks.
func (c *Client) RunningDestinationCheck(ctx context.Context, projectID string) (*redirects.CheckJob, error) {
	j, err := Call(ctx, c, api.DestinationChecksOp, projectID, api.None{})
	if err != nil || j.Running == nil {
		return nil, err
	}
	return j.Running.Job(), nil
}

// FindDestinationChecks reads GET .../destination-checks.
func (c *Client) FindDestinationChecks(ctx context.Context, projectID string) ([]redirects.DestinationCheck, error) {
	j, err := Call(ctx, c, api.DestinationChecksOp, projectID, api.None{})
	if err != nil {
		return nil, err
	}
	return j.Results(), nil
}
