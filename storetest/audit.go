package storetest

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"redirects"
	"redirects/service"
)

func (e *env) audit(f redirects.AuditFilter) []*redirects.AuditEntry {
	e.t.Helper()
	entries, err := e.accounts().FindAudit(e.ctx, f)
	if err != nil {
		e.t.Fatalf("FindAudit(%+v): %v", f, err)
	}
	return entries
}

// auditActions returns the actions of entries, in their order.
func auditActions(entries []*redirects.AuditEntry) []string {
	out := make([]string, len(entries))
	for i, x := range entries {
		out[i] = x.Action
	}
	return out
}

// wantAuditJSON fails unless raw is the JSON object want (nil for none).
func wantAuditJSON(t *testing.T, what string, raw json.RawMessage, want map[string]any) {
	t.Helper()
	if want == nil {
		if raw != nil {
			t.Errorf("%s = %s, want none", what, raw)
		}
		return
	}
	var got map[string]any
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Errorf("%s = %q is not a JSON object: %v", what, raw, err)
		return
	}
	wantB, _ := json.Marshal(want)
	var norm map[string]any
	json.Unmarshal(wantB, &norm)
	if !reflect.DeepEqual(got, norm) {
		t.Errorf("%s = %s, want %s", what, raw, wantB)
	}
}

// testAuditChanges makes each audited change of redirects.Store with an
// actor in the context and reads the log back.
func testAuditChanges(t *testing.T, e *env) {
	actor := redirects.Actor{Kind: redirects.ActorToken, ID: "tok_1", Label: "deploy bot", RemoteAddr: "192.0.2.7"}
	e.ctx = redirects.WithActor(e.ctx, actor)

	o := e.org("Acme")
	e.clock.Add(time.Second)
	if _, err := e.s.UpdateOrg(e.ctx, o.ID, redirects.OrgUpdate{Tier: pointerTo(redirects.TierPro), RateLimit: limit(5)}); err != nil {
		t.Fatalf("UpdateOrg: %v", err)
	}
	p := e.project(o.ID, "www")
	r := e.rule(p.ID, "/old", "/new", redirects.Exact, 0)
	if err := e.s.DeleteRule(e.ctx, p.ID, r.ID); err != nil {
		t.Fatalf("DeleteRule: %v", err)
	}
	k, secret := redirects.NewKey(p.ID, "edge", false, e.clock.Now())
	if err := e.s.CreateKey(e.ctx, k); err != nil {
		t.Fatalf("CreateKey: %v", err)
	}
	if _, err := e.s.RevokeKey(e.ctx, p.ID, k.ID); err != nil {
		t.Fatalf("RevokeKey: %v", err)
	}

	entries := e.audit(redirects.AuditFilter{})
	want := []string{redirects.AuditKeyRevoke, redirects.AuditKeyCreate, redirects.AuditRuleDelete, redirects.AuditRuleCreate,
		redirects.AuditProjectCreate, redirects.AuditOrgUpdate, redirects.AuditOrgCreate}
	if got := auditActions(entries); !reflect.DeepEqual(got, want) {
		t.Fatalf("audit log = %v, want %v (newest first)", got, want)
	}
	for _, x := range entries {
		if x.Actor != actor {
			t.Errorf("%s: actor %+v, want %+v", x.Action, x.Actor, actor)
		}
		if x.OrgID != o.ID {
			t.Errorf("%s: org %q, want %q", x.Action, x.OrgID, o.ID)
		}
		if x.ID == 0 {
			t.Errorf("%s: no ID", x.Action)
		}
		for _, raw := range []json.RawMessage{x.Before, x.After} {
			if strings.Contains(string(raw), secret[11:]) || strings.Contains(string(raw), k.Hash) {
				t.Errorf("%s records the key's secret or hash: %s", x.Action, raw)
			}
		}
	}
	byAction := map[string]*redirects.AuditEntry{}
	for _, x := range entries {
		byAction[x.Action] = x
	}
	create := byAction[redirects.AuditOrgCreate]
	wantTime(t, "org.create time", create.Time, Start)
	if create.ObjectType != "org" || create.ObjectID != o.ID || create.ProjectID != "" {
		t.Errorf("org.create object = %s %s project %q", create.ObjectType, create.ObjectID, create.ProjectID)
	}
	wantAuditJSON(t, "org.create before", create.Before, nil)
	wantAuditJSON(t, "org.create after", create.After, map[string]any{"name": "Acme", "tier": "free", "rateLimitOverride": nil, "quotaOverride": nil})
	update := byAction[redirects.AuditOrgUpdate]
	wantTime(t, "org.update time", update.Time, Start.Add(time.Second))
	wantAuditJSON(t, "org.update before", update.Before, map[string]any{"tier": "free", "rateLimitOverride": nil})
	wantAuditJSON(t, "org.update after", update.After, map[string]any{"tier": "pro", "rateLimitOverride": "5"})
	if x := byAction[redirects.AuditProjectCreate]; x.ProjectID != p.ID || x.ObjectID != p.ID {
		t.Errorf("project.create = %+v", x)
	}
	ruleFields := map[string]any{"source": "/old", "destination": "/new", "statusCode": 301, "matchType": "exact", "priority": 0}
	add, del := byAction[redirects.AuditRuleCreate], byAction[redirects.AuditRuleDelete]
	if add.ObjectType != "rule" || add.ObjectID != fmt.Sprint(r.ID) || add.ProjectID != p.ID || del.ObjectID != fmt.Sprint(r.ID) {
		t.Errorf("rule entries name %s %s and %s, want rule %d of %s", add.ObjectType, add.ObjectID, del.ObjectID, r.ID, p.ID)
	}
	wantAuditJSON(t, "rule.create after", add.After, ruleFields)
	wantAuditJSON(t, "rule.delete before", del.Before, ruleFields)
	wantAuditJSON(t, "rule.delete after", del.After, nil)
	if x := byAction[redirects.AuditKeyCreate]; x.ObjectID != k.ID || x.ProjectID != p.ID {
		t.Errorf("key.create = %+v", x)
	}
	wantAuditJSON(t, "key.create after", byAction[redirects.AuditKeyCreate].After, map[string]any{"name": "edge", "mode": "live", "last4": k.Last4})

	// Without an actor, the system made the change.
	if err := e.s.CreateOrg(context.Background(), &redirects.Org{Name: "Bare", Tier: redirects.TierFree}); err != nil {
		t.Fatalf("CreateOrg: %v", err)
	}
	if x := e.audit(redirects.AuditFilter{Limit: 1})[0]; x.Actor.Kind != redirects.ActorSystem || x.Actor.Label != "" {
		t.Errorf("change without an actor recorded actor %+v, want system", x.Actor)
	}
}

