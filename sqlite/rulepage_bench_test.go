package sqlite_test

import (
	"context"
	"testing"

	"redirects"

	"redirects/internal/rulegen"
	"redirects/sqlite"
	"redirects/storetest"
)

// BenchmarkRulePage lists pages of a project of 1,000,000 generated rules:
//
//	go test -run XXX -bench RulePage ./sqlite
func BenchmarkRulePage(b *testing.B) {
	rules := rulegen.Rules(1_000_000, 0.2, 1)
	db, projectID := benchProject(b)
	defer db.Close()
	if _, err := db.ImportRules(context.Background(), projectID, rules, false); err != nil {
		b.Fatalf("ImportRules: %v", err)
	}
	storetest.BenchRulePage(b, db, projectID, rules)
}

// benchProject opens a new store in a temporary file with one project.
func benchProject(b *testing.B) (*sqlite.DB, string) {
	b.Helper()
	ctx := context.Background()
	db := open(b, nil)
	o := &redirects.Org{Name: "bench", Tier: redirects.TierEnterprise}
	if err := db.CreateOrg(ctx, o); err != nil {
		b.Fatalf("CreateOrg: %v", err)
	}
	p := &redirects.Project{OrgID: o.ID, Name: "bench"}
	if err := db.CreateProject(ctx, p); err != nil {
		b.Fatalf("CreateProject: %v", err)
	}
	return db, p.ID
}
