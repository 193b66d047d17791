package postgres_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"

	"redirects/internal/rulegen"
	"redirects/storetest"
)

// BenchmarkRulePage lists pages of a project of 1,000,000 generated rules:
//
//	REDIRECTS_TEST_POSTGRES=... go test -run XXX -bench RulePage ./postgres
func BenchmarkRulePage(b *testing.B) {
	rules := rulegen.Rules(1_000_000, 0.2, 1)
	url := newSchema(b, newDatabase(b))
	db := open(b, url)
	p := newProject(b, db)
	if _, err := db.ImportRules(context.Background(), p.ID, rules, false); err != nil {
		b.Fatalf("ImportRules: %v", err)
	}
	// The steady state: autovacuum analyzes and vacuums the table within
	// about a minute of a large import. Before that the planner has no
	// statistics and counts cannot use index-only scans.
	conn, err := pgx.Connect(context.Background(), url)
	if err != nil {
		b.Fatalf("connect: %v", err)
	}
	defer conn.Close(context.Background())
	if _, err := conn.Exec(context.Background(), `VACUUM ANALYZE rules`); err != nil {
		b.Fatalf("VACUUM ANALYZE: %v", err)
	}
	storetest.BenchRulePage(b, db, p.ID, rules)
}
