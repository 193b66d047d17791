package ui

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"redirects"
	"redirects/manage"
)

// loginCSRFCookie holds the random value the sign-in form's token is bound
// to: there is no session yet to hold one. The form carries not the value
// but its HMAC under the server's login key (loginToken), so a cookie that
// someone planted (from a sibling subdomain, or over plain HTTP) with a
// form field of their choosing is refused: only this server makes a token
// that matches a cookie.
const loginCSRFCookie = "redirects_login_csrf"

// loginToken is the sign-in form's token for the cookie value v.
func (h *handler) loginToken(v string) string {
	m := hmac.New(sha256.New, h.loginKey)
	m.Write([]byte("redirects login form\x00"))
	m.Write([]byte(v))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// loginFormValid reports whether a sign-in form came from this dashboard:
// its token is the HMAC of its cookie, and the browser, when it says, says
// the form was sent from this origin (a sibling subdomain is same-site but
// not same-origin).
func (h *handler) loginFormValid(r *http.Request) bool {
	switch r.Header.Get("Sec-Fetch-Site") {
	case "", "same-origin", "none":
	default:
		return false
	}
	ck, err := r.Cookie(loginCSRFCookie)
	if err != nil || len(ck.Value) != 32 {
		return false
	}
	return hmac.Equal([]byte(h.loginToken(ck.Value)), []byte(r.PostFormValue("csrf")))
}

// viewer is the signed-in user of a request.
type viewer struct {
	user      *redirects.User
	session   *redirects.Session
	principal redirects.Principal
}

type viewerKey struct{}

func viewerOf(r *http.Request) *viewer {
	v, _ := r.Context().Value(viewerKey{}).(*viewer)
	return v
}

// remoteIP returns the address of the connection, never a header.
func remoteIP(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// authenticate wraps a page that needs a signed-in user: without one, a
// GET goes to /login and comes back after; a POST must carry the session's
// CSRF token in the form field csrf.
func (h *handler) authenticate(next func(http.ResponseWriter, *http.Request) error) func(http.ResponseWriter, *http.Request) error {
	return func(w http.ResponseWriter, r *http.Request) error {
		s, u, err := h.sessionOf(r)
		if err != nil {
			return err
		}
		if s == nil {
			target := "/login"
			if r.Method == http.MethodGet && r.URL.Path != "/" {
				target += "?next=" + url.QueryEscape(r.URL.RequestURI())
			}
			http.Redirect(w, r, target, http.StatusSeeOther)
			return nil
		}
		if r.Method == http.MethodPost {
			// limitBody capped the body and parsed a small form. The
			// import route's multipart form is read here only up to its
			// file, so the token is checked before the file is read; a
			// token after the file is no token.
			var csrf string
			if mt, _, _ := mime.ParseMediaType(r.Header.Get("Content-Type")); mt == "multipart/form-data" && r.MultipartForm == nil {
				f, err := openStreamForm(r)
				if err != nil {
					return err
				}
				csrf = f.values.Get("csrf")
				r = withStreamForm(r, f)
			} else {
				if r.Form == nil {
					r.Body = http.MaxBytesReader(w, r.Body, maxForm)
					if err := parseForm(r, maxForm); isTooLarge(err) {
						return tooLarge(maxForm)
					}
				}
				csrf = r.PostFormValue("csrf")
			}
			if !s.CheckCSRF(csrf) {
				return &pageError{status: http.StatusForbidden, msg: "This form has expired or did not come from this dashboard (its CSRF token is missing or wrong): go back, reload the page and try again."}
			}
		}
		ms, err := h.accounts.FindMemberships(r.Context(), u.ID)
		if err != nil {
			return err
		}
		// A one-time password is changed before anything else: pages go
		// to the change-password form, changes are refused.
		if u.MustChangePassword && r.URL.Path != passwordPath && r.URL.Path != "/logout" {
			if r.Method == http.MethodGet || r.Method == http.MethodHead {
				http.Redirect(w, r, passwordPath+"?next="+url.QueryEscape(r.URL.RequestURI()), http.StatusSeeOther)
				return nil
			}
			return &pageError{status: http.StatusForbidden, msg: "Your password is a one-time password: change it first (Change password, at the top of the page)."}
		}
		v := &viewer{user: u, session: s, principal: redirects.UserPrincipal(u, ms)}
		ctx := context.WithValue(r.Context(), viewerKey{}, v)
		ctx = redirects.WithActor(ctx, redirects.Actor{Kind: redirects.ActorUser, ID: u.ID, Label: u.Email, RemoteAddr: remoteIP(r)})
		ctx = redirects.WithPrincipal(ctx, v.principal)
		ctx = redirects.WithSession(ctx, s)
		// An error page is rendered here, with the user in the context,
		// so it keeps the top bar.
		r = r.WithContext(ctx)
		if err := next(w, r); err != nil {
			h.fail(w, r, err)
		}
		return nil
	}
}

// sessionOf returns the live session of the cookie and its user, or nil,
// nil: the service finds it, as it does for the API, on the same cookie.
func (h *handler) sessionOf(r *http.Request) (*redirects.Session, *redirects.User, error) {
	return h.svc.Cookies.FindSession(r.Context(), cookieSecret(r))
}

// cookieSecret is the secret of the request's session cookie, or "".
func cookieSecret(r *http.Request) string {
	ck, err := r.Cookie(manage.SessionCookie)
	if err != nil {
		return ""
	}
	return ck.Value
}

// setSessionCookie sends the cookie of a session just started.
func (h *handler) setSessionCookie(w http.ResponseWriter, in *redirects.SignedIn) {
	s := in.Session
	http.SetCookie(w, &http.Cookie{Name: manage.SessionCookie, Value: in.Secret, Path: "/", Expires: s.ExpiresAt,
		MaxAge: int(s.ExpiresAt.Sub(s.CreatedAt) / time.Second), HttpOnly: true, Secure: h.secure, SameSite: http.SameSiteLaxMode})
}

// safeNext keeps a post-login target on this site: a path with no scheme
// and no host, and no byte a browser would drop or read as a slash. A
// browser strips tabs and newlines from a Location and reads a backslash
// as a slash, so "/\t/evil.example" or "/\\evil.example" would leave the
// site; anything doubtful goes to "/".
func safeNext(next string) string {
	for i := 0; i < len(next); i++ {
		if c := next[i]; c <= ' ' || c == 0x7f || c == '\\' {
			return "/"
		}
	}
	if !strings.HasPrefix(next, "/") || strings.HasPrefix(next, "//") || strings.HasPrefix(next, "/login") {
		return "/"
	}
	u, err := url.Parse(next)
	if err != nil || u.Scheme != "" || u.Host != "" || u.User != nil || u.Opaque != "" || !strings.HasPrefix(u.Path, "/") {
		return "/"
	}
	// An encoded slash, backslash or control byte is harmless in a
	// Location, but nothing on this site needs one at the start of a path.
	if p, err := url.PathUnescape(u.EscapedPath()); err != nil || strings.HasPrefix(p, "//") || strings.ContainsAny(p, "\\\t\r\n") {
		return "/"
	}
	return next
}

type loginData struct {
	Email, Next, Error string
}

// loginPage shows the sign-in form; a signed-in user goes on.
func (h *handler) loginPage(w http.ResponseWriter, r *http.Request) error {
	if s, _, err := h.sessionOf(r); err == nil && s != nil {
		http.Redirect(w, r, safeNext(r.URL.Query().Get("next")), http.StatusSeeOther)
		return nil
	}
	return h.renderLogin(w, r, http.StatusOK, loginData{Next: r.URL.Query().Get("next")})
}

func (h *handler) renderLogin(w http.ResponseWriter, r *http.Request, status int, d loginData) error {
	// One cookie per browser: a second sign-in page (another tab) must not
	// expire the form of the first.
	var value string
	if ck, err := r.Cookie(loginCSRFCookie); err == nil && len(ck.Value) == 32 {
		value = ck.Value
	} else {
		b := make([]byte, 24)
		rand.Read(b)
		value = base64.RawURLEncoding.EncodeToString(b)
	}
	http.SetCookie(w, &http.Cookie{Name: loginCSRFCookie, Value: value, Path: "/login", HttpOnly: true,
		Secure: h.secure, SameSite: http.SameSiteStrictMode, MaxAge: 3600})
	return h.render(w, r, status, "login", &page{Title: "Sign in", CSRF: h.loginToken(value), Data: d})
}

// loginSubmit checks the form, the limits and the password, then starts a
// session as the API's POST /manage/v1/session does.
func (h *handler) loginSubmit(w http.ResponseWriter, r *http.Request) error {
	if !h.loginFormValid(r) {
		return h.renderLogin(w, r, http.StatusForbidden, loginData{Next: r.PostFormValue("next"),
			Error: "The sign-in form expired: enter your email address and password again."})
	}
	raw := r.PostFormValue("email")
	d := loginData{Email: raw, Next: r.PostFormValue("next")}
	in, err := h.svc.Sessions.SignIn(r.Context(), redirects.SignInRequest{Email: raw, Password: r.PostFormValue("password"),
		Addr: remoteIP(r), Replace: cookieSecret(r)})
	var le *redirects.SignInLimitError
	switch {
	case errors.As(err, &le):
		d.Error = "Too many failed sign-ins for this account or from this address: try again in " + plural(le.RetryAfter(), "second") + "."
		w.Header().Set("Retry-After", itoa(le.RetryAfter()))
		return h.renderLogin(w, r, http.StatusTooManyRequests, d)
	case errors.Is(err, redirects.ErrPasswordsBusy):
		d.Error = "Too many sign-ins are being checked at once: try again in a second."
		w.Header().Set("Retry-After", itoa(redirects.PasswordsBusyRetryAfter))
		return h.renderLogin(w, r, http.StatusServiceUnavailable, d)
	case redirects.ErrorCode(err) == redirects.EUNAUTHORIZED:
		d.Error = "The email address or password is wrong."
		return h.renderLogin(w, r, http.StatusUnauthorized, d)
	case err != nil:
		return err
	}
	h.setSessionCookie(w, in)
	http.SetCookie(w, &http.Cookie{Name: loginCSRFCookie, Value: "", Path: "/login", MaxAge: -1})
	http.Redirect(w, r, safeNext(d.Next), http.StatusSeeOther)
	return nil
}

// logout ends the session everywhere and goes back to the sign-in form.
func (h *handler) logout(w http.ResponseWriter, r *http.Request) error {
	if err := h.svc.Sessions.SignOut(r.Context()); err != nil {
		return err
	}
	http.SetCookie(w, &http.Cookie{Name: manage.SessionCookie, Value: "", Path: "/", MaxAge: -1, HttpOnly: true, Secure: h.secure, SameSite: http.SameSiteLaxMode})
	setFlash(w, h.secure, flashOK, "You are signed out.")
	http.Redirect(w, r, "/login", http.StatusSeeOther)
	return nil
}
