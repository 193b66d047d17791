package storetest

import (
	"strings"
	"sync"
	"testing"
	"time"

	"redirects"
)

// accountTests hold redirects.AccountStore to its documented behaviour.
// Every store of the suite implements it.
var accountTests = []struct {
	name string
	fn   func(t *testing.T, e *env)
}{
	{"Account/UserCreateAndFind", testUserCreateAndFind},
	{"Account/UserInvalid", testUserInvalid},
	{"Account/UserDisable", testUserDisable},
	{"Account/UserPassword", testUserPassword},
	{"Account/Members", testMembers},
	{"Account/MembersNotFound", testMembersNotFound},
	{"Account/TokenCreateAndFind", testTokenCreateAndFind},
	{"Account/TokenCreator", testTokenCreator},
	{"Account/TokenRevoke", testTokenRevoke},
	{"Account/TokensFollowMembership", testTokensFollowMembership},
	{"Account/Sessions", testSessions},
	{"Audit/Changes", testAuditChanges},
	{"Audit/AccountChanges", testAuditAccountChanges},
	{"Audit/Filter", testAuditFilter},
	{"Audit/Deploy", testAuditDeploy},
	{"Audit/FailedChangeRecordsNothing", testAuditFailedChange},
}

// accounts returns the store as an AccountStore.
func (e *env) accounts() redirects.AccountStore {
	e.t.Helper()
	a, ok := e.s.(redirects.AccountStore)
	if !ok {
		e.t.Fatalf("%T does not implement redirects.AccountStore", e.s)
	}
	return a
}

// suiteHash is one argon2id hash shared by the suite's users: hashing costs
// tens of milliseconds, and the password itself is not under test here.
var suiteHash = sync.OnceValue(func() string {
	h, err := redirects.HashPassword(suitePassword)
	if err != nil {
		panic(err)
	}
	return h
})

const suitePassword = "correct horse battery staple"

func (e *env) user(email string, operator bool) *redirects.User {
	e.t.Helper()
	u := &redirects.User{Email: email, PasswordHash: suiteHash(), Operator: operator}
	if err := e.accounts().CreateUser(e.ctx, u); err != nil {
		e.t.Fatalf("CreateUser(%s): %v", email, err)
	}
	return u
}

func (e *env) member(orgID, userID string, role redirects.Role) {
	e.t.Helper()
	if err := e.accounts().SetMember(e.ctx, &redirects.Membership{OrgID: orgID, UserID: userID, Role: role}); err != nil {
		e.t.Fatalf("SetMember(%s, %s, %s): %v", orgID, userID, role, err)
	}
}

func (e *env) token(orgID string, role redirects.Role, createdBy string, ttl time.Duration) (*redirects.ManagementToken, string) {
	e.t.Helper()
	tok, secret := redirects.NewManagementToken(orgID, role, "ci "+string(role), createdBy, e.clock.Now(), ttl)
	if err := e.accounts().CreateToken(e.ctx, tok); err != nil {
		e.t.Fatalf("CreateToken(%s, %s): %v", orgID, role, err)
	}
	return tok, secret
}

func (e *env) tokens(orgID string) map[string]*redirects.ManagementToken {
	e.t.Helper()
	ts, err := e.accounts().FindTokens(e.ctx, orgID)
	if err != nil {
		e.t.Fatalf("FindTokens(%s): %v", orgID, err)
	}
	out := map[string]*redirects.ManagementToken{}
	for _, t := range ts {
		out[t.ID] = t
	}
	return out
}

