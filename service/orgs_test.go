package service_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"

	"redirects"
	"redirects/service"
	"redirects/sqlite"
)

// orgsFixture is the service layer over a real SQLite file, with two
// organizations, a project in each, and a user who owns the first.
type orgsFixture struct {
	db     *sqlite.DB
	svc    redirects.LocalServices
	a, b   *redirects.Org
	pa, pb *redirects.Project
	owner  *redirects.User
}

func newOrgsFixture(t *testing.T) *orgsFixture {
	t.Helper()
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "redirects.db"))
	if err != nil {
		t.Fatalf("open the database: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	f := &orgsFixture{db: db, svc: service.New(service.Deps{Store: db, Accounts: db}).Local()}
	f.a = &redirects.Org{Name: "Acme", Tier: redirects.TierFree}
	f.b = &redirects.Org{Name: "Other", Tier: redirects.TierPro}
	for _, o := range []*redirects.Org{f.a, f.b} {
		if err := db.CreateOrg(ctx, o); err != nil {
			t.Fatalf("create organization: %v", err)
		}
	}
	f.pa = &redirects.Project{OrgID: f.a.ID, Name: "www"}
	f.pb = &redirects.Project{OrgID: f.b.ID, Name: "shop"}
	for _, p := range []*redirects.Project{f.pa, f.pb} {
		if err := db.CreateProject(ctx, p); err != nil {
			t.Fatalf("create project: %v", err)
		}
	}
	f.owner = f.user(t, "owner@example.com")
	if err := db.SetMember(ctx, &redirects.Membership{OrgID: f.a.ID, UserID: f.owner.ID, Role: redirects.RoleOwner}); err != nil {
		t.Fatalf("set member: %v", err)
	}
	return f
}

// user creates a user with email address email.
func (f *orgsFixture) user(t *testing.T, email string) *redirects.User {
	t.Helper()
	hash, err := redirects.HashPassword("a password long enough")
	if err != nil {
		t.Fatal(err)
	}
	u := &redirects.User{Email: email, PasswordHash: hash}
	if err := f.db.CreateUser(context.Background(), u); err != nil {
		t.Fatalf("create user: %v", err)
	}
	return u
}

// as returns a context whose caller has role in org a.
func (f *orgsFixture) as(role redirects.Role) context.Context {
	return redirects.WithPrincipal(context.Background(), redirects.Principal{Roles: map[string]redirects.Role{f.a.ID: role}})
}

func asOperator() context.Context {
	return redirects.WithPrincipal(context.Background(), redirects.Principal{Operator: true})
}

func asLocal() context.Context {
	return redirects.WithPrincipal(context.Background(), redirects.LocalPrincipal())
}

// wantOrgsErr fails unless err has code and, when msg is not "", message msg.
func wantOrgsErr(t *testing.T, what string, err error, code, msg string) {
	t.Helper()
	if redirects.ErrorCode(err) != code || msg != "" && redirects.ErrorMessage(err) != msg {
		t.Fatalf("%s: got %v (code %q), want code %q %q", what, err, redirects.ErrorCode(err), code, msg)
	}
}

func TestOrgs(t *testing.T) {
	f := newOrgsFixture(t)
	orgs := f.svc.Orgs

	seen, err := orgs.Orgs(f.as(redirects.RoleViewer))
	if err != nil || len(seen) != 1 || seen[0].ID != f.a.ID {
		t.Fatalf("a viewer's organizations: %v %v, want only %s", seen, err, f.a.ID)
	}
	for _, ctx := range []context.Context{asOperator(), asLocal()} {
		if all, err := orgs.Orgs(ctx); err != nil || len(all) != 2 {
			t.Fatalf("an operator's organizations: %d %v, want 2", len(all), err)
		}
	}
	if none, err := orgs.Orgs(context.Background()); err != nil || len(none) != 0 {
		t.Fatalf("no caller's organizations: %v %v, want none", none, err)
	}

	_, err = orgs.Org(f.as(redirects.RoleOwner), f.b.ID)
	wantOrgsErr(t, "another organization", err, redirects.ENOTFOUND, `organization "`+f.b.ID+`" not found`)
	if o, err := orgs.Org(f.as(redirects.RoleViewer), f.a.ID); err != nil || o.Name != "Acme" {
		t.Fatalf("own organization: %v %v", o, err)
	}

	err = orgs.CreateOrg(f.as(redirects.RoleOwner), &redirects.Org{Name: "New", Tier: redirects.TierFree})
	wantOrgsErr(t, "an owner creates an organization", err, redirects.EFORBIDDEN, "")
	err = orgs.CreateOrg(asOperator(), &redirects.Org{Name: "", Tier: redirects.TierFree})
	wantOrgsErr(t, "an organization without a name", err, redirects.EINVALID, "organization name is empty")
	o := &redirects.Org{Name: "New", Tier: redirects.TierFree}
	if err := orgs.CreateOrg(asOperator(), o); err != nil || o.ID == "" {
		t.Fatalf("an operator creates an organization: %v %+v", err, o)
	}

	tier := redirects.TierEnterprise
	_, err = orgs.UpdateOrg(f.as(redirects.RoleOwner), f.a.ID, redirects.OrgUpdate{Tier: &tier})
	wantOrgsErr(t, "an owner changes the tier", err, redirects.EFORBIDDEN, "")
	_, err = orgs.UpdateOrg(asOperator(), f.a.ID, redirects.OrgUpdate{})
	wantOrgsErr(t, "an empty update", err, redirects.EINVALID, "")
	if got, err := orgs.UpdateOrg(asOperator(), f.a.ID, redirects.OrgUpdate{Tier: &tier}); err != nil || got.Tier != tier {
		t.Fatalf("an operator changes the tier: %v %v", got, err)
	}

	err = orgs.DeleteOrg(f.as(redirects.RoleOwner), f.a.ID, "Acme")
	wantOrgsErr(t, "an owner deletes the organization", err, redirects.EFORBIDDEN, "")
	err = orgs.DeleteOrg(asLocal(), f.b.ID, "Acme")
	wantOrgsErr(t, "a wrong name typed back", err, redirects.EINVALID, "")
	if !errors.Is(err, redirects.ErrNotConfirmed) {
		t.Fatalf("a wrong name typed back is not marked ErrNotConfirmed: %v", err)
	}
	if err := orgs.DeleteOrg(asLocal(), f.b.ID, "Other"); err != nil {
		t.Fatalf("delete: %v", err)
	}
	_, err = orgs.Org(asLocal(), f.b.ID)
	wantOrgsErr(t, "a deleted organization", err, redirects.ENOTFOUND, "")
}
