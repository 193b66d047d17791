package manage

import (
	"errors"
	"net/http"

	"redirects"
	"redirects/api"
)

func (h *handler) memberList(w http.ResponseWriter, r *http.Request) error {
	ms, err := h.svc.Members.Members(r.Context(), r.PathValue("org"))
	if err != nil {
		return err
	}
	out := api.Members{Members: make([]api.Member, 0, len(ms))}
	for _, m := range ms {
		out.Members = append(out.Members, api.MemberOf(m))
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// memberAdd gives a user, found by email address or user ID, a role in
// the organization (or changes the role of a member).
func (h *handler) memberAdd(w http.ResponseWriter, r *http.Request) error {
	var req api.MemberRequest
	if err := h.decodeJSON(w, r, &req, false); err != nil {
		return h.orgInputErr(r, redirects.ActionManageMembers, err)
	}
	if req.Email == nil && req.UserID == nil {
		return h.orgInputErr(r, redirects.ActionManageMembers, missingField("email"))
	}
	if req.Email != nil && req.UserID != nil {
		return h.orgInputErr(r, redirects.ActionManageMembers, redirects.Errorf(redirects.EINVALID, "give the user's email or userId, not both"))
	}
	if req.Role == nil {
		return h.orgInputErr(r, redirects.ActionManageMembers, missingField("role"))
	}
	role, err := redirects.ParseRole(*req.Role)
	if err != nil {
		return h.orgInputErr(r, redirects.ActionManageMembers, err)
	}
	user := ""
	if req.UserID != nil {
		user = *req.UserID
	} else {
		user = *req.Email
	}
	m, err := h.svc.Members.AddMember(r.Context(), r.PathValue("org"), user, role)
	switch {
	case errors.Is(err, redirects.ErrUnknownUser) && req.UserID != nil:
		return newError(http.StatusNotFound, "NOT_FOUND", "no user has the ID %q: an operator creates users (redirects user create)", user)
	case errors.Is(err, redirects.ErrUnknownUser) && redirects.ErrorCode(err) == redirects.ENOTFOUND:
		return newError(http.StatusNotFound, "NOT_FOUND", "no user has the email address %q: an operator creates users (redirects user create)", user)
	case err != nil:
		return err
	}
	writeJSON(w, http.StatusCreated, api.MemberOf(m))
	return nil
}

// memberErr answers a user who is no member as a missing member, named as
// the path gives them.
func memberErr(r *http.Request, err error) error {
	if errors.Is(err, redirects.ErrNotMember) {
		return notFound("member", r.PathValue("user"))
	}
	return err
}

// memberUpdate changes a member's role. A demotion revokes the tokens the
// member created with a role above the new one (the store does).
func (h *handler) memberUpdate(w http.ResponseWriter, r *http.Request) error {
	var req api.MemberRoleRequest
	if err := h.decodeJSON(w, r, &req, false); err != nil {
		return h.orgInputErr(r, redirects.ActionManageMembers, err)
	}
	if req.Role == nil {
		return h.orgInputErr(r, redirects.ActionManageMembers, missingField("role"))
	}
	role, err := redirects.ParseRole(*req.Role)
	if err != nil {
		return h.orgInputErr(r, redirects.ActionManageMembers, err)
	}
	m, err := h.svc.Members.SetMemberRole(r.Context(), r.PathValue("org"), r.PathValue("user"), role)
	if err != nil {
		return memberErr(r, err)
	}
	writeJSON(w, http.StatusOK, api.MemberOf(m))
	return nil
}

// memberRemove removes a member; the tokens they created in the
// organization are revoked (the store does).
func (h *handler) memberRemove(w http.ResponseWriter, r *http.Request) error {
	if _, err := h.svc.Members.RemoveMember(r.Context(), r.PathValue("org"), r.PathValue("user")); err != nil {
		return memberErr(r, err)
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