func testUserCreateAndFind(t *testing.T, e *env) {
	a := e.accounts()
	u := e.user("ada@example.com", true)
	if !strings.HasPrefix(u.ID, "usr_") {
		t.Fatalf("user ID %q does not start with usr_", u.ID)
	}
	wantTime(t, "CreatedAt", u.CreatedAt, Start)
	e.clock.Add(time.Second)
	v := e.user("bob@example.com", false)

	got, err := a.FindUserByID(e.ctx, u.ID)
	if err != nil {
		t.Fatalf("FindUserByID: %v", err)
	}
	if got.Email != "ada@example.com" || !got.Operator || got.Disabled() || got.PasswordHash != suiteHash() {
		t.Errorf("FindUserByID = %+v", got)
	}
	wantTime(t, "found CreatedAt", got.CreatedAt, Start)
	// Addresses are found in any case and with stray spaces.
	if got, err := a.FindUserByEmail(e.ctx, " BOB@Example.com"); err != nil || got.ID != v.ID || got.Operator {
		t.Errorf("FindUserByEmail(BOB@Example.com) = %+v, %v, want %s", got, err, v.ID)
	}
	users, err := a.FindUsers(e.ctx)
	if err != nil || len(users) != 2 || users[0].ID != u.ID || users[1].ID != v.ID {
		t.Fatalf("FindUsers = %v, %v, want ada then bob", users, err)
	}
	_, err = a.FindUserByID(e.ctx, "usr_nobody")
	wantCode(t, "FindUserByID(unknown)", err, redirects.ENOTFOUND, "usr_nobody")
	_, err = a.FindUserByEmail(e.ctx, "nobody@example.com")
	wantCode(t, "FindUserByEmail(unknown)", err, redirects.ENOTFOUND, "nobody@example.com")
}

func testUserInvalid(t *testing.T, e *env) {
	a := e.accounts()
	e.user("ada@example.com", false)
	for _, tc := range []struct {
		what string
		u    redirects.User
		code string
		name string
	}{
		{"same email", redirects.User{Email: "ada@example.com", PasswordHash: suiteHash()}, redirects.ECONFLICT, "ada@example.com"},
		{"not normalized", redirects.User{Email: "Ada@example.com", PasswordHash: suiteHash()}, redirects.EINVALID, "normalized"},
		{"bad email", redirects.User{Email: "ada", PasswordHash: suiteHash()}, redirects.EINVALID, `"ada"`},
		{"clear password", redirects.User{Email: "eve@example.com", PasswordHash: suitePassword}, redirects.EINVALID, "hash"},
	} {
		u := tc.u
		err := a.CreateUser(e.ctx, &u)
		wantCode(t, "CreateUser("+tc.what+")", err, tc.code, tc.name)
		if strings.Contains(redirects.ErrorMessage(err), suitePassword) {
			t.Errorf("CreateUser(%s): the error repeats the password: %v", tc.what, err)
		}
	}
	if users, _ := a.FindUsers(e.ctx); len(users) != 1 {
		t.Errorf("after refused creations: %d users, want 1", len(users))
	}
}

