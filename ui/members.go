package ui

import (
	"errors"
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
	ms, err := h.svc.Members.Members(r.Context(), o.ID)
	if err != nil {
		return err
	}
	d := membersData{Members: ms, Roles: redirects.Roles, CanManage: may(r, o.ID, redirects.ActionManageMembers), Self: viewerOf(r).user.ID}
	return h.render(w, r, http.StatusOK, "members", &page{Title: "Members · " + o.Name, Org: o, Tab: "members", Data: d})
}

// memberAdd gives a user a role in the organization.
func (h *handler) memberAdd(w http.ResponseWriter, r *http.Request) error {
	orgID := r.PathValue("org")
	back := "/orgs/" + orgID + "/members"
	role, err := redirects.ParseRole(r.PostFormValue("role"))
	if err != nil {
		if err := authorize(r, orgID, redirects.ActionManageMembers); err != nil {
			return err
		}
		return h.redirect(w, r, back, flashErr, "Role: "+message(err))
	}
	email := r.PostFormValue("email")
	m, err := h.svc.Members.AddMember(r.Context(), orgID, email, role)
	switch {
	case redirects.ErrorCode(err) == redirects.ENOTFOUND && !errors.Is(err, redirects.ErrUnknownUser):
		return errNotFound("organization")
	case errors.Is(err, redirects.ErrUnknownUser):
		return h.redirect(w, r, back, flashErr, "Email address: no user has the address "+email+". An operator creates users (redirects user create), then you add them here.")
	case errors.Is(err, redirects.ErrUserDisabled):
		e, _ := redirects.NormalizeEmail(email)
		return h.redirect(w, r, back, flashErr, "User "+e+" is disabled: an operator must enable them first.")
	case err != nil:
		return h.flashErr(w, r, back, err)
	}
	return h.redirect(w, r, back, flashOK, m.Email+" is now "+string(role)+" of this organization.")
}

// flashErr shows the refusal of a member's change on the members page;
// an organization the user may not see, a right they lack and a failure
// of ours are pages of their own.
func (h *handler) flashErr(w http.ResponseWriter, r *http.Request, back string, err error) error {
	switch {
	case errors.Is(err, redirects.ErrNotMember):
		return errNotFound("member")
	case redirects.ErrorCode(err) == redirects.ENOTFOUND:
		return errNotFound("organization")
	case redirects.ErrorCode(err) == redirects.EFORBIDDEN, statusOf(err) >= 500:
		return err
	}
	return h.redirect(w, r, back, flashErr, message(err))
}

// memberRole changes a member's role.
func (h *handler) memberRole(w http.ResponseWriter, r *http.Request) error {
	orgID := r.PathValue("org")
	back := "/orgs/" + orgID + "/members"
	role, err := redirects.ParseRole(r.PostFormValue("role"))
	if err != nil {
		if err := authorize(r, orgID, redirects.ActionManageMembers); err != nil {
			return err
		}
		return h.redirect(w, r, back, flashErr, "Role: "+message(err))
	}
	m, err := h.svc.Members.SetMemberRole(r.Context(), orgID, r.PathValue("user"), role)
	if err != nil {
		return h.flashErr(w, r, back, err)
	}
	return h.redirect(w, r, back, flashOK, m.Email+" is now "+string(role)+". Management tokens they made above that role are revoked.")
}

// member finds a member of the organization by the path's {user}.
func (h *handler) member(r *http.Request, orgID string) (*redirects.Membership, error) {
	ms, err := h.svc.Members.Members(r.Context(), orgID)
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
	back := "/orgs/" + orgID + "/members"
	m, err := h.svc.Members.RemoveMember(r.Context(), orgID, r.PathValue("user"))
	if err != nil {
		return h.flashErr(w, r, back, err)
	}
	if m.UserID == viewerOf(r).user.ID && !viewerOf(r).principal.Operator {
		return h.redirect(w, r, "/", flashOK, "You left the organization.")
	}
	return h.redirect(w, r, back, flashOK, "Removed "+m.Email+" from the organization; the management tokens they made in it are revoked.")
}
