package redirects

import "context"

// Action is something a principal asks to do in an organization. Every
// route of the management API names one; Authorize decides.
type Action string

// The actions, with the least role that may do each (see grants).
const (
	// ActionRead reads an organization and everything in it: projects,
	// draft rules, deployments, exports, members, key and token metadata,
	// the audit log. Viewers and above; operators in every organization.
	ActionRead Action = "read"
	// ActionEditRules adds, imports and deletes draft rules. Editors and
	// above.
	ActionEditRules Action = "rules.edit"
	// ActionDeploy deploys a project and rolls it back. Editors and above.
	ActionDeploy Action = "deploy"
	// ActionManageProjects creates and changes projects. Owners.
	ActionManageProjects Action = "projects.manage"
	// ActionManageKeys creates and revokes edge API keys. Owners.
	ActionManageKeys Action = "keys.manage"
	// ActionManageMembers adds members, changes their roles and removes
	// them. Owners; operators in every organization, so they can give a
	// new organization its first owner.
	ActionManageMembers Action = "members.manage"
	// ActionManageTokens revokes any management token of the organization.
	// Owners.
	ActionManageTokens Action = "tokens.manage"
	// ActionManageWebhooks creates, pauses, resumes, tests and deletes the
	// organization's webhook endpoints, rotates their secrets and sends
	// deliveries again. Owners: an endpoint receives every entry of the
	// audit log it subscribes to.
	ActionManageWebhooks Action = "webhooks.manage"
	// ActionCreateViewerToken, ActionCreateEditorToken and
	// ActionCreateOwnerToken create a management token with that role: a
	// member may create tokens at or below their own role, never above.
	// Only users may: a token cannot mint another token, so a leaked token
	// cannot outlive its own revocation or expiry. See CreateTokenAction.
	ActionCreateViewerToken Action = "tokens.create.viewer"
	ActionCreateEditorToken Action = "tokens.create.editor"
	ActionCreateOwnerToken  Action = "tokens.create.owner"
	// ActionManageOrgs creates organizations and changes their names,
	// tiers and limit overrides. Operators only.
	ActionManageOrgs Action = "orgs.manage"
	// ActionManageUsers creates, lists and disables users and resets their
	// passwords across the service. Operators only.
	ActionManageUsers Action = "users.manage"
)

// grant says who may do an action.
type grant struct {
	// what names the action in messages: "may not <what>".
	what string
	// min is the least role in the organization that may do it; "" for
	// operator-only actions.
	min Role
	// operators may do it in any organization, member or not.
	operators bool
	// usersOnly refuses management tokens whatever their role.
	usersOnly bool
}

// grants is the authorization table: every action, and who may do it.
var grants = map[Action]grant{
	ActionRead:              {what: "read this organization", min: RoleViewer, operators: true},
	ActionEditRules:         {what: "edit rules", min: RoleEditor},
	ActionDeploy:            {what: "deploy", min: RoleEditor},
	ActionManageProjects:    {what: "manage projects", min: RoleOwner},
	ActionManageKeys:        {what: "manage API keys", min: RoleOwner},
	ActionManageMembers:     {what: "manage members", min: RoleOwner, operators: true},
	ActionManageTokens:      {what: "manage management tokens", min: RoleOwner},
	ActionManageWebhooks:    {what: "manage webhooks", min: RoleOwner},
	ActionCreateViewerToken: {what: "create viewer tokens", min: RoleViewer, usersOnly: true},
	ActionCreateEditorToken: {what: "create editor tokens", min: RoleEditor, usersOnly: true},
	ActionCreateOwnerToken:  {what: "create owner tokens", min: RoleOwner, usersOnly: true},
	ActionManageOrgs:        {what: "manage organizations, tiers and limits", operators: true},
	ActionManageUsers:       {what: "manage users", operators: true},
}

// Actions returns every action Authorize knows, for tests that walk them.
func Actions() []Action {
	out := make([]Action, 0, len(grants))
	for a := range grants {
		out = append(out, a)
	}
	return out
}

