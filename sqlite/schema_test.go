package sqlite_test

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"redirects"
	"redirects/sqlite"
)

// TestRulesSchema checks what migration 0022 made of the rules table: no
// per-row triggers (the writers keep rule_counts, which the store suite's
// Rule/CountModel checks), CHECKs that still refuse the status codes and
// match types the earlier IN lists refused, and the partial rules_match_key
// index still serving the two queries that read match_key.
func TestRulesSchema(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "redirects.db")
	s, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	o := &redirects.Org{Name: "Acme", Tier: redirects.TierFree}
	if err := s.CreateOrg(ctx, o); err != nil {
		t.Fatal(err)
	}
	p := &redirects.Project{OrgID: o.ID, Name: "site"}
	if err := s.CreateProject(ctx, p); err != nil {
		t.Fatal(err)
	}
	s.Close()

	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=foreign_keys(1)")
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()

	var triggers int
	if err := db.QueryRowContext(ctx, `SELECT count(*) FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'rules'`).Scan(&triggers); err != nil {
		t.Fatal(err)
	}
	if triggers != 0 {
		t.Errorf("rules has %d triggers, want none", triggers)
	}

	insert := func(status int, matchType string) error {
		_, err := db.ExecContext(ctx, `INSERT INTO rules (project_id, source, destination, status_code, match_type, priority, created_at) VALUES (?, ?, '/to', ?, ?, 100, 0)`,
			p.ID, fmt.Sprintf("/from/%s/%d", matchType, status), status, matchType)
		return err
	}
	for _, status := range []int{301, 302, 303, 307, 308, 410} {
		for _, mt := range []string{"exact", "starts_with", "pattern", "regex"} {
			if err := insert(status, mt); err != nil {
				t.Errorf("status %d, match type %s refused: %v", status, mt, err)
			}
		}
	}
	for _, status := range []int{0, 200, 300, 304, 305, 306, 309, 404, 411} {
		if err := insert(status, "exact"); err == nil || !strings.Contains(err.Error(), "CHECK constraint failed") {
			t.Errorf("status %d: %v, want a CHECK constraint failure", status, err)
		}
	}
	for _, mt := range []string{"", "Exact", "prefix", "regexp"} {
		if err := insert(301, mt); err == nil || !strings.Contains(err.Error(), "CHECK constraint failed") {
			t.Errorf("match type %q: %v, want a CHECK constraint failure", mt, err)
		}
	}

	for q, args := range map[string][]any{
		`SELECT id FROM rules WHERE project_id = $1 AND match_type = $2 AND match_key = $3 AND host = $4 AND id <> $5`: {"p", "exact", "/a", "", 0},
		`UPDATE rules SET match_key = NULL WHERE project_id = $1 AND match_key IS NOT NULL`:                            {"p"},
	} {
		rows, err := db.QueryContext(ctx, `EXPLAIN QUERY PLAN `+q, args...)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		var plan []string
		for rows.Next() {
			var id, parent, notused int
			var detail string
			if err := rows.Scan(&id, &parent, &notused, &detail); err != nil {
				t.Fatal(err)
			}
			plan = append(plan, detail)
		}
		rows.Close()
		if got := strings.Join(plan, "; "); !strings.Contains(got, "INDEX rules_match_key (") {
			t.Errorf("%s: plan %q does not use rules_match_key", q, got)
		}
	}
}
