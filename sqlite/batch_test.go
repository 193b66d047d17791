package sqlite

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"
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