func testUserDisable(t *testing.T, e *env) {
	a := e.accounts()
	o := e.org("Acme")
	u := e.user("ada@example.com", false)
	e.member(o.ID, u.ID, redirects.RoleOwner)
	tok, secret := e.token(o.ID, redirects.RoleEditor, u.ID, 0)
	cli, cliSecret := e.token(o.ID, redirects.RoleViewer, "", 0)
	s, sessionSecret := redirects.NewSession(u.ID, e.clock.Now(), time.Hour)
	if err := a.CreateSession(e.ctx, s); err != nil {
		t.Fatalf("CreateSession: %v", err)
	}

	at := e.clock.Add(time.Minute)
	got, err := a.DisableUser(e.ctx, u.ID)
	if err != nil {
		t.Fatalf("DisableUser: %v", err)
	}
	if got.DisabledAt == nil {
		t.Fatalf("DisableUser returned %+v, not disabled", got)
	}
	wantTime(t, "DisabledAt", *got.DisabledAt, at)
	if found, _ := a.FindUserByID(e.ctx, u.ID); !found.Disabled() {
		t.Error("the user is not disabled when read back")
	}
	if _, err := a.FindSessionByHash(e.ctx, redirects.HashSessionSecret(sessionSecret)); redirects.ErrorCode(err) != redirects.ENOTFOUND {
		t.Errorf("session of a disabled user: %v, want ENOTFOUND", err)
	}
	if _, err := a.FindTokenByHash(e.ctx, redirects.HashKey(secret)); redirects.ErrorCode(err) != redirects.ENOTFOUND {
		t.Errorf("token of a disabled user: %v, want ENOTFOUND", err)
	}
	if ts := e.tokens(o.ID); ts[tok.ID].RevokedAt == nil || ts[cli.ID].RevokedAt != nil {
		t.Errorf("after disabling: the user's token revoked %v, the CLI's token revoked %v; want only the user's",
			ts[tok.ID].RevokedAt, ts[cli.ID].RevokedAt)
	}
	if _, err := a.FindTokenByHash(e.ctx, redirects.HashKey(cliSecret)); err != nil {
		t.Errorf("a token with no creator stopped working: %v", err)
	}
	// Again: nothing changes.
	e.clock.Add(time.Minute)
	again, err := a.DisableUser(e.ctx, u.ID)
	if err != nil || !again.DisabledAt.Equal(at) {
		t.Errorf("DisableUser again = %+v, %v, want the first time kept", again, err)
	}
	s2, _ := redirects.NewSession(u.ID, e.clock.Now(), time.Hour)
	wantCode(t, "CreateSession(disabled user)", a.CreateSession(e.ctx, s2), redirects.ENOTFOUND)
	tok2, _ := redirects.NewManagementToken(o.ID, redirects.RoleViewer, "late", u.ID, e.clock.Now(), 0)
	wantCode(t, "CreateToken(by a disabled user)", a.CreateToken(e.ctx, tok2), redirects.EFORBIDDEN, "disabled")
	_, err = a.DisableUser(e.ctx, "usr_nobody")
	wantCode(t, "DisableUser(unknown)", err, redirects.ENOTFOUND, "usr_nobody")
}

func testUserPassword(t *testing.T, e *env) {
	a := e.accounts()
	u := e.user("ada@example.com", false)
	s, secret := redirects.NewSession(u.ID, e.clock.Now(), time.Hour)
	if err := a.CreateSession(e.ctx, s); err != nil {
		t.Fatalf("CreateSession: %v", err)
	}
	h, err := redirects.HashPassword("a new password, long enough")
	if err != nil {
		t.Fatal(err)
	}
	if err := a.SetUserPassword(e.ctx, u.ID, h); err != nil {
		t.Fatalf("SetUserPassword: %v", err)
	}
	got, _ := a.FindUserByID(e.ctx, u.ID)
	if got.PasswordHash != h || !redirects.VerifyPassword(got.PasswordHash, "a new password, long enough") {
		t.Errorf("the new password does not verify")
	}
	if _, err := a.FindSessionByHash(e.ctx, redirects.HashSessionSecret(secret)); redirects.ErrorCode(err) != redirects.ENOTFOUND {
		t.Errorf("session after a password reset: %v, want ENOTFOUND", err)
	}
	wantCode(t, "SetUserPassword(clear text)", a.SetUserPassword(e.ctx, u.ID, "plain text password"), redirects.EINVALID)
	if got, _ := a.FindUserByID(e.ctx, u.ID); got.PasswordHash != h {
		t.Error("a refused password replaced the hash")
	}
	wantCode(t, "SetUserPassword(unknown)", a.SetUserPassword(e.ctx, "usr_nobody", h), redirects.ENOTFOUND, "usr_nobody")
}

