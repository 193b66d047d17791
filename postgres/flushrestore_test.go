package postgres_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"redirects"
	"redirects/postgres"
	"redirects/sqlstore"
)

// restoreCase is a database with a recovery point: a project whose rule
// /a a node flushed one hit of before the copy (snap) was taken.
type restoreCase struct {
	admin, src, snap, url string
	p                     *redirects.Project
	at                    time.Time
}

func newRestoreCase(t *testing.T) *restoreCase {
	t.Helper()
	ctx := context.Background()
	c := &restoreCase{admin: adminURL(t), src: randomName("fl_src_"), snap: randomName("fl_snap_"), at: time.Unix(1_800_000_000, 0)}
	if err := adminExec(c.admin, `CREATE DATABASE `+c.src); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		adminExec(c.admin, `DROP DATABASE IF EXISTS `+c.src+` WITH (FORCE)`)
		adminExec(c.admin, `DROP DATABASE IF EXISTS `+c.snap+` WITH (FORCE)`)
	})
	c.url = withParam(t, c.admin, "dbname", c.src)
	x, err := postgres.Open(ctx, c.url)
	if err != nil {
		t.Fatal(err)
	}
	c.p = newProject(t, x)
	if err := x.AddHits(ctx, []redirects.RuleHits{c.hits("/a", 1)}); err != nil {
		t.Fatal(err)
	}
	x.Close()
	// The backup / recovery point.
	if err := adminExec(c.admin, `CREATE DATABASE `+c.snap+` TEMPLATE `+c.src); err != nil {
		t.Fatal(err)
	}
	return c
}

// hits is n hits of the project's exact rule src.
func (c *restoreCase) hits(src string, n int64) redirects.RuleHits {
	return redirects.RuleHits{ProjectID: c.p.ID, MatchType: redirects.Exact, Source: src, Hits: n, LastHit: c.at}
}

// open opens a node on the database.
func (c *restoreCase) open(t *testing.T) *postgres.DB {
	t.Helper()
	n, err := postgres.Open(context.Background(), c.url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { n.Close() })
	return n
}

// restore brings the recovery point back in place of the database.
func (c *restoreCase) restore(t *testing.T) {
	t.Helper()
	if err := adminExec(c.admin, `DROP DATABASE `+c.src+` WITH (FORCE)`); err != nil {
		t.Fatal(err)
	}
	if err := adminExec(c.admin, `CREATE DATABASE `+c.src+` TEMPLATE `+c.snap); err != nil {
		t.Fatal(err)
	}
}

// wantHits checks that got holds exactly want's sources with their hits.
func wantHits(t *testing.T, got []redirects.RuleHits, want map[string]int64) {
	t.Helper()
	for _, g := range got {
		if want[g.Source] != g.Hits {
			t.Errorf("%s: %d hits, want %d", g.Source, g.Hits, want[g.Source])
		}
		delete(want, g.Source)
	}
	for s, w := range want {
		t.Errorf("%s: missing, want %d hits", s, w)
	}
}

