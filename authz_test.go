package redirects_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"redirects"
)

// TestAuthorize walks every action for every kind of principal in
// organization org_A and compares Authorize's answer with the table the
// docs/accounts.md documents: "ok" allowed, "403" EFORBIDDEN, "404" ENOTFOUND.
func TestAuthorize(t *testing.T) {
	const org = "org_A"
	user := func(operator bool, role redirects.Role) redirects.Principal {
		u := &redirects.User{ID: "usr_1", Email: "a@example.com", Operator: operator}
		var ms []*redirects.Membership
		if role != "" {
			ms = append(ms, &redirects.Membership{OrgID: org, UserID: u.ID, Role: role},
				// Another user's membership must not count.
				&redirects.Membership{OrgID: "org_C", UserID: "usr_2", Role: redirects.RoleOwner})
		}
		return redirects.UserPrincipal(u, ms)
	}
	token := func(orgID string, role redirects.Role) redirects.Principal {
		tok, _ := redirects.NewManagementToken(orgID, role, "ci", "usr_1", time.Now(), 0)
		return redirects.TokenPrincipal(tok)
	}
	disabled := func() redirects.Principal {
		now := time.Now()
		u := &redirects.User{ID: "usr_1", Operator: true, DisabledAt: &now}
		return redirects.UserPrincipal(u, []*redirects.Membership{{OrgID: org, UserID: "usr_1", Role: redirects.RoleOwner}})
	}
	principals := []struct {
		name string
		p    redirects.Principal
	}{
		{"owner", user(false, redirects.RoleOwner)},
		{"editor", user(false, redirects.RoleEditor)},
		{"viewer", user(false, redirects.RoleViewer)},
		{"non-member", user(false, "")},
		{"operator", user(true, "")},
		{"operator+viewer", user(true, redirects.RoleViewer)},
		{"token:owner", token(org, redirects.RoleOwner)},
		{"token:editor", token(org, redirects.RoleEditor)},
		{"token:viewer", token(org, redirects.RoleViewer)},
		{"token:other-org", token("org_B", redirects.RoleOwner)},
		{"disabled-operator-owner", disabled()},
	}
	// Columns in the order of principals.
	table := map[redirects.Action]string{
		redirects.ActionRead:              "ok  ok  ok  404 ok  ok  ok  ok  ok  404 404",
		redirects.ActionEditRules:         "ok  ok  403 404 403 403 ok  ok  403 404 404",
		redirects.ActionDeploy:            "ok  ok  403 404 403 403 ok  ok  403 404 404",
		redirects.ActionManageProjects:    "ok  403 403 404 403 403 ok  403 403 404 404",
		redirects.ActionManageKeys:        "ok  403 403 404 403 403 ok  403 403 404 404",
		redirects.ActionManageMembers:     "ok  403 403 404 ok  ok  ok  403 403 404 404",
		redirects.ActionManageTokens:      "ok  403 403 404 403 403 ok  403 403 404 404",
		redirects.ActionManageWebhooks:    "ok  403 403 404 403 403 ok  403 403 404 404",
		redirects.ActionCreateViewerToken: "ok  ok  ok  404 403 ok  403 403 403 404 404",
		redirects.ActionCreateEditorToken: "ok  ok  403 404 403 403 403 403 403 404 404",
		redirects.ActionCreateOwnerToken:  "ok  403 403 404 403 403 403 403 403 404 404",
		redirects.ActionManageOrgs:        "403 403 403 404 ok  ok  403 403 403 404 404",
		redirects.ActionManageUsers:       "403 403 403 404 ok  ok  403 403 403 404 404",
	}
	if got, want := len(redirects.Actions()), len(table); got != want {
		t.Fatalf("Authorize knows %d actions, the test table %d: add the new ones here and to docs/accounts.md", got, want)
	}
	for _, a := range redirects.Actions() {
		row, ok := table[a]
		if !ok {
			t.Errorf("action %s has no row in the test table", a)
			continue
		}
		want := strings.Fields(row)
		if len(want) != len(principals) {
			t.Fatalf("row %s has %d columns, want %d", a, len(want), len(principals))
		}
		for i, pr := range principals {
			err := redirects.Authorize(pr.p, org, a)
			if got := outcome(err); got != want[i] {
				t.Errorf("Authorize(%s, %s, %s) = %s (%v), want %s", pr.name, org, a, got, err, want[i])
			}
		}
	}
}

