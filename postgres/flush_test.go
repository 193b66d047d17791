package postgres_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"redirects"
	"redirects/postgres"
)

// TestFlushByRememberedRows flushes random hits through two stores on one
// database, one at a time and both at once, while rows go away behind
// their backs (a deleted row a store remembers sends its flush back to
// the upsert) and a flush fails after writing rows: every total stays
// what a model of docs/contract.md's counting says, so no hit is lost or
// counted twice. It also checks that rule_hits keeps half of each page
// free for the flush's updates (migration 0021).
func TestFlushByRememberedRows(t *testing.T) {
	ctx := context.Background()
	a, url := newStore(t)
	b := open(t, url)
	raw, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close(ctx)
	var opts []string
	if err := raw.QueryRow(ctx, `SELECT COALESCE(reloptions, '{}') FROM pg_class WHERE oid = 'rule_hits'::regclass`).Scan(&opts); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(opts) != "[fillfactor=50]" {
		t.Errorf("rule_hits options %v, want [fillfactor=50]", opts)
	}
	o := &redirects.Org{Name: "a", Tier: redirects.TierEnterprise}
	if err := a.CreateOrg(ctx, o); err != nil {
		t.Fatal(err)
	}
	p := &redirects.Project{OrgID: o.ID, Name: "p"}
	if err := a.CreateProject(ctx, p); err != nil {
		t.Fatal(err)
	}
	type total struct{ hits, last int64 }
	model := map[redirects.HitKey]total{}
	count := func(hits []redirects.RuleHits) {
		for _, h := range hits {
			if h.Hits == 0 {
				continue
			}
			k := redirects.HitKey{MatchType: h.MatchType, Host: h.Host, Source: h.Source}
			m := model[k]
			m.hits += h.Hits
			m.last = max(m.last, h.LastHit.UnixNano())
			model[k] = m
		}
	}
	check := func(when string) {
		t.Helper()
		got, err := b.FindHits(ctx, p.ID, nil)
		if err != nil {
			t.Fatalf("%s: FindHits: %v", when, err)
		}
		seen := map[redirects.HitKey]total{}
		for _, h := range got {
			seen[redirects.HitKey{MatchType: h.MatchType, Host: h.Host, Source: h.Source}] = total{h.Hits, h.LastHit.UnixNano()}
		}
		if fmt.Sprint(seen) != fmt.Sprint(model) {
			t.Fatalf("%s: stored hits\n%v\nwant\n%v", when, seen, model)
		}
	}
	hosts := []string{"", "www.example.com"}
	kinds := []redirects.MatchType{redirects.Exact, redirects.StartsWith}
	r := rand.New(rand.NewPCG(33, 2))
	batch := func() []redirects.RuleHits {
		var hits []redirects.RuleHits
		for range 1 + r.IntN(40) {
			hits = append(hits, redirects.RuleHits{ProjectID: p.ID, MatchType: kinds[r.IntN(2)], Host: hosts[r.IntN(2)],
				Source: fmt.Sprintf("/r/%d", r.IntN(60)), Hits: int64(r.IntN(5)), LastHit: time.Unix(int64(r.IntN(1000)), 0)})
		}
		return hits
	}
	for round := range 80 {
		if r.IntN(4) == 0 {
			// Both stores at once: a flush may fail (PostgreSQL ends one
			// of two that wait on each other), and then counts nothing.
			ha, hb := batch(), batch()
			var ea, eb error
			var wg sync.WaitGroup
			wg.Add(2)
			go func() { defer wg.Done(); ea = a.AddHits(ctx, ha) }()
			go func() { defer wg.Done(); eb = b.AddHits(ctx, hb) }()
			wg.Wait()
			if ea == nil {
				count(ha)
			}
			if eb == nil {
				count(hb)
			}
			if ea != nil && eb != nil {
				t.Fatalf("round %d: both flushes failed: %v; %v", round, ea, eb)
			}
		} else {
			s := a
			if r.IntN(3) == 0 {
				s = b
			}
			hits := batch()
			if err := s.AddHits(ctx, hits); err != nil {
				t.Fatalf("round %d: AddHits: %v", round, err)
			}
			count(hits)
		}
		check(fmt.Sprintf("round %d", round))
		if r.IntN(5) == 0 {
			// Rows go away behind both stores' backs.
			from := fmt.Sprintf("/r/%d", r.IntN(60))
			if _, err := raw.Exec(ctx, `DELETE FROM rule_hits WHERE source >= $1`, from); err != nil {
				t.Fatal(err)
			}
			for k := range model {
				if k.Source >= from {
					delete(model, k)
				}
			}
			check(fmt.Sprintf("round %d, rows deleted", round))
		}
	}

	// A flush that fails after writing rows, remembered ones and new
	// ones, leaves nothing, and the flushes after it count once.
	if _, err := raw.Exec(ctx, `CREATE FUNCTION boom() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'boom'; END $$;
		CREATE TRIGGER boom BEFORE INSERT ON rule_hits FOR EACH ROW WHEN (NEW.source = '/zz') EXECUTE FUNCTION boom()`); err != nil {
		t.Fatal(err)
	}
	known := batch()
	if err := a.AddHits(ctx, known); err != nil {
		t.Fatal(err)
	}
	count(known)
	failed := append(batch(), known...)
	failed = append(failed, redirects.RuleHits{ProjectID: p.ID, MatchType: redirects.Exact, Source: "/n/1", Hits: 1, LastHit: time.Unix(1, 0)},
		redirects.RuleHits{ProjectID: p.ID, MatchType: redirects.Exact, Source: "/zz", Hits: 1, LastHit: time.Unix(1, 0)})
	if err := a.AddHits(ctx, failed); err == nil {
		t.Fatal("AddHits with a row the trigger refuses succeeded")
	}
	check("after a failed flush")
	if _, err := raw.Exec(ctx, `DROP TRIGGER boom ON rule_hits`); err != nil {
		t.Fatal(err)
	}
	for _, s := range []*postgres.DB{a, b, a} {
		if err := s.AddHits(ctx, failed); err != nil {
			t.Fatal(err)
		}
		count(failed)
		check("after the flushes that followed the failed one")
	}
}