// TestFlushPhysicalRestore: a restore that brings back an earlier copy of
// the database files (PITR, a filesystem snapshot, an async standby
// promoted), simulated with CREATE DATABASE ... TEMPLATE. Hits flushed
// after the restore of a rule the node learned after the snapshot are
// counted: the append refuses an id above the id sequence, and the node
// flushes by key.
func TestFlushPhysicalRestore(t *testing.T) {
	ctx := context.Background()
	c := newRestoreCase(t)
	h := c.hits
	// The node runs on: learns /b.
	n := c.open(t)
	for range 2 {
		if err := n.AddHits(ctx, []redirects.RuleHits{h("/a", 1), h("/b", 1)}); err != nil {
			t.Fatal(err)
		}
	}
	// Restore the earlier copy; the node is not restarted.
	c.restore(t)
	ok := 0
	for i := 0; ok < 3 && i < 20; i++ {
		if err := n.AddHits(ctx, []redirects.RuleHits{h("/a", 10), h("/b", 10)}); err != nil {
			t.Logf("flush after restore: %v", err)
			continue
		}
		ok++
	}
	got, err := n.FindHits(ctx, c.p.ID, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("after restore + %d flushes of /a 10, /b 10: %+v", ok, got)
	wantHits(t, got, map[string]int64{"/a": 1 + 10*int64(ok), "/b": 10 * int64(ok)})
	if d := n.DroppedHitEntries(); d != 0 {
		t.Errorf("%d batch entries dropped, want none", d)
	}
}

// TestFlushRestoreReusedIDs: after a physical restore, another node
// creates rows, so the id sequence passes the ids a node remembers from
// after the recovery point and gives them to other rows. The node's
// next append goes through; the fold matches none of its entries by those
// ids (the token differs), drops them, counts them, adds nothing to the
// other rows, and gives the generation a new token: the node's later
// flushes go by key and are counted.
func TestFlushRestoreReusedIDs(t *testing.T) {
	ctx := context.Background()
	c := newRestoreCase(t)
	h := c.hits
	n := c.open(t)
	// n learns /b and /c after the recovery point.
	for range 2 {
		if err := n.AddHits(ctx, []redirects.RuleHits{h("/a", 1), h("/b", 1), h("/c", 1)}); err != nil {
			t.Fatal(err)
		}
	}
	c.restore(t)
	// Another node creates rows: they take the ids n remembers for /b, /c.
	o := c.open(t)
	others := []redirects.RuleHits{h("/x", 5), h("/y", 5), h("/z", 5)}
	if err := o.AddHits(ctx, others); err != nil {
		t.Fatal(err)
	}
	var flushed int
	for i := 0; flushed < 4 && i < 20; i++ {
		if err := n.AddHits(ctx, []redirects.RuleHits{h("/a", 10), h("/b", 10), h("/c", 10)}); err != nil {
			t.Logf("flush after restore: %v", err)
			continue
		}
		flushed++
		if flushed == 1 {
			if err := n.FoldHits(ctx); err != nil {
				t.Fatal(err)
			}
			if d := n.DroppedHitEntries(); d != 2 {
				t.Fatalf("%d batch entries dropped by the fold, want 2 (/b, /c)", d)
			}
		}
	}
	if flushed != 4 {
		t.Fatalf("%d flushes went through", flushed)
	}
	got, err := o.FindHits(ctx, c.p.ID, nil)
	if err != nil {
		t.Fatal(err)
	}
	// The first flush after the restore, by the reused ids, is lost for
	// /b and /c; the three after it are counted; /x, /y, /z get nothing
	// of them.
	wantHits(t, got, map[string]int64{"/a": 1 + 40, "/b": 30, "/c": 30, "/x": 5, "/y": 5, "/z": 5})
}

// TestFlushConcurrentModel: four stores flush (and fold at random) at once
// from many goroutines; a brute-force model counts every flush that
// returned nil.
func TestFlushConcurrentModel(t *testing.T) {
	ctx := context.Background()
	a, url := newStore(t)
	stores := []*postgres.DB{a, open(t, url), open(t, url), open(t, url)}
	p := newProject(t, a)
	type total struct{ hits, last int64 }
	var mu sync.Mutex
	model := map[string]total{}
	errs := map[string]int{}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(g), 7))
			s := stores[g%len(stores)]
			for range 150 {
				if r.IntN(5) == 0 {
					if err := s.FoldHits(ctx); err != nil {
						mu.Lock()
						errs["fold: "+err.Error()[:min(60, len(err.Error()))]]++
						mu.Unlock()
					}
					continue
				}
				var hits []redirects.RuleHits
				for range 1 + r.IntN(200) {
					hits = append(hits, redirects.RuleHits{ProjectID: p.ID, MatchType: redirects.Exact,
						Source: fmt.Sprintf("/r/%d", r.IntN(300)), Hits: 1 + int64(r.IntN(5)), LastHit: time.Unix(int64(r.IntN(1e6)), 0)})
				}
				err := s.AddHits(ctx, hits)
				mu.Lock()
				if err != nil {
					errs["add: "+err.Error()[:min(60, len(err.Error()))]]++
				} else {
					for _, h := range hits {
						m := model[h.Source]
						m.hits += h.Hits
						m.last = max(m.last, h.LastHit.UnixNano())
						model[h.Source] = m
					}
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	t.Logf("errors: %v", errs)
	got, err := stores[1].FindHits(ctx, p.ID, nil)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]total{}
	for _, h := range got {
		seen[h.Source] = total{h.Hits, h.LastHit.UnixNano()}
	}
	if fmt.Sprint(seen) != fmt.Sprint(model) {
		bad := 0
		for k, v := range model {
			if seen[k] != v && bad < 10 {
				t.Errorf("%s: got %v want %v", k, seen[k], v)
				bad++
			}
		}
		t.Fatalf("mismatch (%d vs %d keys)", len(seen), len(model))
	}
}