func testMembers(t *testing.T, e *env) {
	a := e.accounts()
	o, other := e.org("Acme"), e.org("Other")
	u, v := e.user("ada@example.com", false), e.user("bob@example.com", false)
	m := &redirects.Membership{OrgID: o.ID, UserID: u.ID, Role: redirects.RoleOwner}
	if err := a.SetMember(e.ctx, m); err != nil {
		t.Fatalf("SetMember: %v", err)
	}
	wantTime(t, "membership CreatedAt", m.CreatedAt, Start)
	if m.Email != "ada@example.com" {
		t.Errorf("SetMember set Email %q", m.Email)
	}
	e.clock.Add(time.Second)
	e.member(o.ID, v.ID, redirects.RoleViewer)
	e.member(other.ID, v.ID, redirects.RoleEditor)

	ms, err := a.FindMembers(e.ctx, o.ID)
	if err != nil || len(ms) != 2 {
		t.Fatalf("FindMembers = %v, %v, want 2", ms, err)
	}
	if ms[0].UserID != u.ID || ms[0].Role != redirects.RoleOwner || ms[0].Email != "ada@example.com" ||
		ms[1].UserID != v.ID || ms[1].Role != redirects.RoleViewer || ms[1].Email != "bob@example.com" {
		t.Errorf("FindMembers = %+v %+v", *ms[0], *ms[1])
	}
	// A role change keeps the membership's age.
	e.clock.Add(time.Second)
	up := &redirects.Membership{OrgID: o.ID, UserID: v.ID, Role: redirects.RoleEditor}
	if err := a.SetMember(e.ctx, up); err != nil {
		t.Fatalf("SetMember(change role): %v", err)
	}
	wantTime(t, "changed membership CreatedAt", up.CreatedAt, Start.Add(time.Second))
	mine, err := a.FindMemberships(e.ctx, v.ID)
	if err != nil || len(mine) != 2 || mine[0].OrgID != o.ID || mine[0].Role != redirects.RoleEditor || mine[1].OrgID != other.ID {
		t.Fatalf("FindMemberships = %v, %v", mine, err)
	}
	p := redirects.UserPrincipal(v, mine)
	if err := redirects.Authorize(p, o.ID, redirects.ActionDeploy); err != nil {
		t.Errorf("an editor found by the store may not deploy: %v", err)
	}

	if err := a.RemoveMember(e.ctx, o.ID, v.ID); err != nil {
		t.Fatalf("RemoveMember: %v", err)
	}
	if ms, _ := a.FindMembers(e.ctx, o.ID); len(ms) != 1 || ms[0].UserID != u.ID {
		t.Errorf("after RemoveMember: %v", ms)
	}
	wantCode(t, "RemoveMember(again)", a.RemoveMember(e.ctx, o.ID, v.ID), redirects.ENOTFOUND, v.ID)
}

func testMembersNotFound(t *testing.T, e *env) {
	a := e.accounts()
	o := e.org("Acme")
	u := e.user("ada@example.com", false)
	wantCode(t, "SetMember(unknown org)", a.SetMember(e.ctx, &redirects.Membership{OrgID: "org_nope", UserID: u.ID, Role: redirects.RoleOwner}),
		redirects.ENOTFOUND, "org_nope")
	wantCode(t, "SetMember(unknown user)", a.SetMember(e.ctx, &redirects.Membership{OrgID: o.ID, UserID: "usr_nope", Role: redirects.RoleOwner}),
		redirects.ENOTFOUND, "usr_nope")
	wantCode(t, "SetMember(bad role)", a.SetMember(e.ctx, &redirects.Membership{OrgID: o.ID, UserID: u.ID, Role: "admin"}),
		redirects.EINVALID, "admin")
	_, err := a.FindMembers(e.ctx, "org_nope")
	wantCode(t, "FindMembers(unknown org)", err, redirects.ENOTFOUND, "org_nope")
	_, err = a.FindMemberships(e.ctx, "usr_nope")
	wantCode(t, "FindMemberships(unknown user)", err, redirects.ENOTFOUND, "usr_nope")
	if ms, err := a.FindMembers(e.ctx, o.ID); err != nil || len(ms) != 0 {
		t.Errorf("FindMembers after refused changes = %v, %v, want none", ms, err)
	}
}

