package remote

import "redirects"

// Services returns c as every interface of the service layer the
// management API serves (redirects.Services): a command calls the same
// methods with --api as with --db.
func (c *Client) Services() redirects.Services {
	return redirects.Services{
		Orgs: c, Members: c, Projects: c, Rules: c, Imports: c, Deploys: c,
		Keys: c, Tokens: c, Webhooks: c, Insight: c, Sessions: c, Ops: c,
		Suggestions: c, Checks: c,
	}
}
