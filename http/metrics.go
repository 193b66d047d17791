package http

import (
	"fmt"
	"io"
	"net/http"
	"sort"
	"sync/atomic"
	"time"

	"redirects"
	"redirects/http/evhttp"
	"redirects/internal/version"
)

type endpoint int

const (
	epLookup endpoint = iota
	epExport
	epOther
	numEndpoints
)

var endpointNames = [numEndpoints]string{"lookup", "export", "other"}

// statuses lists every status the edge sends, so counters are fixed arrays.
var statuses = []int{200, 204, 304, 400, 401, 404, 405, 429, 500, 503}

// latencyBuckets are the histogram's upper bounds in seconds.
var latencyBuckets = []float64{0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.05, 0.25, 1}

// Metrics counts what the edge does, for Prometheus. Every counter is an
// atomic in a fixed array: the hot path neither locks nor allocates.
type Metrics struct {
	requests [numEndpoints][]atomic.Uint64 // by index in statuses
	buckets  [numEndpoints][]atomic.Uint64 // by latency bucket, +Inf last
	sumNanos [numEndpoints]atomic.Uint64
	limits   [3]atomic.Uint64 // by redirects.Refusal
	// redisDown is 1 while a shared limiter has fallen back to per-node
	// limits.
	redisDown atomic.Int64
	// build is the running binary's identity, read once.
	build version.Info
	// engine, set before the admin listener starts, reports the evhttp
	// engine's connection counters.
	engine func() evhttp.Stats
}

// NewMetrics returns zeroed metrics.
func NewMetrics() *Metrics {
	m := &Metrics{build: version.Get()}
	for i := range m.requests {
		m.requests[i] = make([]atomic.Uint64, len(statuses))
		m.buckets[i] = make([]atomic.Uint64, len(latencyBuckets)+1)
	}
	return m
}

func (m *Metrics) observe(ep endpoint, status int, d time.Duration) {
	for i, s := range statuses {
		if s == status {
			m.requests[ep][i].Add(1)
			break
		}
	}
	sec := d.Seconds()
	i := sort.SearchFloat64s(latencyBuckets, sec)
	m.buckets[ep][i].Add(1)
	m.sumNanos[ep].Add(uint64(d))
}

func (m *Metrics) limiter(r redirects.Refusal) { m.limits[r].Add(1) }

// SetLimiterFallback records whether shared limits are unreachable.
func (m *Metrics) SetLimiterFallback(down bool) {
	if down {
		m.redisDown.Store(1)
	} else {
		m.redisDown.Store(0)
	}
}

// Handler serves the metrics in Prometheus' text format, with the loaded
// deployment version of every project the edge holds.
func (m *Metrics) Handler(e *Edge) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
		var catalog *Catalog
		if lv := e.live.Load(); lv != nil {
			catalog = lv.catalog
		}
		m.write(w, catalog)
	})
}

