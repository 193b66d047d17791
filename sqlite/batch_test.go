package sqlite

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
	"math/rand/v2"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"redirects"
	"redirects/sqlstore"
)

// recordingDriver is SQLite's driver with every statement it prepares
// recorded: database/sql prepares each statement it runs on a connection
// that offers no shortcut.
type recordingDriver struct {
	driver.Driver
	mu    sync.Mutex
	texts []string
}

func (d *recordingDriver) Open(name string) (driver.Conn, error) {
	c, err := d.Driver.Open(name)
	if err != nil {
		return nil, err
	}
	return &recordingConn{c.(sqliteConn), d}, nil
}

// sqliteConn is what database/sql uses of the driver's connections.
type sqliteConn interface {
	driver.Conn
	driver.ConnBeginTx
	driver.ConnPrepareContext
}

type recordingConn struct {
	sqliteConn
	d *recordingDriver
}

func (c *recordingConn) Prepare(query string) (driver.Stmt, error) {
	return c.PrepareContext(context.Background(), query)
}

func (c *recordingConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	c.d.mu.Lock()
	c.d.texts = append(c.d.texts, query)
	c.d.mu.Unlock()
	return c.sqliteConn.PrepareContext(ctx, query)
}

var registerRecording sync.Once
var recording = &recordingDriver{}

// TestFlushStatementsStayPrepared flushes hits of 1, 2, 3 and 1,201
// distinct rules: every flush sends the one statement text, which an
// engine can keep prepared, and the text carries one row, so its size and
// its parse do not grow with the flush.
func TestFlushStatementsStayPrepared(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "redirects.db")
	setup, err := Open(ctx, path)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	o := &redirects.Org{Name: "a", Tier: redirects.TierEnterprise}
	if err := setup.CreateOrg(ctx, o); err != nil {
		t.Fatal(err)
	}
	p := &redirects.Project{OrgID: o.ID, Name: "p"}
	if err := setup.CreateProject(ctx, p); err != nil {
		t.Fatal(err)
	}
	registerRecording.Do(func() {
		recording.Driver = setup.write.Driver()
		sql.Register("sqlite-recording", recording)
	})
	setup.Close()

	params := url.Values{}
	params.Set("_foreign_keys", "on")
	params.Set("_txlock", "immediate")
	w, err := sql.Open("sqlite-recording", dsn(path, params))
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	w.SetMaxOpenConns(1)
	db := sqlstore.New(w, w, dialect{})

	texts := map[string]int{}
	for _, n := range []int{1, 2, 3, 1201} {
		hits := make([]redirects.RuleHits, n)
		for i := range hits {
			hits[i] = redirects.RuleHits{ProjectID: p.ID, MatchType: redirects.Exact, Source: fmt.Sprintf("/r/%d", i), Hits: 1, LastHit: time.Unix(1, 0)}
		}
		recording.mu.Lock()
		recording.texts = nil
		recording.mu.Unlock()
		if err := db.AddHits(ctx, hits); err != nil {
			t.Fatalf("AddHits(%d rules): %v", n, err)
		}
		recording.mu.Lock()
		for _, q := range recording.texts {
			if strings.Contains(q, "INSERT INTO rule_hits") {
				texts[q]++
			}
		}
		recording.mu.Unlock()
	}
	if len(texts) != 1 {
		var sizes []string
		for q, n := range texts {
			sizes = append(sizes, fmt.Sprintf("%d bytes, %d times", len(q), n))
		}
		t.Fatalf("flushes of 1, 2, 3 and 1201 rules sent %d statement texts (%s), want 1", len(texts), strings.Join(sizes, "; "))
	}
	for q := range texts {
		// One row is six values since hits are counted per host too.
		if n := strings.Count(q, "$"); n > 6 {
			t.Errorf("the flush's statement has %d arguments, want one row's 6:\n%.300s", n, q)
		}
	}
	got, err := db.FindHits(ctx, p.ID, []string{"/r/0", "/r/1200"})
	if err != nil || len(got) != 2 || got[0].Hits != 4 || got[1].Hits != 1 {
		t.Errorf("FindHits = %v, %v; want /r/0 with 4 hits and /r/1200 with 1", got, err)
	}
}

