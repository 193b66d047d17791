package manage

import (
	"fmt"
	"strings"
	"testing"

	"redirects"
	"redirects/api"
)

// TestRevisions: a change made against a stale revision answers 409
// REVISION_CONFLICT and changes nothing.
func TestRevisions(t *testing.T) { runSuite(t, testRevisions) }

func testRevisions(t *testing.T, open newStoreFunc) {
	e := newEnv(t, open, false, nil)
	a := e.newOrg("A")
	c := a.tokens[redirects.RoleEditor]
	rule := fmt.Sprintf("/manage/v1/projects/%s/rules/%d", a.project.ID, a.rule.ID)
	c.do("PATCH", rule, map[string]any{"destination": "/one"}, "If-Match", `"1"`).want(t, 200)
	for _, r := range []*resp{
		c.do("PATCH", rule, map[string]any{"destination": "/stale"}, "If-Match", `"1"`),
		c.do("PATCH", rule, map[string]any{"destination": "/stale", "revision": 1}),
		c.do("DELETE", rule, nil, "If-Match", "1"),
		c.do("DELETE", rule, map[string]any{"revision": 1}),
	} {
		r.want(t, 409, "REVISION_CONFLICT")
	}
	c.do("PATCH", rule, map[string]any{"destination": "/x", "revision": 2}, "If-Match", `"3"`).want(t, 400, "INVALID_REVISION")
	c.do("PATCH", rule, map[string]any{"destination": "/x"}, "If-Match", `"abc"`).want(t, 400, "INVALID_REVISION")
	got, err := e.store.FindRule(e.ctx, a.project.ID, a.rule.ID)
	if err != nil || got.Destination != "/one" || got.Revision != 2 {
		t.Fatalf("after stale changes the rule is %+v (%v), want /one at revision 2", got, err)
	}
	c.do("PATCH", rule, map[string]any{"statusCode": 302, "revision": 2}).want(t, 200)
	c.do("DELETE", rule, nil, "If-Match", `W/"3"`).want(t, 204)
	c.do("GET", rule, nil).want(t, 404, "NOT_FOUND")
}

// TestBadInput: every kind of bad request gets its own 4xx code and
// changes nothing.
func TestBadInput(t *testing.T) { runSuite(t, testBadInput) }