func testTokenCreateAndFind(t *testing.T, e *env) {
	a := e.accounts()
	o := e.org("Acme")
	tok, secret := e.token(o.ID, redirects.RoleEditor, "", 2*time.Hour)
	wantTime(t, "token CreatedAt", tok.CreatedAt, Start)

	got, err := a.FindTokenByHash(e.ctx, redirects.HashKey(secret))
	if err != nil {
		t.Fatalf("FindTokenByHash: %v", err)
	}
	if got.ID != tok.ID || got.OrgID != o.ID || got.Role != redirects.RoleEditor || got.Label != "ci editor" ||
		got.Last4 != secret[len(secret)-4:] || got.CreatedBy != "" || got.ExpiresAt == nil || !got.ExpiresAt.Equal(Start.Add(2*time.Hour)) {
		t.Errorf("FindTokenByHash = %+v", got)
	}
	if got.LastUsedAt == nil {
		t.Fatal("FindTokenByHash did not record the use")
	}
	wantTime(t, "LastUsedAt", *got.LastUsedAt, Start)
	// Uses within a minute of the recorded one are not written.
	e.clock.Add(30 * time.Second)
	a.FindTokenByHash(e.ctx, redirects.HashKey(secret))
	if lu := e.tokens(o.ID)[tok.ID].LastUsedAt; lu == nil || !lu.Equal(Start) {
		t.Errorf("LastUsedAt after a use 30 s later = %v, want %v kept", lu, Start)
	}
	later := e.clock.Add(31 * time.Second)
	a.FindTokenByHash(e.ctx, redirects.HashKey(secret))
	if lu := e.tokens(o.ID)[tok.ID].LastUsedAt; lu == nil || !lu.Equal(later) {
		t.Errorf("LastUsedAt after a use 61 s later = %v, want %v", lu, later)
	}
	// Expired tokens are not found, but still listed.
	e.clock.Set(Start.Add(2 * time.Hour))
	_, err = a.FindTokenByHash(e.ctx, redirects.HashKey(secret))
	wantCode(t, "FindTokenByHash(expired)", err, redirects.ENOTFOUND)
	if _, ok := e.tokens(o.ID)[tok.ID]; !ok {
		t.Error("an expired token is not listed")
	}
	_, err = a.FindTokenByHash(e.ctx, redirects.HashKey("redir_mgmt_unknown"))
	wantCode(t, "FindTokenByHash(unknown)", err, redirects.ENOTFOUND)

	dup := *tok
	wantCode(t, "CreateToken(same ID)", a.CreateToken(e.ctx, &dup), redirects.ECONFLICT, tok.ID)
	bad, _ := redirects.NewManagementToken("org_nope", redirects.RoleViewer, "x", "", e.clock.Now(), 0)
	wantCode(t, "CreateToken(unknown org)", a.CreateToken(e.ctx, bad), redirects.ENOTFOUND, "org_nope")
	bad, _ = redirects.NewManagementToken(o.ID, redirects.RoleViewer, "tab\there", "", e.clock.Now(), 0)
	wantCode(t, "CreateToken(control character)", a.CreateToken(e.ctx, bad), redirects.EINVALID, "label")
	_, err = a.FindTokens(e.ctx, "org_nope")
	wantCode(t, "FindTokens(unknown org)", err, redirects.ENOTFOUND, "org_nope")
}

func testTokenCreator(t *testing.T, e *env) {
	a := e.accounts()
	o, other := e.org("Acme"), e.org("Other")
	u := e.user("ada@example.com", false)
	e.member(o.ID, u.ID, redirects.RoleEditor)

	tok, _ := e.token(o.ID, redirects.RoleEditor, u.ID, 0)
	if got := e.tokens(o.ID)[tok.ID]; got == nil || got.CreatedBy != u.ID {
		t.Errorf("stored creator = %+v, want %s", got, u.ID)
	}
	e.token(o.ID, redirects.RoleViewer, u.ID, 0)
	above, _ := redirects.NewManagementToken(o.ID, redirects.RoleOwner, "x", u.ID, e.clock.Now(), 0)
	wantCode(t, "CreateToken(above the creator's role)", a.CreateToken(e.ctx, above), redirects.EFORBIDDEN, "editor", "owner")
	elsewhere, _ := redirects.NewManagementToken(other.ID, redirects.RoleViewer, "x", u.ID, e.clock.Now(), 0)
	wantCode(t, "CreateToken(in an org the creator is no member of)", a.CreateToken(e.ctx, elsewhere), redirects.EFORBIDDEN, other.ID)
	ghost, _ := redirects.NewManagementToken(o.ID, redirects.RoleViewer, "x", "usr_nope", e.clock.Now(), 0)
	wantCode(t, "CreateToken(unknown creator)", a.CreateToken(e.ctx, ghost), redirects.ENOTFOUND, "usr_nope")
	if n := len(e.tokens(o.ID)); n != 2 {
		t.Errorf("%d tokens after refused creations, want 2", n)
	}
}

