package ui

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"testing"
	"time"

	"redirects"
	"redirects/export"
	"redirects/internal/rulegen"
	"redirects/manage"
	"redirects/service"
)

// BenchmarkRulesPage renders the Rules tab, the whole handler from the
// session cookie to the HTML, on a project of 1,000,000 generated rules
// (20% starts_with) with a live version, on SQLite:
//
//	go test -run XXX -bench RulesPage -benchtime 20x ./ui
//
// It reports the median and the 95th percentile of the server time.
func BenchmarkRulesPage(b *testing.B) {
	e := newEnv(b)
	ctx := context.Background()
	if err := e.db.AddRule(ctx, &redirects.Rule{ProjectID: e.project.ID, Source: "/live", Destination: "/x", StatusCode: 301, Priority: 100}); err != nil {
		b.Fatal(err)
	}
	if _, err := service.DeployUnchecked(ctx, e.db, e.project.ID, redirects.DeployOptions{Message: "v1"}, export.Build); err != nil {
		b.Fatal(err)
	}
	rules := rulegen.Rules(1_000_000, 0.2, 1)
	if _, err := e.db.ImportRules(ctx, e.project.ID, rules, false); err != nil {
		b.Fatal(err)
	}
	mid := rules[len(rules)/2]
	base := "/projects/" + e.project.ID + "/rules"
	for _, bc := range []struct{ name, query string }{
		{"FirstPage", ""},
		{"DeepPage/source", "after=" + url.QueryEscape(redirects.CursorAfter(redirects.SortSource, &redirects.Rule{ID: 1, Source: mid.Source}))},
		{"PreviousPage/source", "before=" + url.QueryEscape(redirects.CursorAfter(redirects.SortSourceDesc, &redirects.Rule{ID: 1, Source: mid.Source}))},
		{"Newest", "sort=-id"},
		{"Search/prefix", "q=" + url.QueryEscape("/blog/2014/*")},
		{"Filter/starts_with", "match=starts_with"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			times := make([]time.Duration, 0, b.N)
			for i := 0; i < b.N; i++ {
				req := httptest.NewRequest("GET", base+"?"+bc.query, nil)
				req.AddCookie(&http.Cookie{Name: manage.SessionCookie, Value: e.cookie})
				rec := httptest.NewRecorder()
				start := time.Now()
				e.h.ServeHTTP(rec, req)
				times = append(times, time.Since(start))
				if rec.Code != 200 {
					b.Fatalf("GET %s?%s: %d\n%s", base, bc.query, rec.Code, rec.Body)
				}
			}
			slices.Sort(times)
			ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
			b.ReportMetric(ms(times[len(times)/2]), "p50-ms")
			b.ReportMetric(ms(times[(len(times)*95)/100]), "p95-ms")
		})
	}
}

// BenchmarkSettingsPage renders the Settings tab of a project of 100,000
// generated rules with the preview of what each other choice of matching
// settings would clash, which reads the whole draft (on every visit up to
// clashPreviewMax rules, past it when asked):
//
//	go test -run XXX -bench SettingsPage -benchtime 10x ./ui
func BenchmarkSettingsPage(b *testing.B) {
	e := newEnv(b)
	ctx := context.Background()
	if _, err := e.db.ImportRules(ctx, e.project.ID, rulegen.Rules(100_000, 0.2, 1), false); err != nil {
		b.Fatal(err)
	}
	target := "/projects/" + e.project.ID + "/settings?preview=1"
	times := make([]time.Duration, 0, b.N)
	for i := 0; i < b.N; i++ {
		req := httptest.NewRequest("GET", target, nil)
		req.AddCookie(&http.Cookie{Name: manage.SessionCookie, Value: e.cookie})
		rec := httptest.NewRecorder()
		start := time.Now()
		e.h.ServeHTTP(rec, req)
		times = append(times, time.Since(start))
		if rec.Code != 200 || !bytes.Contains(rec.Body.Bytes(), []byte(`id="clash-preview"`)) {
			b.Fatalf("GET %s: %d, want the clash preview\n%s", target, rec.Code, rec.Body)
		}
	}
	slices.Sort(times)
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	b.ReportMetric(ms(times[len(times)/2]), "p50-ms")
	b.ReportMetric(ms(times[(len(times)*95)/100]), "p95-ms")
}