// TestFlushSlowPathFolds: flushes that each name one rule the node has
// not flushed before take the transaction path, which appends the
// remembered rows as a batch: once the pending entries reach
// sqlstore.FoldEntries that flush folds them, as the append alone does, so they
// never pile up past it. Every hit is counted.
func TestFlushSlowPathFolds(t *testing.T) {
	ctx := context.Background()
	a, url := newStore(t)
	p := newProject(t, a)
	raw, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close(ctx)
	// known rules a flush, so that the 13th of 20 flushes takes the
	// entries pending past the threshold.
	known := make([]redirects.RuleHits, 0, sqlstore.FoldEntries*2/25)
	for i := range cap(known) {
		known = append(known, redirects.RuleHits{ProjectID: p.ID, MatchType: redirects.Exact, Source: fmt.Sprintf("/k/%d", i), Hits: 1, LastHit: time.Unix(1, 0)})
	}
	if err := a.AddHits(ctx, known); err != nil {
		t.Fatal(err)
	}
	for i := range 20 {
		hits := append(append([]redirects.RuleHits(nil), known...), redirects.RuleHits{ProjectID: p.ID, MatchType: redirects.Exact, Source: fmt.Sprintf("/new/%d", i), Hits: 1, LastHit: time.Unix(1, 0)})
		if err := a.AddHits(ctx, hits); err != nil {
			t.Fatal(err)
		}
	}
	var rows, pending int64
	if err := raw.QueryRow(ctx, `SELECT count(*), coalesce(sum(n),0) FROM rule_hit_batches`).Scan(&rows, &pending); err != nil {
		t.Fatal(err)
	}
	t.Logf("after 20 flushes each with one new rule: %d batches, %d entries pending (threshold %d)", rows, pending, sqlstore.FoldEntries)
	// len(known) entries a flush (2/25 of the threshold): the 13th takes
	// them to 104 % of it and folds; the 7 after it leave 7 flushes'.
	if want := int64(7 * len(known)); pending >= sqlstore.FoldEntries || pending != want {
		t.Errorf("%d batches, %d entries pending, want 7 and %d", rows, pending, want)
	}
	got, err := a.FindHits(ctx, p.ID, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(known)+20 {
		t.Fatalf("%d rules with hits, want %d", len(got), len(known)+20)
	}
	for _, g := range got {
		want := int64(21)
		if strings.HasPrefix(g.Source, "/new/") {
			want = 1
		}
		if g.Hits != want {
			t.Fatalf("%s: %d hits, want %d", g.Source, g.Hits, want)
		}
	}
}

// TestFlushConcurrentDeletes: flushes of two projects from three stores
// while the second project is deleted and a new one made, over and over
// (generation churn); folds at random. The first project's totals match
// a model of every flush that returned nil.
func TestFlushConcurrentDeletes(t *testing.T) {
	ctx := context.Background()
	a, url := newStore(t)
	stores := []*postgres.DB{a, open(t, url), open(t, url)}
	p := newProject(t, a)
	var pmu sync.Mutex
	other := newProject(t, a)
	var mu sync.Mutex
	model := map[string]int64{}
	errs := map[string]int{}
	stop := make(chan struct{})
	var dwg sync.WaitGroup
	dwg.Add(1)
	go func() {
		defer dwg.Done()
		for {
			select {
			case <-stop:
				return
			case <-time.After(30 * time.Millisecond):
			}
			pmu.Lock()
			old := other
			pmu.Unlock()
			if err := a.DeleteProject(ctx, old.ID); err != nil {
				t.Errorf("delete: %v", err)
				return
			}
			np := &redirects.Project{OrgID: old.OrgID, Name: randomName("p")}
			if err := a.CreateProject(ctx, np); err != nil {
				t.Errorf("create: %v", err)
				return
			}
			pmu.Lock()
			other = np
			pmu.Unlock()
		}
	}()
	var wg sync.WaitGroup
	for g := range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(g), 9))
			s := stores[g%len(stores)]
			for range 120 {
				if r.IntN(6) == 0 {
					if err := s.FoldHits(ctx); err != nil {
						mu.Lock()
						errs["fold: "+err.Error()[:min(50, len(err.Error()))]]++
						mu.Unlock()
					}
					continue
				}
				pmu.Lock()
				o := other
				pmu.Unlock()
				var hits []redirects.RuleHits
				for range 1 + r.IntN(100) {
					pid := p.ID
					if r.IntN(2) == 0 {
						pid = o.ID
					}
					hits = append(hits, redirects.RuleHits{ProjectID: pid, MatchType: redirects.Exact,
						Source: fmt.Sprintf("/r/%d", r.IntN(150)), Hits: 1 + int64(r.IntN(5)), LastHit: time.Unix(5, 0)})
				}
				err := s.AddHits(ctx, hits)
				mu.Lock()
				if err != nil {
					errs["add: "+err.Error()[:min(50, len(err.Error()))]]++
				} else {
					for _, h := range hits {
						if h.ProjectID == p.ID {
							model[h.Source] += h.Hits
						}
					}
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	close(stop)
	dwg.Wait()
	t.Logf("errors: %v", errs)
	got, err := stores[2].FindHits(ctx, p.ID, nil)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int64{}
	for _, h := range got {
		seen[h.Source] = h.Hits
	}
	if fmt.Sprint(seen) != fmt.Sprint(model) {
		t.Fatalf("mismatch:\n%v\nwant\n%v", seen, model)
	}
}

// TestFlushTriggersSearchPath: a delete of rule_hits rows by a session
// whose search_path does not name the schema (a script, another
// application) still changes rule_hit_generation's token: the triggers'
// functions keep the migration's search_path.
func TestFlushTriggersSearchPath(t *testing.T) {
	ctx := context.Background()
	a, url := newStore(t)
	p := newProject(t, a)
	if err := a.AddHits(ctx, []redirects.RuleHits{{ProjectID: p.ID, MatchType: redirects.Exact, Source: "/a", Hits: 1, LastHit: time.Unix(1, 0)}}); err != nil {
		t.Fatal(err)
	}
	raw, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close(ctx)
	var schema string
	var before, after int64
	if err := raw.QueryRow(ctx, `SELECT current_schema(), token FROM rule_hit_generation`).Scan(&schema, &before); err != nil {
		t.Fatal(err)
	}
	if _, err := raw.Exec(ctx, `SET search_path = pg_catalog`); err != nil {
		t.Fatal(err)
	}
	q := pgx.Identifier{schema}.Sanitize()
	if tag, err := raw.Exec(ctx, `DELETE FROM `+q+`.rule_hits`); err != nil || tag.RowsAffected() != 1 {
		t.Fatalf("delete with search_path pg_catalog: %v, %v rows", err, tag.RowsAffected())
	}
	if _, err := raw.Exec(ctx, `TRUNCATE `+q+`.rule_hits CASCADE`); err != nil {
		t.Fatalf("truncate with search_path pg_catalog: %v", err)
	}
	if err := raw.QueryRow(ctx, `SELECT token FROM `+q+`.rule_hit_generation`).Scan(&after); err != nil {
		t.Fatal(err)
	}
	if after == before {
		t.Errorf("rule_hit_generation's token is still %d", after)
	}
}

// TestFlushFastPathFolds: appends alone (every rule known) count the
// entries pending only now and then (at least every
// sqlstore.FoldCheckEntries entries of their own), and fold once the count reaches sqlstore.FoldEntries: the
// entries pending never pass it plus what one DB appends between two
// counts, and every hit is counted.
func TestFlushFastPathFolds(t *testing.T) {
	ctx := context.Background()
	a, url := newStore(t)
	p := newProject(t, a)
	raw, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close(ctx)
	// 60 flushes of rules that reach the threshold 1.2 times.
	const flushes = 60
	rules := sqlstore.FoldEntries / 50
	var known []redirects.RuleHits
	for i := range rules {
		known = append(known, redirects.RuleHits{ProjectID: p.ID, MatchType: redirects.Exact, Source: fmt.Sprintf("/k/%d", i), Hits: 1, LastHit: time.Unix(1, 0)})
	}
	if err := a.AddHits(ctx, known); err != nil {
		t.Fatal(err)
	}
	folds := 0
	var last int64
	for range flushes {
		if err := a.AddHits(ctx, known); err != nil {
			t.Fatal(err)
		}
		var pending int64
		if err := raw.QueryRow(ctx, `SELECT coalesce(sum(n), 0) FROM rule_hit_batches`).Scan(&pending); err != nil {
			t.Fatal(err)
		}
		if pending >= sqlstore.FoldEntries+sqlstore.FoldCheckEntries {
			t.Fatalf("%d entries pending", pending)
		}
		if pending < last {
			folds++
		}
		last = pending
	}
	t.Logf("%d folds in %d flushes of %d rules", folds, flushes, rules)
	if folds == 0 {
		t.Errorf("%d flushes of %d known rules never folded", flushes, rules)
	}
	got, err := a.FindHits(ctx, p.ID, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != rules {
		t.Fatalf("%d rules with hits, want %d", len(got), rules)
	}
	for _, g := range got {
		if g.Hits != 1+flushes {
			t.Fatalf("%s: %d hits, want %d", g.Source, g.Hits, 1+flushes)
		}
	}
}
