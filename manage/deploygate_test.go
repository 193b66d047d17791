package manage

import (
	"fmt"
	"net/http"
	"strings"
	"testing"

	"redirects"
	"redirects/safety"
)

// deployCount returns the number of deployments of project p.
func deployCount(t *testing.T, c *client, p string) int {
	t.Helper()
	var list struct{ Deployments []deploymentJSON }
	c.do("GET", "/manage/v1/projects/"+p+"/deployments", nil).want(t, 200).decode(t, &list)
	return len(list.Deployments)
}

// deployAudit returns the deployment.create entries of the org, newest
// first.
func deployAudit(t *testing.T, e *env, orgID string) []*redirects.AuditEntry {
	t.Helper()
	es, err := e.store.FindAudit(e.ctx, redirects.AuditFilter{OrgID: orgID, Action: redirects.AuditDeploy})
	if err != nil {
		t.Fatal(err)
	}
	return es
}

// TestDeployBlockedByLoop: a loop blocks a deploy, which changes nothing
// and says why; forced with a reason it goes through and the audit log
// shows the reason.
func TestDeployBlockedByLoop(t *testing.T) { runSuite(t, testDeployBlockedByLoop) }

func testDeployBlockedByLoop(t *testing.T, open newStoreFunc) {
	e := newEnv(t, open, false, nil)
	a := e.newOrg("Loop")
	ed := a.tokens[redirects.RoleEditor]
	pbase := "/manage/v1/projects/" + a.project.ID
	ed.do("POST", pbase+"/rules", map[string]any{"source": "/new", "destination": "/old"}).want(t, 201)

	audits, deploys := auditCount(t, e, a.org.ID), len(deployAudit(t, e, a.org.ID))
	r := ed.do("POST", pbase+"/deployments", map[string]any{"message": "loop"}).want(t, 409, codeDeployBlocked)
	var body struct {
		Error string
		Gate  safety.GateResult
	}
	r.decode(t, &body)
	if body.Gate.Errors != 1 || len(body.Gate.Findings) == 0 || body.Gate.Findings[0].Kind != safety.KindLoop ||
		len(body.Gate.Blocked) != 1 || !strings.Contains(body.Error, "1 lint error") || body.Gate.Target != "the draft" {
		t.Fatalf("blocked deploy answered %s", r.body)
	}
	if n := deployCount(t, ed, a.project.ID); n != 1 {
		t.Fatalf("deployments after a blocked deploy = %d, want 1", n)
	}
	if n := auditCount(t, e, a.org.ID); n != audits {
		t.Fatalf("a blocked deploy wrote %d audit entries", n-audits)
	}

	ed.do("POST", pbase+"/deployments", map[string]any{"force": true}).want(t, 400, "INVALID_INPUT")
	ed.do("POST", pbase+"/deployments", map[string]any{"reason": "why"}).want(t, 400, "INVALID_INPUT")
	ed.do("POST", pbase+"/deployments", map[string]any{"force": true, "reason": strings.Repeat("x", 1001)}).want(t, 400, "INVALID_INPUT")
	// A viewer may not force, or deploy at all.
	a.tokens[redirects.RoleViewer].do("POST", pbase+"/deployments", map[string]any{"force": true, "reason": "r"}).want(t, 403, "FORBIDDEN")

	var d deploymentJSON
	ed.do("POST", pbase+"/deployments", map[string]any{"message": "known loop", "force": true, "reason": "the loop goes tonight"}).
		want(t, 201).decode(t, &d)
	if d.Version != 2 || d.ExactRules != 2 {
		t.Fatalf("forced deploy = %+v, want version 2 with 2 rules", d)
	}
	es := deployAudit(t, e, a.org.ID)
	if len(es) != deploys+1 {
		t.Fatalf("%d deploy audit entries after the forced deploy, want %d", len(es), deploys+1)
	}
	if after := string(es[0].After); !strings.Contains(after, `"forced":true`) || !strings.Contains(after, `"reason":"the loop goes tonight"`) {
		t.Fatalf("the forced deploy's audit entry = %s, want forced and the reason", after)
	}
}

