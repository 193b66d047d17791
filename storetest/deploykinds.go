package storetest

import (
	"testing"

	"redirects"
)

// testDeployCountsKinds checks that a deployment counts its pattern and
// regex rules apart from its starts_with rules, that the counts are stored
// (read back, and again by a rollback), and that the audit entry names them.
func testDeployCountsKinds(t *testing.T, e *env) {
	p := e.newProject()
	e.rule(p.ID, "/a", "/x", redirects.Exact, 100)
	e.rule(p.ID, "/b", "/x", redirects.StartsWith, 100)
	e.rule(p.ID, "/:lang/docs/*", "/:lang/guide/:splat", redirects.Pattern, 100)
	e.rule(p.ID, "/v/:n", "/version/:n", redirects.Pattern, 100)
	e.rule(p.ID, `/item/(\d+)`, "/items/$1", redirects.Regex, 100)
	want := func(what string, d *redirects.Deployment) {
		t.Helper()
		if d.ExactCount != 1 || d.PrefixCount != 1 || d.PatternCount != 2 || d.RegexCount != 1 {
			t.Errorf("%s counts = %d exact, %d prefix, %d pattern, %d regex; want 1, 1, 2, 1",
				what, d.ExactCount, d.PrefixCount, d.PatternCount, d.RegexCount)
		}
	}
	want("Deploy", e.deploy(p.ID, redirects.DeployOptions{Message: "first"}))
	d, _, err := e.s.FindDeployment(e.ctx, p.ID, 1)
	if err != nil {
		t.Fatalf("FindDeployment: %v", err)
	}
	want("FindDeployment", d)
	want("rollback", e.deploy(p.ID, redirects.DeployOptions{FromVersion: 1}))
	ds, err := e.s.FindDeployments(e.ctx, p.ID)
	if err != nil || len(ds) != 2 {
		t.Fatalf("FindDeployments = %d, %v; want 2 deployments", len(ds), err)
	}
	want("FindDeployments[0]", ds[0])
	want("FindDeployments[1]", ds[1])
	entries := e.audit(redirects.AuditFilter{ProjectID: p.ID, Action: redirects.AuditDeploy})
	if len(entries) != 2 {
		t.Fatalf("%d deployment.create entries, want 2", len(entries))
	}
	wantAuditJSON(t, "deploy after", entries[1].After, map[string]any{"version": 1, "message": "first",
		"exactRules": 1, "prefixRules": 1, "patternRules": 2, "regexRules": 1})
}
