package sqlite_test

import (
	"context"
	"testing"

	"redirects"
	"redirects/storetest"
)

// BenchmarkRulePage lists pages of a project of 1,000,000 generated rules:
//
//	go test -run XXX -bench RulePage ./sqlite
func BenchmarkRulePage(b *testing.B) {
	rules := redirects.GenerateRules(1_000_000, 0.2, 1)
	db, projectID := benchProject(b)
	defer db.Close()
	if _, err := db.ImportRules(context.Background(), projectID, rules, false); err != nil {
		b.Fatalf("ImportRules: %v", err)
	}
	storetest.BenchRulePage(b, db, projectID, rules)
}