// CreateTokenAction returns the action of creating a management token with
// role r, or "" for an unknown role (which Authorize refuses).
func CreateTokenAction(r Role) Action {
	switch r {
	case RoleOwner:
		return ActionCreateOwnerToken
	case RoleEditor:
		return ActionCreateEditorToken
	case RoleViewer:
		return ActionCreateViewerToken
	}
	return ""
}

// Principal is who asks, as authorization sees it: a user (operator or not,
// with a role in each organization they belong to) or a management token
// (one role in one organization). Make one with UserPrincipal or
// TokenPrincipal.
type Principal struct {
	// Local is set for the command line run against the database itself
	// (--db): whoever can open the database file or its URL may do
	// anything, so it is authorized for every action everywhere. Only
	// LocalPrincipal sets it; no request of the management API or the
	// dashboard ever carries it.
	Local bool
	// Token is set for a management token.
	Token bool
	// Operator is set for a user who operates the service.
	Operator bool
	// Roles maps organization IDs to the principal's role in each.
	Roles map[string]Role
}

// UserPrincipal returns the principal of user u with memberships ms (those
// of other users are ignored). A disabled user, or nil, may do nothing.
func UserPrincipal(u *User, ms []*Membership) Principal {
	if u == nil || u.Disabled() {
		return Principal{}
	}
	p := Principal{Operator: u.Operator, Roles: make(map[string]Role, len(ms))}
	for _, m := range ms {
		if m.UserID == u.ID {
			p.Roles[m.OrgID] = m.Role
		}
	}
	return p
}

// TokenPrincipal returns the principal of a management token: its role in
// its organization, nothing elsewhere. The caller has checked that the token
// is active (see ManagementToken.Active); the store revokes the tokens a
// member created when the member is removed, demoted below the token's role
// or disabled.
func TokenPrincipal(t *ManagementToken) Principal {
	return Principal{Token: true, Roles: map[string]Role{t.OrgID: t.Role}}
}

// Authorize decides whether principal p may do action a in organization
// orgID ("" for actions on the whole service, such as creating an
// organization or a user). It is the one place that decides, and every
// route of the management API calls it.
//
// It returns nil when allowed. A principal with no role in orgID (and not
// an operator) gets ENOTFOUND, with the message a store gives for a missing
// organization, so the objects of another organization cannot be told from
// missing ones. A principal that may see the organization but whose role is
// too low gets EFORBIDDEN, naming the role needed. An unknown action is an
// EINTERNAL error: a route that names no action from the table is a bug.
func Authorize(p Principal, orgID string, a Action) error {
	g, ok := grants[a]
	if !ok {
		return Errorf(EINTERNAL, "authorize: unknown action %q", a)
	}
	role, member := p.Roles[orgID]
	member = member && orgID != ""
	switch {
	case p.Local:
		return nil
	case p.Operator && g.operators:
		return nil
	case !member && !p.Operator && orgID != "":
		return Errorf(ENOTFOUND, "organization %q not found", orgID)
	case g.min == "":
		return Errorf(EFORBIDDEN, "only operators may %s", g.what)
	case !member && orgID == "":
		return Errorf(EFORBIDDEN, "%s needs an organization", a)
	case !member:
		return Errorf(EFORBIDDEN, "operators need a role in organization %s to %s", orgID, g.what)
	case g.usersOnly && p.Token:
		return Errorf(EFORBIDDEN, "management tokens may not %s: a user must", g.what)
	case !role.AtLeast(g.min):
		return Errorf(EFORBIDDEN, "role %s may not %s in organization %s: it needs %s or above", role, g.what, orgID, g.min)
	}
	return nil
}

// LocalPrincipal is the principal of the command line run against the
// database (--db): it may do anything (see Principal.Local).
func LocalPrincipal() Principal { return Principal{Local: true} }

type principalKey struct{}

// WithPrincipal returns a context that carries p: the front doors put the
// caller's principal in the context of every service call, next to its
// Actor, and the service layer authorizes from it.
func WithPrincipal(ctx context.Context, p Principal) context.Context {
	return context.WithValue(ctx, principalKey{}, p)
}

// PrincipalFrom returns the principal ctx carries, or the zero principal,
// which may do nothing, when it carries none.
func PrincipalFrom(ctx context.Context) Principal {
	p, _ := ctx.Value(principalKey{}).(Principal)
	return p
}
