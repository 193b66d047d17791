package manage

import (
	"context"
	"net"
	"net/http"
	"strings"
	"time"

	"redirects"
	"redirects/api"
)

// SessionCookie is the name of the session cookie.
const SessionCookie = api.SessionCookie

// CSRFHeader carries the session's CSRF token on every state-changing
// request made with the session cookie.
const CSRFHeader = "X-CSRF-Token"

// caller is who makes a request, once authenticated: a user with a session,
// or a management token.
type caller struct {
	principal redirects.Principal
	// user and session are set for a session; token for a token.
	user    *redirects.User
	session *redirects.Session
	token   *redirects.ManagementToken
}

type callerKey struct{}

// callerOf returns the authenticated caller of r; routes that need one are
// wrapped by authenticate, so it is never nil there.
func callerOf(r *http.Request) *caller {
	c, _ := r.Context().Value(callerKey{}).(*caller)
	return c
}

// remoteIP returns the address of the connection a request came on. It
// never reads X-Forwarded-For: a proxy in front of the listener must be
// trusted before its word is, and none is configured.
func remoteIP(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// safeMethod reports whether a method changes nothing.
func safeMethod(m string) bool {
	return m == http.MethodGet || m == http.MethodHead || m == http.MethodOptions
}

// authenticate wraps a route that needs a caller: from a management token
// in Authorization, else from the session cookie, whose state-changing
// requests must also carry the CSRF token. It puts the caller, and the
// actor the stores record in the audit log, into the request's context.
// A session whose password is a one-time password gets only the routes
// marked oneTime, as the dashboard sends it to its change-password form
// first; a management token is not affected.
func (h *handler) authenticate(next func(http.ResponseWriter, *http.Request) error, oneTime bool) func(http.ResponseWriter, *http.Request) error {
	return func(w http.ResponseWriter, r *http.Request) error {
		c, actor, err := h.identify(r)
		if err != nil {
			return err
		}
		if c.session != nil && !safeMethod(r.Method) && !c.session.CheckCSRF(r.Header.Get(CSRFHeader)) {
			return newError(http.StatusForbidden, codeCSRF, "a request made with the session cookie that changes something needs the header %s with the csrfToken the login answered", CSRFHeader)
		}
		if c.session != nil && c.user.MustChangePassword && !oneTime {
			return newError(http.StatusForbidden, codePasswordChange, "your password is a one-time password: change it first (POST /manage/v1/session/password with currentPassword and newPassword); until then only that, GET and DELETE /manage/v1/session are served")
		}
		ctx := context.WithValue(r.Context(), callerKey{}, c)
		ctx = redirects.WithActor(ctx, actor)
		ctx = redirects.WithPrincipal(ctx, c.principal)
		if c.session != nil {
			ctx = redirects.WithSession(ctx, c.session)
		}
		return next(w, r.WithContext(ctx))
	}
}

// identify finds the caller of r, or returns a 401.
func (h *handler) identify(r *http.Request) (*caller, redirects.Actor, error) {
	ctx := r.Context()
	if auth := r.Header.Get("Authorization"); auth != "" {
		scheme, secret, _ := strings.Cut(auth, " ")
		secret = strings.TrimSpace(secret)
		if !strings.EqualFold(scheme, "Bearer") || !redirects.WellFormedManagementToken(secret) {
			return nil, redirects.Actor{}, newError(http.StatusUnauthorized, codeUnauthenticated, "the Authorization header is not \"Bearer redir_mgmt_...\"")
		}
		t, err := h.accounts.FindTokenByHash(ctx, redirects.HashKey(secret))
		if redirects.ErrorCode(err) == redirects.ENOTFOUND {
			return nil, redirects.Actor{}, newError(http.StatusUnauthorized, codeUnauthenticated, "the management token is unknown, revoked or expired")
		} else if err != nil {
			return nil, redirects.Actor{}, err
		}
		// The store finds active tokens only; checking again costs nothing
		// and keeps an expired token out whatever the store's clock says.
		if !t.Active(h.clock.Now()) {
			return nil, redirects.Actor{}, newError(http.StatusUnauthorized, codeUnauthenticated, "the management token is unknown, revoked or expired")
		}
		return &caller{principal: redirects.TokenPrincipal(t), token: t},
			redirects.Actor{Kind: redirects.ActorToken, ID: t.ID, Label: t.Label, RemoteAddr: remoteIP(r)}, nil
	}
	s, u, err := h.sessionOf(r)
	if err != nil {
		return nil, redirects.Actor{}, err
	}
	if s == nil {
		return nil, redirects.Actor{}, newError(http.StatusUnauthorized, codeUnauthenticated, "sign in (POST /manage/v1/session) or send Authorization: Bearer redir_mgmt_...")
	}
	ms, err := h.accounts.FindMemberships(ctx, u.ID)
	if err != nil {
		return nil, redirects.Actor{}, err
	}
	return &caller{principal: redirects.UserPrincipal(u, ms), user: u, session: s},
		redirects.Actor{Kind: redirects.ActorUser, ID: u.ID, Label: u.Email, RemoteAddr: remoteIP(r)}, nil
}

// sessionOf returns the live session of the request's cookie and its
// user, or nil, nil when there is none: the service finds it, for the
// dashboard too, so a sign-in, a sign-out or a disabled user takes effect
// on both at once.
func (h *handler) sessionOf(r *http.Request) (*redirects.Session, *redirects.User, error) {
	return h.svc.Cookies.FindSession(r.Context(), cookieSecret(r))
}

// cookieSecret is the secret of the request's session cookie, or "".
func cookieSecret(r *http.Request) string {
	ck, err := r.Cookie(SessionCookie)
	if err != nil {
		return ""
	}
	return ck.Value
}

// setSessionCookie sends the cookie of a session just started.
func (h *handler) setSessionCookie(w http.ResponseWriter, in *redirects.SignedIn) {
	s := in.Session
	http.SetCookie(w, &http.Cookie{
		Name: SessionCookie, Value: in.Secret, Path: "/", Expires: s.ExpiresAt,
		MaxAge: int(s.ExpiresAt.Sub(s.CreatedAt) / time.Second), HttpOnly: true, Secure: h.secure, SameSite: http.SameSiteLaxMode,
	})
}

// login signs a user in: POST /manage/v1/session {email, password}. It
// sets the session cookie and answers the user and the CSRF token.
func (h *handler) login(w http.ResponseWriter, r *http.Request) error {
	var req api.SignInRequest
	if err := h.decodeJSONMax(w, r, &req, false, min(h.maxBody, MaxSignInBytes)); err != nil {
		return err
	}
	if req.Email == nil {
		return missingField("email")
	}
	if req.Password == nil {
		return missingField("password")
	}
	in, err := h.svc.Sessions.SignIn(r.Context(), redirects.SignInRequest{Email: *req.Email, Password: *req.Password, Addr: remoteIP(r), Replace: cookieSecret(r)})
	if err != nil {
		return err
	}
	h.setSessionCookie(w, in)
	writeJSON(w, http.StatusOK, api.SessionOf(in.Session, in.User))
	return nil
}

// whoami answers GET /manage/v1/session: the user and CSRF token of the
// cookie's session, so a reloaded page can carry on.
func (h *handler) whoami(w http.ResponseWriter, r *http.Request) error {
	s, u, err := h.svc.Sessions.Whoami(r.Context())
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, api.SessionOf(s, u))
	return nil
}

// logout ends the cookie's session: DELETE /manage/v1/session. The cookie
// is useless at once, on every node.
func (h *handler) logout(w http.ResponseWriter, r *http.Request) error {
	if err := h.svc.Sessions.SignOut(r.Context()); err != nil {
		return err
	}
	http.SetCookie(w, &http.Cookie{Name: SessionCookie, Value: "", Path: "/", MaxAge: -1, HttpOnly: true, Secure: h.secure, SameSite: http.SameSiteLaxMode})
	w.WriteHeader(http.StatusNoContent)
	return nil
}
