package http

import (
	"bytes"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"pgregory.net/rapid"

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
	m.observe(0, epOther, 299, time.Millisecond) // a status the edge never sends: histogram only
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
		m.observe(1, epLookup, 200, 150*time.Microsecond)
		m.observe(2, epOther, 299, 2*time.Second)
		m.limiter(1, redirects.RateLimitExceeded)
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

// TestHotMetricsAreClientGolangs holds the counters of the request path,
// kept in a shard per event loop and summed at a scrape, to what
// client_golang's own labelled counters and histogram report for the same
// answers: every series, bucket, count and sum (the sum to a nanosecond a
// answer). Times fall on and around the bucket bounds.
func TestHotMetricsAreClientGolangs(t *testing.T) {
	rapid.Check(t, func(rt *rapid.T) {
		m := NewMetrics()
		ref := prometheus.NewRegistry()
		requests := prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "redirects_requests_total", Help: "Edge requests by endpoint and status.",
		}, []string{"endpoint", "status"})
		latency := prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "redirects_request_duration_seconds", Help: "Time to answer an edge request (evhttp: from the event loop's wake-up that answers it; net/http: from the handler's start).",
			Buckets: latencyBuckets[:],
		}, []string{"endpoint"})
		limits := prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "redirects_limiter_decisions_total", Help: "Limiter decisions on authenticated requests.",
		}, []string{"decision"})
		ref.MustRegister(requests, latency, limits)
		for ep := range numEndpoints {
			for _, st := range statuses {
				requests.WithLabelValues(endpointNames[ep], strconv.Itoa(st))
			}
			latency.WithLabelValues(endpointNames[ep])
		}
		for _, name := range limiterDecisions {
			limits.WithLabelValues(name)
		}
		var sum [numEndpoints]time.Duration
		for range rapid.IntRange(0, 200).Draw(rt, "answers") {
			shard := rapid.IntRange(0, 2*len(m.shards)).Draw(rt, "shard")
			if rapid.Bool().Draw(rt, "decision") {
				r := rapid.IntRange(0, len(limiterDecisions)-1).Draw(rt, "refusal")
				m.limiter(shard, redirects.Refusal(r))
				limits.WithLabelValues(limiterDecisions[r]).Inc()
				continue
			}
			ep := endpoint(rapid.IntRange(0, int(numEndpoints)-1).Draw(rt, "endpoint"))
			status := rapid.SampledFrom(append(statuses[:], 299, 418)).Draw(rt, "status")
			bound := time.Duration(latencyBuckets[rapid.IntRange(0, len(latencyBuckets)-1).Draw(rt, "bound")] * 1e9)
			d := max(0, bound+time.Duration(rapid.IntRange(-2, 2).Draw(rt, "off")))
			if rapid.Bool().Draw(rt, "anywhere") {
				d = time.Duration(rapid.Int64Range(0, int64(3*time.Second)).Draw(rt, "d"))
			}
			m.observe(shard, ep, status, d)
			sum[ep] += d
			if slices.Contains(statuses[:], status) {
				requests.WithLabelValues(endpointNames[ep], strconv.Itoa(status)).Inc()
			}
			latency.WithLabelValues(endpointNames[ep]).Observe(d.Seconds())
		}
		want, err := ref.Gather()
		if err != nil {
			rt.Fatal(err)
		}
		got, err := m.registry.Gather()
		if err != nil {
			rt.Fatal(err)
		}
		byName := map[string]*dto.MetricFamily{}
		for _, mf := range got {
			byName[mf.GetName()] = mf
		}
		for _, w := range want {
			g := byName[w.GetName()]
			if g == nil {
				rt.Fatalf("no %s", w.GetName())
			}
			// Sums are compared apart: client_golang adds seconds as
			// floats, the shards nanoseconds as integers.
			for i, s := range w.Metric {
				if i >= len(g.Metric) {
					rt.Fatalf("%s: %d series, want %d", w.GetName(), len(g.Metric), len(w.Metric))
				}
				if h := g.Metric[i].Histogram; h != nil {
					ep := slices.Index(endpointNames[:], s.Label[0].GetValue())
					if got, want := h.GetSampleSum(), sum[ep].Seconds(); math.Abs(got-want) > 1e-9*float64(h.GetSampleCount()+1) {
						rt.Errorf("%s %s: sum %v, want %v", w.GetName(), s.Label[0].GetValue(), got, want)
					}
					h.SampleSum, s.Histogram.SampleSum = nil, nil
					s.Histogram.CreatedTimestamp = nil
				}
				if s.Counter != nil {
					s.Counter.CreatedTimestamp = nil
				}
			}
			if gt, wt := g.String(), w.String(); gt != wt {
				rt.Fatalf("%s differs:\n got %s\nwant %s", w.GetName(), gt, wt)
			}
		}
	})
}