func testTokenRevoke(t *testing.T, e *env) {
	a := e.accounts()
	o, other := e.org("Acme"), e.org("Other")
	tok, secret := e.token(o.ID, redirects.RoleOwner, "", 0)

	_, err := a.RevokeToken(e.ctx, other.ID, tok.ID)
	wantCode(t, "RevokeToken(through another org)", err, redirects.ENOTFOUND, tok.ID)
	if _, err := a.FindTokenByHash(e.ctx, redirects.HashKey(secret)); err != nil {
		t.Fatalf("a refused revocation stopped the token: %v", err)
	}
	at := e.clock.Add(time.Minute)
	got, err := a.RevokeToken(e.ctx, o.ID, tok.ID)
	if err != nil || got.RevokedAt == nil {
		t.Fatalf("RevokeToken = %+v, %v", got, err)
	}
	wantTime(t, "RevokedAt", *got.RevokedAt, at)
	_, err = a.FindTokenByHash(e.ctx, redirects.HashKey(secret))
	wantCode(t, "FindTokenByHash(revoked)", err, redirects.ENOTFOUND)
	listed := e.tokens(o.ID)[tok.ID]
	if listed == nil || listed.RevokedAt == nil || !listed.RevokedAt.Equal(at) {
		t.Errorf("listed revoked token = %+v", listed)
	}
	e.clock.Add(time.Minute)
	if again, err := a.RevokeToken(e.ctx, o.ID, tok.ID); err != nil || !again.RevokedAt.Equal(at) {
		t.Errorf("RevokeToken again = %+v, %v, want the first time kept", again, err)
	}
	_, err = a.RevokeToken(e.ctx, o.ID, "tok_nope")
	wantCode(t, "RevokeToken(unknown)", err, redirects.ENOTFOUND, "tok_nope")
}

func testTokensFollowMembership(t *testing.T, e *env) {
	a := e.accounts()
	o, other := e.org("Acme"), e.org("Other")
	u := e.user("ada@example.com", false)
	e.member(o.ID, u.ID, redirects.RoleOwner)
	e.member(other.ID, u.ID, redirects.RoleOwner)
	owner, _ := e.token(o.ID, redirects.RoleOwner, u.ID, 0)
	editor, _ := e.token(o.ID, redirects.RoleEditor, u.ID, 0)
	viewer, _ := e.token(o.ID, redirects.RoleViewer, u.ID, 0)
	elsewhere, _ := e.token(other.ID, redirects.RoleOwner, u.ID, 0)

	// A demotion to editor revokes the owner token only.
	e.member(o.ID, u.ID, redirects.RoleEditor)
	ts := e.tokens(o.ID)
	if ts[owner.ID].RevokedAt == nil || ts[editor.ID].RevokedAt != nil || ts[viewer.ID].RevokedAt != nil {
		t.Errorf("after demotion to editor: owner revoked %v, editor %v, viewer %v; want only the owner token",
			ts[owner.ID].RevokedAt != nil, ts[editor.ID].RevokedAt != nil, ts[viewer.ID].RevokedAt != nil)
	}
	// Removal revokes the rest in that organization, not elsewhere.
	if err := a.RemoveMember(e.ctx, o.ID, u.ID); err != nil {
		t.Fatalf("RemoveMember: %v", err)
	}
	ts = e.tokens(o.ID)
	if ts[editor.ID].RevokedAt == nil || ts[viewer.ID].RevokedAt == nil {
		t.Error("after removal the member's tokens still work")
	}
	if e.tokens(other.ID)[elsewhere.ID].RevokedAt != nil {
		t.Error("removal from one organization revoked a token of another")
	}
}

