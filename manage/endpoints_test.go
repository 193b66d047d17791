package manage

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"redirects"
	"redirects/api"
)

// TestEndpoints walks every route once as it is meant to be used: an
// operator creates an organization and its first owner, the owner's token
// builds and deploys a project.
func TestEndpoints(t *testing.T) { runSuite(t, testEndpoints) }

func testEndpoints(t *testing.T, open newStoreFunc) {
	e := newEnv(t, open, false, nil)
	opUser, _ := e.user("ops@example.com", true)
	op := e.session(opUser)
	owner, _ := e.user("ada@example.com", false)
	viewer, _ := e.user("bob@example.com", false)

	// Organizations: operators create and change them.
	var o orgJSON
	op.do("POST", "/manage/v1/orgs", map[string]any{"name": "Acme", "tier": "free", "rateLimit": "500"}).want(t, 201).decode(t, &o)
	if o.Name != "Acme" || o.Tier != "free" || o.RateLimit != "500" || !o.RateLimitOverride || o.MonthlyQuota != "10000" || o.Role != nil {
		t.Fatalf("created org = %+v", o)
	}
	base := "/manage/v1/orgs/" + o.ID
	op.do("PATCH", base, map[string]any{"tier": "pro", "rateLimit": "default", "monthlyQuota": 5}).want(t, 200).decode(t, &o)
	if o.Tier != "pro" || o.RateLimit != "1000" || o.RateLimitOverride || o.MonthlyQuota != "5" {
		t.Fatalf("updated org = %+v", o)
	}
	op.do("PATCH", base, map[string]any{"rateLimit": "lots"}).want(t, 400, "INVALID_INPUT")
	op.do("PATCH", base, map[string]any{"monthlyQuota": -1}).want(t, 400, "INVALID_INPUT")
	var orgs struct{ Orgs []orgJSON }
	op.do("GET", "/manage/v1/orgs", nil).want(t, 200).decode(t, &orgs)
	if len(orgs.Orgs) != 1 || orgs.Orgs[0].ID != o.ID {
		t.Fatalf("operator's orgs = %+v", orgs)
	}

	// Members: the operator gives the organization its first owner.
	var m memberJSON
	op.do("POST", base+"/members", map[string]string{"email": "ADA@example.com", "role": "owner"}).want(t, 201).decode(t, &m)
	if m.UserID != owner.ID || m.Email != "ada@example.com" || m.Role != "owner" {
		t.Fatalf("member = %+v", m)
	}
	ada := e.session(owner)
	ada.do("POST", base+"/members", map[string]string{"email": "bob@example.com", "role": "editor"}).want(t, 201)
	ada.do("PATCH", base+"/members/bob@example.com", map[string]string{"role": "viewer"}).want(t, 200).decode(t, &m)
	if m.Role != "viewer" || m.UserID != viewer.ID {
		t.Fatalf("changed member = %+v", m)
	}
	var members struct{ Members []memberJSON }
	ada.do("GET", base+"/members", nil).want(t, 200).decode(t, &members)
	if len(members.Members) != 2 {
		t.Fatalf("members = %+v", members)
	}
	ada.do("GET", "/manage/v1/orgs", nil).want(t, 200).decode(t, &orgs)
	if len(orgs.Orgs) != 1 || orgs.Orgs[0].Role == nil || *orgs.Orgs[0].Role != "owner" {
		t.Fatalf("owner's orgs = %+v", orgs)
	}
	ada.do("GET", base, nil).want(t, 200)

	// Tokens: the owner makes one for automation; the secret comes once.
	var tok api.Token
	ada.do("POST", base+"/tokens", map[string]string{"role": "owner", "label": "CI", "expiresIn": "30d"}).want(t, 201).decode(t, &tok)
	if !redirects.WellFormedManagementToken(tok.Secret) || tok.Role != "owner" || tok.Label != "CI" || tok.ExpiresAt == nil ||
		tok.CreatedBy == nil || *tok.CreatedBy != "ada@example.com" || tok.Last4 != tok.Secret[len(tok.Secret)-4:] {
		t.Fatalf("created token = %+v", tok)
	}
	ci := e.withToken(tok.Secret)
	r := ada.do("GET", base+"/tokens", nil).want(t, 200)
	if strings.Contains(string(r.body), tok.Secret) || strings.Contains(string(r.body), "secret") {
		t.Fatalf("token list shows the secret: %s", r.body)
	}

	// Projects.
	var p projectJSON
	ci.do("POST", base+"/projects", map[string]string{"name": "www"}).want(t, 201).decode(t, &p)
	pbase := "/manage/v1/projects/" + p.ID
	ci.do("PATCH", pbase, map[string]string{"name": "site"}).want(t, 200).decode(t, &p)
	if p.Name != "site" || p.OrgID != o.ID {
		t.Fatalf("renamed project = %+v", p)
	}
	var projects struct{ Projects []projectJSON }
	ci.do("GET", base+"/projects", nil).want(t, 200).decode(t, &projects)
	if len(projects.Projects) != 1 || projects.Projects[0].ID != p.ID {
		t.Fatalf("projects = %+v", projects)
	}

	// Rules: add, page, read, change, CSV.
	var rule api.Rule
	r = ci.do("POST", pbase+"/rules", map[string]any{"source": "/a", "destination": "/b"}).want(t, 201)
	r.decode(t, &rule)
	if rule.StatusCode != 301 || rule.MatchType != "exact" || rule.Priority != 100 || rule.Revision != 1 || r.header.Get("ETag") != `"1"` {
		t.Fatalf("created rule = %+v, ETag %q", rule, r.header.Get("ETag"))
	}
	for i := range 4 {
		ci.do("POST", pbase+"/rules", map[string]any{"source": fmt.Sprintf("/blog/%d/", i), "destination": "https://blog.example.com/",
			"statusCode": 302, "matchType": "starts_with", "priority": 10 + i}).want(t, 201)
	}
	var page api.RulePage
	ci.do("GET", pbase+"/rules?q=/blog/*&limit=3&sort=-priority", nil).want(t, 200).decode(t, &page)
	if len(page.Rules) != 3 || page.Total != 4 || page.Next == nil || page.Rules[0].Priority != 13 {
		t.Fatalf("first page = %+v", page)
	}
	var page2 api.RulePage
	ci.do("GET", pbase+"/rules?q=/blog/*&limit=3&sort=-priority&after="+*page.Next, nil).want(t, 200).decode(t, &page2)
	if len(page2.Rules) != 1 || page2.Next != nil || page2.Rules[0].Priority != 10 {
		t.Fatalf("second page = %+v", page2)
	}
	ci.do("GET", pbase+"/rules?match=exact&status=301", nil).want(t, 200).decode(t, &page)
	if page.Total != 1 || page.Rules[0].ID != rule.ID {
		t.Fatalf("filtered page = %+v", page)
	}
	ci.do("PATCH", fmt.Sprintf("%s/rules/%d", pbase, rule.ID), map[string]any{"destination": "/c"}, "If-Match", `"1"`).want(t, 200).decode(t, &rule)
	if rule.Destination != "/c" || rule.Revision != 2 {
		t.Fatalf("updated rule = %+v", rule)
	}
	r = ci.do("GET", fmt.Sprintf("%s/rules/%d", pbase, rule.ID), nil).want(t, 200)
	if r.header.Get("ETag") != `"2"` {
		t.Fatalf("ETag %q, want \"2\"", r.header.Get("ETag"))
	}
	r = ci.do("GET", pbase+"/rules.csv", nil).want(t, 200)
	if ct := r.header.Get("Content-Type"); !strings.HasPrefix(ct, "text/csv") {
		t.Fatalf("rules.csv Content-Type %q", ct)
	}
	recs, err := csv.NewReader(strings.NewReader(string(r.body))).ReadAll()
	if err != nil || len(recs) != 6 || strings.Join(recs[0], ",") != "source,destination,statusCode,matchType,priority,id" ||
		strings.Join(recs[1], ",") != fmt.Sprintf("/a,/c,301,exact,100,%d", rule.ID) {
		t.Fatalf("rules.csv = %q (%v)", r.body, err)
	}

	// Deploy, then read what is live.
	var d deploymentJSON
	ci.do("POST", pbase+"/deployments", map[string]any{"message": "first"}).want(t, 201).decode(t, &d)
	if d.Version != 1 || d.ExactRules != 1 || d.PrefixRules != 4 || d.Message != "first" || d.FromVersion != nil {
		t.Fatalf("deployment = %+v", d)
	}
	ci.do("DELETE", fmt.Sprintf("%s/rules/%d", pbase, rule.ID), nil, "If-Match", `"2"`).want(t, 204)
	ci.do("POST", pbase+"/deployments", nil).want(t, 201).decode(t, &d)
	ci.do("POST", pbase+"/deployments", map[string]any{"message": "back", "fromVersion": 1}).want(t, 201).decode(t, &d)
	if d.Version != 3 || d.FromVersion == nil || *d.FromVersion != 1 || d.ExactRules != 1 {
		t.Fatalf("rollback = %+v", d)
	}
	var deps struct{ Deployments []deploymentJSON }
	ci.do("GET", pbase+"/deployments", nil).want(t, 200).decode(t, &deps)
	if len(deps.Deployments) != 3 || deps.Deployments[0].Version != 1 {
		t.Fatalf("deployments = %+v", deps)
	}
	var pd projectDetailJSON
	ci.do("GET", pbase, nil).want(t, 200).decode(t, &pd)
	if pd.LiveVersion == nil || *pd.LiveVersion != 3 || pd.LastDeploy == nil || pd.LastDeploy.Message != "back" || pd.RuleCount != 4 {
		t.Fatalf("project = %+v", pd)
	}

	// Lookup: the live version, one version, the draft.
	var lk struct {
		Path    string
		Version any
		Answer  map[string]any
	}
	ci.do("GET", pbase+"/lookup?path=/a", nil).want(t, 200).decode(t, &lk)
	if lk.Version != float64(3) || lk.Answer["destination"] != "/c" || lk.Answer["statusCode"] != float64(301) {
		t.Fatalf("lookup = %+v", lk)
	}
	lk.Answer = nil
	ci.do("GET", pbase+"/lookup?path=/a&version=draft", nil).want(t, 200).decode(t, &lk)
	if lk.Version != "draft" || lk.Answer != nil {
		t.Fatalf("draft lookup = %+v", lk)
	}
	ci.do("GET", pbase+"/lookup?path=/blog/2/x&version=2", nil).want(t, 200).decode(t, &lk)
	if lk.Answer["destination"] != "https://blog.example.com/" || lk.Answer["matchType"] != "starts_with" {
		t.Fatalf("version 2 lookup = %+v", lk)
	}
	ci.do("GET", pbase+"/lookup?path=/a&version=9", nil).want(t, 404, "NOT_FOUND")

	// Keys.
	var k api.Key
	ci.do("POST", pbase+"/keys", map[string]any{"name": "edge", "test": true}).want(t, 201).decode(t, &k)
	if !strings.HasPrefix(k.Secret, "redir_test_") || k.Mode != "test" || k.Last4 != k.Secret[len(k.Secret)-4:] {
		t.Fatalf("key = %+v", k)
	}
	var keys struct{ Keys []api.ListedKey }
	r = ci.do("GET", pbase+"/keys", nil).want(t, 200)
	r.decode(t, &keys)
	if len(keys.Keys) != 1 || keys.Keys[0].Secret != "" || strings.Contains(string(r.body), k.Secret) {
		t.Fatalf("keys = %s", r.body)
	}
	ci.do("DELETE", pbase+"/keys/"+k.ID, nil).want(t, 204)
	ci.do("GET", pbase+"/keys", nil).want(t, 200).decode(t, &keys)
	if keys.Keys[0].RevokedAt == nil {
		t.Fatalf("revoked key = %+v", keys.Keys[0])
	}

	// Bulk delete by filter needs confirm=true.
	ci.do("DELETE", pbase+"/rules?q=/blog/*", nil).want(t, 400, codeConfirmRequired)
	var del struct{ Deleted int }
	ci.do("DELETE", pbase+"/rules?q=/blog/1*&confirm=true", nil).want(t, 200).decode(t, &del)
	if del.Deleted != 1 {
		t.Fatalf("deleted %d, want 1", del.Deleted)
	}

	// Usage and audit.
	var u usageJSON
	ci.do("GET", base+"/usage?month=2026-03", nil).want(t, 200).decode(t, &u)
	if u.Month != "2026-03" || u.Total != 0 || u.Quota != "5" || u.Days == nil || u.Keys == nil {
		t.Fatalf("usage = %+v", u)
	}
	var audit auditPageJSON
	ci.do("GET", base+"/audit?action=rule.*&limit=2", nil).want(t, 200).decode(t, &audit)
	if len(audit.Entries) != 2 || audit.Next == nil || audit.Entries[0].Actor.Label != "CI" || audit.Entries[0].Actor.Kind != "token" {
		t.Fatalf("audit = %+v", audit)
	}
	r = ci.do("GET", base+"/audit?project="+p.ID, nil, "Accept", "text/csv").want(t, 200)
	if !strings.HasPrefix(r.header.Get("Content-Type"), "text/csv") || !strings.HasPrefix(string(r.body), "id,time,orgId,") {
		t.Fatalf("audit CSV: %s %q", r.header.Get("Content-Type"), r.body)
	}

	// The diff, and an import as a CI token sends one.
	ci.do("GET", pbase+"/diff?from=1&to=draft", nil).want(t, 200)
	ci.do("POST", pbase+"/imports?mode=append", csvBody("source,destination,statusCode,matchType\n/imported,/x,301,exact\n")).want(t, 200)

	// Deletion, with the name typed back.
	ci.do("DELETE", pbase+"/tokens/x", nil).want(t, 404)
	ci.do("DELETE", pbase, map[string]string{"confirm": "www"}).want(t, 400, codeConfirm)
	ci.do("DELETE", pbase, map[string]string{"confirm": "site"}).want(t, 204)
	ci.do("GET", pbase, nil).want(t, 404)
	ada.do("DELETE", base+"/tokens/"+tok.ID, nil).want(t, 204)
	ci.do("GET", base, nil).want(t, 401, codeUnauthenticated)
	ada.do("DELETE", base+"/members/"+viewer.ID, nil).want(t, 204)
	op.do("DELETE", base, nil).want(t, 400, codeConfirm)
	op.do("DELETE", base, map[string]string{"confirm": "acme"}).want(t, 400, codeConfirm)
	op.do("DELETE", base, map[string]string{"confirm": "Acme"}).want(t, 204)
	op.do("GET", base, nil).want(t, 404, "NOT_FOUND")
	if _, err := e.store.FindOrgByID(e.ctx, o.ID); redirects.ErrorCode(err) != redirects.ENOTFOUND {
		t.Fatalf("FindOrgByID after delete: %v", err)
	}
}

