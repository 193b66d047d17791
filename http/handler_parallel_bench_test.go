package http

import (
	"context"
	"io"
	"log/slog"
	"net/url"
	"path/filepath"
	"sync/atomic"
	"testing"

	"redirects"
	"redirects/edge"
	"redirects/export"
	"redirects/http/evhttp"
	"redirects/inmem"
	"redirects/internal/rulegen"
	"redirects/service"
	"redirects/sqlite"
)

// BenchmarkHandleLookupShared is the edge's own work for a lookup hit
// under the workload of bench/edge-ab (100,000 rules, 5,000 distinct
// exact paths cycled, an organization with a rate limit and a monthly
// quota that never refuse), run by every P at once (-cpu 1,2): what the
// event loops share (the limiter, the key's and the metrics' counters)
// shows as CPU per lookup growing with the loops. Compare user+sys time
// of a fixed -benchtime Nx at -cpu 1 and -cpu 2, not ns/op, on a loaded
// machine.
func BenchmarkHandleLookupShared(b *testing.B) {
	ctx := context.Background()
	db, err := sqlite.Open(ctx, filepath.Join(b.TempDir(), "r.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	rate, quota := redirects.Limit(1_000_000_000), redirects.Limit(1_000_000_000_000)
	o := &redirects.Org{Name: "o", Tier: redirects.TierPro, RateLimitOverride: &rate, QuotaOverride: &quota}
	must(b, db.CreateOrg(ctx, o))
	p := &redirects.Project{OrgID: o.ID, Name: "p"}
	must(b, db.CreateProject(ctx, p))
	rules := rulegen.Rules(100_000, 0, 1)
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
	var queries []string
	for i := 0; len(queries) < 5000; i += len(rules) / 5000 {
		if rules[i].MatchType == redirects.Exact {
			queries = append(queries, "project="+p.ID+"&path="+url.PathEscape(rules[i].Source))
		}
	}
	var next atomic.Int64
	b.ReportAllocs()
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		i := int(next.Add(1000))
		var resp evhttp.Response
		var scratch []byte
		for pb.Next() {
			i++
			q := Req{Method: "GET", Path: "/v1/lookup", RawQuery: queries[i%len(queries)], APIKey: secret, Ctx: ctx}
			w := Resp{Scratch: scratch[:0]}
			if slow := e.Handle(&q, &w); slow != nil || w.Status != 200 {
				b.Fatalf("lookup hit: slow path %v, status %d", slow != nil, w.Status)
			}
			scratch = w.Scratch
			resp.Reset()
			copyResp(&resp, &w)
		}
	})
}
