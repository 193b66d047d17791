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
	"redirects/http/evhttp"
	"redirects/inmem"
	"redirects/internal/rulegen"
	"redirects/service"
	"redirects/sqlite"
)

// BenchmarkHandleLookup measures the edge's own work for one lookup
// (key check, limits, parameters, match, headers, and the count of its hit
// or miss), without the network: hit asks for an exact rule, miss for a
// path no rule answers.
func BenchmarkHandleLookup(b *testing.B) {
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(b.TempDir(), "r.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	o := &redirects.Org{Name: "o", Tier: redirects.TierEnterprise}
	must(b, db.CreateOrg(ctx, o))
	p := &redirects.Project{OrgID: o.ID, Name: "p"}
	must(b, db.CreateProject(ctx, p))
	rules := rulegen.Rules(100_000, 0.5, 1)
	_, err = db.ImportRules(ctx, p.ID, rules, false)
	must(b, err)
	_, err = service.DeployUnchecked(ctx, db, p.ID, redirects.DeployOptions{}, export.Build)
	must(b, err)
	k, secret := redirects.NewKey(p.ID, "", false, redirects.SystemClock{}.Now())
	must(b, db.CreateKey(ctx, k))
	limiter, err := inmem.NewLimiter(ctx, db, redirects.SystemClock{}.Now())
	must(b, err)
	catalog, err := edge.LoadCatalog(ctx, db, 4)
	must(b, err)
	e := &Edge{Clock: redirects.SystemClock{}, Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), Metrics: NewMetrics()}
	e.setLive(&live{catalog: catalog, limiter: limiter, exports: edge.NewExportCache(db, 1<<20)})
	var path string
	for _, r := range rules {
		if r.MatchType == redirects.Exact {
			path = r.Source
			break
		}
	}
	for _, bc := range []struct {
		name, path string
		status     int
	}{{"hit", path, 200}, {"miss", "/no-such-page", 204}} {
		b.Run(bc.name, func(b *testing.B) {
			// As an event loop asks: with the loop's key memo.
			q := Req{Method: "GET", Path: "/v1/lookup", RawQuery: "project=" + p.ID + "&path=" + bc.path, APIKey: secret, Ctx: ctx, memo: new(keyMemo)}
			var resp evhttp.Response
			b.ReportAllocs()
			for b.Loop() {
				var w Resp
				q.start = time.Time{} // Handle reads the clock, as off the loops
				if slow := e.Handle(&q, &w); slow != nil {
					b.Fatal("a lookup took the slow path")
				}
				if w.Status != bc.status {
					b.Fatalf("status %d, want %d", w.Status, bc.status)
				}
				resp.Reset()
				copyResp(&resp, &w)
			}
		})
	}
}

func must(b *testing.B, err error) {
	b.Helper()
	if err != nil {
		b.Fatal(err)
	}
}
