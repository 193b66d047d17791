package remote

import (
	"context"
	"time"

	"redirects"
	"redirects/api"
)

var _ redirects.TokenService = (*Client)(nil)

// FindTokens returns the organization's management tokens, oldest first,
// each with its creator's email address.
func (c *Client) FindTokens(ctx context.Context, orgID string) ([]*redirects.ListedToken, error) {
	var j api.TokenList
	if err := c.do(ctx, "GET", "/orgs/"+pathEscape(orgID)+"/tokens", nil, nil, "", &j); err != nil {
		return nil, err
	}
	out := make([]*redirects.ListedToken, len(j.Tokens))
	for i := range j.Tokens {
		out[i] = j.Tokens[i].Domain(orgID)
	}
	return out, nil
}

// RevokeToken revokes a token of the organization by its ID; the API
// takes no full token, which does not belong in a URL. An unknown ID is
// not found, with the service's words.
func (c *Client) RevokeToken(ctx context.Context, orgID, ref string) (*redirects.ManagementToken, bool, error) {
	if redirects.WellFormedManagementToken(ref) {
		return nil, false, redirects.Errorf(redirects.EINVALID, "through the management API, token revoke takes the token's ID (tok_..., see \"redirects token list\"), not the full token, which the API takes in no URL")
	}
	ts, err := c.FindTokens(ctx, orgID)
	if err != nil {
		return nil, false, err
	}
	for _, t := range ts {
		if t.ID != ref {
			continue
		}
		if t.RevokedAt != nil {
			return t.ManagementToken, false, nil
		}
		if err := c.do(ctx, "DELETE", "/orgs/"+pathEscape(orgID)+"/tokens/"+pathEscape(ref), nil, nil, "", nil); err != nil {
			return nil, false, err
		}
		// The API answers no body: the token as it is now is read again.
		after, err := c.FindTokens(ctx, orgID)
		if err != nil {
			return nil, false, err
		}
		for _, a := range after {
			if a.ID == ref {
				return a.ManagementToken, true, nil
			}
		}
		now := time.Now()
		t.RevokedAt = &now
		return t.ManagementToken, true, nil
	}
	return nil, false, redirects.Errorf(redirects.ENOTFOUND, "token %q is not a management token of organization %s", ref, orgID)
}
