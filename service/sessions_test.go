package service_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"redirects"
	"redirects/service"
)

const accessPassword = "correct horse battery"

func TestSignInAndSessions(t *testing.T) {
	w := newAccessWorld(t)
	ss := w.svc
	ctx := context.Background()
	viewer := w.users[redirects.RoleViewer]

	for _, bad := range []redirects.SignInRequest{
		{Email: viewer.Email, Password: "wrong password here", Addr: "192.0.2.1"},
		{Email: "nobody@example.com", Password: accessPassword, Addr: "192.0.2.1"},
		{Email: "not an address", Password: accessPassword, Addr: "192.0.2.1"},
	} {
		_, err := ss.SignIn(ctx, bad)
		if redirects.ErrorMessage(err) != "the email address or password is wrong" || redirects.ErrorCode(err) != redirects.EUNAUTHORIZED {
			t.Fatalf("sign-in as %q: got %v, want the one EUNAUTHORIZED message", bad.Email, err)
		}
	}

	first, err := ss.SignIn(ctx, redirects.SignInRequest{Email: "  VIEWER@example.com ", Password: accessPassword, Addr: "192.0.2.1"})
	if err != nil {
		t.Fatal(err)
	}
	if first.User.ID != viewer.ID || first.Secret == "" || !first.Session.ExpiresAt.Equal(w.clock.now.Add(service.DefaultSessionTTL)) {
		t.Fatalf("signed in: %+v", first)
	}
	s, u, err := ss.FindSession(ctx, first.Secret)
	if err != nil || s == nil || s.ID != first.Session.ID || u.ID != viewer.ID {
		t.Fatalf("the session of the cookie: %+v %+v %v", s, u, err)
	}
	for _, secret := range []string{"", "nope", string(make([]byte, 3*redirects.SessionSecretLength))} {
		if s, u, err := ss.FindSession(ctx, secret); s != nil || u != nil || err != nil {
			t.Fatalf("the session of cookie %q: %+v %+v %v, want none", secret, s, u, err)
		}
	}

	// A second sign-in from the same browser ends the first session.
	second, err := ss.SignIn(ctx, redirects.SignInRequest{Email: viewer.Email, Password: accessPassword, Addr: "192.0.2.1", Replace: first.Secret})
	if err != nil {
		t.Fatal(err)
	}
	if s, _, _ := ss.FindSession(ctx, first.Secret); s != nil {
		t.Fatal("the replaced session still works")
	}

	// Whoami and SignOut are the caller's session's.
	_, _, err = ss.Whoami(w.as(t, viewer))
	wantAccessCode(t, "whoami without a session", err, redirects.ENOTFOUND)
	wantAccessCode(t, "sign-out without a session", ss.SignOut(ctx), redirects.ENOTFOUND)
	sctx := redirects.WithSession(w.as(t, viewer), second.Session)
	s, u, err = ss.Whoami(sctx)
	if err != nil || s.ID != second.Session.ID || u.Email != viewer.Email {
		t.Fatalf("whoami: %+v %+v %v", s, u, err)
	}
	if err := ss.SignOut(sctx); err != nil {
		t.Fatal(err)
	}
	if s, _, _ := ss.FindSession(ctx, second.Secret); s != nil {
		t.Fatal("the session works after its sign-out")
	}

	// A session ends with its time, and with its user.
	third, err := ss.SignIn(ctx, redirects.SignInRequest{Email: viewer.Email, Password: accessPassword, Addr: "192.0.2.1"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.db.DisableUser(w.local(), viewer.ID); err != nil {
		t.Fatal(err)
	}
	if s, _, _ := ss.FindSession(ctx, third.Secret); s != nil {
		t.Fatal("the session of a disabled user works")
	}
	_, err = ss.SignIn(ctx, redirects.SignInRequest{Email: viewer.Email, Password: accessPassword, Addr: "192.0.2.1"})
	wantAccessCode(t, "a disabled user signs in", err, redirects.EUNAUTHORIZED)
	editor, err := ss.SignIn(ctx, redirects.SignInRequest{Email: w.users[redirects.RoleEditor].Email, Password: accessPassword, Addr: "192.0.2.9"})
	if err != nil {
		t.Fatal(err)
	}
	w.clock.now = w.clock.now.Add(service.DefaultSessionTTL)
	if s, _, _ := ss.FindSession(ctx, editor.Secret); s != nil {
		t.Fatal("an expired session works")
	}
}

func TestSignInLimits(t *testing.T) {
	w := newAccessWorld(t)
	logins := service.NewLogins(service.LoginLimits{PerAccount: 2, PerAddress: 3, Window: time.Minute}, w.clock)
	ss := service.New(service.Deps{Store: w.db, Accounts: w.db, Clock: w.clock, Logins: logins})
	ctx := context.Background()
	owner := w.users[redirects.RoleOwner]
	for range 2 {
		if _, err := ss.SignIn(ctx, redirects.SignInRequest{Email: owner.Email, Password: "wrong password here", Addr: "192.0.2.1"}); redirects.ErrorCode(err) != redirects.EUNAUTHORIZED {
			t.Fatalf("a wrong password: %v", err)
		}
	}
	// Past the account's limit even the right password is refused, from
	// any address, and says how long to wait.
	_, err := ss.SignIn(ctx, redirects.SignInRequest{Email: owner.Email, Password: accessPassword, Addr: "198.51.100.7"})
	var le *redirects.SignInLimitError
	if !errors.As(err, &le) || le.RetryAfter() != 60 {
		t.Fatalf("past the account's limit: got %v, want a SignInLimitError of 60 seconds", err)
	}
	// A password change counts against the same limits.
	w.clock.now = w.clock.now.Add(time.Minute)
	in, err := ss.SignIn(ctx, redirects.SignInRequest{Email: owner.Email, Password: accessPassword, Addr: "192.0.2.1"})
	if err != nil {
		t.Fatal(err)
	}
	sctx := redirects.WithSession(w.as(t, owner), in.Session)
	for range 2 {
		_, err := ss.ChangePassword(sctx, redirects.PasswordChange{Current: "wrong password here", New: "another good password", Addr: "192.0.2.1"})
		if redirects.ErrorMessage(err) != "the current password is wrong" {
			t.Fatalf("a wrong current password: %v", err)
		}
	}
	_, err = ss.ChangePassword(sctx, redirects.PasswordChange{Current: accessPassword, New: "another good password", Addr: "192.0.2.1"})
	if !errors.As(err, &le) {
		t.Fatalf("a password change past the limits: got %v, want a SignInLimitError", err)
	}
}

func TestChangePassword(t *testing.T) {
	w := newAccessWorld(t)
	ss := w.svc
	ctx := context.Background()
	editor := w.users[redirects.RoleEditor]
	if err := w.db.RequirePasswordChange(w.local(), editor.ID); err != nil {
		t.Fatal(err)
	}
	a, err := ss.SignIn(ctx, redirects.SignInRequest{Email: editor.Email, Password: accessPassword, Addr: "192.0.2.1"})
	if err != nil || !a.User.MustChangePassword {
		t.Fatalf("sign-in with a one-time password: %+v %v", a, err)
	}
	b, err := ss.SignIn(ctx, redirects.SignInRequest{Email: editor.Email, Password: accessPassword, Addr: "192.0.2.2"})
	if err != nil {
		t.Fatal(err)
	}

	_, err = ss.ChangePassword(w.as(t, editor), redirects.PasswordChange{Current: accessPassword, New: "another good password"})
	wantAccessCode(t, "a password change without a session", err, redirects.EFORBIDDEN)
	sctx := redirects.WithSession(w.as(t, editor), a.Session)
	_, err = ss.ChangePassword(sctx, redirects.PasswordChange{Current: accessPassword, New: accessPassword, Addr: "192.0.2.1"})
	wantAccessCode(t, "the same password", err, redirects.EINVALID)
	_, err = ss.ChangePassword(sctx, redirects.PasswordChange{Current: accessPassword, New: "short", Addr: "192.0.2.1"})
	wantAccessCode(t, "a short password", err, redirects.EINVALID)

	in, err := ss.ChangePassword(sctx, redirects.PasswordChange{Current: accessPassword, New: "another good password", Addr: "192.0.2.1"})
	if err != nil || in.User.MustChangePassword || in.Secret == "" {
		t.Fatalf("password change: %+v %v", in, err)
	}
	for _, old := range []string{a.Secret, b.Secret} {
		if s, _, _ := ss.FindSession(ctx, old); s != nil {
			t.Fatal("a session from before the change still works")
		}
	}
	if s, u, err := ss.FindSession(ctx, in.Secret); s == nil || u.MustChangePassword || err != nil {
		t.Fatalf("the new session: %+v %+v %v", s, u, err)
	}
	if _, err := ss.SignIn(ctx, redirects.SignInRequest{Email: editor.Email, Password: "another good password", Addr: "192.0.2.3"}); err != nil {
		t.Fatalf("sign-in with the new password: %v", err)
	}
}
