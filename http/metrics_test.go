package http

import (
	"bytes"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"redirects"
	"redirects/edge"
	"redirects/http/evhttp"
	"redirects/internal/version"
)

// TestMetricsBuildInfo checks that /metrics names the running build, so a
// fleet's dashboards can tell which nodes run which release.
func TestMetricsBuildInfo(t *testing.T) {
	var b bytes.Buffer
	NewMetrics().write(&b, nil)
	bi := version.Get()
	want := fmt.Sprintf("redirects_build_info{version=%q,commit=%q,goversion=%q} 1\n", bi.Version, bi.Commit, bi.GoVersion)
	if !strings.Contains(b.String(), want) {
		t.Fatalf("metrics lack %q:\n%s", want, b.String())
	}
	if !strings.Contains(b.String(), "# TYPE redirects_build_info gauge\n") {
		t.Fatalf("metrics lack the build info's TYPE line:\n%s", b.String())
	}
}

// TestMetricsFamilies parses the metrics the way Prometheus does and checks
// each family's type, labels and series: the edge's own, unchanged since
// they were written by hand, and those of the Go runtime and the process.
func TestMetricsFamilies(t *testing.T) {
	f := newFixture(t, nil)
	m := f.edge.Metrics
	m.engine = func() evhttp.Stats {
		return evhttp.Stats{Conns: 3, Accepted: 1_500_000, MaxConns: 1000, Shed: 2, AcceptPaused: true}
	}
	f.handle("GET", "/v1/lookup", f.lookupQuery("/a"), f.secret)
	f.handle("GET", "/v1/lookup", f.lookupQuery("/a"), "")
	f.handle("GET", "/nope", "", "")
	m.observe(epOther, 299, time.Millisecond) // a status the edge never sends: histogram only
	m.SetLimiterFallback(true)

	families := parseMetrics(t, m, f.catalog)
	series := func(name string, typ dto.MetricType, labels ...string) []*dto.Metric {
		t.Helper()
		mf := families[name]
		if mf == nil {
			t.Fatalf("no metric %s", name)
		}
		if mf.GetType() != typ {
			t.Errorf("%s is a %v, want %v", name, mf.GetType(), typ)
		}
		for _, s := range mf.Metric {
			var got []string
			for _, l := range s.Label {
				got = append(got, l.GetName())
			}
			if strings.Join(got, ",") != strings.Join(labels, ",") {
				t.Errorf("%s has labels %v, want %v", name, got, labels)
			}
		}
		return mf.Metric
	}
	value := func(ms []*dto.Metric, labels ...string) float64 {
		t.Helper()
	next:
		for _, s := range ms {
			for i, l := range s.Label {
				if l.GetValue() != labels[i] {
					continue next
				}
			}
			switch {
			case s.Counter != nil:
				return s.Counter.GetValue()
			case s.Gauge != nil:
				return s.Gauge.GetValue()
			case s.Histogram != nil:
				return float64(s.Histogram.GetSampleCount())
			}
		}
		t.Fatalf("no series %v", labels)
		return 0
	}

	requests := series("redirects_requests_total", dto.MetricType_COUNTER, "endpoint", "status")
	if len(requests) != int(numEndpoints)*len(statuses) {
		t.Errorf("%d request series, want one per endpoint and status (%d), counted or not", len(requests), int(numEndpoints)*len(statuses))
	}
	for _, c := range []struct {
		endpoint, status string
		want             float64
	}{{"lookup", "200", 1}, {"lookup", "401", 1}, {"other", "404", 1}, {"export", "200", 0}} {
		if got := value(requests, c.endpoint, c.status); got != c.want {
			t.Errorf("requests %s %s: %v, want %v", c.endpoint, c.status, got, c.want)
		}
	}
	latency := series("redirects_request_duration_seconds", dto.MetricType_HISTOGRAM, "endpoint")
	if got := value(latency, "lookup"); got != 2 {
		t.Errorf("lookup latency count %v, want 2", got)
	}
	if got := value(latency, "other"); got != 2 {
		t.Errorf("other latency count %v, want 2 (the 404 and the status outside the list)", got)
	}
	for _, s := range latency {
		if n := len(s.Histogram.Bucket); n != len(latencyBuckets)+1 {
			t.Errorf("%d buckets, want %d and +Inf", n, len(latencyBuckets))
		}
	}
	decisions := series("redirects_limiter_decisions_total", dto.MetricType_COUNTER, "decision")
	if got := value(decisions, "allowed"); got != 1 {
		t.Errorf("allowed decisions %v, want 1", got)
	}
	value(decisions, "quota_exceeded")
	value(decisions, "rate_limit_exceeded")
	if got := value(series("redirects_limiter_fallback", dto.MetricType_GAUGE)); got != 1 {
		t.Errorf("limiter fallback %v, want 1", got)
	}
	if got := value(series("redirects_deployment_version", dto.MetricType_GAUGE, "project"), f.project.ID); got != 2 {
		t.Errorf("deployment version %v, want 2", got)
	}
	series("redirects_build_info", dto.MetricType_GAUGE, "version", "commit", "goversion")
	for name, want := range map[string]float64{
		"redirects_edge_connections": 3, "redirects_edge_connections_accepted_total": 1_500_000,
		"redirects_edge_connections_limit": 1000, "redirects_edge_connections_per_addr_limit": 0,
		"redirects_edge_connections_shed_total": 2, "redirects_edge_connections_shed_per_addr_total": 0,
		"redirects_edge_accept_out_of_descriptors_total": 0, "redirects_edge_accept_paused": 1,
	} {
		typ := dto.MetricType_GAUGE
		if strings.HasSuffix(name, "_total") {
			typ = dto.MetricType_COUNTER
		}
		if got := value(series(name, typ)); got != want {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	if got := value(series("go_goroutines", dto.MetricType_GAUGE)); got < 1 {
		t.Errorf("go_goroutines = %v", got)
	}
	series("go_memstats_heap_alloc_bytes", dto.MetricType_GAUGE)
	if runtime.GOOS == "linux" {
		if got := value(series("process_open_fds", dto.MetricType_GAUGE)); got < 3 {
			t.Errorf("process_open_fds = %v", got)
		}
		series("process_resident_memory_bytes", dto.MetricType_GAUGE)
		series("process_max_fds", dto.MetricType_GAUGE)
	}
}

// TestMetricsWithoutEngineOrCatalog checks that an edge on net/http, before
// its store is loaded, reports neither connection counters nor deployment
// versions, rather than zeros that would read as facts.
func TestMetricsWithoutEngineOrCatalog(t *testing.T) {
	families := parseMetrics(t, NewMetrics(), nil)
	for name := range families {
		if strings.HasPrefix(name, "redirects_edge_") || name == "redirects_deployment_version" {
			t.Errorf("%s reported without an engine or a catalog", name)
		}
	}
	if families["redirects_requests_total"] == nil {
		t.Error("no redirects_requests_total")
	}
}

// TestMetricsAllocs guards the edge's counting against allocations: every
// labelled child is resolved when the metrics are made.
func TestMetricsAllocs(t *testing.T) {
	m := NewMetrics()
	allocs := testing.AllocsPerRun(1000, func() {
		m.observe(epLookup, 200, 150*time.Microsecond)
		m.observe(epOther, 299, 2*time.Second)
		m.limiter(redirects.RateLimitExceeded)
	})
	if allocs != 0 {
		t.Errorf("%v allocations per answer counted", allocs)
	}
}

// TestHandleLookupAllocs checks that a lookup hit, answered and counted,
// allocates nothing.
func TestHandleLookupAllocs(t *testing.T) {
	f := newFixture(t, nil)
	q := Req{Method: "GET", Path: "/v1/lookup", RawQuery: f.lookupQuery("/a"), APIKey: f.secret, Ctx: f.ctx}
	var w Resp
	allocs := testing.AllocsPerRun(1000, func() {
		w = Resp{}
		if slow := f.edge.Handle(&q, &w); slow != nil || w.Status != 200 {
			t.Fatalf("lookup hit: slow path %v, status %d", slow != nil, w.Status)
		}
	})
	if allocs != 0 {
		t.Errorf("%v allocations per lookup hit", allocs)
	}
}

// parseMetrics renders m in Prometheus' text format and parses it back.
func parseMetrics(t *testing.T, m *Metrics, catalog *edge.Catalog) map[string]*dto.MetricFamily {
	t.Helper()
	var b bytes.Buffer
	if err := m.write(&b, catalog); err != nil {
		t.Fatal(err)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(&b)
	if err != nil {
		t.Fatalf("the metrics do not parse: %v", err)
	}
	return families
}

// counterValue returns a counter's value.
func counterValue(t *testing.T, c prometheus.Counter) uint64 {
	t.Helper()
	var m dto.Metric
	if err := c.Write(&m); err != nil {
		t.Fatal(err)
	}
	return uint64(m.GetCounter().GetValue())
}
