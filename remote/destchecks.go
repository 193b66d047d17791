package remote

import (
	"context"

	"redirects"
	"redirects/api"
)

var _ redirects.CheckService = (*Client)(nil)

// CheckDestinations checks through POST .../destination-checks.
func (c *Client) CheckDestinations(ctx context.Context, projectID string, opts redirects.CheckOptions) (*redirects.CheckReport, error) {
	j, err := Call(ctx, c, api.CheckDestinationsOp, projectID, api.CheckInput{BaseURL: opts.BaseURL})
	if err != nil {
		return nil, err
	}
	return j.Report(), nil
}

// FindDestinationChecks reads GET .../destination-checks.
func (c *Client) FindDestinationChecks(ctx context.Context, projectID string) ([]redirects.DestinationCheck, error) {
	j, err := Call(ctx, c, api.DestinationChecksOp, projectID, api.None{})
	if err != nil {
		return nil, err
	}
	return j.Results(), nil
}