func testSessions(t *testing.T, e *env) {
	a := e.accounts()
	u, v := e.user("ada@example.com", false), e.user("bob@example.com", false)
	s, secret := redirects.NewSession(u.ID, e.clock.Now(), time.Hour)
	if err := a.CreateSession(e.ctx, s); err != nil {
		t.Fatalf("CreateSession: %v", err)
	}
	s2, secret2 := redirects.NewSession(u.ID, e.clock.Now(), 2*time.Hour)
	s3, secret3 := redirects.NewSession(v.ID, e.clock.Now(), 2*time.Hour)
	for _, x := range []*redirects.Session{s2, s3} {
		if err := a.CreateSession(e.ctx, x); err != nil {
			t.Fatalf("CreateSession: %v", err)
		}
	}
	got, err := a.FindSessionByHash(e.ctx, redirects.HashSessionSecret(secret))
	if err != nil {
		t.Fatalf("FindSessionByHash: %v", err)
	}
	if got.ID != s.ID || got.UserID != u.ID || got.CSRFToken != s.CSRFToken || !got.CheckCSRF(s.CSRFToken) {
		t.Errorf("FindSessionByHash = %+v, want %+v", got, s)
	}
	wantTime(t, "ExpiresAt", got.ExpiresAt, Start.Add(time.Hour))
	_, err = a.FindSessionByHash(e.ctx, secret)
	wantCode(t, "FindSessionByHash(the secret itself, not its hash)", err, redirects.ENOTFOUND)

	seen := e.clock.Add(10 * time.Minute)
	if err := a.TouchSession(e.ctx, s.ID); err != nil {
		t.Fatalf("TouchSession: %v", err)
	}
	got, _ = a.FindSessionByHash(e.ctx, redirects.HashSessionSecret(secret))
	wantTime(t, "LastSeenAt", got.LastSeenAt, seen)
	wantCode(t, "TouchSession(unknown)", a.TouchSession(e.ctx, "ses_nope"), redirects.ENOTFOUND, "ses_nope")

	// Expiry.
	e.clock.Set(Start.Add(time.Hour))
	_, err = a.FindSessionByHash(e.ctx, redirects.HashSessionSecret(secret))
	wantCode(t, "FindSessionByHash(expired)", err, redirects.ENOTFOUND)
	if _, err := a.FindSessionByHash(e.ctx, redirects.HashSessionSecret(secret2)); err != nil {
		t.Fatalf("a longer session expired with the shorter one: %v", err)
	}
	// Logout, and logout everywhere.
	if err := a.DeleteSession(e.ctx, s2.ID); err != nil {
		t.Fatalf("DeleteSession: %v", err)
	}
	if err := a.DeleteSession(e.ctx, s2.ID); err != nil {
		t.Fatalf("DeleteSession(again): %v", err)
	}
	_, err = a.FindSessionByHash(e.ctx, redirects.HashSessionSecret(secret2))
	wantCode(t, "FindSessionByHash(logged out)", err, redirects.ENOTFOUND)
	if n, err := a.DeleteUserSessions(e.ctx, u.ID); err != nil || n != 1 {
		t.Errorf("DeleteUserSessions = %d, %v, want the one expired session left", n, err)
	}
	if _, err := a.FindSessionByHash(e.ctx, redirects.HashSessionSecret(secret3)); err != nil {
		t.Errorf("another user's session was deleted: %v", err)
	}
	ghost, _ := redirects.NewSession("usr_nope", e.clock.Now(), time.Hour)
	wantCode(t, "CreateSession(unknown user)", a.CreateSession(e.ctx, ghost), redirects.ENOTFOUND, "usr_nope")
}
