package manage

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"redirects"
	"redirects/export"
	"redirects/service"
)

// docGrant is one line of the role table of docs/manage.md and docs/accounts.md,
// written out here rather than read from redirects.Authorize, so a route
// that authorizes the wrong action, or a table that drifts from the docs,
// makes TestAuthorizationMatrix fail.
type docGrant struct {
	// min is the least role that may; "" for operators only.
	min redirects.Role
	// operators may in every organization, member or not.
	operators bool
	// usersOnly refuses management tokens.
	usersOnly bool
}

var docGrants = map[string]docGrant{
	"read":                 {min: redirects.RoleViewer, operators: true},
	"rules.edit":           {min: redirects.RoleEditor},
	"deploy":               {min: redirects.RoleEditor},
	"projects.manage":      {min: redirects.RoleOwner},
	"keys.manage":          {min: redirects.RoleOwner},
	"members.manage":       {min: redirects.RoleOwner, operators: true},
	"tokens.manage":        {min: redirects.RoleOwner},
	"tokens.create.viewer": {min: redirects.RoleViewer, usersOnly: true},
	"orgs.manage":          {operators: true},
	"webhooks.manage":      {min: redirects.RoleOwner},
}

// docRouteActions is the route table of docs/manage.md: the action each
// route authorizes, as the matrix calls it. "public" needs no caller,
// "session" any caller (a token has no session: 404), "list" any caller
// (each sees their own organizations). The matrix creates viewer tokens
// (tokens.create.viewer) and revokes tokens the caller did not create
// (tokens.manage).
var docRouteActions = map[string]string{
	"POST /manage/v1/session":   "public",
	"GET /manage/v1/session":    "session",
	"DELETE /manage/v1/session": "session",
	// A password change needs a session and the current password: the
	// matrix sends a wrong one, so a session reaches the check (401) and
	// nothing changes; a token is refused (403).
	"POST /manage/v1/session/password": "password",

	"GET /manage/v1/orgs":          "list",
	"POST /manage/v1/orgs":         "orgs.manage",
	"GET /manage/v1/orgs/{org}":    "read",
	"PATCH /manage/v1/orgs/{org}":  "orgs.manage",
	"DELETE /manage/v1/orgs/{org}": "orgs.manage",

	"GET /manage/v1/orgs/{org}/members":                                        "read",
	"POST /manage/v1/orgs/{org}/members":                                       "members.manage",
	"PATCH /manage/v1/orgs/{org}/members/{user}":                               "members.manage",
	"DELETE /manage/v1/orgs/{org}/members/{user}":                              "members.manage",
	"GET /manage/v1/orgs/{org}/tokens":                                         "read",
	"POST /manage/v1/orgs/{org}/tokens":                                        "tokens.create.viewer",
	"DELETE /manage/v1/orgs/{org}/tokens/{id}":                                 "tokens.manage",
	"GET /manage/v1/orgs/{org}/projects":                                       "read",
	"POST /manage/v1/orgs/{org}/projects":                                      "projects.manage",
	"GET /manage/v1/projects/{project}":                                        "read",
	"PATCH /manage/v1/projects/{project}":                                      "projects.manage",
	"DELETE /manage/v1/projects/{project}":                                     "projects.manage",
	"GET /manage/v1/projects/{project}/rules":                                  "read",
	"POST /manage/v1/projects/{project}/rules":                                 "rules.edit",
	"DELETE /manage/v1/projects/{project}/rules":                               "rules.edit",
	"GET /manage/v1/projects/{project}/rules/{id}":                             "read",
	"PATCH /manage/v1/projects/{project}/rules/{id}":                           "rules.edit",
	"DELETE /manage/v1/projects/{project}/rules/{id}":                          "rules.edit",
	"GET /manage/v1/projects/{project}/rules.csv":                              "read",
	"POST /manage/v1/projects/{project}/imports":                               "rules.edit",
	"POST /manage/v1/projects/{project}/imports/{id}/undo":                     "rules.edit",
	"GET /manage/v1/projects/{project}/rules-export":                           "read",
	"GET /manage/v1/projects/{project}/chains":                                 "read",
	"POST /manage/v1/projects/{project}/chains/flatten":                        "rules.edit",
	"GET /manage/v1/projects/{project}/deployments":                            "read",
	"POST /manage/v1/projects/{project}/deployments":                           "deploy",
	"POST /manage/v1/projects/{project}/deployments/{version}/promote":         "deploy",
	"DELETE /manage/v1/projects/{project}/deployments/{version}":               "deploy",
	"GET /manage/v1/projects/{project}/deploy-check":                           "read",
	"GET /manage/v1/projects/{project}/deployments/{version}/rules.csv":        "read",
	"GET /manage/v1/projects/{project}/deployments/{version}/exports/{format}": "read",
	"GET /manage/v1/projects/{project}/tests":                                  "read",
	"PUT /manage/v1/projects/{project}/tests":                                  "deploy",
	"DELETE /manage/v1/projects/{project}/tests":                               "deploy",
	"GET /manage/v1/projects/{project}/diff":                                   "read",
	"GET /manage/v1/projects/{project}/lookup":                                 "read",
	"GET /manage/v1/projects/{project}/keys":                                   "read",
	"GET /manage/v1/projects/{project}/hits":                                   "read",
	"GET /manage/v1/projects/{project}/misses":                                 "read",
	"GET /manage/v1/projects/{project}/agents":                                 "read",
	"DELETE /manage/v1/projects/{project}/agents":                              "rules.edit",
	"POST /manage/v1/projects/{project}/destination-checks":                    "rules.edit",
	"GET /manage/v1/projects/{project}/destination-checks":                     "read",
	"GET /manage/v1/projects/{project}/destination-checks/{id}":                "read",
	"DELETE /manage/v1/projects/{project}/misses":                              "rules.edit",
	"POST /manage/v1/projects/{project}/misses/rule":                           "rules.edit",
	"POST /manage/v1/projects/{project}/keys":                                  "keys.manage",
	"DELETE /manage/v1/projects/{project}/keys/{id}":                           "keys.manage",
	"POST /manage/v1/projects/{project}/revoke-key":                            "keys.manage",
	"GET /manage/v1/orgs/{org}/usage":                                          "read",
	"GET /manage/v1/orgs/{org}/audit":                                          "read",

	"GET /manage/v1/orgs/{org}/webhooks":                                       "read",
	"POST /manage/v1/orgs/{org}/webhooks":                                      "webhooks.manage",
	"PATCH /manage/v1/orgs/{org}/webhooks/{id}":                                "webhooks.manage",
	"DELETE /manage/v1/orgs/{org}/webhooks/{id}":                               "webhooks.manage",
	"POST /manage/v1/orgs/{org}/webhooks/{id}/test":                            "webhooks.manage",
	"POST /manage/v1/orgs/{org}/webhooks/{id}/secret":                          "webhooks.manage",
	"GET /manage/v1/orgs/{org}/webhooks/{id}/deliveries":                       "read",
	"POST /manage/v1/orgs/{org}/webhooks/{id}/deliveries/{delivery}/redeliver": "webhooks.manage",

	"GET /manage/v1/projects/{project}/suggestions":          "read",
	"POST /manage/v1/projects/{project}/suggestions":         "rules.edit",
	"POST /manage/v1/projects/{project}/suggestions/accept":  "rules.edit",
	"POST /manage/v1/projects/{project}/suggestions/dismiss": "rules.edit",
}

