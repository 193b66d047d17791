package manage

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"redirects"
	"redirects/api"
	"redirects/export"
	"redirects/service"
)

// TestRoles calls every route that changes something, and some that read,
// as each role: below the route's role the answer is 403 FORBIDDEN and
// nothing changes; at or above it, the call succeeds.
func TestRoles(t *testing.T) { runSuite(t, testRoles) }

func testRoles(t *testing.T, open newStoreFunc) {
	e := newEnv(t, open, false, nil)
	a := e.newOrg("A")
	ctx := e.ctx
	pbase := "/manage/v1/projects/" + a.project.ID
	obase := "/manage/v1/orgs/" + a.org.ID
	n := 0
	uniq := func() int { n++; return n }
	newRule := func() int64 {
		r := &redirects.Rule{ProjectID: a.project.ID, Source: fmt.Sprintf("/r%d", uniq()), Destination: "/x", StatusCode: 301, Priority: 100}
		if err := e.store.AddRule(ctx, r); err != nil {
			t.Fatal(err)
		}
		return r.ID
	}
	newStaged := func() int {
		d, err := service.DeployUnchecked(ctx, e.store, a.project.ID, redirects.DeployOptions{Stage: true}, export.Build)
		if err != nil {
			t.Fatal(err)
		}
		return d.Version
	}
	newKey := func() string {
		k, _ := redirects.NewKey(a.project.ID, "k", false, e.clock.Now())
		if err := e.store.CreateKey(ctx, k); err != nil {
			t.Fatal(err)
		}
		return k.ID
	}
	// newWebhook returns the path of a new endpoint of a; newDelivery that
	// of a delivery of one.
	newWebhook := func(obase string) string {
		ep := redirects.NewWebhookEndpoint(a.org.ID, "https://hooks.example.com/in", nil, nil)
		if err := e.store.(redirects.WebhookStore).CreateWebhook(ctx, ep); err != nil {
			t.Fatal(err)
		}
		return obase + "/webhooks/" + ep.ID
	}
	newDelivery := func(obase string) string {
		w := newWebhook(obase)
		did, err := e.store.(redirects.WebhookStore).SendWebhookTest(ctx, w[strings.LastIndex(w, "/")+1:])
		if err != nil {
			t.Fatal(err)
		}
		return w + "/deliveries/" + did
	}
	newMember := func() string {
		u, _ := e.user(fmt.Sprintf("m%d-%s@example.com", uniq(), randomHex(3)), false)
		if err := e.store.SetMember(ctx, &redirects.Membership{OrgID: a.org.ID, UserID: u.ID, Role: redirects.RoleViewer}); err != nil {
			t.Fatal(err)
		}
		return u.ID
	}
	newProject := func() string {
		p := &redirects.Project{OrgID: a.org.ID, Name: "doomed"}
		if err := e.store.CreateProject(ctx, p); err != nil {
			t.Fatal(err)
		}
		return p.ID
	}
	newMiss := func() string {
		path := fmt.Sprintf("/gone%d", uniq())
		now := e.clock.Now()
		if err := e.store.AddMisses(ctx, []redirects.Miss{{ProjectID: a.project.ID, Path: path, Count: 1, FirstSeen: now, LastSeen: now}}); err != nil {
			t.Fatal(err)
		}
		return path
	}
	// newSuggestion stores an open suggestion of the project (each call
	// replaces the open ones) and returns its ID.
	newSuggestion := func() string {
		path := fmt.Sprintf("/suggested%d", uniq())
		g := redirects.Suggestion{ID: redirects.SuggestionID("", path, "/new"), ProjectID: a.project.ID, Path: path, Destination: "/new",
			StatusCode: 301, Kind: redirects.SuggestSitemap, Confidence: 50, Misses: 1, Evidence: "/new", Reason: "a test", State: redirects.SuggestionOpen}
		if err := e.store.(redirects.SuggestionStore).ReplaceSuggestions(ctx, a.project.ID, []redirects.Suggestion{g}); err != nil {
			t.Fatal(err)
		}
		return g.ID
	}
	type call struct {
		method, path string
		body         any
	}
	if err := e.store.SetProjectTests(ctx, a.project.ID, "path,status,destination\n/old,301,/new\n"); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		// min is the least role that may; "" for operators only.
		min  redirects.Role
		call func() call
	}{
		{"read org", redirects.RoleViewer, func() call { return call{"GET", obase, nil} }},
		{"list members", redirects.RoleViewer, func() call { return call{"GET", obase + "/members", nil} }},
		{"list tokens", redirects.RoleViewer, func() call { return call{"GET", obase + "/tokens", nil} }},
		{"list projects", redirects.RoleViewer, func() call { return call{"GET", obase + "/projects", nil} }},
		{"usage", redirects.RoleViewer, func() call { return call{"GET", obase + "/usage", nil} }},
		{"audit", redirects.RoleViewer, func() call { return call{"GET", obase + "/audit", nil} }},
		{"read project", redirects.RoleViewer, func() call { return call{"GET", pbase, nil} }},
		{"list rules", redirects.RoleViewer, func() call { return call{"GET", pbase + "/rules", nil} }},
		{"read rule", redirects.RoleViewer, func() call { return call{"GET", fmt.Sprintf("%s/rules/%d", pbase, a.rule.ID), nil} }},
		{"rules.csv", redirects.RoleViewer, func() call { return call{"GET", pbase + "/rules.csv", nil} }},
		{"deployments", redirects.RoleViewer, func() call { return call{"GET", pbase + "/deployments", nil} }},
		{"lookup", redirects.RoleViewer, func() call { return call{"GET", pbase + "/lookup?path=/old", nil} }},
		{"deploy check", redirects.RoleViewer, func() call { return call{"GET", pbase + "/deploy-check", nil} }},
		{"version rules.csv", redirects.RoleViewer, func() call { return call{"GET", pbase + "/deployments/1/rules.csv", nil} }},
		{"version export", redirects.RoleViewer, func() call { return call{"GET", pbase + "/deployments/1/exports/csv", nil} }},
		{"read tests", redirects.RoleViewer, func() call { return call{"GET", pbase + "/tests", nil} }},
		{"list keys", redirects.RoleViewer, func() call { return call{"GET", pbase + "/keys", nil} }},
		{"hits", redirects.RoleViewer, func() call { return call{"GET", pbase + "/hits", nil} }},
		{"misses", redirects.RoleViewer, func() call { return call{"GET", pbase + "/misses", nil} }},
		{"agents", redirects.RoleViewer, func() call { return call{"GET", pbase + "/agents", nil} }},
		{"forget agents", redirects.RoleEditor, func() call { return call{"DELETE", pbase + "/agents?agent=web-1", nil} }},
		{"destination checks", redirects.RoleViewer, func() call { return call{"GET", pbase + "/destination-checks", nil} }},
		{"read a destination check", redirects.RoleViewer, func() call {
			cs := e.store.(redirects.CheckStore)
			now := e.clock.Now()
			job := &redirects.CheckJob{ID: redirects.NewCheckJobID(), ProjectID: a.project.ID, Owner: "roles", LeaseUntil: now.Add(time.Hour),
				BaseURL: "https://www.example.com", StartedAt: now}
			if err := cs.StartCheckJob(ctx, job); err != nil {
				t.Fatal(err)
			}
			if _, err := cs.FinishCheckJob(ctx, job.ID, nil, 0, "made by the role test"); err != nil {
				t.Fatal(err)
			}
			return call{"GET", pbase + "/destination-checks/" + job.ID, nil}
		}},
		{"check destinations", redirects.RoleEditor, func() call {
			return call{"POST", pbase + "/destination-checks?wait=true", map[string]any{"baseUrl": "https://www.example.com"}}
		}},
		{"forget miss", redirects.RoleEditor, func() call { return call{"DELETE", pbase + "/misses?path=" + newMiss(), nil} }},
		{"rule from miss", redirects.RoleEditor, func() call {
			return call{"POST", pbase + "/misses/rule", map[string]any{"path": fmt.Sprintf("/miss%d", uniq()), "destination": "/x"}}
		}},

		{"add rule", redirects.RoleEditor, func() call {
			return call{"POST", pbase + "/rules", map[string]any{"source": fmt.Sprintf("/n%d", uniq()), "destination": "/x"}}
		}},
		{"change rule", redirects.RoleEditor, func() call {
			return call{"PATCH", fmt.Sprintf("%s/rules/%d", pbase, newRule()), map[string]any{"destination": "/y"}}
		}},
		{"delete rule", redirects.RoleEditor, func() call { return call{"DELETE", fmt.Sprintf("%s/rules/%d", pbase, newRule()), nil} }},
		{"delete matching", redirects.RoleEditor, func() call { return call{"DELETE", pbase + "/rules?q=/nothing*&confirm=true", nil} }},
		{"deploy", redirects.RoleEditor, func() call { return call{"POST", pbase + "/deployments", map[string]any{"message": "m"}} }},
		{"stage", redirects.RoleEditor, func() call {
			return call{"POST", pbase + "/deployments", map[string]any{"message": "m", "stage": true}}
		}},
		{"promote", redirects.RoleEditor, func() call { return call{"POST", fmt.Sprintf("%s/deployments/%d/promote", pbase, newStaged()), nil} }},
		{"discard", redirects.RoleEditor, func() call { return call{"DELETE", fmt.Sprintf("%s/deployments/%d", pbase, newStaged()), nil} }},
		{"store tests", redirects.RoleEditor, func() call {
			return call{"PUT", pbase + "/tests", csvBody("path,status,destination\n/old,301,/new\n")}
		}},
		{"delete tests", redirects.RoleEditor, func() call { return call{"DELETE", pbase + "/tests", nil} }},

		{"create project", redirects.RoleOwner, func() call { return call{"POST", obase + "/projects", map[string]any{"name": "p"}} }},
		{"rename project", redirects.RoleOwner, func() call { return call{"PATCH", "/manage/v1/projects/" + newProject(), map[string]any{"name": "q"}} }},
		{"delete project", redirects.RoleOwner, func() call {
			return call{"DELETE", "/manage/v1/projects/" + newProject(), map[string]any{"confirm": "doomed"}}
		}},
		{"create key", redirects.RoleOwner, func() call { return call{"POST", pbase + "/keys", map[string]any{"name": "k"}} }},
		{"revoke key", redirects.RoleOwner, func() call { return call{"DELETE", pbase + "/keys/" + newKey(), nil} }},
		{"revoke key by body", redirects.RoleOwner, func() call { return call{"POST", pbase + "/revoke-key", map[string]any{"key": newKey()}} }},
		{"add member", redirects.RoleOwner, func() call {
			u, _ := e.user(fmt.Sprintf("add%d-%s@example.com", uniq(), randomHex(3)), false)
			return call{"POST", obase + "/members", map[string]any{"email": u.Email, "role": "viewer"}}
		}},
		{"change member", redirects.RoleOwner, func() call {
			return call{"PATCH", obase + "/members/" + newMember(), map[string]any{"role": "editor"}}
		}},
		{"remove member", redirects.RoleOwner, func() call { return call{"DELETE", obase + "/members/" + newMember(), nil} }},
		{"revoke another's token", redirects.RoleOwner, func() call {
			tok, _ := e.token(a.org.ID, redirects.RoleViewer, "victim", 0)
			return call{"DELETE", obase + "/tokens/" + tok.ID, nil}
		}},

		{"list webhooks", redirects.RoleViewer, func() call { return call{"GET", obase + "/webhooks", nil} }},
		{"webhook deliveries", redirects.RoleViewer, func() call { return call{"GET", newWebhook(obase) + "/deliveries", nil} }},
		{"create webhook", redirects.RoleOwner, func() call {
			return call{"POST", obase + "/webhooks", map[string]any{"url": "https://hooks.example.com/in"}}
		}},
		{"pause webhook", redirects.RoleOwner, func() call { return call{"PATCH", newWebhook(obase), map[string]any{"paused": true}} }},
		{"delete webhook", redirects.RoleOwner, func() call { return call{"DELETE", newWebhook(obase), nil} }},
		{"test webhook", redirects.RoleOwner, func() call { return call{"POST", newWebhook(obase) + "/test", nil} }},
		{"rotate webhook secret", redirects.RoleOwner, func() call { return call{"POST", newWebhook(obase) + "/secret", nil} }},
		{"redeliver", redirects.RoleOwner, func() call { return call{"POST", newDelivery(obase) + "/redeliver", nil} }},

		{"undo import", redirects.RoleEditor, func() call {
			return call{"POST", fmt.Sprintf("%s/imports/%d/undo", pbase, newImportUndo(t, e, a.project.ID)), nil}
		}},
		{"read the chains flattening would fix", redirects.RoleViewer, func() call { return call{"GET", pbase + "/chains", nil} }},
		{"flatten chains", redirects.RoleEditor, func() call { return call{"POST", pbase + "/chains/flatten", nil} }},
		{"read suggestions", redirects.RoleViewer, func() call { return call{"GET", pbase + "/suggestions", nil} }},
		{"compute suggestions", redirects.RoleEditor, func() call { return call{"POST", pbase + "/suggestions", map[string]any{"limit": 5}} }},
		{"accept a suggestion", redirects.RoleEditor, func() call {
			return call{"POST", pbase + "/suggestions/accept", map[string]any{"id": newSuggestion()}}
		}},
		{"dismiss a suggestion", redirects.RoleEditor, func() call {
			return call{"POST", pbase + "/suggestions/dismiss", map[string]any{"id": newSuggestion()}}
		}},
		{"export as another platform's file", redirects.RoleViewer, func() call { return call{"GET", pbase + "/rules-export?to=csv", nil} }},
		{"import", redirects.RoleEditor, func() call {
			return call{"POST", pbase + "/imports?mode=upsert", csvBody("source,destination,statusCode,matchType\n/imported,/x,301,exact\n")}
		}},
		{"diff", redirects.RoleViewer, func() call { return call{"GET", pbase + "/diff?from=1&to=draft", nil} }},

		{"change org", "", func() call { return call{"PATCH", obase, map[string]any{"tier": "enterprise"}} }},
		{"delete org", "", func() call { return call{"DELETE", obase, map[string]any{"confirm": "A"}} }},
		{"create org", "", func() call { return call{"POST", "/manage/v1/orgs", map[string]any{"name": "B", "tier": "free"}} }},
	}
	// Every route that needs a role is in the table above, but token
	// creation, which tokens may never do, tested after it.
	mux := http.NewServeMux()
	for _, rt := range (&handler{}).routeTable() {
		mux.HandleFunc(rt.method+" "+rt.pattern, func(http.ResponseWriter, *http.Request) {})
	}
	covered := map[string]bool{}
	for _, tc := range cases {
		cl := tc.call()
		req := httptest.NewRequest(cl.method, cl.path, nil)
		_, pattern := mux.Handler(req)
		covered[pattern] = true
	}
	for _, rt := range (&handler{}).routeTable() {
		p := rt.method + " " + rt.pattern
		if !covered[p] && !strings.HasSuffix(rt.pattern, "/session") && !strings.HasSuffix(rt.pattern, "/session/password") && p != "GET /manage/v1/orgs" && p != "POST /manage/v1/orgs/{org}/tokens" {
			t.Errorf("no role case calls %s", p)
		}
	}

	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for _, role := range []redirects.Role{redirects.RoleViewer, redirects.RoleEditor, redirects.RoleOwner} {
				allowed := tc.min != "" && role.AtLeast(tc.min)
				for kind, c := range map[string]*client{"session": a.sessions[role], "token": a.tokens[role]} {
					cl := tc.call()
					before := auditCount(t, e, a.org.ID)
					r := c.do(cl.method, cl.path, cl.body)
					if allowed {
						if r.status < 200 || r.status > 299 {
							t.Fatalf("%s %s: %s got %d, want success; body %s", role, kind, r.req, r.status, r.body)
						}
						continue
					}
					r.want(t, 403, "FORBIDDEN")
					if after := auditCount(t, e, a.org.ID); after != before {
						t.Fatalf("%s %s: a refused %s wrote %d audit entries", role, kind, r.req, after-before)
					}
				}
			}
		})
	}

	// Tokens: a member may create tokens at or below their own role only,
	// and a token may create none.
	for _, tc := range []struct {
		caller, role redirects.Role
		ok           bool
	}{
		{redirects.RoleViewer, redirects.RoleViewer, true},
		{redirects.RoleViewer, redirects.RoleEditor, false},
		{redirects.RoleEditor, redirects.RoleEditor, true},
		{redirects.RoleEditor, redirects.RoleOwner, false},
		{redirects.RoleOwner, redirects.RoleOwner, true},
	} {
		r := a.sessions[tc.caller].do("POST", obase+"/tokens", map[string]any{"role": tc.role, "label": "t"})
		if tc.ok {
			r.want(t, 201)
		} else {
			r.want(t, 403, "FORBIDDEN")
		}
		a.tokens[redirects.RoleOwner].do("POST", obase+"/tokens", map[string]any{"role": "viewer"}).want(t, 403, "FORBIDDEN")
	}

	// A member may revoke the tokens they created, whatever their role.
	var tok api.Token
	a.sessions[redirects.RoleViewer].do("POST", obase+"/tokens", map[string]any{"role": "viewer", "label": "mine"}).want(t, 201).decode(t, &tok)
	a.sessions[redirects.RoleViewer].do("DELETE", obase+"/tokens/"+tok.ID, nil).want(t, 204)

	// Operators manage organizations and members, and need a role to edit.
	opUser, _ := e.user("ops@example.com", true)
	op := e.session(opUser)
	op.do("PATCH", obase, map[string]any{"tier": "enterprise"}).want(t, 200)
	op.do("POST", obase+"/members", map[string]any{"email": opUser.Email, "role": "owner"}).want(t, 201)
	other, _ := e.user("other@example.com", true)
	e.session(other).do("POST", pbase+"/rules", map[string]any{"source": "/op", "destination": "/x"}).want(t, 403, "FORBIDDEN")
	e.session(other).do("GET", pbase+"/rules", nil).want(t, 200)
}

