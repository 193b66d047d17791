package remote

import (
	"context"
	"strings"

	"redirects"
	"redirects/api"
)

var _ redirects.MemberService = (*Client)(nil)

// Members returns the members of an organization, oldest first.
func (c *Client) Members(ctx context.Context, orgID string) ([]*redirects.Membership, error) {
	var j api.Members
	if err := c.do(ctx, "GET", "/orgs/"+pathEscape(orgID)+"/members", nil, nil, "", &j); err != nil {
		return nil, err
	}
	out := make([]*redirects.Membership, len(j.Members))
	for i := range j.Members {
		out[i] = j.Members[i].ToMembership(orgID)
	}
	return out, nil
}

// AddMember gives the user with the email address, or the user ID
// ("usr_..."), a role in the organization (or changes a member's role).
// A user the API does not find is answered in the store's words, as the
// service over the database answers.
func (c *Client) AddMember(ctx context.Context, orgID, user string, role redirects.Role) (*redirects.Membership, error) {
	r := string(role)
	req := api.MemberRequest{Email: &user, Role: &r}
	if strings.HasPrefix(user, "usr_") {
		req = api.MemberRequest{UserID: &user, Role: &r}
	}
	var j api.Member
	err := c.do(ctx, "POST", "/orgs/"+pathEscape(orgID)+"/members", nil, req, "", &j)
	msg := redirects.ErrorMessage(err)
	switch {
	case redirects.ErrorCode(err) == redirects.ENOTFOUND && strings.HasPrefix(msg, "no user has the ID"):
		return nil, redirects.Mark(redirects.Errorf(redirects.ENOTFOUND, "user %q not found", user), redirects.ErrUnknownUser)
	case redirects.ErrorCode(err) == redirects.ENOTFOUND && strings.HasPrefix(msg, "no user has the email address"):
		e, nerr := redirects.NormalizeEmail(user)
		if nerr != nil {
			return nil, redirects.Mark(nerr, redirects.ErrUnknownUser)
		}
		return nil, redirects.Mark(redirects.Errorf(redirects.ENOTFOUND, "user %q not found", e), redirects.ErrUnknownUser)
	case redirects.ErrorCode(err) == redirects.EINVALID && strings.HasSuffix(msg, " is disabled"):
		return nil, redirects.Mark(err, redirects.ErrUserDisabled)
	case err != nil:
		return nil, err
	}
	return j.ToMembership(orgID), nil
}

// SetMemberRole changes a member's role.
func (c *Client) SetMemberRole(ctx context.Context, orgID, user string, role redirects.Role) (*redirects.Membership, error) {
	m, err := c.findMember(ctx, orgID, user)
	if err != nil {
		return nil, err
	}
	r := string(role)
	var j api.Member
	if err := c.do(ctx, "PATCH", "/orgs/"+pathEscape(orgID)+"/members/"+pathEscape(m.UserID), nil, api.MemberRoleRequest{Role: &r}, "", &j); err != nil {
		return nil, err
	}
	return j.ToMembership(orgID), nil
}

// RemoveMember removes a member, found by user ID or email address, and
// returns who it was; the API revokes the tokens they created in the
// organization.
func (c *Client) RemoveMember(ctx context.Context, orgID, user string) (*redirects.Membership, error) {
	m, err := c.findMember(ctx, orgID, user)
	if err != nil {
		return nil, err
	}
	if err := c.do(ctx, "DELETE", "/orgs/"+pathEscape(orgID)+"/members/"+pathEscape(m.UserID), nil, nil, "", nil); err != nil {
		return nil, err
	}
	return m, nil
}

// findMember finds a member of the organization by user ID or email
// address, with the service layer's words for one who is no member.
func (c *Client) findMember(ctx context.Context, orgID, ref string) (*redirects.Membership, error) {
	ms, err := c.Members(ctx, orgID)
	if err != nil {
		return nil, err
	}
	email, emailErr := redirects.NormalizeEmail(ref)
	for _, m := range ms {
		if m.UserID == ref || emailErr == nil && strings.EqualFold(m.Email, email) {
			return m, nil
		}
	}
	if !strings.HasPrefix(ref, "usr_") {
		if emailErr != nil {
			return nil, redirects.Mark(emailErr, redirects.ErrNotMember)
		}
		ref = email
	}
	return nil, redirects.Mark(redirects.Errorf(redirects.ENOTFOUND, "user %q is no member of organization %q", ref, orgID), redirects.ErrNotMember)
}
