package manage

import (
	"net/http"
	"strings"

	"redirects"
)

// memberJSON is a membership as the API shows one: the CLI's member list
// --json shape.
type memberJSON struct {
	UserID    string `json:"userId"`
	Email     string `json:"email"`
	Role      string `json:"role"`
	CreatedAt string `json:"createdAt"`
}

func toMemberJSON(m *redirects.Membership) memberJSON {
	return memberJSON{UserID: m.UserID, Email: m.Email, Role: string(m.Role), CreatedAt: formatTime(m.CreatedAt)}
}

func (h *handler) memberList(w http.ResponseWriter, r *http.Request) error {
	o, err := h.authorizeOrg(r, redirects.ActionRead)
	if err != nil {
		return err
	}
	ms, err := h.accounts.FindMembers(r.Context(), o.ID)
	if err != nil {
		return err
	}
	out := make([]memberJSON, 0, len(ms))
	for _, m := range ms {
		out = append(out, toMemberJSON(m))
	}
	writeJSON(w, http.StatusOK, map[string]any{"members": out})
	return nil
}

type memberAddRequest struct {
	Email  *string `json:"email"`
	UserID *string `json:"userId"`
	Role   *string `json:"role"`
}

// memberAdd gives a user, found by email address or user ID, a role in
// the organization (or changes the role of a member).
func (h *handler) memberAdd(w http.ResponseWriter, r *http.Request) error {
	o, err := h.authorizeOrg(r, redirects.ActionManageMembers)
	if err != nil {
		return err
	}
	var req memberAddRequest
	if err := h.decodeJSON(w, r, &req, false); err != nil {
		return err
	}
	if req.Email == nil && req.UserID == nil {
		return missingField("email")
	}
	if req.Email != nil && req.UserID != nil {
		return redirects.Errorf(redirects.EINVALID, "give the user's email or userId, not both")
	}
	if req.Role == nil {
		return missingField("role")
	}
	role, err := redirects.ParseRole(*req.Role)
	if err != nil {
		return err
	}
	if err := authorizeGrant(r, o.ID, role); err != nil {
		return err
	}
	ctx := r.Context()
	var u *redirects.User
	if req.UserID != nil {
		u, err = h.accounts.FindUserByID(ctx, *req.UserID)
		if redirects.ErrorCode(err) == redirects.ENOTFOUND {
			return newError(http.StatusNotFound, "NOT_FOUND", "no user has the ID %q: an operator creates users (redirects user create)", *req.UserID)
		}
	} else {
		u, err = h.accounts.FindUserByEmail(ctx, *req.Email)
		if redirects.ErrorCode(err) == redirects.ENOTFOUND {
			return newError(http.StatusNotFound, "NOT_FOUND", "no user has the email address %q: an operator creates users (redirects user create)", *req.Email)
		}
	}
	if err != nil {
		return err
	}
	if u.Disabled() {
		return redirects.Errorf(redirects.EINVALID, "user %s is disabled", u.Email)
	}
	m := &redirects.Membership{OrgID: o.ID, UserID: u.ID, Role: role}
	if err := h.accounts.SetMember(ctx, m); err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, toMemberJSON(m))
	return nil
}

// member finds the member the path's {user} names, by user ID or email
// address, among the organization's members: a user who is no member is
// not found, whatever else they are.
func (h *handler) member(r *http.Request, orgID string) (*redirects.Membership, error) {
	ref := r.PathValue("user")
	ms, err := h.accounts.FindMembers(r.Context(), orgID)
	if err != nil {
		return nil, err
	}
	email, _ := redirects.NormalizeEmail(ref)
	for _, m := range ms {
		if m.UserID == ref || email != "" && strings.EqualFold(m.Email, email) {
			return m, nil
		}
	}
	return nil, notFound("member", ref)
}

type memberUpdateRequest struct {
	Role *string `json:"role"`
}

// memberUpdate changes a member's role. A demotion revokes the tokens the
// member created with a role above the new one (the store does).
func (h *handler) memberUpdate(w http.ResponseWriter, r *http.Request) error {
	o, err := h.authorizeOrg(r, redirects.ActionManageMembers)
	if err != nil {
		return err
	}
	var req memberUpdateRequest
	if err := h.decodeJSON(w, r, &req, false); err != nil {
		return err
	}
	if req.Role == nil {
		return missingField("role")
	}
	role, err := redirects.ParseRole(*req.Role)
	if err != nil {
		return err
	}
	if err := authorizeGrant(r, o.ID, role); err != nil {
		return err
	}
	m, err := h.member(r, o.ID)
	if err != nil {
		return err
	}
	m.Role = role
	if err := h.accounts.SetMember(r.Context(), m); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, toMemberJSON(m))
	return nil
}

// memberRemove removes a member; the tokens they created in the
// organization are revoked (the store does).
func (h *handler) memberRemove(w http.ResponseWriter, r *http.Request) error {
	o, err := h.authorizeOrg(r, redirects.ActionManageMembers)
	if err != nil {
		return err
	}
	m, err := h.member(r, o.ID)
	if err != nil {
		return err
	}
	if err := h.accounts.RemoveMember(r.Context(), o.ID, m.UserID); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
