package service_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"redirects"
	"redirects/service"
	"redirects/sqlite"
)

// accessWorld is a real SQLite store with one organization, one project
// and a user of each role in it, and another organization beside it.
type accessWorld struct {
	db       *sqlite.DB
	svc      *service.Service
	clock    *accessClock
	org      *redirects.Org
	project  *redirects.Project
	other    *redirects.Org
	otherP   *redirects.Project
	users    map[redirects.Role]*redirects.User
	operator *redirects.User
}

// accessClock is a clock the tests set.
type accessClock struct{ now time.Time }

func (c *accessClock) Now() time.Time { return c.now }

func newAccessWorld(t *testing.T) *accessWorld {
	t.Helper()
	ctx := redirects.WithPrincipal(context.Background(), redirects.LocalPrincipal())
	db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "redirects.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	w := &accessWorld{db: db, clock: &accessClock{now: time.Date(2026, 3, 10, 12, 0, 0, 0, time.UTC)}, users: map[redirects.Role]*redirects.User{}}
	db.Clock = w.clock
	w.svc = service.New(service.Deps{Store: db, Accounts: db, Clock: w.clock})
	w.org = &redirects.Org{Name: "Acme", Tier: redirects.TierFree}
	w.other = &redirects.Org{Name: "Other", Tier: redirects.TierFree}
	for _, o := range []*redirects.Org{w.org, w.other} {
		if err := db.CreateOrg(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	w.project = &redirects.Project{OrgID: w.org.ID, Name: "site"}
	w.otherP = &redirects.Project{OrgID: w.other.ID, Name: "elsewhere"}
	for _, p := range []*redirects.Project{w.project, w.otherP} {
		if err := db.CreateProject(ctx, p); err != nil {
			t.Fatal(err)
		}
	}
	hash, err := redirects.HashPassword(accessPassword)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range redirects.Roles {
		u := &redirects.User{Email: string(r) + "@example.com", PasswordHash: hash}
		if err := db.CreateUser(ctx, u); err != nil {
			t.Fatal(err)
		}
		if err := db.SetMember(ctx, &redirects.Membership{OrgID: w.org.ID, UserID: u.ID, Role: r}); err != nil {
			t.Fatal(err)
		}
		w.users[r] = u
	}
	w.operator = &redirects.User{Email: "operator@example.com", PasswordHash: hash, Operator: true}
	if err := db.CreateUser(ctx, w.operator); err != nil {
		t.Fatal(err)
	}
	return w
}

// as returns a context of user u's principal and actor, as the doors
// make one.
func (w *accessWorld) as(t *testing.T, u *redirects.User) context.Context {
	t.Helper()
	ctx := context.Background()
	ms, err := w.db.FindMemberships(ctx, u.ID)
	if err != nil {
		t.Fatal(err)
	}
	ctx = redirects.WithActor(ctx, redirects.Actor{Kind: redirects.ActorUser, ID: u.ID, Label: u.Email})
	return redirects.WithPrincipal(ctx, redirects.UserPrincipal(u, ms))
}

// asToken returns a context of management token tok.
func (w *accessWorld) asToken(tok *redirects.ManagementToken) context.Context {
	ctx := redirects.WithActor(context.Background(), redirects.Actor{Kind: redirects.ActorToken, ID: tok.ID, Label: tok.Label})
	return redirects.WithPrincipal(ctx, redirects.TokenPrincipal(tok))
}

// local is the command line's context with --db.
func (w *accessWorld) local() context.Context {
	ctx := redirects.WithActor(context.Background(), redirects.Actor{Kind: redirects.ActorCLI, Label: "tester"})
	return redirects.WithPrincipal(ctx, redirects.LocalPrincipal())
}

// wantCode fails unless err has code (or is nil for "").
func wantAccessCode(t *testing.T, what string, err error, code string) {
	t.Helper()
	if got := redirects.ErrorCode(err); err == nil && code != "" || err != nil && got != code {
		t.Fatalf("%s: got error %v (code %q), want code %q", what, err, got, code)
	}
}

func TestKeysAuthorization(t *testing.T) {
	w := newAccessWorld(t)
	ks := w.svc.Services().Keys
	for _, tc := range []struct {
		role               redirects.Role
		readCode, makeCode string
	}{
		{redirects.RoleViewer, "", redirects.EFORBIDDEN},
		{redirects.RoleEditor, "", redirects.EFORBIDDEN},
		{redirects.RoleOwner, "", ""},
	} {
		ctx := w.as(t, w.users[tc.role])
		_, err := ks.FindKeys(ctx, w.project.ID)
		wantAccessCode(t, string(tc.role)+" lists keys", err, tc.readCode)
		_, _, err = ks.CreateKey(ctx, w.project.ID, "edge", false)
		wantAccessCode(t, string(tc.role)+" creates a key", err, tc.makeCode)
		_, _, err = ks.RevokeKey(ctx, w.project.ID, "key_nope")
		if tc.makeCode == "" {
			wantAccessCode(t, string(tc.role)+" revokes an unknown key", err, redirects.ENOTFOUND)
		} else {
			wantAccessCode(t, string(tc.role)+" revokes a key", err, tc.makeCode)
		}
	}

	// Another organization's project is missing, in the store's words.
	ctx := w.as(t, w.users[redirects.RoleOwner])
	_, err := ks.FindKeys(ctx, w.otherP.ID)
	if want := `project "` + w.otherP.ID + `" not found`; redirects.ErrorMessage(err) != want {
		t.Fatalf("owner lists another organization's keys: got %v, want %q", err, want)
	}
	_, _, err = ks.CreateKey(ctx, w.otherP.ID, "x", false)
	wantAccessCode(t, "owner creates a key in another organization", err, redirects.ENOTFOUND)

	// Nobody in the context may do nothing; an operator reads any.
	_, err = ks.FindKeys(context.Background(), w.project.ID)
	wantAccessCode(t, "nobody lists keys", err, redirects.ENOTFOUND)
	_, err = ks.FindKeys(w.as(t, w.operator), w.project.ID)
	wantAccessCode(t, "an operator lists keys", err, "")
	_, _, err = ks.CreateKey(w.as(t, w.operator), w.project.ID, "x", false)
	wantAccessCode(t, "an operator creates a key", err, redirects.EFORBIDDEN)
}

func TestKeysCreateListRevoke(t *testing.T) {
	w := newAccessWorld(t)
	ks := w.svc.Services().Keys
	ctx := w.as(t, w.users[redirects.RoleOwner])

	_, _, err := ks.CreateKey(ctx, w.project.ID, strings.Repeat("x", 201), false)
	wantAccessCode(t, "a key with a long name", err, redirects.EINVALID)

	live, secret, err := ks.CreateKey(ctx, w.project.ID, "edge", false)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(secret, redirects.LiveKeyPrefix) || live.Last4 != secret[len(secret)-4:] || live.Hash != redirects.HashKey(secret) {
		t.Fatalf("created key %+v with secret %q: not the key of its secret", live, secret)
	}
	test, testSecret, err := ks.CreateKey(ctx, w.project.ID, "ci", true)
	if err != nil || !strings.HasPrefix(testSecret, redirects.TestKeyPrefix) || !test.Test {
		t.Fatalf("test key: %+v %q %v", test, testSecret, err)
	}

	// Usage of last month and this month: the later day wins; a key with
	// none is absent.
	if err := w.db.AddKeyUsage(ctx, []redirects.DailyUsage{{KeyID: live.ID, Day: "2026-02-27", Count: 3}, {KeyID: live.ID, Day: "2026-03-02", Count: 1}}); err != nil {
		t.Fatal(err)
	}
	l, err := ks.FindKeys(w.as(t, w.users[redirects.RoleViewer]), w.project.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Keys) != 2 || l.Keys[0].ID != live.ID || l.Keys[1].ID != test.ID {
		t.Fatalf("key list: got %d keys, want %s then %s", len(l.Keys), live.ID, test.ID)
	}
	if got := l.LastUsed[live.ID]; got != "2026-03-02" {
		t.Fatalf("last use of the live key: got %q, want 2026-03-02", got)
	}
	if _, ok := l.LastUsed[test.ID]; ok {
		t.Fatalf("the unused test key has a last use: %q", l.LastUsed[test.ID])
	}

	// Revoked by its secret, then again by its ID: the second says so and
	// keeps the first time.
	_, _, err = ks.RevokeKey(ctx, w.project.ID, "")
	wantAccessCode(t, "revoking no key", err, redirects.EINVALID)
	k, revoked, err := ks.RevokeKey(ctx, w.project.ID, secret)
	if err != nil || !revoked || k.ID != live.ID || k.RevokedAt == nil {
		t.Fatalf("revoke by secret: got %+v revoked=%v err=%v", k, revoked, err)
	}
	first := *k.RevokedAt
	w.clock.now = w.clock.now.Add(time.Hour)
	k, revoked, err = ks.RevokeKey(ctx, w.project.ID, live.ID)
	if err != nil || revoked || k.RevokedAt == nil || !k.RevokedAt.Equal(first) {
		t.Fatalf("revoke again: got %+v revoked=%v err=%v, want revoked=false at %s", k, revoked, err, first)
	}
	wrong := testSecret[:len(testSecret)-1] + "Z"
	if wrong == testSecret {
		wrong = testSecret[:len(testSecret)-1] + "Y"
	}
	_, _, err = ks.RevokeKey(ctx, w.project.ID, wrong)
	if err == nil || strings.Contains(redirects.ErrorMessage(err), testSecret[:20]) {
		t.Fatalf("revoking a wrong secret: got %v, want an error that does not repeat it", err)
	}
}