// TestEveryAnswerIsUncachedAndJSON checks the headers of answers, errors
// included, and the 404 and 405 of the router.
func TestEveryAnswerIsUncachedAndJSON(t *testing.T) {
	e := newEnv(t, newSQLite, false, nil)
	for _, r := range []*resp{
		e.anon().do("GET", "/manage/v1/orgs", nil).want(t, 401, codeUnauthenticated),
		e.anon().do("GET", "/manage/v1/nothing", nil).want(t, 404, "NOT_FOUND"),
		e.anon().do("GET", "/", nil).want(t, 404, "NOT_FOUND"),
		e.anon().do("PUT", "/manage/v1/orgs", nil).want(t, 405, codeMethod),
	} {
		for h, want := range map[string]string{"Cache-Control": "no-store", "X-Content-Type-Options": "nosniff",
			"X-Frame-Options": "DENY", "Content-Type": "application/json; charset=utf-8"} {
			if got := r.header.Get(h); got != want {
				t.Errorf("%s: %s is %q, want %q", r.req, h, got, want)
			}
		}
		if r.header.Get("Strict-Transport-Security") != "" {
			t.Errorf("%s: Strict-Transport-Security without TLS", r.req)
		}
	}
	e.anon().do("DELETE", "/manage/v1/projects/prj_x/rules/3/", nil).want(t, 404)
	r := e.anon().do("PUT", "/manage/v1/projects/prj_x/rules/3", nil).want(t, 405, codeMethod)
	if got := r.header.Get("Allow"); got != "DELETE, GET, HEAD, PATCH" {
		t.Errorf("Allow = %q", got)
	}
	if r := e.anon().do("GET", "/manage/v1/orgs", nil); r.header.Get("WWW-Authenticate") == "" {
		t.Errorf("401 without WWW-Authenticate")
	}
}