// principal is a kind of caller of the matrix.
type principal struct {
	name string
	anon bool
	// operator: an operator with no role in the organization.
	operator bool
	token    bool
	// role in the organization addressed; other: in another organization.
	role  redirects.Role
	other bool
}

// expect returns the status class docs/manage.md gives principal p for a
// route authorizing action; addresses tells whether the route addresses
// an organization's objects.
func expect(action string, addresses bool, p principal) int {
	if action == "public" {
		return 200
	}
	if p.anon {
		return 401
	}
	switch action {
	case "session":
		if p.token {
			return 404
		}
		return 200
	case "password":
		if p.token {
			return 403
		}
		return 401
	case "list":
		return 200
	}
	g, ok := docGrants[action]
	if !ok {
		panic("no documented grant for " + action)
	}
	member := p.role != "" && !p.other
	switch {
	case addresses && !member && !p.operator:
		return 404
	case p.operator && g.operators:
		return 200
	case g.min == "", !member, g.usersOnly && p.token, !p.role.AtLeast(g.min):
		return 403
	}
	return 200
}

// TestAuthorizationMatrix calls every route of the route table as every
// kind of caller: an operator with no role, a session and a token of each
// role, a session and a token of another organization, and nobody. Each
// answer's class (2xx, 401, 403, 404) must be the one the documented role
// table gives; a refused call must change nothing (the organization, its
// projects, rules, keys, deployments, members, tokens and audit log are
// as they were); an allowed change must add an audit entry naming the
// caller; and another organization's caller must get, for every route
// addressing an object, the very answer a missing object gets.
func TestAuthorizationMatrix(t *testing.T) { runSuite(t, testAuthorizationMatrix) }