func testBadInput(t *testing.T, open newStoreFunc) {
	e := newEnv(t, open, false, func(c *Config) { c.MaxBodyBytes = 4096 })
	a := e.newOrg("A")
	owner := a.tokens[redirects.RoleOwner]
	pbase := "/manage/v1/projects/" + a.project.ID
	obase := "/manage/v1/orgs/" + a.org.ID
	rules := pbase + "/rules"
	before := auditCount(t, e, a.org.ID)
	cases := []struct {
		name, method, path string
		body               any
		hdr                []string
		status             int
		code, mention      string
	}{
		{"malformed JSON", "POST", rules, `{"source": "/a",`, nil, 400, codeInvalidJSON, "ends early"},
		{"syntax error", "POST", rules, `{"source" "/a"}`, nil, 400, codeInvalidJSON, "byte"},
		{"wrong type", "POST", rules, `{"source": 5, "destination": "/b"}`, nil, 400, codeInvalidJSON, `"source"`},
		{"wrong type number", "POST", rules, `{"source": "/a", "destination": "/b", "statusCode": "301"}`, nil, 400, codeInvalidJSON, `"statusCode"`},
		{"not an object", "POST", rules, `["/a"]`, nil, 400, codeInvalidJSON, "object"},
		{"unknown field", "POST", rules, `{"source": "/a", "destination": "/b", "status": 301}`, nil, 400, codeUnknownField, `"status"`},
		{"two values", "POST", rules, `{"source": "/a", "destination": "/b"} {}`, nil, 400, codeInvalidJSON, "more than one"},
		{"empty body", "POST", rules, ``, nil, 400, codeInvalidJSON, "empty"},
		{"oversize", "POST", rules, `{"source": "/a", "destination": "/` + strings.Repeat("b", 5000) + `"}`, nil, 413, codeBodyTooLarge, "4096"},
		{"form body", "POST", rules, `source=/a`, []string{"Content-Type", "application/x-www-form-urlencoded"}, 415, codeUnsupportedMedia, "application/json"},
		{"text body", "POST", rules, `{"source": "/a", "destination": "/b"}`, []string{"Content-Type", "text/plain"}, 415, codeUnsupportedMedia, "text/plain"},
		{"missing field", "POST", rules, `{"source": "/a"}`, nil, 400, codeMissingField, `"destination"`},
		{"bad source", "POST", rules, `{"source": "a", "destination": "/b"}`, nil, 400, "INVALID_INPUT", "must start with '/'"},
		{"bad status", "POST", rules, `{"source": "/a", "destination": "/b", "statusCode": 304}`, nil, 400, "INVALID_INPUT", "statusCode"},
		{"gone without status", "POST", rules, `{"source": "/a", "preserveQuery": true}`, nil, 400, codeMissingField, `"destination"`},
		{"gone with destination", "POST", rules, `{"source": "/a", "destination": "/b", "statusCode": 410}`, nil, 400, "INVALID_INPUT", "destination must be empty for statusCode 410"},
		{"gone with option", "POST", rules, `{"source": "/a", "statusCode": 410, "preserveQuery": true}`, nil, 400, "INVALID_INPUT", "preserveQuery"},
		{"preservePath on exact", "POST", rules, `{"source": "/a", "destination": "/b", "preservePath": true}`, nil, 400, "INVALID_INPUT", "preservePath applies to starts_with rules only"},
		{"option not a bool", "POST", rules, `{"source": "/a", "destination": "/b", "preserveQuery": "yes"}`, nil, 400, codeInvalidJSON, `"preserveQuery"`},
		{"two fragments", "POST", rules, `{"source": "/a", "destination": "/b#c#d"}`, nil, 400, "INVALID_INPUT", "destination"},
		{"update to preservePath on exact", "PATCH", fmt.Sprintf("%s/%d", rules, a.rule.ID), `{"preservePath": true}`, nil, 400, "INVALID_INPUT", "preservePath"},
		{"bad trailingSlash", "PATCH", pbase, `{"trailingSlash": "strip"}`, nil, 400, "INVALID_INPUT", "trailingSlash"},
		{"settings on create", "POST", obase + "/projects", `{"name": "n", "caseSensitive": false}`, nil, 400, codeUnknownField, `"caseSensitive"`},
		{"bad status filter", "GET", rules + "?status=304", nil, nil, 400, "INVALID_INPUT", "status 304"},
		{"bad match", "POST", rules, `{"source": "/a", "destination": "/b", "matchType": "glob"}`, nil, 400, "INVALID_INPUT", "matchType"},
		{"duplicate rule", "POST", rules, `{"source": "/old", "destination": "/b"}`, nil, 409, "CONFLICT", ""},
		{"empty update", "PATCH", fmt.Sprintf("%s/%d", rules, a.rule.ID), `{}`, nil, 400, "INVALID_INPUT", "at least one"},
		{"bad rule ID", "GET", rules + "/abc", nil, nil, 404, "NOT_FOUND", "abc"},
		{"bad limit", "GET", rules + "?limit=ten", nil, nil, 400, codeInvalidQuery, `"limit"`},
		{"limit too big", "GET", rules + "?limit=5000", nil, nil, 400, "INVALID_INPUT", "limit"},
		{"repeated param", "GET", rules + "?q=a&q=b", nil, nil, 400, codeInvalidQuery, "2 times"},
		{"bad sort", "GET", rules + "?sort=name", nil, nil, 400, "INVALID_INPUT", "sort"},
		{"bad cursor", "GET", rules + "?after=!!!", nil, nil, 400, "INVALID_INPUT", "cursor"},
		{"bad match filter", "GET", rules + "?match=fuzzy", nil, nil, 400, codeInvalidQuery, "match"},
		{"bad role", "POST", obase + "/members", `{"email": "x@example.com", "role": "admin"}`, nil, 400, "INVALID_INPUT", "role"},
		{"unknown user", "POST", obase + "/members", `{"email": "nobody@example.com", "role": "viewer"}`, nil, 404, "NOT_FOUND", "nobody@example.com"},
		{"bad tier", "PATCH", obase, `{"tier": "gold"}`, nil, 403, "FORBIDDEN", ""},
		{"bad month", "GET", obase + "/usage?month=2026-13", nil, nil, 400, codeInvalidQuery, "month"},
		{"bad since", "GET", obase + "/audit?since=yesterday", nil, nil, 400, codeInvalidQuery, "since"},
		{"bad action filter", "GET", obase + "/audit?action=DROP", nil, nil, 400, "INVALID_INPUT", "action"},
		{"bad lookup path", "GET", pbase + "/lookup?path=nope", nil, nil, 400, codeInvalidQuery, "path"},
		{"bad lookup version", "GET", pbase + "/lookup?path=/a&version=latest", nil, nil, 400, codeInvalidQuery, "version"},
		{"bad fromVersion", "POST", pbase + "/deployments", `{"fromVersion": 0}`, nil, 400, "INVALID_INPUT", "fromVersion"},
		{"missing version", "POST", pbase + "/deployments", `{"fromVersion": 42}`, nil, 404, "NOT_FOUND", ""},
		{"bad key name", "POST", pbase + "/keys", `{"name": "a\u0000b"}`, nil, 400, "INVALID_INPUT", "NUL character"},
		{"control in key name", "POST", pbase + "/keys", `{"name": "a\u0007b"}`, nil, 400, "INVALID_INPUT", "control"},
		{"bad project name", "PATCH", pbase, `{"name": ""}`, nil, 400, "INVALID_INPUT", "empty"},
		{"no confirm", "DELETE", pbase, nil, nil, 400, codeConfirm, "confirm"},
		{"wrong confirm", "DELETE", pbase, `{"confirm": "A-SITE"}`, nil, 400, codeConfirm, "nothing was deleted"},
		{"bulk delete without confirm", "DELETE", rules + "?q=/", nil, nil, 400, codeConfirmRequired, "confirm=true"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var r *resp
			if tc.body == nil {
				r = owner.do(tc.method, tc.path, nil, tc.hdr...)
			} else {
				r = owner.do(tc.method, tc.path, []byte(tc.body.(string)), tc.hdr...)
			}
			r.want(t, tc.status, tc.code)
			if _, msg := r.errBody(t); !strings.Contains(msg, tc.mention) {
				t.Errorf("message %q does not mention %q", msg, tc.mention)
			}
		})
	}
	// A role above one's own: an editor may not mint owner tokens.
	a.sessions[redirects.RoleEditor].do("POST", obase+"/tokens", map[string]any{"role": "owner"}).want(t, 403, "FORBIDDEN")
	a.sessions[redirects.RoleEditor].do("POST", obase+"/tokens", map[string]any{"role": "boss"}).want(t, 400, "INVALID_INPUT")
	a.sessions[redirects.RoleEditor].do("POST", obase+"/tokens", map[string]any{"role": "viewer", "expiresIn": "forever"}).want(t, 400, "INVALID_INPUT")

	if after := auditCount(t, e, a.org.ID); after != before {
		t.Fatalf("bad requests wrote %d audit entries", after-before)
	}
	page, err := e.store.FindRulePage(e.ctx, a.project.ID, redirects.RulePageQuery{})
	if err != nil || page.Total != 1 {
		t.Fatalf("the project has %v rules (%v), want 1", page, err)
	}
}

