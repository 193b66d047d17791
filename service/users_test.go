package service_test

import (
	"testing"

	"redirects"
)

func TestUsers(t *testing.T) {
	f := newOrgsFixture(t)
	users := f.svc.Users

	_, err := users.Users(f.as(redirects.RoleOwner))
	wantOrgsErr(t, "an owner lists users", err, redirects.EFORBIDDEN, "")
	hash, err := redirects.HashPassword("another long password")
	if err != nil {
		t.Fatal(err)
	}
	err = users.CreateUser(f.as(redirects.RoleOwner), &redirects.User{Email: "x@example.com", PasswordHash: hash})
	wantOrgsErr(t, "an owner creates a user", err, redirects.EFORBIDDEN, "")

	u := &redirects.User{Email: "ada@example.com", PasswordHash: hash}
	if err := users.CreateUser(asLocal(), u); err != nil || u.ID == "" {
		t.Fatalf("create: %v", err)
	}
	if all, err := users.Users(asOperator()); err != nil || len(all) != 2 {
		t.Fatalf("an operator lists users: %d %v, want 2", len(all), err)
	}

	got, err := users.SetUserPassword(asLocal(), "ADA@example.com", hash, true)
	if err != nil || got.ID != u.ID {
		t.Fatalf("reset the password: %+v %v", got, err)
	}
	_, err = users.SetUserPassword(asLocal(), "usr_nobody", hash, false)
	wantOrgsErr(t, "an unknown user's password", err, redirects.ENOTFOUND, "")

	_, _, err = users.DisableUser(f.as(redirects.RoleOwner), u.ID)
	wantOrgsErr(t, "an owner disables a user", err, redirects.EFORBIDDEN, "")
	if got, already, err := users.DisableUser(asLocal(), u.ID); err != nil || already || !got.Disabled() {
		t.Fatalf("disable: %+v %v %v", got, already, err)
	}
	if _, already, err := users.DisableUser(asLocal(), u.Email); err != nil || !already {
		t.Fatalf("disable again: already %v, %v", already, err)
	}
}