func testAuthorizationMatrix(t *testing.T, open newStoreFunc) {
	e := newEnv(t, open, false, nil)
	ctx := e.ctx
	a, b := e.newOrg("Alpha"), e.newOrg("Bravo")
	opUser, _ := e.user("operator@example.com", true)
	loginUser, loginPW := e.user("login@example.com", false)

	principals := []principal{
		{name: "anonymous", anon: true},
		{name: "operator", operator: true},
		{name: "owner session", role: redirects.RoleOwner},
		{name: "editor session", role: redirects.RoleEditor},
		{name: "viewer session", role: redirects.RoleViewer},
		{name: "owner token", role: redirects.RoleOwner, token: true},
		{name: "editor token", role: redirects.RoleEditor, token: true},
		{name: "viewer token", role: redirects.RoleViewer, token: true},
		{name: "other org's owner session", role: redirects.RoleOwner, other: true},
		{name: "other org's owner token", role: redirects.RoleOwner, token: true, other: true},
	}
	// caller returns a new client for p, with a session or token of its
	// own, so a cell that ends its session or revokes its token leaves the
	// others be.
	caller := func(p principal, target *org) *client {
		o := target
		if p.other {
			o = b
		}
		switch {
		case p.anon:
			return e.anon()
		case p.operator:
			return e.session(opUser)
		case p.token:
			_, secret := e.token(o.org.ID, p.role, p.name, 0)
			return e.withToken(secret)
		}
		return e.session(o.users[p.role])
	}

	n := 0
	uniq := func() int { n++; return n }
	type call struct {
		path string
		body any
	}
	// fixture builds the call of one cell at organization o, with fresh
	// objects for the routes that change or remove one.
	fixture := func(key string, o *org) call {
		obase := "/manage/v1/orgs/" + o.org.ID
		pbase := "/manage/v1/projects/" + o.project.ID
		switch key {
		case "POST /manage/v1/session":
			return call{"/manage/v1/session", map[string]any{"email": loginUser.Email, "password": loginPW}}
		case "GET /manage/v1/session", "DELETE /manage/v1/session":
			return call{"/manage/v1/session", nil}
		case "POST /manage/v1/session/password":
			return call{"/manage/v1/session/password", map[string]any{"currentPassword": "not the password", "newPassword": "a new password, long enough"}}
		case "GET /manage/v1/orgs":
			return call{"/manage/v1/orgs", nil}
		case "POST /manage/v1/orgs":
			return call{"/manage/v1/orgs", map[string]any{"name": fmt.Sprintf("New %d", uniq()), "tier": "free"}}
		case "GET /manage/v1/orgs/{org}":
			return call{obase, nil}
		case "PATCH /manage/v1/orgs/{org}":
			return call{obase, map[string]any{"tier": "pro"}}
		case "DELETE /manage/v1/orgs/{org}":
			return call{obase, map[string]any{"confirm": o.org.Name}}
		case "GET /manage/v1/orgs/{org}/members":
			return call{obase + "/members", nil}
		case "POST /manage/v1/orgs/{org}/members":
			u, _ := e.user(fmt.Sprintf("add%d@example.com", uniq()), false)
			return call{obase + "/members", map[string]any{"email": u.Email, "role": "viewer"}}
		case "PATCH /manage/v1/orgs/{org}/members/{user}", "DELETE /manage/v1/orgs/{org}/members/{user}":
			u, _ := e.user(fmt.Sprintf("member%d@example.com", uniq()), false)
			if err := e.store.SetMember(ctx, &redirects.Membership{OrgID: o.org.ID, UserID: u.ID, Role: redirects.RoleViewer}); err != nil {
				t.Fatal(err)
			}
			if strings.HasPrefix(key, "PATCH") {
				return call{obase + "/members/" + u.ID, map[string]any{"role": "editor"}}
			}
			return call{obase + "/members/" + u.ID, nil}
		case "GET /manage/v1/orgs/{org}/tokens":
			return call{obase + "/tokens", nil}
		case "POST /manage/v1/orgs/{org}/tokens":
			return call{obase + "/tokens", map[string]any{"role": "viewer", "label": "made in the matrix"}}
		case "DELETE /manage/v1/orgs/{org}/tokens/{id}":
			tok, _ := e.token(o.org.ID, redirects.RoleViewer, "victim", 0)
			return call{obase + "/tokens/" + tok.ID, nil}
		case "GET /manage/v1/orgs/{org}/projects":
			return call{obase + "/projects", nil}
		case "POST /manage/v1/orgs/{org}/projects":
			return call{obase + "/projects", map[string]any{"name": fmt.Sprintf("p%d", uniq())}}
		case "GET /manage/v1/projects/{project}":
			return call{pbase, nil}
		case "PATCH /manage/v1/projects/{project}":
			// The shrink limit, which only owners change, with the name.
			return call{pbase, map[string]any{"name": o.project.Name + " renamed", "shrinkLimit": 10 + uniq()%50}}
		case "DELETE /manage/v1/projects/{project}":
			p := &redirects.Project{OrgID: o.org.ID, Name: fmt.Sprintf("doomed%d", uniq())}
			if err := e.store.CreateProject(ctx, p); err != nil {
				t.Fatal(err)
			}
			return call{"/manage/v1/projects/" + p.ID, map[string]any{"confirm": p.Name}}
		case "GET /manage/v1/projects/{project}/rules":
			return call{pbase + "/rules", nil}
		case "POST /manage/v1/projects/{project}/rules":
			return call{pbase + "/rules", map[string]any{"source": fmt.Sprintf("/n%d", uniq()), "destination": "/x"}}
		case "DELETE /manage/v1/projects/{project}/rules":
			src := fmt.Sprintf("/bulk%d", uniq())
			if err := e.store.AddRule(ctx, &redirects.Rule{ProjectID: o.project.ID, Source: src, Destination: "/x", StatusCode: 301, Priority: 100}); err != nil {
				t.Fatal(err)
			}
			return call{pbase + "/rules?q=" + src + "*&confirm=true", nil}
		case "GET /manage/v1/projects/{project}/rules/{id}":
			return call{fmt.Sprintf("%s/rules/%d", pbase, o.rule.ID), nil}
		case "PATCH /manage/v1/projects/{project}/rules/{id}", "DELETE /manage/v1/projects/{project}/rules/{id}":
			r := &redirects.Rule{ProjectID: o.project.ID, Source: fmt.Sprintf("/r%d", uniq()), Destination: "/x", StatusCode: 301, Priority: 100}
			if err := e.store.AddRule(ctx, r); err != nil {
				t.Fatal(err)
			}
			if strings.HasPrefix(key, "PATCH") {
				return call{fmt.Sprintf("%s/rules/%d", pbase, r.ID), map[string]any{"destination": "/y"}}
			}
			return call{fmt.Sprintf("%s/rules/%d", pbase, r.ID), nil}
		case "GET /manage/v1/projects/{project}/rules.csv":
			return call{pbase + "/rules.csv", nil}
		case "POST /manage/v1/projects/{project}/imports":
			return call{pbase + "/imports?mode=append", csvBody(fmt.Sprintf("source,destination,statusCode,matchType\n/imp%d,/x,301,exact\n", uniq()))}
		case "POST /manage/v1/projects/{project}/imports/{id}/undo":
			return call{fmt.Sprintf("%s/imports/%d/undo", pbase, newImportUndo(t, e, o.project.ID)), nil}
		case "GET /manage/v1/projects/{project}/rules-export":
			return call{pbase + "/rules-export?to=csv", nil}
		case "GET /manage/v1/projects/{project}/chains":
			return call{pbase + "/chains", nil}
		case "POST /manage/v1/projects/{project}/chains/flatten":
			// A fresh chain for each call, so that each flattens one.
			n := uniq()
			for _, r := range []redirects.Rule{
				{ProjectID: o.project.ID, Source: fmt.Sprintf("/cha%d", n), Destination: fmt.Sprintf("/chb%d", n), StatusCode: 301, Priority: 100},
				{ProjectID: o.project.ID, Source: fmt.Sprintf("/chb%d", n), Destination: "https://elsewhere.example/", StatusCode: 301, Priority: 100},
			} {
				if err := e.store.AddRule(ctx, &r); err != nil {
					t.Fatal(err)
				}
			}
			return call{pbase + "/chains/flatten", nil}
		case "GET /manage/v1/projects/{project}/deployments":
			return call{pbase + "/deployments", nil}
		case "POST /manage/v1/projects/{project}/deployments":
			return call{pbase + "/deployments", map[string]any{"message": "matrix"}}
		case "POST /manage/v1/projects/{project}/deployments/{version}/promote", "DELETE /manage/v1/projects/{project}/deployments/{version}":
			// A fresh staged version for each call: promoted or discarded.
			d, err := service.DeployUnchecked(ctx, e.store, o.project.ID, redirects.DeployOptions{Stage: true}, export.Build)
			if err != nil {
				t.Fatal(err)
			}
			if strings.HasPrefix(key, "POST") {
				return call{fmt.Sprintf("%s/deployments/%d/promote", pbase, d.Version), nil}
			}
			return call{fmt.Sprintf("%s/deployments/%d", pbase, d.Version), nil}
		case "GET /manage/v1/projects/{project}/deploy-check":
			return call{pbase + "/deploy-check", nil}
		case "GET /manage/v1/projects/{project}/deployments/{version}/rules.csv":
			return call{pbase + "/deployments/1/rules.csv", nil}
		case "GET /manage/v1/projects/{project}/deployments/{version}/exports/{format}":
			return call{pbase + "/deployments/1/exports/nginx", nil}
		case "GET /manage/v1/projects/{project}/tests", "DELETE /manage/v1/projects/{project}/tests":
			if err := e.store.SetProjectTests(ctx, o.project.ID, matrixTests); err != nil {
				t.Fatal(err)
			}
			return call{pbase + "/tests", nil}
		case "PUT /manage/v1/projects/{project}/tests":
			return call{pbase + "/tests", csvBody(fmt.Sprintf("%s/t%d,none,\n", matrixTests, uniq()))}
		case "GET /manage/v1/projects/{project}/diff":
			return call{pbase + "/diff?from=1&to=draft", nil}
		case "GET /manage/v1/projects/{project}/lookup":
			return call{pbase + "/lookup?path=/old", nil}
		case "GET /manage/v1/projects/{project}/keys":
			return call{pbase + "/keys", nil}
		case "GET /manage/v1/projects/{project}/hits":
			return call{pbase + "/hits", nil}
		case "GET /manage/v1/projects/{project}/misses":
			return call{pbase + "/misses", nil}
		case "GET /manage/v1/projects/{project}/agents":
			return call{pbase + "/agents", nil}
		case "POST /manage/v1/projects/{project}/destination-checks":
			// Waited for, so that the next cell does not find it running.
			return call{pbase + "/destination-checks?wait=true", map[string]any{"baseUrl": "https://www.example.com"}}
		case "GET /manage/v1/projects/{project}/destination-checks/{id}":
			cs := e.store.(redirects.CheckStore)
			now := e.clock.Now()
			job := &redirects.CheckJob{ID: redirects.NewCheckJobID(), ProjectID: o.project.ID, Owner: "matrix", LeaseUntil: now.Add(time.Hour),
				BaseURL: "https://www.example.com", StartedAt: now}
			if err := cs.StartCheckJob(ctx, job); err != nil {
				t.Fatal(err)
			}
			if _, err := cs.FinishCheckJob(ctx, job.ID, nil, 0, "made by the matrix"); err != nil {
				t.Fatal(err)
			}
			return call{pbase + "/destination-checks/" + job.ID, nil}
		case "GET /manage/v1/projects/{project}/destination-checks":
			return call{pbase + "/destination-checks", nil}
		case "DELETE /manage/v1/projects/{project}/agents":
			agent := fmt.Sprintf("web-%d", uniq())
			if err := e.store.(redirects.AgentStore).RecordAgents(ctx, []redirects.AgentReport{{ProjectID: o.project.ID, Agent: agent, Format: "nginx", AppliedVersion: 1, SeenAt: e.clock.Now()}}); err != nil {
				t.Fatal(err)
			}
			return call{pbase + "/agents?agent=" + agent, nil}
		case "DELETE /manage/v1/projects/{project}/misses":
			path := fmt.Sprintf("/gone%d", uniq())
			now := e.clock.Now()
			if err := e.store.AddMisses(ctx, []redirects.Miss{{ProjectID: o.project.ID, Path: path, Count: 1, FirstSeen: now, LastSeen: now}}); err != nil {
				t.Fatal(err)
			}
			return call{pbase + "/misses?path=" + path, nil}
		case "GET /manage/v1/projects/{project}/suggestions":
			return call{pbase + "/suggestions", nil}
		case "POST /manage/v1/projects/{project}/suggestions":
			return call{pbase + "/suggestions", map[string]any{"limit": 10}}
		case "POST /manage/v1/projects/{project}/suggestions/accept", "POST /manage/v1/projects/{project}/suggestions/dismiss":
			path := fmt.Sprintf("/suggested%d", uniq())
			g := redirects.Suggestion{ID: redirects.SuggestionID("", path, "/new"), ProjectID: o.project.ID, Path: path, Destination: "/new",
				StatusCode: 301, Kind: redirects.SuggestSitemap, Confidence: 50, Misses: 1, Evidence: "/new", Reason: "a test", State: redirects.SuggestionOpen}
			if err := e.store.(redirects.SuggestionStore).ReplaceSuggestions(ctx, o.project.ID, []redirects.Suggestion{g}); err != nil {
				t.Fatal(err)
			}
			return call{pbase + key[strings.LastIndex(key, "/suggestions"):], map[string]any{"id": g.ID}}
		case "POST /manage/v1/projects/{project}/misses/rule":
			return call{pbase + "/misses/rule", map[string]any{"path": fmt.Sprintf("/miss%d", uniq()), "destination": "/x"}}
		case "POST /manage/v1/projects/{project}/keys":
			return call{pbase + "/keys", map[string]any{"name": "k"}}
		case "DELETE /manage/v1/projects/{project}/keys/{id}":
			k, _ := redirects.NewKey(o.project.ID, "victim", false, e.clock.Now())
			if err := e.store.CreateKey(ctx, k); err != nil {
				t.Fatal(err)
			}
			return call{pbase + "/keys/" + k.ID, nil}
		case "POST /manage/v1/projects/{project}/revoke-key":
			k, secret := redirects.NewKey(o.project.ID, "victim", false, e.clock.Now())
			if err := e.store.CreateKey(ctx, k); err != nil {
				t.Fatal(err)
			}
			return call{pbase + "/revoke-key", map[string]any{"key": secret}}
		case "GET /manage/v1/orgs/{org}/usage":
			return call{obase + "/usage", nil}
		case "GET /manage/v1/orgs/{org}/audit":
			return call{obase + "/audit", nil}
		case "GET /manage/v1/orgs/{org}/webhooks":
			return call{obase + "/webhooks", nil}
		case "POST /manage/v1/orgs/{org}/webhooks":
			return call{obase + "/webhooks", map[string]any{"url": fmt.Sprintf("https://hooks.example.com/%d", uniq()), "actions": []string{"rule.*"}}}
		}
		if strings.HasPrefix(key, "GET /manage/v1/orgs/{org}/webhooks/") || strings.Contains(key, "/webhooks/{id}") {
			ws := e.store.(redirects.WebhookStore)
			ep := redirects.NewWebhookEndpoint(o.org.ID, fmt.Sprintf("https://hooks.example.com/%d", uniq()), nil, nil)
			if err := ws.CreateWebhook(ctx, ep); err != nil {
				t.Fatal(err)
			}
			wbase := obase + "/webhooks/" + ep.ID
			switch key {
			case "PATCH /manage/v1/orgs/{org}/webhooks/{id}":
				return call{wbase, map[string]any{"paused": true}}
			case "DELETE /manage/v1/orgs/{org}/webhooks/{id}", "POST /manage/v1/orgs/{org}/webhooks/{id}/test":
				if strings.HasPrefix(key, "DELETE") {
					return call{wbase, nil}
				}
				return call{wbase + "/test", nil}
			case "POST /manage/v1/orgs/{org}/webhooks/{id}/secret":
				return call{wbase + "/secret", map[string]any{"overlap": "1h"}}
			case "GET /manage/v1/orgs/{org}/webhooks/{id}/deliveries":
				return call{wbase + "/deliveries", nil}
			case "POST /manage/v1/orgs/{org}/webhooks/{id}/deliveries/{delivery}/redeliver":
				did, err := ws.SendWebhookTest(ctx, ep.ID)
				if err != nil {
					t.Fatal(err)
				}
				return call{wbase + "/deliveries/" + did + "/redeliver", nil}
			}
		}
		t.Fatalf("the matrix has no call for route %s", key)
		return call{}
	}
	// missingPath is a call's path with every ID replaced by one that
	// names nothing.
	missingPath := func(path string) string {
		return idInPath.ReplaceAllStringFunc(path, func(s string) string {
			switch {
			case strings.HasPrefix(s, "/org_"):
				return "/org_missing00000000"
			case strings.HasPrefix(s, "/prj_"):
				return "/prj_missing00000000"
			case strings.HasPrefix(s, "/usr_"):
				return "/usr_missing00000000"
			case strings.HasPrefix(s, "/tok_"):
				return "/tok_missing00000000"
			case strings.HasPrefix(s, "/key_"):
				return "/key_missing00000000"
			case strings.HasPrefix(s, "/whk_"):
				return "/whk_missing00000000"
			case strings.HasPrefix(s, "/whd_"):
				return "/whd_missing00000000"
			case strings.HasPrefix(s, "/chk_"):
				return "/chk_missing00000000"
			}
			return "/999999"
		})
	}

	cells, refused := 0, 0
	for _, rt := range (&handler{}).routeTable() {
		key := rt.method + " " + rt.pattern
		action, ok := docRouteActions[key]
		if !ok {
			t.Errorf("route %s has no line in the matrix's role table", key)
			continue
		}
		addresses := strings.Contains(rt.pattern, "{org}") || strings.Contains(rt.pattern, "{project}")
		for _, p := range principals {
			cells++
			target := a
			if key == "DELETE /manage/v1/orgs/{org}" {
				target = e.newOrg(fmt.Sprintf("Doomed%d", uniq()))
			}
			c := caller(p, target)
			cl := fixture(key, target)
			want := expect(action, addresses, p)
			before := e.fingerprint(target)
			auditBefore := auditCount(t, e, target.org.ID)
			r := c.do(rt.method, cl.path, cl.body)
			cell := fmt.Sprintf("%s as %s", r.req, p.name)
			switch {
			case want == 200 && r.status/100 == 2:
			case want == r.status:
			default:
				t.Errorf("%s: %d %s, want %s", cell, r.status, r.body, map[int]string{200: "2xx", 401: "401", 403: "403", 404: "404"}[want])
				continue
			}
			if want != 200 {
				refused++
				code, _ := r.errBody(t)
				if wantCode := map[int]string{401: codeUnauthenticated, 403: "FORBIDDEN", 404: "NOT_FOUND"}[want]; code != wantCode {
					t.Errorf("%s: code %s, want %s", cell, code, wantCode)
				}
				if after := e.fingerprint(target); after != before {
					t.Errorf("%s was refused with %d but changed organization %s:\nbefore %s\nafter  %s", cell, r.status, target.org.Name, before, after)
				}
			}
			if want == 404 && p.other {
				// The very answer of a missing object, IDs aside.
				m := caller(p, target).do(rt.method, missingPath(cl.path), cl.body)
				if m.status != r.status || idInBody.ReplaceAllString(string(m.body), "ID") != idInBody.ReplaceAllString(string(r.body), "ID") {
					t.Errorf("%s: %s; a missing object: %d %s", cell, r.body, m.status, m.body)
				}
				if strings.Contains(string(r.body), a.org.Name) || strings.Contains(string(r.body), a.project.Name) {
					t.Errorf("%s: the 404 names the organization's things: %s", cell, r.body)
				}
			}
			if key == "GET /manage/v1/orgs" && p.other && strings.Contains(string(r.body), a.org.ID) {
				t.Errorf("%s lists organization %s: %s", cell, a.org.ID, r.body)
			}
			// An allowed change is in the audit log, naming its caller.
			if want == 200 && r.status/100 == 2 && !safeMethod(rt.method) && auditedInOrg(key) {
				es, err := e.store.FindAudit(ctx, redirects.AuditFilter{OrgID: target.org.ID, Limit: redirects.MaxAuditLimit})
				if err != nil {
					t.Fatal(err)
				}
				if len(es) <= auditBefore {
					t.Errorf("%s changed something (%d) but wrote no audit entry", cell, r.status)
				} else if kind := es[0].Actor.Kind; (kind == redirects.ActorToken) != p.token {
					t.Errorf("%s: the audit entry's actor is a %s", cell, kind)
				}
			}
		}
	}
	t.Logf("%d routes × %d principals: %d cells, %d refused", len((&handler{}).routeTable()), len(principals), cells, refused)
	if cells != len(docRouteActions)*len(principals) {
		t.Errorf("%d cells; the role table has %d routes × %d principals", cells, len(docRouteActions), len(principals))
	}
}

