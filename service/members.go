package service

import (
	"context"
	"strings"

	"redirects"
)

var _ redirects.MemberService = (*Service)(nil)

// memberAccounts returns the account side of the store, or the error of a
// store that has none.
func (s *Service) memberAccounts() (redirects.AccountStore, error) {
	if s.accounts == nil {
		return nil, redirects.Errorf(redirects.EINVALID, "users, members, tokens and the audit log need the database here: run the command with --db (the dashboard and the management API manage them remotely)")
	}
	return s.accounts, nil
}

// Members returns the members of an organization, oldest first.
func (s *Service) Members(ctx context.Context, orgID string) ([]*redirects.Membership, error) {
	o, err := s.org(ctx, orgID, redirects.ActionRead)
	if err != nil {
		return nil, err
	}
	a, err := s.memberAccounts()
	if err != nil {
		return nil, err
	}
	return a.FindMembers(ctx, o.ID)
}

// authorizeMemberGrant refuses to give a role above the caller's own: only an
// operator (or the command line on the database), or an owner, may make
// owners. With ActionManageMembers held by owners and operators alone it
// refuses nothing today; it keeps the rule true if the table ever lets a
// lower role manage members.
func authorizeMemberGrant(ctx context.Context, orgID string, role redirects.Role) error {
	p := redirects.PrincipalFrom(ctx)
	if p.Local || p.Operator {
		return nil
	}
	if own := p.Roles[orgID]; !own.AtLeast(role) {
		return redirects.Errorf(redirects.EFORBIDDEN, "role %s may not give the role %s, which is above its own", own, role)
	}
	return nil
}

// AddMember gives a user, found by user ID or email address, a role in an
// organization (or changes a member's role). A disabled user is refused.
func (s *Service) AddMember(ctx context.Context, orgID, user string, role redirects.Role) (*redirects.Membership, error) {
	o, err := s.org(ctx, orgID, redirects.ActionManageMembers)
	if err != nil {
		return nil, err
	}
	if err := authorizeMemberGrant(ctx, o.ID, role); err != nil {
		return nil, err
	}
	a, err := s.memberAccounts()
	if err != nil {
		return nil, err
	}
	var u *redirects.User
	if strings.HasPrefix(user, "usr_") {
		u, err = a.FindUserByID(ctx, user)
	} else {
		u, err = a.FindUserByEmail(ctx, user)
	}
	if c := redirects.ErrorCode(err); c == redirects.ENOTFOUND || c == redirects.EINVALID {
		return nil, redirects.Mark(err, redirects.ErrUnknownUser)
	} else if err != nil {
		return nil, err
	}
	if u.Disabled() {
		return nil, redirects.Mark(redirects.Errorf(redirects.EINVALID, "user %s is disabled", u.Email), redirects.ErrUserDisabled)
	}
	m := &redirects.Membership{OrgID: o.ID, UserID: u.ID, Role: role}
	if err := a.SetMember(ctx, m); err != nil {
		return nil, err
	}
	return m, nil
}

// SetMemberRole changes a member's role; the store revokes the tokens
// they created above the new one.
func (s *Service) SetMemberRole(ctx context.Context, orgID, user string, role redirects.Role) (*redirects.Membership, error) {
	o, err := s.org(ctx, orgID, redirects.ActionManageMembers)
	if err != nil {
		return nil, err
	}
	if err := authorizeMemberGrant(ctx, o.ID, role); err != nil {
		return nil, err
	}
	m, err := s.orgMember(ctx, o.ID, user)
	if err != nil {
		return nil, err
	}
	m.Role = role
	if err := s.accounts.SetMember(ctx, m); err != nil {
		return nil, err
	}
	return m, nil
}

// RemoveMember removes a member; the store revokes the tokens they
// created in the organization.
func (s *Service) RemoveMember(ctx context.Context, orgID, user string) (*redirects.Membership, error) {
	o, err := s.org(ctx, orgID, redirects.ActionManageMembers)
	if err != nil {
		return nil, err
	}
	m, err := s.orgMember(ctx, o.ID, user)
	if err != nil {
		return nil, err
	}
	if err := s.accounts.RemoveMember(ctx, o.ID, m.UserID); err != nil {
		return nil, err
	}
	return m, nil
}

// orgMember finds a member of organization orgID by user ID or email address
// among its members: a user who is no member is not found, whatever else
// they are, and named as given (an email address normalized), so that it
// tells no more than that.
func (s *Service) orgMember(ctx context.Context, orgID, ref string) (*redirects.Membership, error) {
	a, err := s.memberAccounts()
	if err != nil {
		return nil, err
	}
	ms, err := a.FindMembers(ctx, orgID)
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
