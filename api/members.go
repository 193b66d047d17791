package api

import "redirects"

// Member is a membership: the API's and the command line's member list
// --json element.
type Member struct {
	UserID    string `json:"userId"`
	Email     string `json:"email"`
	Role      string `json:"role"`
	CreatedAt string `json:"createdAt"`
}

// MemberOf returns the shape of m.
func MemberOf(m *redirects.Membership) Member {
	return Member{UserID: m.UserID, Email: m.Email, Role: string(m.Role), CreatedAt: orgTime(m.CreatedAt)}
}

// ToMembership returns the membership in organization orgID that j shows.
func (j *Member) ToMembership(orgID string) *redirects.Membership {
	return &redirects.Membership{OrgID: orgID, UserID: j.UserID, Email: j.Email, Role: redirects.Role(j.Role), CreatedAt: parseOrgTime(j.CreatedAt)}
}

// Members is the answer of GET /orgs/{org}/members.
type Members struct {
	Members []Member `json:"members"`
}

// MemberRequest is the body of POST /orgs/{org}/members: a user by email
// address or ID, and a role.
type MemberRequest struct {
	Email  *string `json:"email,omitempty"`
	UserID *string `json:"userId,omitempty"`
	Role   *string `json:"role,omitempty"`
}

// MemberRoleRequest is the body of PATCH /orgs/{org}/members/{user}.
type MemberRoleRequest struct {
	Role *string `json:"role,omitempty"`
}