// TestDeployBlockedByCase: a failing case of the stored test file blocks
// like a lint error; the test file's routes store, show and remove it.
func TestDeployBlockedByCase(t *testing.T) { runSuite(t, testDeployBlockedByCase) }

func testDeployBlockedByCase(t *testing.T, open newStoreFunc) {
	e := newEnv(t, open, false, nil)
	a := e.newOrg("Cases")
	ed := a.tokens[redirects.RoleEditor]
	pbase := "/manage/v1/projects/" + a.project.ID

	ed.do("GET", pbase+"/tests", nil).want(t, 404, "NOT_FOUND")
	r := ed.do("PUT", pbase+"/tests", csvBody("path,status,destination\n/old,301,\nnope,301,/x\n")).want(t, 400, "INVALID_INPUT")
	if _, msg := r.errBody(t); !strings.Contains(msg, "line 2") || !strings.Contains(msg, "line 3") {
		t.Fatalf("a bad test file: %s; want both bad lines named", msg)
	}
	ed.do("PUT", pbase+"/tests", "path,status,destination\n").want(t, 415, codeUnsupportedMedia)
	ed.do("PUT", pbase+"/tests", csvBody("")).want(t, 400, "INVALID_INPUT")
	ed.do("GET", pbase+"/tests", nil).want(t, 404, "NOT_FOUND")

	file := "path,status,destination\n/old,301,/new\n/gone,none,\n/kept,301,/here\n"
	var put struct{ Cases int }
	ed.do("PUT", pbase+"/tests", csvBody(file)).want(t, 200).decode(t, &put)
	if put.Cases != 3 {
		t.Fatalf("PUT tests answered %d cases, want 3", put.Cases)
	}
	r = a.tokens[redirects.RoleViewer].do("GET", pbase+"/tests", nil).want(t, 200)
	if string(r.body) != file || !strings.HasPrefix(r.header.Get("Content-Type"), "text/csv") {
		t.Fatalf("GET tests = %q (%s), want the file as stored", r.body, r.header.Get("Content-Type"))
	}

	r = ed.do("POST", pbase+"/deployments", nil).want(t, 409, codeDeployBlocked)
	var body struct{ Gate safety.GateResult }
	r.decode(t, &body)
	if body.Gate.Cases != 3 || len(body.Gate.FailingCases) != 1 || body.Gate.FailingCases[0].Case.Line != 4 || body.Gate.Errors != 0 {
		t.Fatalf("blocked by a case: %s", r.body)
	}
	if n := deployCount(t, ed, a.project.ID); n != 1 {
		t.Fatalf("deployments after a blocked deploy = %d, want 1", n)
	}
	// allowShrink is not force.
	ed.do("POST", pbase+"/deployments", map[string]any{"allowShrink": true}).want(t, 409, codeDeployBlocked)

	ed.do("POST", pbase+"/rules", map[string]any{"source": "/kept", "destination": "/here"}).want(t, 201)
	ed.do("POST", pbase+"/deployments", nil).want(t, 201)

	ed.do("DELETE", pbase+"/tests", nil).want(t, 204)
	ed.do("GET", pbase+"/tests", nil).want(t, 404, "NOT_FOUND")
	es, err := e.store.FindAudit(e.ctx, redirects.AuditFilter{ProjectID: a.project.ID, Action: redirects.AuditProjectTests})
	if err != nil || len(es) != 2 {
		t.Fatalf("project.tests audit entries = %d (%v), want 2 (store, remove)", len(es), err)
	}
}

// TestDeployShrinkGuard: the guard at the project's limit and at none
// left, allowShrink, the limit's PATCH, and the check without a deploy.
func TestDeployShrinkGuard(t *testing.T) { runSuite(t, testDeployShrinkGuard) }