func (m *Metrics) write(w io.Writer, catalog *Catalog) {
	fmt.Fprintln(w, "# HELP redirects_requests_total Edge requests by endpoint and status.")
	fmt.Fprintln(w, "# TYPE redirects_requests_total counter")
	for ep := range numEndpoints {
		for i, s := range statuses {
			fmt.Fprintf(w, "redirects_requests_total{endpoint=%q,status=\"%d\"} %d\n", endpointNames[ep], s, m.requests[ep][i].Load())
		}
	}
	fmt.Fprintln(w, "# HELP redirects_request_duration_seconds Time to answer an edge request.")
	fmt.Fprintln(w, "# TYPE redirects_request_duration_seconds histogram")
	for ep := range numEndpoints {
		var cum uint64
		for i, b := range latencyBuckets {
			cum += m.buckets[ep][i].Load()
			fmt.Fprintf(w, "redirects_request_duration_seconds_bucket{endpoint=%q,le=\"%g\"} %d\n", endpointNames[ep], b, cum)
		}
		cum += m.buckets[ep][len(latencyBuckets)].Load()
		fmt.Fprintf(w, "redirects_request_duration_seconds_bucket{endpoint=%q,le=\"+Inf\"} %d\n", endpointNames[ep], cum)
		fmt.Fprintf(w, "redirects_request_duration_seconds_sum{endpoint=%q} %g\n", endpointNames[ep], float64(m.sumNanos[ep].Load())/1e9)
		fmt.Fprintf(w, "redirects_request_duration_seconds_count{endpoint=%q} %d\n", endpointNames[ep], cum)
	}
	fmt.Fprintln(w, "# HELP redirects_limiter_decisions_total Limiter decisions on authenticated requests.")
	fmt.Fprintln(w, "# TYPE redirects_limiter_decisions_total counter")
	for i, name := range []string{"allowed", "quota_exceeded", "rate_limit_exceeded"} {
		fmt.Fprintf(w, "redirects_limiter_decisions_total{decision=%q} %d\n", name, m.limits[i].Load())
	}
	fmt.Fprintln(w, "# HELP redirects_limiter_fallback 1 while shared limits are unreachable and each node limits alone.")
	fmt.Fprintln(w, "# TYPE redirects_limiter_fallback gauge")
	fmt.Fprintf(w, "redirects_limiter_fallback %d\n", m.redisDown.Load())
	if m.engine != nil {
		writeEngine(w, m.engine())
	}
	fmt.Fprintln(w, "# HELP redirects_deployment_version Latest deployment version loaded, by project.")
	fmt.Fprintln(w, "# TYPE redirects_deployment_version gauge")
	if catalog != nil {
		v := catalog.view()
		ids := make([]string, 0, len(v.projects))
		for id := range v.projects {
			ids = append(ids, id)
		}
		sort.Strings(ids)
		for _, id := range ids {
			if d := v.projects[id].latest; d != nil {
				fmt.Fprintf(w, "redirects_deployment_version{project=%q} %d\n", id, d.version)
			}
		}
	}
	fmt.Fprintln(w, "# HELP redirects_build_info The running build: version, commit and Go version (always 1).")
	fmt.Fprintln(w, "# TYPE redirects_build_info gauge")
	fmt.Fprintf(w, "redirects_build_info{version=%q,commit=%q,goversion=%q} 1\n", m.build.Version, m.build.Commit, m.build.GoVersion)
}

// writeEngine writes the evhttp engine's connection counters.
func writeEngine(w io.Writer, st evhttp.Stats) {
	paused := 0
	if st.AcceptPaused {
		paused = 1
	}
	for _, m := range []struct {
		name, kind, help string
		value            any
	}{
		{"redirects_edge_connections", "gauge", "Open edge connections.", st.Conns},
		{"redirects_edge_connections_accepted_total", "counter", "Edge connections accepted.", st.Accepted},
		{"redirects_edge_connections_limit", "gauge", "Most open edge connections (MaxConns).", st.MaxConns},
		{"redirects_edge_connections_per_addr_limit", "gauge", "Most open edge connections from one address (0: none).", st.MaxConnsPerAddr},
		{"redirects_edge_connections_shed_total", "counter", "Edge connections closed at once: the connection limit was reached.", st.Shed},
		{"redirects_edge_connections_shed_per_addr_total", "counter", "Edge connections closed at once: the limit per client address was reached.", st.ShedPerAddr},
		{"redirects_edge_accept_out_of_descriptors_total", "counter", "Edge accepts that failed for lack of file descriptors.", st.OutOfDescriptors},
		{"redirects_edge_accept_paused", "gauge", "1 while the edge waits for file descriptors to accept again.", paused},
	} {
		fmt.Fprintf(w, "# HELP %s %s\n# TYPE %s %s\n%s %d\n", m.name, m.help, m.name, m.kind, m.name, m.value)
	}
}