func auditCount(t *testing.T, e *env, orgID string) int {
	t.Helper()
	es, err := e.store.FindAudit(e.ctx, redirects.AuditFilter{OrgID: orgID, Limit: redirects.MaxAuditLimit})
	if err != nil {
		t.Fatal(err)
	}
	return len(es)
}

// TestOtherOrganizations calls every route that addresses an object, with
// a token and a session of organization A, at organization B's objects:
// each answers 404 exactly as for a missing object, and B is unchanged.
func TestOtherOrganizations(t *testing.T) { runSuite(t, testOtherOrganizations) }

func testOtherOrganizations(t *testing.T, open newStoreFunc) {
	e := newEnv(t, open, false, nil)
	a, b := e.newOrg("Org-Alpha"), e.newOrg("Org-Bravo")
	hnd := &handler{}
	// webhookOf and deliveryOf return an endpoint of o and a delivery of
	// it, made once.
	hooks, deliveries := map[string]string{}, map[string]string{}
	webhookOf := func(o *org) string {
		if id, ok := hooks[o.org.ID]; ok {
			return id
		}
		ep := redirects.NewWebhookEndpoint(o.org.ID, "https://hooks.example.com/in", nil, nil)
		if err := e.store.(redirects.WebhookStore).CreateWebhook(e.ctx, ep); err != nil {
			t.Fatal(err)
		}
		hooks[o.org.ID] = ep.ID
		return ep.ID
	}
	deliveryOf := func(o *org) string {
		if id, ok := deliveries[o.org.ID]; ok {
			return id
		}
		did, err := e.store.(redirects.WebhookStore).SendWebhookTest(e.ctx, webhookOf(o))
		if err != nil {
			t.Fatal(err)
		}
		deliveries[o.org.ID] = did
		return did
	}
	checks := map[string]string{}
	checkOf := func(o *org) string {
		if id, ok := checks[o.org.ID]; ok {
			return id
		}
		cs := e.store.(redirects.CheckStore)
		job := &redirects.CheckJob{ID: redirects.NewCheckJobID(), ProjectID: o.project.ID, Owner: "others", LeaseUntil: e.clock.Now().Add(time.Hour),
			BaseURL: "https://www.example.com", StartedAt: e.clock.Now()}
		if err := cs.StartCheckJob(e.ctx, job); err != nil {
			t.Fatal(err)
		}
		if _, err := cs.FinishCheckJob(e.ctx, job.ID, nil, 0, "made by the test"); err != nil {
			t.Fatal(err)
		}
		checks[o.org.ID] = job.ID
		return job.ID
	}
	placeholder := regexp.MustCompile(`\{[a-z]+\}`)
	fill := func(rt route, o *org, missing bool) string {
		return placeholder.ReplaceAllStringFunc(rt.pattern, func(p string) string {
			if missing {
				return map[string]string{"{org}": "org_missing00000000", "{project}": "prj_missing00000000",
					"{id}": "999999", "{user}": "usr_missing00000000", "{delivery}": "whd_missing00000000",
					"{version}": "999999", "{format}": "csv"}[p]
			}
			switch p {
			case "{version}":
				return "1"
			case "{org}":
				return o.org.ID
			case "{project}":
				return o.project.ID
			case "{user}":
				return o.users[redirects.RoleViewer].ID
			case "{id}":
				switch {
				case strings.Contains(rt.pattern, "/rules/"):
					return fmt.Sprint(o.rule.ID)
				case strings.Contains(rt.pattern, "/keys/"):
					return o.key.ID
				case strings.Contains(rt.pattern, "/tokens/"):
					return o.tokenIDs[redirects.RoleViewer]
				case strings.Contains(rt.pattern, "/webhooks/"):
					return webhookOf(o)
				case strings.Contains(rt.pattern, "/imports/"):
					return "1"
				case strings.Contains(rt.pattern, "/destination-checks/"):
					return checkOf(o)
				}
			case "{delivery}":
				return deliveryOf(o)
			case "{format}":
				return "csv"
			}
			t.Fatalf("route %s: no value for %s", rt.pattern, p)
			return ""
		})
	}
	idPattern := regexp.MustCompile(`"(org|prj|usr|key|tok|whk|whd)_[A-Za-z0-9]+"|"\d+"`)
	walked := 0
	webhookOf(b)
	deliveryOf(b)
	checkOf(b)
	before := auditCount(t, e, b.org.ID)
	for _, rt := range hnd.routeTable() {
		if !strings.Contains(rt.pattern, "{") {
			continue // no object addressed: session, org list and creation
		}
		walked++
		path := fill(rt, b, false)
		q := ""
		if strings.HasSuffix(rt.pattern, "/lookup") {
			q = "?path=/old"
		}
		for kind, c := range map[string]*client{"token": a.tokens[redirects.RoleOwner], "session": a.sessions[redirects.RoleOwner]} {
			r := c.do(rt.method, path+q, map[string]any{})
			r.want(t, 404, "NOT_FOUND")
			_, msg := r.errBody(t)
			// The same route at a missing object answers the same words.
			m := c.do(rt.method, fill(rt, b, true)+q, map[string]any{})
			_, missingMsg := m.errBody(t)
			if m.status != 404 || idPattern.ReplaceAllString(msg, "ID") != idPattern.ReplaceAllString(missingMsg, "ID") {
				t.Errorf("%s %s as A's %s: %q; a missing object: %d %q", rt.method, rt.pattern, kind, msg, m.status, missingMsg)
			}
			if strings.Contains(msg, b.org.Name) || strings.Contains(msg, b.project.Name) {
				t.Errorf("%s %s: the 404 names B's things: %q", rt.method, rt.pattern, msg)
			}
		}
	}
	if walked < 25 {
		t.Fatalf("walked %d routes that address objects; the table has more", walked)
	}
	// Nothing of B changed.
	if after := auditCount(t, e, b.org.ID); after != before {
		t.Errorf("B's audit log grew by %d", after-before)
	}
	if _, err := e.store.FindRule(e.ctx, b.project.ID, b.rule.ID); err != nil {
		t.Errorf("B's rule: %v", err)
	}
	ks, _ := e.store.FindKeys(e.ctx, b.project.ID)
	if len(ks) != 1 || ks[0].RevokedAt != nil {
		t.Errorf("B's key: %+v", ks)
	}
	if ms, _ := e.store.FindMembers(e.ctx, b.org.ID); len(ms) != 3 {
		t.Errorf("B has %d members, want 3", len(ms))
	}
	// A's caller lists A only.
	var orgs struct{ Orgs []orgJSON }
	a.tokens[redirects.RoleOwner].do("GET", "/manage/v1/orgs", nil).want(t, 200).decode(t, &orgs)
	if len(orgs.Orgs) != 1 || orgs.Orgs[0].ID != a.org.ID {
		t.Errorf("A's token lists %+v", orgs.Orgs)
	}
	// An audit filter naming B's project is not found either.
	a.tokens[redirects.RoleOwner].do("GET", "/manage/v1/orgs/"+a.org.ID+"/audit?project="+b.project.ID, nil).want(t, 404, "NOT_FOUND")
}
