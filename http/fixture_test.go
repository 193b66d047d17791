package http

import (
	"context"
	"io"
	"log/slog"
	"path/filepath"
	"testing"
	"time"

	"redirects"
	"redirects/edge"
	"redirects/export"
	"redirects/inmem"
	"redirects/service"
	"redirects/sqlite"
)

// fixture is an edge answering from a real SQLite store in t.TempDir(),
// with the in-process limiter: one organization, one project with two
// deployments (version 1: /a, version 2: /a and /b), and a live key.
type fixture struct {
	t       *testing.T
	ctx     context.Context
	db      *sqlite.DB
	org     *redirects.Org
	project *redirects.Project
	secret  string
	catalog *edge.Catalog
	limiter *inmem.Limiter
	edge    *Edge
}

func newFixture(t *testing.T, org *redirects.Org) *fixture {
	t.Helper()
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "redirects.db"))
	if err != nil {
		t.Fatalf("opening the store: %v", err)
	}
	t.Cleanup(func() { db.Close() })
	f := &fixture{t: t, ctx: ctx, db: db, org: org}
	if f.org == nil {
		f.org = &redirects.Org{Name: "acme", Tier: redirects.TierEnterprise}
	}
	f.ok(db.CreateOrg(ctx, f.org))
	f.project = &redirects.Project{OrgID: f.org.ID, Name: "site"}
	f.ok(db.CreateProject(ctx, f.project))
	f.addRule("/a", "/to-a")
	f.deploy()
	f.addRule("/b", "/to-b")
	f.deploy()
	f.secret = f.newKey(false)
	f.limiter, err = inmem.NewLimiter(ctx, db, redirects.SystemClock{}.Now())
	f.ok(err)
	f.catalog, err = edge.LoadCatalog(ctx, db, 4)
	f.ok(err)
	f.edge = &Edge{Clock: redirects.SystemClock{}, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Metrics: NewMetrics()}
	f.edge.setLive(&live{catalog: f.catalog, limiter: f.limiter, exports: edge.NewExportCache(db, 1<<20)})
	return f
}

// open runs a Server over the fixture's store on free ports of 127.0.0.1,
// with engine serving the edge listener, and closes it when the test ends.
func (f *fixture) open(engine string) *Server {
	f.t.Helper()
	s, err := Open(f.ctx, Config{
		Addr: "127.0.0.1:0", AdminAddr: "127.0.0.1:0", Engine: engine,
		Clock: redirects.SystemClock{}, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)),
		Connect: func(context.Context) (*Backend, error) {
			return &Backend{Store: f.db, Limiter: f.limiter, Usage: f.limiter}, nil
		},
	})
	f.ok(err)
	f.t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := s.Close(ctx); err != nil {
			f.t.Errorf("Close: %v", err)
		}
	})
	return s
}

func (f *fixture) ok(err error) {
	f.t.Helper()
	if err != nil {
		f.t.Fatal(err)
	}
}

func (f *fixture) addRule(source, dest string) {
	f.t.Helper()
	f.ok(f.db.AddRule(f.ctx, &redirects.Rule{ProjectID: f.project.ID, Source: source, Destination: dest, StatusCode: 301, MatchType: redirects.Exact}))
}

func (f *fixture) deploy() int {
	f.t.Helper()
	d, err := service.DeployUnchecked(f.ctx, f.db, f.project.ID, redirects.DeployOptions{}, export.Build)
	f.ok(err)
	return d.Version
}

// newKey stores a key of the project and returns its secret.
func (f *fixture) newKey(test bool) string {
	f.t.Helper()
	k, secret := redirects.NewKey(f.project.ID, "", test, redirects.SystemClock{}.Now())
	f.ok(f.db.CreateKey(f.ctx, k))
	return secret
}

// refresh applies the store's new events to the catalog.
func (f *fixture) refresh() int {
	f.t.Helper()
	n, err := f.catalog.Refresh(f.ctx)
	f.ok(err)
	return n
}

// handle answers one request through Edge.Handle, running the slow part
// when there is one, as both engines do.
func (f *fixture) handle(method, path, rawQuery, key string) *Resp {
	return f.handleReq(&Req{Method: method, Path: path, RawQuery: rawQuery, APIKey: key, Ctx: f.ctx})
}

func (f *fixture) handleReq(q *Req) *Resp {
	w := new(Resp)
	if slow := f.edge.Handle(q, w); slow != nil {
		slow(w)
	}
	return w
}

// lookupQuery is the query of a lookup of path in the fixture's project.
func (f *fixture) lookupQuery(path string) string {
	return "project=" + f.project.ID + "&path=" + path
}

// header returns the value of one header of w, or "".
func header(w *Resp, name string) string {
	for _, kv := range w.Headers[:w.N] {
		if kv[0] == name {
			return kv[1]
		}
	}
	return ""
}

// wantError checks that w is the error answer ae.
func wantError(t *testing.T, w *Resp, ae *apiError) {
	t.Helper()
	if w.Status != ae.status || string(w.Body) != string(ae.body) {
		t.Fatalf("got %d %s, want %d %s", w.Status, w.Body, ae.status, ae.body)
	}
	if ct := header(w, "Content-Type"); ct != ctJSON {
		t.Errorf("Content-Type %q, want %q", ct, ctJSON)
	}
	if cc := header(w, "Cache-Control"); cc != ccNoStore {
		t.Errorf("Cache-Control %q, want %q", cc, ccNoStore)
	}
}
