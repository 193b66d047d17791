package ui

import (
	"net/http"

	"redirects"
)

// orgTabs are an organization's tabs, in the dashboard's order.
var orgTabs = []tab{{"Projects", ""}, {"Members", "members"}, {"Tokens", "tokens"}, {"Webhooks", "webhooks"}, {"Usage", "usage"}, {"Audit", "audit"}}

type membersData struct {
	Members   []*redirects.Membership
	Roles     []redirects.Role
	CanManage bool
	Self      string
}

// membersPage lists an organization's members; owners and operators add,
// change and remove them.
func (h *handler) membersPage(w http.ResponseWriter, r *http.Request) error {
	o, err := h.org(r, r.PathValue("org"))
	if err != nil {
		return err
	}
	ms, err := h.accounts.FindMembers(r.Context(), o.ID)
	if err != nil {
		return err
	}
	d := membersData{Members: ms, Roles: redirects.Roles, CanManage: may(r, o.ID, redirects.ActionManageMembers), Self: viewerOf(r).user.ID}
	return h.render(w, r, http.StatusOK, "members", &page{Title: "Members · " + o.Name, Org: o, Tab: "members", Data: d})
}

// authorizeGrant refuses a role above the user's own, as the API does:
// only operators and owners make owners.
func authorizeGrant(r *http.Request, orgID string, role redirects.Role) error {
	v := viewerOf(r)
	if v.principal.Operator {
		return nil
	}
	if own := v.principal.Roles[orgID]; !own.AtLeast(role) {
		return redirects.Errorf(redirects.EFORBIDDEN, "role %s may not give the role %s, which is above its own", own, role)
	}
	return nil
}

// memberAdd gives a user a role in the organization.
func (h *handler) memberAdd(w http.ResponseWriter, r *http.Request) error {
	orgID := r.PathValue("org")
	if err := authorize(r, orgID, redirects.ActionManageMembers); err != nil {
		return err
	}
	back := "/orgs/" + orgID + "/members"
	role, err := redirects.ParseRole(r.PostFormValue("role"))
	if err != nil {
		return h.redirect(w, r, back, flashErr, "Role: "+message(err))
	}
	if err := authorizeGrant(r, orgID, role); err != nil {
		return err
	}
	email := r.PostFormValue("email")
	u, err := h.accounts.FindUserByEmail(r.Context(), email)
	switch {
	case redirects.ErrorCode(err) == redirects.ENOTFOUND || redirects.ErrorCode(err) == redirects.EINVALID:
		return h.redirect(w, r, back, flashErr, "Email address: no user has the address "+email+". An operator creates users (redirects user create), then you add them here.")
	case err != nil:
		return err
	case u.Disabled():
		return h.redirect(w, r, back, flashErr, "User "+u.Email+" is disabled: an operator must enable them first.")
	}
	m := &redirects.Membership{OrgID: orgID, UserID: u.ID, Role: role}
	if err := h.accounts.SetMember(r.Context(), m); err != nil {
		if statusOf(err) < 500 {
			return h.redirect(w, r, back, flashErr, message(err))
		}
		return err
	}
	return h.redirect(w, r, back, flashOK, u.Email+" is now "+string(role)+" of this organization.")
}

// member finds a member of the organization by the path's {user}.
func (h *handler) member(r *http.Request, orgID string) (*redirects.Membership, error) {
	ms, err := h.accounts.FindMembers(r.Context(), orgID)
	if err != nil {
		return nil, err
	}
	for _, m := range ms {
		if m.UserID == r.PathValue("user") {
			return m, nil
		}
	}
	return nil, errNotFound("member")
}

// memberRole changes a member's role.
func (h *handler) memberRole(w http.ResponseWriter, r *http.Request) error {
	orgID := r.PathValue("org")
	if err := authorize(r, orgID, redirects.ActionManageMembers); err != nil {
		return err
	}
	back := "/orgs/" + orgID + "/members"
	role, err := redirects.ParseRole(r.PostFormValue("role"))
	if err != nil {
		return h.redirect(w, r, back, flashErr, "Role: "+message(err))
	}
	if err := authorizeGrant(r, orgID, role); err != nil {
		return err
	}
	m, err := h.member(r, orgID)
	if err != nil {
		return err
	}
	m.Role = role
	if err := h.accounts.SetMember(r.Context(), m); err != nil {
		if statusOf(err) < 500 {
			return h.redirect(w, r, back, flashErr, message(err))
		}
		return err
	}
	return h.redirect(w, r, back, flashOK, m.Email+" is now "+string(role)+". Management tokens they made above that role are revoked.")
}

type memberRemoveData struct{ Member *redirects.Membership }

// memberRemovePage asks before a member is removed.
func (h *handler) memberRemovePage(w http.ResponseWriter, r *http.Request) error {
	o, err := h.org(r, r.PathValue("org"))
	if err != nil {
		return err
	}
	if err := authorize(r, o.ID, redirects.ActionManageMembers); err != nil {
		return err
	}
	m, err := h.member(r, o.ID)
	if err != nil {
		return err
	}
	return h.render(w, r, http.StatusOK, "member_remove", &page{Title: "Remove " + m.Email, Org: o, Tab: "members", Data: memberRemoveData{Member: m}})
}

// memberRemove removes a member and revokes the tokens they made here.
func (h *handler) memberRemove(w http.ResponseWriter, r *http.Request) error {
	orgID := r.PathValue("org")
	if err := authorize(r, orgID, redirects.ActionManageMembers); err != nil {
		return err
	}
	m, err := h.member(r, orgID)
	if err != nil {
		return err
	}
	back := "/orgs/" + orgID + "/members"
	if err := h.accounts.RemoveMember(r.Context(), orgID, m.UserID); err != nil {
		if statusOf(err) < 500 {
			return h.redirect(w, r, back, flashErr, message(err))
		}
		return err
	}
	if m.UserID == viewerOf(r).user.ID && !viewerOf(r).principal.Operator {
		return h.redirect(w, r, "/", flashOK, "You left the organization.")
	}
	return h.redirect(w, r, back, flashOK, "Removed "+m.Email+" from the organization; the management tokens they made in it are revoked.")
}