// TestFlushByRememberedIDs flushes random hits (in no order, a rule often
// named twice in one flush) through two stores on one file, as two
// processes would, one at a time and both at once, while rows or only
// their counts go away behind their backs and a flush fails after
// inserting rows: every total stays what a model of
// docs/contract.md's counting says, so an id a store remembers never
// changes another rule's row (ids are never given twice, and the ids of a
// rolled-back flush are not remembered).
func TestFlushByRememberedIDs(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "redirects.db")
	a, err := Open(ctx, path)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer a.Close()
	b, err := Open(ctx, path)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	defer b.Close()
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
	hosts := []string{"", "www.example.com"}
	kinds := []redirects.MatchType{redirects.Exact, redirects.StartsWith}
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
	r := rand.New(rand.NewPCG(33, 1))
	// batch draws a flush's hits: 1 to 40 of 240 rules, or half the time
	// of the 20 of the first five sources (which the stores soon
	// remember: their flushes are batches), in no order, a rule often
	// named twice.
	batch := func() []redirects.RuleHits {
		var hits []redirects.RuleHits
		sources := 60
		if r.IntN(2) == 0 {
			sources = 5
		}
		for range 1 + r.IntN(40) {
			hits = append(hits, redirects.RuleHits{ProjectID: p.ID, MatchType: kinds[r.IntN(2)], Host: hosts[r.IntN(2)],
				Source: fmt.Sprintf("/r/%d", r.IntN(sources)), Hits: int64(r.IntN(5)), LastHit: time.Unix(int64(r.IntN(1000)), 0)})
		}
		return hits
	}
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
	appended := 0
	defer func() {
		if appended == 0 {
			t.Errorf("no flush appended a batch: the rounds never flushed rows a store remembers")
		}
	}()
	for round := range 80 {
		if r.IntN(4) == 0 {
			// Both stores at once, as two nodes: SQLite runs one writer
			// at a time, so both flushes succeed and both count.
			ha, hb := batch(), batch()
			var ea, eb error
			var wg sync.WaitGroup
			wg.Add(2)
			go func() { defer wg.Done(); ea = a.AddHits(ctx, ha) }()
			go func() { defer wg.Done(); eb = b.AddHits(ctx, hb) }()
			wg.Wait()
			if ea != nil || eb != nil {
				t.Fatalf("round %d: flushes at once: %v; %v", round, ea, eb)
			}
			count(ha)
			count(hb)
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
		// A flush of rows a store remembers is a batch, folded by the
		// read below.
		var pending int
		if err := a.write.QueryRowContext(ctx, `SELECT count(*) FROM rule_hit_batches`).Scan(&pending); err != nil {
			t.Fatal(err)
		}
		if pending > 0 {
			appended++
		}
		// Half the rounds are checked (a read, which folds the batches)
		// before rows go away, the others after, with the batches still
		// pending when the rows go and a flush in between.
		early := r.IntN(2) == 0
		if early {
			check(fmt.Sprintf("round %d", round))
		}
		if r.IntN(5) == 0 {
			// Rows go away behind both stores' backs.
			n := r.IntN(60)
			// Or only their counts: a key left without counts shows no
			// hits, and takes them again from the next flush that names it.
			del := `DELETE FROM rule_hits WHERE source >= $1`
			if r.IntN(2) == 0 {
				del = `DELETE FROM rule_hit_counts WHERE id IN (SELECT id FROM rule_hits WHERE source >= $1)`
			}
			if _, err := a.write.ExecContext(ctx, del, fmt.Sprintf("/r/%d", n)); err != nil {
				t.Fatal(err)
			}
			for k := range model {
				if k.Source >= fmt.Sprintf("/r/%d", n) {
					delete(model, k)
				}
			}
			if !early {
				// The flush after the delete writes the rows again
				// (by key: the generation changed); the batches
				// appended before the delete add nothing to them.
				s := a
				if r.IntN(2) == 0 {
					s = b
				}
				hits := batch()
				if err := s.AddHits(ctx, hits); err != nil {
					t.Fatalf("round %d: AddHits after a delete: %v", round, err)
				}
				count(hits)
			}
			check(fmt.Sprintf("round %d, rows deleted", round))
		} else if !early {
			check(fmt.Sprintf("round %d", round))
		}
	}

	// A flush that fails after inserting rows leaves nothing, and the ids
	// its inserts were given, given again to other rows, never receive
	// the failed rows' hits.
	if _, err := a.write.ExecContext(ctx, `CREATE TRIGGER boom BEFORE INSERT ON rule_hits WHEN NEW.source = '/zz' BEGIN SELECT RAISE(ABORT, 'boom'); END`); err != nil {
		t.Fatal(err)
	}
	flush := func(s *DB, sources ...string) error {
		var hits []redirects.RuleHits
		for _, src := range sources {
			hits = append(hits, redirects.RuleHits{ProjectID: p.ID, MatchType: redirects.Exact, Source: src, Hits: 1, LastHit: time.Unix(1, 0)})
		}
		return s.AddHits(ctx, hits)
	}
	if err := flush(a, "/n/1", "/n/2", "/n/3", "/zz"); err == nil {
		t.Fatal("AddHits with a row the trigger refuses succeeded")
	}
	check("after a failed flush")
	if _, err := a.write.ExecContext(ctx, `DROP TRIGGER boom`); err != nil {
		t.Fatal(err)
	}
	if err := flush(b, "/m/1", "/m/2", "/m/3"); err != nil {
		t.Fatal(err)
	}
	if err := flush(a, "/n/1", "/n/2", "/n/3"); err != nil {
		t.Fatal(err)
	}
	for _, src := range []string{"/m/1", "/m/2", "/m/3", "/n/1", "/n/2", "/n/3"} {
		model[redirects.HitKey{MatchType: redirects.Exact, Source: src}] = total{1, time.Unix(1, 0).UnixNano()}
	}
	check("after the flushes that followed the failed one")
}

