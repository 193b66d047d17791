package manage

import (
	"errors"
	"net/http"

	"redirects"
	"redirects/api"
)

// changePassword sets the signed-in user's password: POST
// /manage/v1/session/password {currentPassword, newPassword}. It needs the
// cookie's session (a management token cannot), the current password and
// a new one that meets the password rules. Every session of the user ends,
// as with a reset; the answer is a new session, cookie and CSRF token, as
// a sign-in's, and the one-time mark (mustChangePassword) is cleared. A
// wrong current password counts as a failed sign-in.
func (h *handler) changePassword(w http.ResponseWriter, r *http.Request) error {
	if callerOf(r).session == nil {
		// The service refuses a caller without a session before anything
		// is checked; asked first, its refusal comes before the body is
		// read.
		_, err := h.svc.Sessions.ChangePassword(r.Context(), redirects.PasswordChange{})
		return err
	}
	var req api.PasswordChangeRequest
	if err := h.decodeJSON(w, r, &req, false); err != nil {
		return err
	}
	if req.CurrentPassword == nil {
		return missingField("currentPassword")
	}
	if req.NewPassword == nil {
		return missingField("newPassword")
	}
	in, err := h.svc.Sessions.ChangePassword(r.Context(), redirects.PasswordChange{Current: *req.CurrentPassword, New: *req.NewPassword, Addr: remoteIP(r)})
	var le *redirects.SignInLimitError
	switch {
	case errors.As(err, &le):
		e := newError(http.StatusTooManyRequests, codeLoginLimit, "too many failed sign-ins or password checks for this account or from this address; try again in %d seconds", le.RetryAfter())
		e.retryAfter = le.RetryAfter()
		return e
	case err != nil:
		return err
	}
	h.setSessionCookie(w, in)
	writeJSON(w, http.StatusOK, api.SessionOf(in.Session, in.User))
	return nil
}
