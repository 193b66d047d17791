package postgres_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"strings"
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
		if r.IntN(6) == 0 {
			// A fold of each store at once, while a third flush appends:
			// each batch is folded once.
			hits := batch()
			var ea, eb, ef error
			var wg sync.WaitGroup
			wg.Add(3)
			go func() { defer wg.Done(); ea = a.FoldHits(ctx) }()
			go func() { defer wg.Done(); eb = b.FoldHits(ctx) }()
			go func() { defer wg.Done(); ef = a.AddHits(ctx, hits) }()
			wg.Wait()
			if ef == nil {
				count(hits)
			}
			for _, err := range []error{ea, eb, ef} {
				// Two writers waiting on each other's rows: PostgreSQL
				// ends one, which changes nothing.
				if err != nil && !strings.Contains(err.Error(), "deadlock") {
					t.Fatalf("round %d: fold or flush: %v", round, err)
				}
			}
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

// TestHitBatches checks what the batches of migration 0025 promise
// beyond the counting model of TestFlushByRememberedRows: a flush of
// rows a store remembers appends one batch and changes no count until a
// fold; the batches outlive the store that appended them (a node that
// ends after its flush commits loses nothing), and another store's read
// counts them; an entry whose token no longer matches its row adds
// nothing; a restore that removed a remembered row sends the flush back
// to writing by key; and batches naming a deleted project's rows fold
// away.
func TestHitBatches(t *testing.T) {
	ctx := context.Background()
	a, url := newStore(t)
	raw, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close(ctx)
	p := newProject(t, a)
	at := time.Unix(1_800_000_000, 0)
	hits := func(n int64) []redirects.RuleHits {
		return []redirects.RuleHits{
			{ProjectID: p.ID, MatchType: redirects.Exact, Source: "/a", Hits: n, LastHit: at.Add(time.Duration(n) * time.Second)},
			{ProjectID: p.ID, MatchType: redirects.StartsWith, Source: "/b", Host: "x.example", Hits: 2 * n, LastHit: at},
		}
	}
	state := func() (batches, stored int64) {
		t.Helper()
		if err := raw.QueryRow(ctx, `SELECT (SELECT count(*) FROM rule_hit_batches), (SELECT coalesce(sum(hits), 0) FROM rule_hit_counts)`).Scan(&batches, &stored); err != nil {
			t.Fatal(err)
		}
		return batches, stored
	}
	want := func(s *postgres.DB, a, b int64) {
		t.Helper()
		got, err := s.FindHits(ctx, p.ID, nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 2 || got[0].Source != "/a" || got[0].Hits != a || got[1].Source != "/b" || got[1].Hits != b {
			t.Fatalf("hits %+v, want /a %d and /b %d", got, a, b)
		}
	}
	// The first flush writes the rows by key; the next three append.
	for n := int64(1); n <= 4; n++ {
		if err := a.AddHits(ctx, hits(n)); err != nil {
			t.Fatal(err)
		}
	}
	if batches, stored := state(); batches != 3 || stored != 3 {
		t.Fatalf("%d batches and %d hits stored after four flushes, want 3 batches and the first flush's 3 hits", batches, stored)
	}
	// The store ends; another reads, folding what it left.
	a.Close()
	b := open(t, url)
	want(b, 1+2+3+4, 2*(1+2+3+4))
	if batches, stored := state(); batches != 0 || stored != 30 {
		t.Fatalf("%d batches and %d hits stored after a read, want 0 and 30", batches, stored)
	}

	// An entry whose token is not its row's (a row a restore gave the
	// id of another) adds nothing; the valid entries beside it count.
	if err := b.AddHits(ctx, hits(1)); err != nil { // b learns the rows' ids
		t.Fatal(err)
	}
	if err := b.AddHits(ctx, hits(5)); err != nil {
		t.Fatal(err)
	}
	var id, token int64
	if err := raw.QueryRow(ctx, `SELECT id, token FROM rule_hits WHERE source = '/a'`).Scan(&id, &token); err != nil {
		t.Fatal(err)
	}
	entry := make([]byte, 32)
	for i, v := range []int64{id, token + 1, 1000, 0} {
		binary.LittleEndian.PutUint64(entry[8*i:], uint64(v))
	}
	if _, err := raw.Exec(ctx, `INSERT INTO rule_hit_batches (n, entries) VALUES (1, $1)`, entry); err != nil {
		t.Fatal(err)
	}
	want(b, 10+1+5, 20+2+10)

	// A restore (pg_restore of a dump taken before /a's row was written)
	// removes /a's row without the delete trigger and writes the
	// generation's row again, token unchanged: the store's next flush
	// finds the generation changed, forgets its rows and writes /a by
	// key again, where an append would name an id that is gone.
	if _, err := raw.Exec(ctx, `ALTER TABLE rule_hits DISABLE TRIGGER rule_hits_deleted;
		DELETE FROM rule_hits WHERE source = '/a';
		ALTER TABLE rule_hits ENABLE TRIGGER rule_hits_deleted;
		UPDATE rule_hit_generation SET token = token`); err != nil {
		t.Fatal(err)
	}
	if err := b.AddHits(ctx, hits(7)); err != nil {
		t.Fatal(err)
	}
	want(b, 7, 20+2+10+14)

	// Batches of a project deleted before their fold fold away.
	if err := b.AddHits(ctx, hits(1)); err != nil {
		t.Fatal(err)
	}
	if batches, _ := state(); batches != 1 {
		t.Fatalf("%d batches, want 1", batches)
	}
	if err := b.DeleteProject(ctx, p.ID); err != nil {
		t.Fatal(err)
	}
	if err := b.FoldHits(ctx); err != nil {
		t.Fatal(err)
	}
	if batches, stored := state(); batches != 0 || stored != 0 {
		t.Fatalf("%d batches and %d hits stored after the project's deletion and a fold, want none", batches, stored)
	}
}

// TestFoldManyChunks folds batches naming more rows than one statement of
// the fold carries (10,000), so every chunk's range of ids is used: each
// row's hits are the sum of its flushes and its last hit the latest, and
// none of the fold's entries is dropped.
func TestFoldManyChunks(t *testing.T) {
	ctx := context.Background()
	s, _ := newStore(t)
	p := newProject(t, s)
	const rows = 25_000
	at := time.Unix(1_800_000_000, 0)
	flush := func(round int64) {
		t.Helper()
		hits := make([]redirects.RuleHits, rows)
		for i := range hits {
			hits[i] = redirects.RuleHits{ProjectID: p.ID, MatchType: redirects.Exact, Source: fmt.Sprintf("/r/%05d", i),
				Hits: int64(1 + i%5), LastHit: at.Add(time.Duration(round*rows+int64(i)) * time.Millisecond)}
		}
		if err := s.AddHits(ctx, hits); err != nil {
			t.Fatal(err)
		}
	}
	// The first flush writes the rows by key, the next two append.
	for round := range int64(3) {
		flush(round)
	}
	if err := s.FoldHits(ctx); err != nil {
		t.Fatal(err)
	}
	if n := s.DroppedHitEntries(); n != 0 {
		t.Fatalf("the fold dropped %d entries", n)
	}
	got, err := s.FindHits(ctx, p.ID, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != rows {
		t.Fatalf("%d rules with hits, want %d", len(got), rows)
	}
	for _, h := range got {
		var i int
		if _, err := fmt.Sscanf(h.Source, "/r/%05d", &i); err != nil {
			t.Fatalf("source %q: %v", h.Source, err)
		}
		last := at.Add(time.Duration(2*rows+int64(i)) * time.Millisecond)
		if h.Hits != 3*int64(1+i%5) || !h.LastHit.Equal(last) {
			t.Fatalf("%s: %d hits, last %v; want %d, last %v", h.Source, h.Hits, h.LastHit, 3*(1+i%5), last)
		}
	}
}