// TestFlushBatchesAcrossDeletes walks the batches through the deletes
// that make a flush go by key: a flush of remembered rows is one batch,
// which a read folds; counts deleted while a batch naming them waits are
// written again by the next flush, without the batch's entries; a key
// deleted is inserted again with the hits that came after.
func TestFlushBatchesAcrossDeletes(t *testing.T) {
	ctx := context.Background()
	db, p := openProject(t, filepath.Join(t.TempDir(), "redirects.db"))
	flush := func(hits map[string]int64) {
		t.Helper()
		var rows []redirects.RuleHits
		for src, n := range hits {
			rows = append(rows, redirects.RuleHits{ProjectID: p.ID, MatchType: redirects.Exact, Source: src, Hits: n, LastHit: time.Unix(n, 0)})
		}
		if err := db.AddHits(ctx, rows); err != nil {
			t.Fatal(err)
		}
	}
	pending := func() int {
		t.Helper()
		var n int
		if err := db.write.QueryRowContext(ctx, `SELECT count(*) FROM rule_hit_batches`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	expect := func(when string, want map[string]int64) {
		t.Helper()
		got, err := db.FindHits(ctx, p.ID, nil)
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]int64{}
		for _, h := range got {
			seen[h.Source] = h.Hits
		}
		if fmt.Sprint(seen) != fmt.Sprint(want) {
			t.Fatalf("%s: hits %v, want %v", when, seen, want)
		}
	}
	flush(map[string]int64{"/a": 1, "/b": 2})
	if n := pending(); n != 0 {
		t.Fatalf("a first flush appended %d batches; its rows are new, written by key", n)
	}
	flush(map[string]int64{"/a": 3, "/b": 4})
	if n := pending(); n != 1 {
		t.Fatalf("a flush of remembered rows left %d batches, want 1", n)
	}
	expect("after a batch", map[string]int64{"/a": 4, "/b": 6})
	if n := pending(); n != 1 {
		t.Fatalf("a read left %d batches, want the 1 pending: reads do not fold", n)
	}
	if err := db.FoldHits(ctx); err != nil {
		t.Fatal(err)
	}
	if n := pending(); n != 0 {
		t.Fatalf("a fold left %d batches", n)
	}
	expect("after a fold", map[string]int64{"/a": 4, "/b": 6})

	// /a's counts go while a batch naming it waits.
	flush(map[string]int64{"/a": 5, "/b": 6})
	if _, err := db.write.ExecContext(ctx, `DELETE FROM rule_hit_counts WHERE id = (SELECT id FROM rule_hits WHERE source = '/a')`); err != nil {
		t.Fatal(err)
	}
	flush(map[string]int64{"/a": 7})
	if n := pending(); n != 0 {
		t.Fatalf("the flush after a delete left %d batches: it should fold them first and go by key", n)
	}
	expect("after /a's counts went", map[string]int64{"/a": 7, "/b": 12})

	// /b's key goes: its next hits make it again.
	flush(map[string]int64{"/a": 1, "/b": 1})
	if _, err := db.write.ExecContext(ctx, `DELETE FROM rule_hits WHERE source = '/b'`); err != nil {
		t.Fatal(err)
	}
	flush(map[string]int64{"/b": 2})
	// The store forgot every id when the generation changed: /a goes by
	// key once more, then both are a batch again.
	flush(map[string]int64{"/a": 1, "/b": 3})
	if n := pending(); n != 0 {
		t.Fatalf("a flush of a row forgotten left %d batches, want none", n)
	}
	flush(map[string]int64{"/a": 1, "/b": 1})
	if n := pending(); n != 1 {
		t.Fatalf("a flush of rows remembered again left %d batches, want 1", n)
	}
	expect("after /b's key went", map[string]int64{"/a": 10, "/b": 6})
}

// TestFindHitsDoesNotWaitForWriters: a read of hits with a batch pending
// adds it to the counts it reads without taking the write lock, which a
// deploy or an import may hold for seconds (another connection holds it
// here, for longer than the read may take).
func TestFindHitsDoesNotWaitForWriters(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "redirects.db")
	db, p := openProject(t, path)
	hits := []redirects.RuleHits{{ProjectID: p.ID, MatchType: redirects.Exact, Source: "/a", Hits: 2, LastHit: time.Unix(5, 0)}}
	for range 2 {
		if err := db.AddHits(ctx, hits); err != nil {
			t.Fatal(err)
		}
	}
	other, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	tx, err := other.write.BeginTx(ctx, nil) // IMMEDIATE: the write lock
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `UPDATE rule_hit_generation SET gen = gen`); err != nil {
		t.Fatal(err)
	}
	rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	got, err := db.FindHits(rctx, p.ID, nil)
	if err != nil || len(got) != 1 || got[0].Hits != 4 {
		t.Fatalf("FindHits while another connection writes = %v, %v; want /a with 4 hits (2 counted, 2 pending)", got, err)
	}
}

