package manage

import (
	"errors"
	"net/http"
	"time"

	"redirects"
)

// passwordChange is the body of POST /manage/v1/session/password.
type passwordChange struct {
	CurrentPassword *string `json:"currentPassword"`
	NewPassword     *string `json:"newPassword"`
}

// changePassword sets the signed-in user's password: POST
// /manage/v1/session/password {currentPassword, newPassword}. It needs the
// cookie's session (a management token cannot), the current password and
// a new one that meets the password rules. Every session of the user ends,
// as with a reset; the answer is a new session, cookie and CSRF token, as
// a sign-in's, and the one-time mark (mustChangePassword) is cleared. A
// wrong current password counts as a failed sign-in (see Logins).
func (h *handler) changePassword(w http.ResponseWriter, r *http.Request) error {
	c := callerOf(r)
	if c.session == nil {
		return newError(http.StatusForbidden, "FORBIDDEN", "a management token cannot change a password: sign in with the password (POST /manage/v1/session) instead")
	}
	var req passwordChange
	if err := h.decodeJSON(w, r, &req, false); err != nil {
		return err
	}
	if req.CurrentPassword == nil {
		return missingField("currentPassword")
	}
	if req.NewPassword == nil {
		return missingField("newPassword")
	}
	// A wrong current password is a failed sign-in: it counts against the
	// account's and the address's limits, and past them even the right
	// one is refused for now, so a stolen session cannot guess faster than
	// the sign-in form lets anyone.
	addr := remoteIP(r)
	ok, err := h.logins.Verify(r.Context(), c.user.Email, addr, func() bool { return redirects.VerifyPassword(c.user.PasswordHash, *req.CurrentPassword) })
	var le *LimitError
	switch {
	case errors.As(err, &le):
		e := newError(http.StatusTooManyRequests, codeLoginLimit, "too many failed sign-ins or password checks for this account or from this address; try again in %d seconds", le.RetryAfter())
		e.retryAfter = le.RetryAfter()
		return e
	case err != nil:
		return err
	case !ok:
		return newError(http.StatusUnauthorized, codeUnauthenticated, "the current password is wrong")
	}
	if *req.NewPassword == *req.CurrentPassword {
		return redirects.Errorf(redirects.EINVALID, "newPassword is the current password: choose another")
	}
	if err := redirects.CheckPasswordRules(*req.NewPassword); err != nil {
		return err
	}
	hash, err := h.logins.Hash(r.Context(), *req.NewPassword)
	if err != nil {
		return err
	}
	ctx := r.Context()
	if err := h.accounts.SetUserPassword(ctx, c.user.ID, hash); err != nil {
		return err
	}
	s, secret := redirects.NewSession(c.user.ID, h.clock.Now(), h.ttl)
	if err := h.accounts.CreateSession(ctx, s); err != nil {
		return err
	}
	http.SetCookie(w, &http.Cookie{
		Name: SessionCookie, Value: secret, Path: "/", Expires: s.ExpiresAt,
		MaxAge: int(h.ttl / time.Second), HttpOnly: true, Secure: h.secure, SameSite: http.SameSiteLaxMode,
	})
	u := *c.user
	u.MustChangePassword = false
	writeJSON(w, http.StatusOK, sessionJSON{User: toUserJSON(&u), CSRFToken: s.CSRFToken, ExpiresAt: formatTime(s.ExpiresAt), MustChangePassword: false})
	return nil
}
