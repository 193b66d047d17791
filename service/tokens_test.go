package service_test

import (
	"strings"
	"testing"
	"time"

	"redirects"
)

func TestTokenCreateRoleCeiling(t *testing.T) {
	w := newAccessWorld(t)
	ts := w.svc
	for _, member := range redirects.Roles {
		ctx := w.as(t, w.users[member])
		for _, role := range redirects.Roles {
			tok, secret, err := ts.CreateToken(ctx, redirects.TokenRequest{OrgID: w.org.ID, Role: role, Label: "ci"})
			if !member.AtLeast(role) {
				wantAccessCode(t, string(member)+" creates a "+string(role)+" token", err, redirects.EFORBIDDEN)
				continue
			}
			if err != nil {
				t.Fatalf("%s creates a %s token: %v", member, role, err)
			}
			if tok.CreatedBy != w.users[member].ID || tok.Role != role || !redirects.WellFormedManagementToken(secret) || tok.Hash != redirects.HashKey(secret) {
				t.Fatalf("%s's %s token: %+v, secret %q", member, role, tok, secret)
			}
		}
	}

	owner := w.as(t, w.users[redirects.RoleOwner])
	_, _, err := ts.CreateToken(owner, redirects.TokenRequest{OrgID: w.org.ID, Role: "admin"})
	wantAccessCode(t, "an unknown role", err, redirects.EINVALID)
	_, _, err = ts.CreateToken(owner, redirects.TokenRequest{OrgID: w.org.ID, Role: redirects.RoleViewer, Label: strings.Repeat("l", 201)})
	wantAccessCode(t, "a long label", err, redirects.EINVALID)
	_, _, err = ts.CreateToken(owner, redirects.TokenRequest{OrgID: w.other.ID, Role: "admin"})
	if want := `organization "` + w.other.ID + `" not found`; redirects.ErrorMessage(err) != want {
		t.Fatalf("a token of another organization: got %v, want %q before the role is read", err, want)
	}
	_, _, err = ts.CreateToken(owner, redirects.TokenRequest{OrgID: w.org.ID, Role: redirects.RoleViewer, User: w.users[redirects.RoleViewer].Email})
	wantAccessCode(t, "a user names another user", err, redirects.EFORBIDDEN)

	// A token cannot make another, whatever its role.
	tok, _, err := ts.CreateToken(owner, redirects.TokenRequest{OrgID: w.org.ID, Role: redirects.RoleOwner, TTL: time.Hour})
	if err != nil || tok.ExpiresAt == nil || !tok.ExpiresAt.Equal(w.clock.now.Add(time.Hour)) {
		t.Fatalf("token with a lifetime: %+v %v", tok, err)
	}
	_, _, err = ts.CreateToken(w.asToken(tok), redirects.TokenRequest{OrgID: w.org.ID, Role: redirects.RoleViewer})
	wantAccessCode(t, "a token creates a token", err, redirects.EFORBIDDEN)
}

func TestTokenCreateOnTheCommandLine(t *testing.T) {
	w := newAccessWorld(t)
	ts := w.svc
	ctx := w.local()

	tok, _, err := ts.CreateToken(ctx, redirects.TokenRequest{OrgID: w.org.ID, Role: redirects.RoleOwner})
	if err != nil || tok.CreatedBy != "" {
		t.Fatalf("a token of nobody: %+v %v", tok, err)
	}
	editor := w.users[redirects.RoleEditor]
	tok, _, err = ts.CreateToken(ctx, redirects.TokenRequest{OrgID: w.org.ID, Role: redirects.RoleEditor, User: editor.ID})
	if err != nil || tok.CreatedBy != editor.ID {
		t.Fatalf("an editor's token by ID: %+v %v", tok, err)
	}
	_, _, err = ts.CreateToken(ctx, redirects.TokenRequest{OrgID: w.org.ID, Role: redirects.RoleOwner, User: strings.ToUpper(editor.Email)})
	if want := editor.Email + ": role editor may not create owner tokens"; err == nil || !strings.HasPrefix(redirects.ErrorMessage(err), want) {
		t.Fatalf("an owner token for an editor: got %v, want %q...", err, want)
	}
	_, _, err = ts.CreateToken(ctx, redirects.TokenRequest{OrgID: w.org.ID, Role: redirects.RoleViewer, User: "nobody@example.com"})
	wantAccessCode(t, "a token for an unknown user", err, redirects.ENOTFOUND)
	_, _, err = ts.CreateToken(ctx, redirects.TokenRequest{OrgID: "org_missing", Role: redirects.RoleViewer})
	wantAccessCode(t, "a token of a missing organization", err, redirects.ENOTFOUND)
}