// TestFlushCancelledCountsOnce: a flush whose context ends while it runs
// either fails and counts nothing, or succeeds and counts its hits once
// (the edge gives a failed flush's hits back to the next).
func TestFlushCancelledCountsOnce(t *testing.T) {
	ctx := context.Background()
	db, p := openProject(t, filepath.Join(t.TempDir(), "redirects.db"))
	hits := []redirects.RuleHits{{ProjectID: p.ID, MatchType: redirects.Exact, Source: "/a", Hits: 1, LastHit: time.Unix(5, 0)}}
	if err := db.AddHits(ctx, hits); err != nil {
		t.Fatal(err)
	}
	want, failed := int64(1), 0
	r := rand.New(rand.NewPCG(5, 5))
	for range 1500 {
		cctx, cancel := context.WithTimeout(ctx, time.Duration(r.IntN(300))*time.Microsecond)
		if err := db.AddHits(cctx, hits); err == nil {
			want++
		} else {
			failed++
		}
		cancel()
	}
	got, err := db.FindHits(ctx, p.ID, nil)
	if err != nil || len(got) != 1 || got[0].Hits != want {
		t.Fatalf("FindHits = %v, %v; want /a with %d hits (%d flushes failed)", got, err, want, failed)
	}
	t.Logf("%d of 1500 flushes failed", failed)
}

// openProject opens a store on path, closed when the test ends, with an
// organization and a project.
func openProject(t *testing.T, path string) (*DB, *redirects.Project) {
	t.Helper()
	ctx := context.Background()
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	o := &redirects.Org{Name: "a", Tier: redirects.TierEnterprise}
	if err := db.CreateOrg(ctx, o); err != nil {
		t.Fatal(err)
	}
	p := &redirects.Project{OrgID: o.ID, Name: "p"}
	if err := db.CreateProject(ctx, p); err != nil {
		t.Fatal(err)
	}
	return db, p
}
