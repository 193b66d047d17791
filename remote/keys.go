package remote

import (
	"context"

	"redirects"
	"redirects/api"
)

var _ redirects.KeyService = (*Client)(nil)

// CreateKey has the API make a key (the server makes the secret) and
// returns it with its secret, shown this once.
func (c *Client) CreateKey(ctx context.Context, projectID, name string, test bool) (*redirects.Key, string, error) {
	var j api.Key
	if err := c.do(ctx, "POST", "/projects/"+pathEscape(projectID)+"/keys", nil, api.KeyCreateRequest{Name: name, Test: test}, "", &j); err != nil {
		return nil, "", err
	}
	return j.Domain(projectID), j.Secret, nil
}

// FindKeys returns a project's keys and the last day each was used.
func (c *Client) FindKeys(ctx context.Context, projectID string) (*redirects.KeyList, error) {
	var j api.KeyList
	if err := c.do(ctx, "GET", "/projects/"+pathEscape(projectID)+"/keys", nil, nil, "", &j); err != nil {
		return nil, err
	}
	return j.Domain(projectID), nil
}

// RevokeKey revokes a key by its ID or its full secret, which the API
// takes in the body (a secret does not belong in a URL). The API answers
// the key as it is after, so whether this call revoked it is read from
// the key list before, as the service reads its store.
func (c *Client) RevokeKey(ctx context.Context, projectID, ref string) (*redirects.Key, bool, error) {
	before, err := c.FindKeys(ctx, projectID)
	if err != nil {
		return nil, false, err
	}
	var j api.Key
	if err := c.do(ctx, "POST", "/projects/"+pathEscape(projectID)+"/revoke-key", nil, api.KeyRevokeRequest{Key: &ref}, "", &j); err != nil {
		return nil, false, err
	}
	k := j.Domain(projectID)
	for _, b := range before.Keys {
		if b.ID == k.ID && b.RevokedAt != nil {
			return k, false, nil
		}
	}
	return k, true, nil
}