// matrixTests is the test file the matrix stores: the draft answers it.
const matrixTests = "path,status,destination\n/old,301,/new\n"

// idInPath matches an ID segment of a path; idInBody an ID in an answer.
var (
	idInPath = regexp.MustCompile(`/((org|prj|usr|key|tok|whk|whd|chk)_[A-Za-z0-9]+|\d+)`)
	idInBody = regexp.MustCompile(`"(org|prj|usr|key|tok|whk|whd|chk)_[A-Za-z0-9]+"|"\d+"|\\"(org|prj|usr|key|tok|whk|whd|chk)_[A-Za-z0-9]+\\"|\\"\d+\\"`)
)

// auditedInOrg reports whether a change through the route is recorded in
// the audit log of the organization it addresses: sessions belong to no
// organization, a new organization's entry is its own, and a deleted
// organization's log goes with it.
func auditedInOrg(key string) bool {
	switch key {
	case "POST /manage/v1/session", "DELETE /manage/v1/session", "POST /manage/v1/session/password", "POST /manage/v1/orgs", "DELETE /manage/v1/orgs/{org}":
		return false
	case "POST /manage/v1/orgs/{org}/webhooks/{id}/test", "POST /manage/v1/orgs/{org}/webhooks/{id}/deliveries/{delivery}/redeliver":
		// They send, and change nothing the organization holds.
		return false
	}
	return true
}