// testAuditAccountChanges reads back the entries of the account store's own
// changes, which never hold a password, hash or secret.
func testAuditAccountChanges(t *testing.T, e *env) {
	a := e.accounts()
	e.ctx = redirects.WithActor(e.ctx, redirects.Actor{Kind: redirects.ActorCLI, Label: "root"})
	o := e.org("Acme")
	u := e.user("ada@example.com", true)
	e.member(o.ID, u.ID, redirects.RoleOwner)
	e.member(o.ID, u.ID, redirects.RoleEditor)
	tok, secret := e.token(o.ID, redirects.RoleViewer, u.ID, time.Hour)
	if _, err := a.RevokeToken(e.ctx, o.ID, tok.ID); err != nil {
		t.Fatal(err)
	}
	h, _ := redirects.HashPassword("another long password")
	if err := a.SetUserPassword(e.ctx, u.ID, h); err != nil {
		t.Fatal(err)
	}
	if err := a.RemoveMember(e.ctx, o.ID, u.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := a.DisableUser(e.ctx, u.ID); err != nil {
		t.Fatal(err)
	}

	entries := e.audit(redirects.AuditFilter{})
	want := []string{redirects.AuditUserDisable, redirects.AuditMemberRemove, redirects.AuditUserPassword, redirects.AuditTokenRevoke,
		redirects.AuditTokenCreate, redirects.AuditMemberUpdate, redirects.AuditMemberAdd, redirects.AuditUserCreate, redirects.AuditOrgCreate}
	if got := auditActions(entries); !reflect.DeepEqual(got, want) {
		t.Fatalf("audit log = %v, want %v", got, want)
	}
	by := map[string]*redirects.AuditEntry{}
	for _, x := range entries {
		by[x.Action] = x
		if x.Actor.Kind != redirects.ActorCLI || x.Actor.Label != "root" {
			t.Errorf("%s: actor %+v, want cli root", x.Action, x.Actor)
		}
		for _, s := range []string{suitePassword, suiteHash(), h, secret, tok.Hash, "argon2id"} {
			if strings.Contains(string(x.Before)+string(x.After), s) {
				t.Errorf("%s records a secret or hash (%.20s...): before %s after %s", x.Action, s, x.Before, x.After)
			}
		}
	}
	wantAuditJSON(t, "user.create after", by[redirects.AuditUserCreate].After, map[string]any{"email": "ada@example.com", "operator": true, "disabled": false})
	if x := by[redirects.AuditUserCreate]; x.ObjectType != "user" || x.ObjectID != u.ID || x.OrgID != "" {
		t.Errorf("user.create names %s %s in org %q", x.ObjectType, x.ObjectID, x.OrgID)
	}
	wantAuditJSON(t, "member.add after", by[redirects.AuditMemberAdd].After, map[string]any{"email": "ada@example.com", "role": "owner"})
	wantAuditJSON(t, "member.update before", by[redirects.AuditMemberUpdate].Before, map[string]any{"role": "owner"})
	wantAuditJSON(t, "member.update after", by[redirects.AuditMemberUpdate].After, map[string]any{"role": "editor"})
	wantAuditJSON(t, "member.remove before", by[redirects.AuditMemberRemove].Before, map[string]any{"email": "ada@example.com", "role": "editor"})
	wantAuditJSON(t, "token.create after", by[redirects.AuditTokenCreate].After, map[string]any{"label": "ci viewer", "role": "viewer",
		"last4": tok.Last4, "createdBy": u.ID, "expiresAt": Start.Add(time.Hour).Format(time.RFC3339Nano)})
	if x := by[redirects.AuditTokenRevoke]; x.ObjectID != tok.ID || x.OrgID != o.ID {
		t.Errorf("token.revoke names %s in %s", x.ObjectID, x.OrgID)
	}
	wantAuditJSON(t, "user.disable before", by[redirects.AuditUserDisable].Before, map[string]any{"disabled": false})
	wantAuditJSON(t, "user.disable after", by[redirects.AuditUserDisable].After, map[string]any{"disabled": true})
}

func testAuditFilter(t *testing.T, e *env) {
	cli := redirects.WithActor(e.ctx, redirects.Actor{Kind: redirects.ActorCLI, Label: "alice"})
	tok := redirects.WithActor(e.ctx, redirects.Actor{Kind: redirects.ActorToken, ID: "tok_9", Label: "ci"})
	e.ctx = cli
	o1 := e.org("One")
	p1 := e.project(o1.ID, "a")
	e.clock.Add(time.Hour)
	o2 := e.org("Two")
	e.ctx = tok
	p2 := e.project(o2.ID, "b")
	e.clock.Add(time.Hour)
	e.rule(p2.ID, "/x", "/y", redirects.Exact, 0)
	e.rule(p1.ID, "/x", "/y", redirects.Exact, 0)

	for _, tc := range []struct {
		f    redirects.AuditFilter
		want string
	}{
		{redirects.AuditFilter{}, "rule.create rule.create project.create org.create project.create org.create"},
		{redirects.AuditFilter{OrgID: o2.ID}, "rule.create project.create org.create"},
		{redirects.AuditFilter{ProjectID: p1.ID}, "rule.create project.create"},
		{redirects.AuditFilter{Actor: "alice"}, "org.create project.create org.create"},
		{redirects.AuditFilter{Actor: "tok_9"}, "rule.create rule.create project.create"},
		{redirects.AuditFilter{Actor: "ci", OrgID: o1.ID}, "rule.create"},
		{redirects.AuditFilter{Action: "org.create"}, "org.create org.create"},
		{redirects.AuditFilter{Action: "project.*"}, "project.create project.create"},
		{redirects.AuditFilter{Action: "rule.delete"}, ""},
		{redirects.AuditFilter{Since: Start.Add(time.Hour)}, "rule.create rule.create project.create org.create"},
		{redirects.AuditFilter{Until: Start.Add(time.Hour)}, "project.create org.create"},
		{redirects.AuditFilter{Since: Start.Add(time.Hour), Until: Start.Add(2 * time.Hour)}, "project.create org.create"},
		{redirects.AuditFilter{Limit: 2}, "rule.create rule.create"},
		{redirects.AuditFilter{Actor: "nobody"}, ""},
	} {
		if got := strings.Join(auditActions(e.audit(tc.f)), " "); got != tc.want {
			t.Errorf("FindAudit(%+v) = %q, want %q", tc.f, got, tc.want)
		}
	}
	// Paging backwards: each page starts below the last ID seen.
	all := e.audit(redirects.AuditFilter{})
	var paged []*redirects.AuditEntry
	for f := (redirects.AuditFilter{Limit: 4}); ; {
		page := e.audit(f)
		paged = append(paged, page...)
		if len(page) < f.Limit {
			break
		}
		f.BeforeID = page[len(page)-1].ID
	}
	if len(paged) != len(all) {
		t.Fatalf("paging by 4 found %d entries, want %d", len(paged), len(all))
	}
	for i := range all {
		if paged[i].ID != all[i].ID {
			t.Fatalf("page entry %d has ID %d, want %d", i, paged[i].ID, all[i].ID)
		}
		if i > 0 && all[i].ID >= all[i-1].ID {
			t.Fatalf("entries are not newest first: ID %d after %d", all[i].ID, all[i-1].ID)
		}
	}
	_, err := e.accounts().FindAudit(e.ctx, redirects.AuditFilter{Action: "rule'; --"})
	wantCode(t, "FindAudit(bad action)", err, redirects.EINVALID)
	_, err = e.accounts().FindAudit(e.ctx, redirects.AuditFilter{Limit: redirects.MaxAuditLimit + 1})
	wantCode(t, "FindAudit(huge limit)", err, redirects.EINVALID)
}

// testAuditDeploy checks that a deploy and a rollback each record a
// deployment.create entry, by the actor in the context, in the project's
// organization, and that a deploy that fails records none.
func testAuditDeploy(t *testing.T, e *env) {
	actor := redirects.Actor{Kind: redirects.ActorUser, ID: "usr_1", Label: "ada@example.com", RemoteAddr: "192.0.2.8"}
	e.ctx = redirects.WithActor(e.ctx, actor)
	p := e.newProject()
	e.rule(p.ID, "/a", "/b", redirects.Exact, 0)
	e.rule(p.ID, "/c", "/d", redirects.StartsWith, 0)
	e.deploy(p.ID, redirects.DeployOptions{Message: "first"})
	e.deploy(p.ID, redirects.DeployOptions{Message: "back", FromVersion: 1})
	if _, err := service.DeployUnchecked(e.ctx, e.s, p.ID, redirects.DeployOptions{FromVersion: 9}, build); redirects.ErrorCode(err) != redirects.ENOTFOUND {
		t.Fatalf("Deploy(version 9) = %v, want ENOTFOUND", err)
	}

	entries := e.audit(redirects.AuditFilter{ProjectID: p.ID, Action: redirects.AuditDeploy})
	if len(entries) != 2 {
		t.Fatalf("%d deployment.create entries, want 2: %v", len(entries), auditActions(entries))
	}
	for i, x := range entries {
		version := 2 - i
		if x.Actor != actor || x.OrgID != p.OrgID || x.ProjectID != p.ID || x.ObjectType != "deployment" || x.ObjectID != fmt.Sprintf("%s@%d", p.ID, version) {
			t.Errorf("entry of version %d = %+v", version, x)
		}
		wantAuditJSON(t, "deployment.create before", x.Before, nil)
	}
	wantAuditJSON(t, "rollback after", entries[0].After, map[string]any{"version": 2, "message": "back", "exactRules": 1, "prefixRules": 1, "fromVersion": 1})
	wantAuditJSON(t, "deploy after", entries[1].After, map[string]any{"version": 1, "message": "first", "exactRules": 1, "prefixRules": 1})
}

// testAuditFailedChange checks that a change that fails records nothing:
// the entry is written in the change's transaction.
func testAuditFailedChange(t *testing.T, e *env) {
	p := e.newProject()
	e.user("ada@example.com", false)
	e.rule(p.ID, "/a", "/b", redirects.Exact, 0)
	before := len(e.audit(redirects.AuditFilter{}))

	dup := &redirects.Rule{ProjectID: p.ID, Source: "/a", Destination: "/c", StatusCode: 301, MatchType: redirects.Exact}
	if err := e.s.AddRule(e.ctx, dup); redirects.ErrorCode(err) != redirects.ECONFLICT {
		t.Fatalf("AddRule(duplicate) = %v, want ECONFLICT", err)
	}
	if err := e.s.DeleteRule(e.ctx, p.ID, 999999); redirects.ErrorCode(err) != redirects.ENOTFOUND {
		t.Fatalf("DeleteRule(unknown) = %v", err)
	}
	if err := e.accounts().CreateUser(e.ctx, &redirects.User{Email: "ada@example.com", PasswordHash: suiteHash()}); redirects.ErrorCode(err) != redirects.ECONFLICT {
		t.Fatalf("CreateUser(duplicate) = %v", err)
	}
	if _, err := e.s.UpdateOrg(e.ctx, p.OrgID, redirects.OrgUpdate{Name: pointerTo("")}); redirects.ErrorCode(err) != redirects.EINVALID {
		t.Fatalf("UpdateOrg(empty name) = %v", err)
	}
	if after := len(e.audit(redirects.AuditFilter{})); after != before {
		t.Errorf("failed changes added %d audit entries", after-before)
	}
}

func pointerTo[T any](v T) *T { return &v }
