package storetest

import (
	"slices"
	"strings"
	"testing"
	"time"

	"redirects"
)

func (e *env) key(projectID string, test bool) (*redirects.Key, string) {
	e.t.Helper()
	k, secret := redirects.NewKey(projectID, "ci", test, e.clock.Now())
	if err := e.s.CreateKey(e.ctx, k); err != nil {
		e.t.Fatalf("CreateKey: %v", err)
	}
	return k, secret
}

func (e *env) keys(projectID string) []*redirects.Key {
	e.t.Helper()
	ks, err := e.s.FindKeys(e.ctx, projectID)
	if err != nil {
		e.t.Fatalf("FindKeys(%q): %v", projectID, err)
	}
	return ks
}

func testKeyCreateAndFind(t *testing.T, e *env) {
	p := e.newProject()
	q := e.project(p.OrgID, "other")
	e.clock.Add(time.Minute)
	live, liveSecret := e.key(p.ID, false)
	e.clock.Add(time.Second)
	test, testSecret := e.key(p.ID, true)
	e.clock.Add(time.Second)
	other, _ := e.key(q.ID, false)

	ks := e.keys(p.ID)
	if len(ks) != 2 || ks[0].ID != live.ID || ks[1].ID != test.ID {
		t.Fatalf("FindKeys = %v, want [%s %s] (oldest first)", keyIDs(ks), live.ID, test.ID)
	}
	for i, tc := range []struct {
		want   *redirects.Key
		secret string
	}{{live, liveSecret}, {test, testSecret}} {
		got := ks[i]
		if got.Hash != redirects.HashKey(tc.secret) {
			t.Errorf("key %s: Hash = %q, want HashKey(secret)", got.ID, got.Hash)
		}
		for name, v := range map[string]string{"ID": got.ID, "Name": got.Name, "Hash": got.Hash, "Last4": got.Last4, "ProjectID": got.ProjectID} {
			if strings.Contains(v, tc.secret) || strings.Contains(v, tc.secret[len(redirects.LiveKeyPrefix):]) {
				t.Errorf("key %s: %s holds the secret", got.ID, name)
			}
		}
		if got.ProjectID != p.ID || got.Name != "ci" || got.Test != tc.want.Test || got.Last4 != tc.secret[len(tc.secret)-4:] {
			t.Errorf("key = %+v, want %+v", got, tc.want)
		}
		if got.RevokedAt != nil {
			t.Errorf("key %s: RevokedAt = %v, want nil", got.ID, got.RevokedAt)
		}
		wantTime(t, "key CreatedAt", got.CreatedAt, tc.want.CreatedAt)
	}
	wantTime(t, "first key CreatedAt", ks[0].CreatedAt, Start.Add(time.Minute))

	all := e.keys("")
	if ids := keyIDs(all); !slices.Equal(ids, []string{live.ID, test.ID, other.ID}) {
		t.Errorf(`FindKeys("") = %v, want [%s %s %s]`, ids, live.ID, test.ID, other.ID)
	}

	_, err := e.s.FindKeys(e.ctx, "prj_nope")
	wantCode(t, "FindKeys(unknown project)", err, redirects.ENOTFOUND, "prj_nope")
	k, _ := redirects.NewKey("prj_nope", "x", false, e.clock.Now())
	wantCode(t, "CreateKey(unknown project)", e.s.CreateKey(e.ctx, k), redirects.ENOTFOUND, "prj_nope")
	if n := len(e.keys("")); n != 3 {
		t.Errorf("FindKeys after a failed create = %d keys, want 3", n)
	}
}

func keyIDs(ks []*redirects.Key) []string {
	var out []string
	for _, k := range ks {
		out = append(out, k.ID)
	}
	return out
}

func testKeyRevoke(t *testing.T, e *env) {
	p := e.newProject()
	byID, _ := e.key(p.ID, false)
	bySecret, secret := e.key(p.ID, true)
	kept, _ := e.key(p.ID, false)

	at := e.clock.Add(time.Hour)
	got, err := e.s.RevokeKey(e.ctx, p.ID, byID.ID)
	if err != nil {
		t.Fatalf("RevokeKey(ID): %v", err)
	}
	if got.ID != byID.ID || got.RevokedAt == nil {
		t.Fatalf("RevokeKey(ID) = %+v, want key %s revoked", got, byID.ID)
	}
	wantTime(t, "RevokedAt", *got.RevokedAt, at)

	e.clock.Add(time.Hour)
	got, err = e.s.RevokeKey(e.ctx, p.ID, secret)
	if err != nil {
		t.Fatalf("RevokeKey(secret): %v", err)
	}
	if got.ID != bySecret.ID || got.RevokedAt == nil {
		t.Fatalf("RevokeKey(secret) = %+v, want key %s revoked", got, bySecret.ID)
	}

	// Revoking again is no error, and revocation keeps its first time.
	e.clock.Add(time.Hour)
	got, err = e.s.RevokeKey(e.ctx, p.ID, byID.ID)
	if err != nil {
		t.Fatalf("RevokeKey(revoked): %v", err)
	}
	if got.RevokedAt == nil {
		t.Fatalf("RevokeKey(revoked) returned a key that is not revoked")
	}
	wantTime(t, "RevokedAt after revoking again", *got.RevokedAt, at)

	for _, k := range e.keys(p.ID) {
		switch {
		case k.ID == kept.ID && k.RevokedAt != nil:
			t.Errorf("key %s was revoked, but only the others were asked for", k.ID)
		case k.ID != kept.ID && k.RevokedAt == nil:
			t.Errorf("key %s is not revoked", k.ID)
		case k.ID == byID.ID:
			wantTime(t, "stored RevokedAt", *k.RevokedAt, at)
		}
	}

	_, err = e.s.RevokeKey(e.ctx, p.ID, "key_nope")
	wantCode(t, "RevokeKey(unknown ID)", err, redirects.ENOTFOUND)
	unknown := redirects.NewSecret(false)
	_, err = e.s.RevokeKey(e.ctx, p.ID, unknown)
	wantCode(t, "RevokeKey(unknown secret)", err, redirects.ENOTFOUND)
	if strings.Contains(redirects.ErrorMessage(err), unknown) {
		t.Errorf("RevokeKey's error %q repeats the secret", redirects.ErrorMessage(err))
	}
	_, err = e.s.RevokeKey(e.ctx, "prj_nope", kept.ID)
	wantCode(t, "RevokeKey(unknown project)", err, redirects.ENOTFOUND)
}

func testKeyOtherProject(t *testing.T, e *env) {
	p := e.newProject()
	q := e.project(p.OrgID, "other")
	k, secret := e.key(p.ID, false)
	for _, ref := range []string{k.ID, secret} {
		_, err := e.s.RevokeKey(e.ctx, q.ID, ref)
		wantCode(t, "RevokeKey(other project's key)", err, redirects.ENOTFOUND)
		if strings.Contains(redirects.ErrorMessage(err), secret) {
			t.Errorf("RevokeKey's error %q repeats the secret", redirects.ErrorMessage(err))
		}
	}
	if ks := e.keys(p.ID); len(ks) != 1 || ks[0].RevokedAt != nil {
		t.Errorf("the key was revoked through another project")
	}
}
