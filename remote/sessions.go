package remote

import (
	"context"
	"net/http"

	"redirects"
	"redirects/api"
)

var _ redirects.SessionService = (*Client)(nil)

// SignIn signs in with an email address and password (POST /session) and
// returns the session the API started, with the secret of its cookie.
// The API counts the failures per address of this machine.
func (c *Client) SignIn(ctx context.Context, req redirects.SignInRequest) (*redirects.SignedIn, error) {
	body := api.SignInRequest{Email: &req.Email, Password: &req.Password}
	status, data, header, err := c.sendHeader(ctx, "POST", "/session", nil, body, "")
	if err != nil {
		return nil, err
	}
	if status >= 400 {
		return nil, c.apiError(status, "POST", "/session", data)
	}
	return signedIn(data, header)
}

// signedIn reads the answer of a sign-in or a password change.
func signedIn(data []byte, header http.Header) (*redirects.SignedIn, error) {
	var j api.Session
	if err := jsonUnmarshal(data, &j); err != nil {
		return nil, err
	}
	s, u := j.Domain()
	out := &redirects.SignedIn{Session: s, User: u}
	for _, ck := range (&http.Response{Header: header}).Cookies() {
		if ck.Name == api.SessionCookie {
			out.Secret = ck.Value
		}
	}
	return out, nil
}

// Whoami answers GET /session: a management token has no session, which
// the API says with its NOT_FOUND.
func (c *Client) Whoami(ctx context.Context) (*redirects.Session, *redirects.User, error) {
	var j api.Session
	if err := c.do(ctx, "GET", "/session", nil, nil, "", &j); err != nil {
		return nil, nil, err
	}
	s, u := j.Domain()
	return s, u, nil
}

// SignOut answers DELETE /session: a management token has no session to
// end, which the API says.
func (c *Client) SignOut(ctx context.Context) error {
	return c.do(ctx, "DELETE", "/session", nil, nil, "", nil)
}

// ChangePassword answers POST /session/password, which a management token
// may not call: the API says so.
func (c *Client) ChangePassword(ctx context.Context, req redirects.PasswordChange) (*redirects.SignedIn, error) {
	body := api.PasswordChangeRequest{CurrentPassword: &req.Current, NewPassword: &req.New}
	status, data, header, err := c.sendHeader(ctx, "POST", "/session/password", nil, body, "")
	if err != nil {
		return nil, err
	}
	if status >= 400 {
		return nil, c.apiError(status, "POST", "/session/password", data)
	}
	return signedIn(data, header)
}