func testDeployShrinkGuard(t *testing.T, open newStoreFunc) {
	e := newEnv(t, open, false, nil)
	a := e.newOrg("Shrink")
	ed := a.tokens[redirects.RoleEditor]
	p := a.project.ID
	pbase := "/manage/v1/projects/" + p
	rules := func(n int) []redirects.Rule {
		out := make([]redirects.Rule, n)
		for i := range out {
			out[i] = redirects.Rule{Source: fmt.Sprintf("/r/%d", i), Destination: "/x", StatusCode: 301, Priority: 100}
		}
		return out
	}
	replace := func(n int) {
		t.Helper()
		if _, err := e.store.ImportRules(e.ctx, p, rules(n), true); err != nil {
			t.Fatal(err)
		}
	}
	replace(100)
	ed.do("POST", pbase+"/deployments", nil).want(t, 201)

	replace(89)
	// The check answers what a deploy would meet, and deploys nothing.
	var g safety.GateResult
	a.tokens[redirects.RoleViewer].do("GET", pbase+"/deploy-check", nil).want(t, 200).decode(t, &g)
	want := safety.Shrink{Live: 100, Deploy: 89, Removed: 11, Percent: 11, Limit: 10, NeedsConfirmation: true}
	if g.Shrink != want || len(g.Blocked) != 1 || g.Blocked[0] != "this deploy removes 11 of 100 live rules (11 %); the project's limit is 10 %" {
		t.Fatalf("deploy-check = %+v, want shrink %+v and one reason", g, want)
	}
	if n := deployCount(t, ed, p); n != 2 {
		t.Fatalf("deployments after the check = %d, want 2", n)
	}
	r := ed.do("POST", pbase+"/deployments", nil).want(t, 409, codeDeployBlocked)
	if !strings.Contains(string(r.body), `"removed":11`) {
		t.Fatalf("blocked shrink: %s", r.body)
	}
	ed.do("POST", pbase+"/deployments", map[string]any{"force": true, "reason": "r"}).want(t, 409, codeDeployBlocked)
	ed.do("POST", pbase+"/deployments", map[string]any{"allowShrink": true}).want(t, 201)

	// The project's limit, set by an owner.
	ed.do("PATCH", pbase, map[string]any{"shrinkLimit": 50}).want(t, 403, "FORBIDDEN")
	own := a.tokens[redirects.RoleOwner]
	own.do("PATCH", pbase, map[string]any{"shrinkLimit": 101}).want(t, 400, "INVALID_INPUT")
	own.do("PATCH", pbase, map[string]any{"shrinkLimit": 50}).want(t, 200)
	var detail struct{ ShrinkLimit int }
	own.do("GET", pbase, nil).want(t, 200).decode(t, &detail)
	if detail.ShrinkLimit != 50 {
		t.Fatalf("shrinkLimit = %d, want 50", detail.ShrinkLimit)
	}
	replace(60) // 29 of 89: under 50 %
	ed.do("POST", pbase+"/deployments", nil).want(t, 201)

	replace(0)
	r = ed.do("POST", pbase+"/deployments", nil).want(t, 409, codeDeployBlocked)
	var body struct{ Gate safety.GateResult }
	r.decode(t, &body)
	if !body.Gate.Shrink.LeavesNone || body.Gate.Shrink.Removed != 60 {
		t.Fatalf("none left: %s", r.body)
	}
	ed.do("POST", pbase+"/deployments", map[string]any{"allowShrink": true}).want(t, 201)
	// A rollback brings the rules back with no confirmation.
	var d deploymentJSON
	ed.do("POST", pbase+"/deployments", map[string]any{"fromVersion": 2}).want(t, 201).decode(t, &d)
	if d.Version != 6 || d.ExactRules != 100 {
		t.Fatalf("rollback = %+v, want version 6 with 100 rules", d)
	}

	a.tokens[redirects.RoleViewer].do("GET", pbase+"/deploy-check?fromVersion=99", nil).want(t, http.StatusNotFound, "NOT_FOUND")
	a.tokens[redirects.RoleViewer].do("GET", pbase+"/deploy-check?fromVersion=x", nil).want(t, 400, codeInvalidQuery)
	var rb safety.GateResult
	a.tokens[redirects.RoleViewer].do("GET", pbase+"/deploy-check?fromVersion=5", nil).want(t, 200).decode(t, &rb)
	if rb.Target != "version 5" || !rb.Shrink.Rollback || rb.Shrink.Removed != 100 || len(rb.Blocked) != 0 {
		t.Fatalf("check of a rollback = %+v", rb)
	}
}