func TestTokenListAndRevoke(t *testing.T) {
	w := newAccessWorld(t)
	ts := w.svc
	owner, editor, viewer := w.as(t, w.users[redirects.RoleOwner]), w.as(t, w.users[redirects.RoleEditor]), w.as(t, w.users[redirects.RoleViewer])

	mine, _, err := ts.CreateToken(viewer, redirects.TokenRequest{OrgID: w.org.ID, Role: redirects.RoleViewer, Label: "mine"})
	if err != nil {
		t.Fatal(err)
	}
	theirs, theirSecret, err := ts.CreateToken(editor, redirects.TokenRequest{OrgID: w.org.ID, Role: redirects.RoleEditor, Label: "theirs"})
	if err != nil {
		t.Fatal(err)
	}
	nobodys, _, err := ts.CreateToken(w.local(), redirects.TokenRequest{OrgID: w.org.ID, Role: redirects.RoleViewer})
	if err != nil {
		t.Fatal(err)
	}

	list, err := ts.FindTokens(viewer, w.org.ID)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct{ id, creator string }{{mine.ID, w.users[redirects.RoleViewer].Email}, {theirs.ID, w.users[redirects.RoleEditor].Email}, {nobodys.ID, ""}}
	if len(list) != len(want) {
		t.Fatalf("token list: got %d tokens, want %d", len(list), len(want))
	}
	for i, x := range want {
		if list[i].ID != x.id || list[i].Creator != x.creator {
			t.Fatalf("token %d: got %s by %q, want %s by %q", i, list[i].ID, list[i].Creator, x.id, x.creator)
		}
	}
	_, err = ts.FindTokens(owner, w.other.ID)
	wantAccessCode(t, "another organization's tokens", err, redirects.ENOTFOUND)

	// A viewer revokes their own token, not another's; an owner any.
	_, _, err = ts.RevokeToken(viewer, w.org.ID, theirs.ID)
	wantAccessCode(t, "a viewer revokes an editor's token", err, redirects.EFORBIDDEN)
	tok, revoked, err := ts.RevokeToken(viewer, w.org.ID, mine.ID)
	if err != nil || !revoked || tok.RevokedAt == nil {
		t.Fatalf("a viewer revokes their own token: %+v revoked=%v %v", tok, revoked, err)
	}
	first := *tok.RevokedAt
	w.clock.now = w.clock.now.Add(time.Minute)
	tok, revoked, err = ts.RevokeToken(viewer, w.org.ID, mine.ID)
	if err != nil || revoked || !tok.RevokedAt.Equal(first) {
		t.Fatalf("revoking it again: %+v revoked=%v %v, want revoked=false at %s", tok, revoked, err, first)
	}
	tok, revoked, err = ts.RevokeToken(owner, w.org.ID, theirSecret)
	if err != nil || !revoked || tok.ID != theirs.ID {
		t.Fatalf("an owner revokes a token by its secret: %+v revoked=%v %v", tok, revoked, err)
	}
	_, _, err = ts.RevokeToken(owner, w.org.ID, theirSecret)
	if err == nil || strings.Contains(redirects.ErrorMessage(err), theirSecret) {
		t.Fatalf("a revoked secret: got %v, want not found without the secret", err)
	}
	_, _, err = ts.RevokeToken(owner, w.org.ID, "tok_nope")
	if want := `token "tok_nope" is not a management token of organization ` + w.org.ID; redirects.ErrorMessage(err) != want {
		t.Fatalf("an unknown token: got %v, want %q", err, want)
	}
	_, _, err = ts.RevokeToken(w.as(t, w.users[redirects.RoleOwner]), w.other.ID, nobodys.ID)
	wantAccessCode(t, "a token of an organization the caller is not in", err, redirects.ENOTFOUND)
	if _, revoked, err := ts.RevokeToken(owner, w.org.ID, nobodys.ID); err != nil || !revoked {
		t.Fatalf("an owner revokes the command line's token: revoked=%v %v", revoked, err)
	}
}