func outcome(err error) string {
	switch redirects.ErrorCode(err) {
	case "":
		return "ok"
	case redirects.EFORBIDDEN:
		return "403"
	case redirects.ENOTFOUND:
		return "404"
	}
	return fmt.Sprintf("error %q", redirects.ErrorCode(err))
}

// TestAuthorizeService covers actions on the whole service (no
// organization), unknown actions and the messages.
func TestAuthorizeService(t *testing.T) {
	op := redirects.UserPrincipal(&redirects.User{ID: "usr_1", Operator: true}, nil)
	owner := redirects.UserPrincipal(&redirects.User{ID: "usr_2"}, []*redirects.Membership{{OrgID: "org_A", UserID: "usr_2", Role: redirects.RoleOwner}})
	for _, a := range []redirects.Action{redirects.ActionManageOrgs, redirects.ActionManageUsers} {
		if err := redirects.Authorize(op, "", a); err != nil {
			t.Errorf("operator, %s on the service: %v, want allowed", a, err)
		}
		err := redirects.Authorize(owner, "", a)
		if redirects.ErrorCode(err) != redirects.EFORBIDDEN || !strings.Contains(err.Error(), "only operators") {
			t.Errorf("owner, %s on the service: %v, want EFORBIDDEN saying only operators may", a, err)
		}
	}
	if err := redirects.Authorize(owner, "", redirects.ActionRead); redirects.ErrorCode(err) != redirects.EFORBIDDEN {
		t.Errorf("owner, read with no organization: %v, want EFORBIDDEN", err)
	}
	if err := redirects.Authorize(op, "org_A", "rules.explode"); redirects.ErrorCode(err) != redirects.EINTERNAL {
		t.Errorf("unknown action: %v, want EINTERNAL", err)
	}
	// Another organization reads as a missing one, with a store's words.
	err := redirects.Authorize(owner, "org_B", redirects.ActionRead)
	if got, want := redirects.ErrorMessage(err), `organization "org_B" not found`; got != want {
		t.Errorf("other organization: message %q, want %q", got, want)
	}
	viewer := redirects.UserPrincipal(&redirects.User{ID: "usr_3"}, []*redirects.Membership{{OrgID: "org_A", UserID: "usr_3", Role: redirects.RoleViewer}})
	err = redirects.Authorize(viewer, "org_A", redirects.ActionDeploy)
	if msg := redirects.ErrorMessage(err); !strings.Contains(msg, "viewer") || !strings.Contains(msg, "editor") {
		t.Errorf("viewer deploying: %q, want the role held and the role needed", msg)
	}
	if a := redirects.CreateTokenAction("admin"); a != "" {
		t.Errorf("CreateTokenAction(admin) = %q, want none", a)
	}
	for _, r := range redirects.Roles {
		if err := redirects.Authorize(owner, "org_A", redirects.CreateTokenAction(r)); err != nil {
			t.Errorf("owner creating a %s token: %v", r, err)
		}
	}
}

func TestRoles(t *testing.T) {
	for _, tc := range []struct {
		r, min redirects.Role
		want   bool
	}{
		{redirects.RoleOwner, redirects.RoleEditor, true},
		{redirects.RoleEditor, redirects.RoleEditor, true},
		{redirects.RoleViewer, redirects.RoleEditor, false},
		{redirects.RoleEditor, redirects.RoleOwner, false},
		{"admin", redirects.RoleViewer, false},
	} {
		if got := tc.r.AtLeast(tc.min); got != tc.want {
			t.Errorf("%q.AtLeast(%q) = %v, want %v", tc.r, tc.min, got, tc.want)
		}
	}
	if _, err := redirects.ParseRole("Owner"); redirects.ErrorCode(err) != redirects.EINVALID || !strings.Contains(err.Error(), "owner, editor, viewer") {
		t.Errorf("ParseRole(Owner) = %v, want EINVALID listing the roles", err)
	}
	if r, err := redirects.ParseRole("editor"); err != nil || r != redirects.RoleEditor {
		t.Errorf("ParseRole(editor) = %q, %v", r, err)
	}
}
