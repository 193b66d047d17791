package storetest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"redirects"
	"redirects/internal/rulegen"
	"redirects/service"
)

// BenchOpener returns a new, empty store; the benchmark closes it.
type BenchOpener func(b *testing.B) redirects.Store

// benchSizes are the project sizes the store benchmarks measure, the
// largest being the size the goals in BENCHMARKS.md speak of.
var benchSizes = []int{100_000, 1_000_000}

// benchRules returns n generated rules, half of them starts_with, shaped like
// a real site's (the mix bench/run uses by default).
func benchRules(n int) []redirects.Rule { return rulegen.Rules(n, 0.5, 1) }

// benchProject makes an organization and a project in s.
func benchProject(b *testing.B, s redirects.Store) string {
	b.Helper()
	ctx := context.Background()
	o := &redirects.Org{Name: "bench", Tier: redirects.TierEnterprise}
	if err := s.CreateOrg(ctx, o); err != nil {
		b.Fatalf("CreateOrg: %v", err)
	}
	p := &redirects.Project{OrgID: o.ID, Name: "bench"}
	if err := s.CreateProject(ctx, p); err != nil {
		b.Fatalf("CreateProject: %v", err)
	}
	return p.ID
}

// BenchImport imports generated rules into an empty project of a new store,
// one store per iteration, and reports rules per second. A store's
// BenchmarkImport calls it.
func BenchImport(b *testing.B, open BenchOpener) {
	for _, n := range benchSizes {
		rules := benchRules(n)
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			ctx := context.Background()
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				s := open(b)
				projectID := benchProject(b, s)
				b.StartTimer()
				if _, err := s.ImportRules(ctx, projectID, rules, false); err != nil {
					b.Fatalf("ImportRules: %v", err)
				}
				b.StopTimer()
				s.Close()
				b.StartTimer()
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "rules/s")
		})
	}
}

// BenchDeploy deploys a project's generated draft rules with a builder that
// renders nothing, so it measures the store: reading and sorting the draft,
// encoding the snapshot and writing it in one transaction. A store's
// BenchmarkDeploy calls it.
func BenchDeploy(b *testing.B, open BenchOpener) {
	for _, n := range benchSizes {
		rules := benchRules(n)
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			ctx := context.Background()
			s := open(b)
			defer s.Close()
			projectID := benchProject(b, s)
			if _, err := s.ImportRules(ctx, projectID, rules, false); err != nil {
				b.Fatalf("ImportRules: %v", err)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := service.DeployUnchecked(ctx, s, projectID, redirects.DeployOptions{}, countBuild); err != nil {
					b.Fatalf("Deploy: %v", err)
				}
			}
			b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "rules/s")
		})
	}
}

// flushSizes are the numbers of distinct rules one flush of hits names in
// BenchAddHits: a quiet interval's and a busy one's.
var flushSizes = []int{1_000, 100_000}

// BenchAddHits flushes hits of n distinct rules into a store that already
// holds them (a node's steady state: every row is an update), once per
// iteration, and reports the cost per flushed row: ns/row in wall time,
// cpu-ns/row in the CPU (user and system) of the benchmark process, the
// node's share, and, where dbCPU is not nil (an engine in processes of its
// own), db-cpu-ns/row in what dbCPU counts (the store's database
// backends) and all-cpu-ns/row in both; new-cpu-ns/row (and
// new-db-cpu-ns/row) is the first flush's, which inserts every row, per
// row. Deferred work (a store's FoldHits) is done before the figures are
// taken, so they count it. A store's BenchmarkAddHits calls it.
func BenchAddHits(b *testing.B, open BenchOpener, dbCPU func() time.Duration) {
	for _, n := range flushSizes {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			// A context that can end, as a node's flush has.
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			s := open(b)
			defer s.Close()
			projectID := benchProject(b, s)
			at := time.Unix(1_800_000_000, 0).UTC()
			hits := make([]redirects.RuleHits, n)
			for i := range hits {
				mt := redirects.Exact
				if i%4 == 0 {
					mt = redirects.StartsWith
				}
				hits[i] = redirects.RuleHits{ProjectID: projectID, MatchType: mt, Source: fmt.Sprintf("/bench/%07d/page", i), Hits: int64(1 + i%7), LastHit: at}
			}
			// The first flush inserts every row: what a store pays for
			// rules hit for the first time, reported as new-cpu-ns/row
			// (and new-db-cpu-ns/row).
			cpu, db := processCPU(), time.Duration(0)
			if dbCPU != nil {
				db = dbCPU()
			}
			if err := s.AddHits(ctx, hits); err != nil {
				b.Fatalf("AddHits: %v", err)
			}
			newCPU, newDB := processCPU()-cpu, time.Duration(0)
			if dbCPU != nil {
				newDB = dbCPU() - db
			}
			cpu = processCPU()
			if dbCPU != nil {
				db = dbCPU()
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				for j := range hits {
					hits[j].LastHit = at.Add(time.Duration(i+1) * time.Second)
				}
				if err := s.AddHits(ctx, hits); err != nil {
					b.Fatalf("AddHits: %v", err)
				}
			}
			// Work a flush leaves for later (PostgreSQL's batches, which a
			// fold adds to the rows) is done, and counted, before the
			// clock stops.
			if f, ok := s.(interface{ FoldHits(context.Context) error }); ok {
				if err := f.FoldHits(ctx); err != nil {
					b.Fatalf("FoldHits: %v", err)
				}
			}
			b.StopTimer()
			rows := float64(n) * float64(b.N)
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/rows, "ns/row")
			cpu = processCPU() - cpu
			b.ReportMetric(float64(cpu.Nanoseconds())/rows, "cpu-ns/row")
			b.ReportMetric(float64(newCPU.Nanoseconds())/float64(n), "new-cpu-ns/row")
			if dbCPU != nil {
				db = dbCPU() - db
				b.ReportMetric(float64(db.Nanoseconds())/rows, "db-cpu-ns/row")
				b.ReportMetric(float64((cpu+db).Nanoseconds())/rows, "all-cpu-ns/row")
				b.ReportMetric(float64(newDB.Nanoseconds())/float64(n), "new-db-cpu-ns/row")
			}
		})
	}
}
