package storetest

import (
	"testing"

	"redirects"
)

func init() {
	accountTests = append(accountTests, struct {
		name string
		fn   func(t *testing.T, e *env)
	}{"User/MustChangePassword", testUserMustChangePassword})
}

// testUserMustChangePassword: a user created with MustChangePassword keeps
// the mark, RequirePasswordChange sets it, and SetUserPassword clears it.
func testUserMustChangePassword(t *testing.T, e *env) {
	a := e.accounts()
	u := &redirects.User{Email: "once@example.com", PasswordHash: suiteHash(), MustChangePassword: true}
	if err := a.CreateUser(e.ctx, u); err != nil {
		t.Fatalf("CreateUser: %v", err)
	}
	if got, err := a.FindUserByEmail(e.ctx, u.Email); err != nil || !got.MustChangePassword {
		t.Fatalf("a user created with MustChangePassword: %+v, %v", got, err)
	}
	if err := a.SetUserPassword(e.ctx, u.ID, suiteHash()); err != nil {
		t.Fatal(err)
	}
	if got, _ := a.FindUserByID(e.ctx, u.ID); got.MustChangePassword {
		t.Fatal("SetUserPassword left MustChangePassword set")
	}
	if err := a.RequirePasswordChange(e.ctx, u.ID); err != nil {
		t.Fatal(err)
	}
	if got, _ := a.FindUserByID(e.ctx, u.ID); !got.MustChangePassword {
		t.Fatal("RequirePasswordChange did not set MustChangePassword")
	}
	if other := e.user("other@example.com", false); other.MustChangePassword {
		t.Fatal("a user created without the mark has it")
	}
	wantCode(t, "RequirePasswordChange(unknown)", a.RequirePasswordChange(e.ctx, "usr_nobody"), redirects.ENOTFOUND, "usr_nobody")
}