// TestInternalErrorsTellNothing: a store failure answers 500 without its
// details.
func TestInternalErrorsTellNothing(t *testing.T) {
	e := newEnv(t, newSQLite, false, nil)
	a := e.newOrg("A")
	e.store.Close()
	r := a.tokens[redirects.RoleOwner].do("GET", "/manage/v1/orgs", nil).want(t, 500, "INTERNAL_ERROR")
	if _, msg := r.errBody(t); msg != "Internal error." {
		t.Errorf("500 says %q", msg)
	}
}

// TestDebugLog: at debug level every request is logged, without its
// credentials.
func TestDebugLog(t *testing.T) {
	var logs syncBuffer
	e := newEnv(t, newSQLite, false, func(c *Config) {
		c.Logger = slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	})
	a := e.newOrg("A")
	_, secret := e.token(a.org.ID, redirects.RoleViewer, "logged", 0)
	e.withToken(secret).do("GET", "/manage/v1/orgs/"+a.org.ID, nil).want(t, 200)
	e.anon().do("GET", "/manage/v1/orgs", nil).want(t, 401)
	out := logs.String()
	if !strings.Contains(out, "path=/manage/v1/orgs/"+a.org.ID+" status=200") || !strings.Contains(out, "path=/manage/v1/orgs status=401") {
		t.Errorf("debug log:\n%s", out)
	}
	if strings.Contains(out, secret) || strings.Contains(out, secret[len(redirects.ManagementTokenPrefix):]) {
		t.Errorf("the debug log holds the token:\n%s", out)
	}
}

// syncBuffer is a bytes.Buffer that the server's goroutines write.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
