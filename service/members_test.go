package service_test

import (
	"context"
	"errors"
	"testing"

	"redirects"
)

func TestMembers(t *testing.T) {
	f := newOrgsFixture(t)
	ctx := context.Background()
	members := f.svc.Members
	ada := f.user(t, "ada@example.com")

	_, err := members.Members(f.as(redirects.RoleOwner), f.b.ID)
	wantOrgsErr(t, "another organization's members", err, redirects.ENOTFOUND, `organization "`+f.b.ID+`" not found`)
	if ms, err := members.Members(f.as(redirects.RoleViewer), f.a.ID); err != nil || len(ms) != 1 {
		t.Fatalf("a viewer lists members: %v %v", ms, err)
	}

	_, err = members.AddMember(f.as(redirects.RoleEditor), f.a.ID, ada.Email, redirects.RoleViewer)
	wantOrgsErr(t, "an editor adds a member", err, redirects.EFORBIDDEN, "")
	_, err = members.AddMember(f.as(redirects.RoleOwner), f.a.ID, "nobody@example.com", redirects.RoleViewer)
	wantOrgsErr(t, "an unknown user", err, redirects.ENOTFOUND, "")
	if !errors.Is(err, redirects.ErrUnknownUser) {
		t.Fatalf("an unknown user is not marked ErrUnknownUser: %v", err)
	}
	m, err := members.AddMember(f.as(redirects.RoleOwner), f.a.ID, "ADA@example.com", redirects.RoleEditor)
	if err != nil || m.UserID != ada.ID || m.Email != ada.Email || m.Role != redirects.RoleEditor {
		t.Fatalf("an owner adds a member by email: %+v %v", m, err)
	}
	if m, err := members.AddMember(asOperator(), f.a.ID, ada.ID, redirects.RoleViewer); err != nil || m.Role != redirects.RoleViewer {
		t.Fatalf("an operator changes a role by user ID: %+v %v", m, err)
	}

	bob := f.user(t, "bob@example.com")
	if _, err := f.db.DisableUser(ctx, bob.ID); err != nil {
		t.Fatal(err)
	}
	_, err = members.AddMember(asLocal(), f.a.ID, bob.Email, redirects.RoleViewer)
	wantOrgsErr(t, "a disabled user", err, redirects.EINVALID, "user bob@example.com is disabled")
	if !errors.Is(err, redirects.ErrUserDisabled) {
		t.Fatalf("a disabled user is not marked ErrUserDisabled: %v", err)
	}

	_, err = members.SetMemberRole(f.as(redirects.RoleOwner), f.a.ID, "Bob@example.com", redirects.RoleEditor)
	wantOrgsErr(t, "a role for a user who is no member", err, redirects.ENOTFOUND, `user "bob@example.com" is no member of organization "`+f.a.ID+`"`)
	if !errors.Is(err, redirects.ErrNotMember) {
		t.Fatalf("no member is not marked ErrNotMember: %v", err)
	}
	if m, err := members.SetMemberRole(f.as(redirects.RoleOwner), f.a.ID, ada.Email, redirects.RoleOwner); err != nil || m.Role != redirects.RoleOwner {
		t.Fatalf("an owner makes an owner: %+v %v", m, err)
	}

	_, err = members.RemoveMember(f.as(redirects.RoleViewer), f.a.ID, ada.ID)
	wantOrgsErr(t, "a viewer removes a member", err, redirects.EFORBIDDEN, "")
	_, err = members.RemoveMember(f.as(redirects.RoleOwner), f.a.ID, "not an address")
	wantOrgsErr(t, "a reference that is no address", err, redirects.EINVALID, "")
	if !errors.Is(err, redirects.ErrNotMember) {
		t.Fatalf("a bad reference is not marked ErrNotMember: %v", err)
	}
	if m, err := members.RemoveMember(f.as(redirects.RoleOwner), f.a.ID, ada.ID); err != nil || m.Email != ada.Email {
		t.Fatalf("an owner removes a member: %+v %v", m, err)
	}
	if ms, _ := members.Members(asLocal(), f.a.ID); len(ms) != 1 {
		t.Fatalf("after the removal: %d members, want 1", len(ms))
	}
}