// TestAuditOfEveryChange: each change made through the API records one
// entry naming the caller.
func TestAuditOfEveryChange(t *testing.T) { runSuite(t, testAuditOfEveryChange) }

func testAuditOfEveryChange(t *testing.T, open newStoreFunc) {
	e := newEnv(t, open, false, nil)
	a := e.newOrg("A")
	opUser, _ := e.user("ops@example.com", true)
	op := e.session(opUser)
	owner := a.tokens[redirects.RoleOwner]
	ownerUser := a.sessions[redirects.RoleOwner]
	newcomer, _ := e.user("new@example.com", false)
	obase := "/manage/v1/orgs/" + a.org.ID
	pbase := "/manage/v1/projects/" + a.project.ID
	var p projectJSON
	var k api.Key
	var tok api.Token
	var rule api.Rule
	steps := []struct {
		action string
		c      *client
		call   func() *resp
	}{
		{redirects.AuditOrgUpdate, op, func() *resp { return op.do("PATCH", obase, map[string]any{"tier": "enterprise"}) }},
		{redirects.AuditMemberAdd, owner, func() *resp {
			return owner.do("POST", obase+"/members", map[string]any{"email": newcomer.Email, "role": "viewer"})
		}},
		{redirects.AuditMemberUpdate, owner, func() *resp {
			return owner.do("PATCH", obase+"/members/"+newcomer.ID, map[string]any{"role": "editor"})
		}},
		{redirects.AuditMemberRemove, owner, func() *resp { return owner.do("DELETE", obase+"/members/"+newcomer.ID, nil) }},
		{redirects.AuditTokenCreate, ownerUser, func() *resp {
			r := ownerUser.do("POST", obase+"/tokens", map[string]any{"role": "viewer", "label": "ro"})
			r.decode(t, &tok)
			return r
		}},
		{redirects.AuditTokenRevoke, ownerUser, func() *resp { return ownerUser.do("DELETE", obase+"/tokens/"+tok.ID, nil) }},
		{redirects.AuditProjectCreate, owner, func() *resp {
			r := owner.do("POST", obase+"/projects", map[string]any{"name": "two"})
			r.decode(t, &p)
			return r
		}},
		{redirects.AuditProjectUpdate, owner, func() *resp { return owner.do("PATCH", "/manage/v1/projects/"+p.ID, map[string]any{"name": "2"}) }},
		{redirects.AuditProjectUpdate, owner, func() *resp {
			return owner.do("PATCH", "/manage/v1/projects/"+p.ID, map[string]any{"caseSensitive": false, "trailingSlash": "ignore"})
		}},
		{redirects.AuditProjectDelete, owner, func() *resp {
			return owner.do("DELETE", "/manage/v1/projects/"+p.ID, map[string]any{"confirm": "2"})
		}},
		{redirects.AuditRuleCreate, owner, func() *resp {
			r := owner.do("POST", pbase+"/rules", map[string]any{"source": "/x", "destination": "/y"})
			r.decode(t, &rule)
			return r
		}},
		{redirects.AuditRuleUpdate, owner, func() *resp {
			return owner.do("PATCH", fmt.Sprintf("%s/rules/%d", pbase, rule.ID), map[string]any{"priority": 5})
		}},
		{redirects.AuditRuleDelete, owner, func() *resp { return owner.do("DELETE", fmt.Sprintf("%s/rules/%d", pbase, rule.ID), nil) }},
		{redirects.AuditRuleDeleteMany, owner, func() *resp { return owner.do("DELETE", pbase+"/rules?q=/old&confirm=true", nil) }},
		{redirects.AuditKeyCreate, owner, func() *resp {
			r := owner.do("POST", pbase+"/keys", map[string]any{"name": "k"})
			r.decode(t, &k)
			return r
		}},
		{redirects.AuditKeyRevoke, owner, func() *resp { return owner.do("DELETE", pbase+"/keys/"+k.ID, nil) }},
	}
	for _, s := range steps {
		before := auditCount(t, e, a.org.ID)
		r := s.call()
		if r.status < 200 || r.status > 299 {
			t.Fatalf("%s: %s answered %d %s", s.action, r.req, r.status, r.body)
		}
		es, err := e.store.FindAudit(e.ctx, redirects.AuditFilter{OrgID: a.org.ID, Limit: 1})
		if err != nil || len(es) != 1 {
			t.Fatalf("%s: FindAudit: %v", s.action, err)
		}
		if n := auditCount(t, e, a.org.ID) - before; n != 1 || es[0].Action != s.action {
			t.Fatalf("%s: %d new entries, the newest %s", s.action, n, es[0].Action)
		}
		want := redirects.ActorToken
		if s.c.cookie != nil {
			want = redirects.ActorUser
		}
		if es[0].Actor.Kind != want || es[0].Actor.Label == "" || es[0].Actor.RemoteAddr != "127.0.0.1" {
			t.Errorf("%s: actor %+v, want a %s with its label", s.action, es[0].Actor, want)
		}
	}
	// Deleting an organization is recorded too, outside the organization's
	// own filter once it is gone.
	op.do("DELETE", obase, map[string]any{"confirm": "A"}).want(t, 204)
	es, err := e.store.FindAudit(e.ctx, redirects.AuditFilter{Action: redirects.AuditOrgDelete, Limit: 1})
	if err != nil || len(es) != 1 || es[0].Actor.Label != opUser.Email {
		t.Fatalf("org.delete entry: %+v %v", es, err)
	}
}