// fingerprint describes everything an organization holds, so a refused
// call can be shown to have changed nothing.
func (e *env) fingerprint(o *org) string {
	t, ctx := e.t, e.ctx
	t.Helper()
	var b strings.Builder
	orgs, err := e.store.FindOrgs(ctx)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(&b, "orgs=%d ", len(orgs))
	got, err := e.store.FindOrgByID(ctx, o.org.ID)
	if redirects.ErrorCode(err) == redirects.ENOTFOUND {
		return b.String() + "gone"
	} else if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(&b, "org=%s/%s/%v/%v ", got.Name, got.Tier, got.RateLimit(), got.MonthlyQuota())
	ps, err := e.store.FindProjects(ctx, o.org.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ps {
		tests, err := e.store.FindProjectTests(ctx, p.ID)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "project=%s/%s/%v/%d/%d/tests:%q[", p.ID, p.Name, p.Hosts, p.ExportRetention, p.ShrinkLimit, tests)
		rules, err := e.store.FindRules(ctx, p.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rules {
			fmt.Fprintf(&b, "rule=%d/%s/%s/%d ", r.ID, r.Source, r.Destination, r.Revision)
		}
		ks, err := e.store.FindKeys(ctx, p.ID)
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range ks {
			fmt.Fprintf(&b, "key=%s/%v ", k.ID, k.RevokedAt != nil)
		}
		ds, err := e.store.FindDeployments(ctx, p.ID)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "deployments=%d] ", len(ds))
	}
	ms, err := e.store.FindMembers(ctx, o.org.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range ms {
		fmt.Fprintf(&b, "member=%s/%s ", m.UserID, m.Role)
	}
	ts, err := e.store.FindTokens(ctx, o.org.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, tok := range ts {
		fmt.Fprintf(&b, "token=%s/%v ", tok.ID, tok.RevokedAt != nil)
	}
	fmt.Fprintf(&b, "audit=%d", auditCount(t, e, o.org.ID))
	return b.String()
}
