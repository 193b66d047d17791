package ui

import (
	"errors"
	"net/http"
	"net/url"

	"redirects"
)

// passwordPath is the change-password page; a user whose password is a
// one-time password is sent there before anything else.
const passwordPath = "/account/password"

type passwordData struct {
	// Required is set while the user's password is a one-time password.
	Required bool
	// Next is where to go once the password is changed.
	Next string
}

// passwordPage shows the change-password form.
func (h *handler) passwordPage(w http.ResponseWriter, r *http.Request) error {
	v := viewerOf(r)
	return h.render(w, r, http.StatusOK, "password", &page{Title: "Change your password",
		Data: passwordData{Required: v.user.MustChangePassword, Next: safeNext(r.URL.Query().Get("next"))}})
}

// passwordChange sets the user's password, as the API's POST
// /manage/v1/session/password does: the current password, a new one that
// meets the rules, typed twice. Every session of the user ends; this
// browser gets a new one. A wrong current password counts as a failed
// sign-in.
func (h *handler) passwordChange(w http.ResponseWriter, r *http.Request) error {
	v := viewerOf(r)
	back := passwordPath
	if next := r.PostFormValue("next"); next != "" {
		back += "?next=" + url.QueryEscape(next)
	}
	current, fresh := r.PostFormValue("current-password"), r.PostFormValue("new-password")
	// The form's own checks first: they tell nothing of the password.
	switch {
	case fresh != r.PostFormValue("new-password-again"):
		return h.redirect(w, r, back, flashErr, "The two new passwords differ: type the same one twice.")
	case fresh == current:
		return h.redirect(w, r, back, flashErr, "The new password is the current one: choose another.")
	}
	// A wrong current password is a failed sign-in: it counts against the
	// limits the sign-in form and the API share.
	in, err := h.svc.Sessions.ChangePassword(r.Context(), redirects.PasswordChange{Current: current, New: fresh, Addr: remoteIP(r)})
	var le *redirects.SignInLimitError
	switch {
	case errors.As(err, &le):
		return h.redirect(w, r, back, flashErr, "Too many failed sign-ins or password checks for this account or from this address: try again in "+plural(le.RetryAfter(), "second")+". Nothing was changed.")
	case errors.Is(err, redirects.ErrPasswordsBusy):
		return h.redirect(w, r, back, flashErr, "Too many passwords are being checked at once: try again in a second. Nothing was changed.")
	case redirects.ErrorCode(err) == redirects.EUNAUTHORIZED:
		return h.redirect(w, r, back, flashErr, "The current password is wrong: nothing was changed.")
	case redirects.ErrorCode(err) == redirects.EINVALID:
		return h.redirect(w, r, back, flashErr, "The new password was not set: "+message(err))
	case err != nil:
		return err
	}
	h.setSessionCookie(w, in)
	return h.redirect(w, r, safeNext(r.PostFormValue("next")), flashOK, "Your password is changed. Every other browser signed in as "+v.user.Email+" is signed out.")
}
