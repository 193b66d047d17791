package http

import (
	"fmt"
	"io"
	"net/http"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"

	"redirects"
	"redirects/edge"
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

// statuses lists every status the edge sends, so each (endpoint, status)
// counter is resolved once, when the metrics are made.
var statuses = [...]int{200, 204, 304, 400, 401, 404, 405, 429, 500, 503}

// latencyBuckets are the histogram's upper bounds in seconds.
var latencyBuckets = [...]float64{0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.05, 0.25, 1}

// limiterDecisions names the label values of redirects_limiter_decisions_total,
// indexed by redirects.Refusal.
var limiterDecisions = [...]string{
	redirects.NotRefused:        "allowed",
	redirects.QuotaExceeded:     "quota_exceeded",
	redirects.RateLimitExceeded: "rate_limit_exceeded",
}

// Metrics counts what the edge does, for Prometheus, through client_golang.
// What the edge counts on every request (answers by endpoint and status,
// their latency, the limiter's decisions) is counted in shards, one per
// event loop (hotShard): counting an answer is an index and atomic adds on
// the loop's own cache lines, without a label lookup, a lock, an
// allocation or a cache line that the loops of other cores write too. A
// scrape sums the shards (hotCollector).
type Metrics struct {
	registry *prometheus.Registry
	// buildInfo is redirects_build_info, added to what registry gathers.
	buildInfo *dto.MetricFamily
	shards    []hotShard
	// fallback is 1 while a shared limiter has fallen back to per-node
	// limits.
	fallback prometheus.Gauge
	// waiting counts the export long-polls being held (waitExport).
	waiting prometheus.Gauge
	// flushTime and flushRows count the background work of the flushes
	// (Server.flush): their time, and the hits and misses entries they
	// wrote.
	flushTime prometheus.Observer
	flushRows [2]prometheus.Counter
	// shared, set when a shared limiter is opened, reports its counters of
	// round trips to Redis and of requests that waited for one.
	shared atomic.Pointer[func() SharedLimiterStats]
	// droppedHits, set when the store counts them, reports the hit batch
	// entries its folds dropped (sqlstore's DroppedHitEntries).
	droppedHits atomic.Pointer[func() int64]
	// engine, set before the admin listener starts, reports the evhttp
	// engine's connection counters.
	engine func() evhttp.Stats
}

// NewMetrics returns zeroed metrics on a registry of their own, with the Go
// runtime's and the process's collectors.
func NewMetrics() *Metrics {
	m := &Metrics{registry: prometheus.NewRegistry(), buildInfo: buildInfoFamily(version.Get()),
		shards: make([]hotShard, runtime.GOMAXPROCS(0)+1)}
	m.fallback = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "redirects_limiter_fallback",
		Help: "1 while shared limits are unreachable and each node limits alone.",
	})
	m.waiting = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "redirects_export_waiting",
		Help: "Export long-polls (wait=) held until a new deployment or their time is up.",
	})
	flushTime := prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:    "redirects_flush_duration_seconds",
		Help:    "Time to write what the node counted (usage, hits, misses, agents) to the store, once a flush interval.",
		Buckets: []float64{0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10},
	})
	m.flushTime = flushTime
	flushRows := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "redirects_flush_rows_total",
		Help: "Entries the flushes wrote to the store: one per rule with hits, one per missed path.",
	}, []string{"kind"})
	m.flushRows = [2]prometheus.Counter{flushRows.WithLabelValues("hits"), flushRows.WithLabelValues("misses")}
	sharedStat := func(name, help string, f func(SharedLimiterStats) uint64) prometheus.CounterFunc {
		return prometheus.NewCounterFunc(prometheus.CounterOpts{Name: name, Help: help}, func() float64 {
			if p := m.shared.Load(); p != nil {
				return float64(f((*p)()))
			}
			return 0
		})
	}
	m.registry.MustRegister(hotCollector{m}, m.fallback, m.waiting, flushTime, flushRows,
		sharedStat("redirects_limiter_redis_round_trips_total",
			"Round trips of the shared limiter to Redis (shares taken and given back).",
			func(s SharedLimiterStats) uint64 { return s.RoundTrips }),
		sharedStat("redirects_limiter_redis_waits_total",
			"Requests that waited for Redis because the node held no share of their limits.",
			func(s SharedLimiterStats) uint64 { return s.Waits }),
		sharedStat("redirects_limiter_redis_timeouts_total",
			"Requests decided without Redis, by the node alone, because Redis did not answer within the bound (or the client went away first).",
			func(s SharedLimiterStats) uint64 { return s.Timeouts }),
		sharedStat("redirects_limiter_local_admits_total",
			"Requests admitted without Redis's answer (Redis late): the most this node can have admitted beyond a shared limit.",
			func(s SharedLimiterStats) uint64 { return s.LocalAdmits }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "redirects_flush_hit_entries_dropped_total",
			Help: "Entries of hit batches (PostgreSQL) this node's folds dropped because they matched no rule: rules deleted since, or ids a physical restore of the database took back.",
		}, func() float64 {
			if p := m.droppedHits.Load(); p != nil {
				return float64((*p)())
			}
			return 0
		}),
		engineCollector{m},
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// hotShard is one event loop's share of the counters the edge counts on
// every request: a shard is written by its loop (and by the slow
// functions the loop starts), and read by scrapes. Req.Shard picks it.
type hotShard struct {
	_        [64]byte // off the cache line of the shard before
	requests [numEndpoints][len(statuses)]atomic.Uint64
	// buckets counts answers by the first of latencyBuckets their time is
	// at most; the last, those above every bound.
	buckets [numEndpoints][len(latencyBuckets) + 1]atomic.Uint64
	// sum is the answers' time in nanoseconds.
	sum    [numEndpoints]atomic.Int64
	limits [len(limiterDecisions)]atomic.Uint64
}

// shard returns the counters of Req.Shard i: 0 for the requests of no event
// loop (net/http, the slow path), 1 + the loop's index for a loop's. Loops
// beyond the shards made share them.
func (m *Metrics) shard(i int) *hotShard { return &m.shards[uint(i)%uint(len(m.shards))] }

// observe counts an answer in shard (Req.Shard). A status outside statuses
// counts in the histogram only.
func (m *Metrics) observe(shard int, ep endpoint, status int, d time.Duration) {
	h := m.shard(shard)
	for i, s := range statuses {
		if s == status {
			h.requests[ep][i].Add(1)
			break
		}
	}
	// The bucket is Prometheus's: the first bound the time in seconds is
	// at most.
	sec := d.Seconds()
	b := len(latencyBuckets)
	for i, le := range latencyBuckets {
		if sec <= le {
			b = i
			break
		}
	}
	h.buckets[ep][b].Add(1)
	h.sum[ep].Add(int64(d))
}

// limiter counts a limiter's decision in shard (Req.Shard).
func (m *Metrics) limiter(shard int, r redirects.Refusal) { m.shard(shard).limits[r].Add(1) }

// requestCount (of statuses[status]) and limitCount return the sums of the
// shards' counters, as a scrape reports them.
func (m *Metrics) requestCount(ep endpoint, status int) (n uint64) {
	for i := range m.shards {
		n += m.shards[i].requests[ep][status].Load()
	}
	return n
}

func (m *Metrics) limitCount(r redirects.Refusal) (n uint64) {
	for i := range m.shards {
		n += m.shards[i].limits[r].Load()
	}
	return n
}

var (
	requestsDesc = prometheus.NewDesc("redirects_requests_total",
		"Edge requests by endpoint and status.", []string{"endpoint", "status"}, nil)
	latencyDesc = prometheus.NewDesc("redirects_request_duration_seconds",
		"Time to answer an edge request (evhttp: from the event loop's wake-up that answers it; net/http: from the handler's start).", []string{"endpoint"}, nil)
	limitsDesc = prometheus.NewDesc("redirects_limiter_decisions_total",
		"Limiter decisions on authenticated requests.", []string{"decision"}, nil)
	statusLabels = func() (l [len(statuses)]string) {
		for i, s := range statuses {
			l[i] = strconv.Itoa(s)
		}
		return l
	}()
)

// hotCollector reports the shards' counters summed: every (endpoint,
// status) pair, every endpoint's latency histogram and every decision,
// zero or not, as labelled metrics resolved in advance would.
type hotCollector struct{ m *Metrics }

func (c hotCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- requestsDesc
	ch <- latencyDesc
	ch <- limitsDesc
}

func (c hotCollector) Collect(ch chan<- prometheus.Metric) {
	m := c.m
	for ep := range numEndpoints {
		for i := range statuses {
			ch <- prometheus.MustNewConstMetric(requestsDesc, prometheus.CounterValue,
				float64(m.requestCount(ep, i)), endpointNames[ep], statusLabels[i])
		}
		var counts [len(latencyBuckets) + 1]uint64
		var sum int64
		for i := range m.shards {
			for b := range counts {
				counts[b] += m.shards[i].buckets[ep][b].Load()
			}
			sum += m.shards[i].sum[ep].Load()
		}
		cumulative := make(map[float64]uint64, len(latencyBuckets))
		var total uint64
		for b, le := range latencyBuckets {
			total += counts[b]
			cumulative[le] = total
		}
		total += counts[len(latencyBuckets)]
		ch <- prometheus.MustNewConstHistogram(latencyDesc, total, time.Duration(sum).Seconds(), cumulative, endpointNames[ep])
	}
	for r, name := range limiterDecisions {
		ch <- prometheus.MustNewConstMetric(limitsDesc, prometheus.CounterValue, float64(m.limitCount(redirects.Refusal(r))), name)
	}
}

// flushed counts a flush that took d and wrote hits and misses entries;
// nil metrics count nothing.
func (m *Metrics) flushed(d time.Duration, hits, misses int64) {
	if m == nil {
		return
	}
	m.flushTime.Observe(d.Seconds())
	m.flushRows[0].Add(float64(hits))
	m.flushRows[1].Add(float64(misses))
}

// SetLimiterFallback records whether shared limits are unreachable.
func (m *Metrics) SetLimiterFallback(down bool) {
	if down {
		m.fallback.Set(1)
	} else {
		m.fallback.Set(0)
	}
}

// SharedLimiterStats are a shared limiter's counters, as redis.Stats.
type SharedLimiterStats struct {
	RoundTrips, Waits, Timeouts, LocalAdmits uint64
}

// SetDroppedHitEntries has /metrics report the hit batch entries the
// store's folds dropped (redirects_flush_hit_entries_dropped_total).
func (m *Metrics) SetDroppedHitEntries(dropped func() int64) { m.droppedHits.Store(&dropped) }

// SetSharedLimiterStats has /metrics report a shared limiter's counters,
// read from stats.
func (m *Metrics) SetSharedLimiterStats(stats func() SharedLimiterStats) { m.shared.Store(&stats) }

// Handler serves the metrics in a format the scraper accepts (Prometheus'
// text format by default), with the loaded deployment version of every
// project e holds.
func (m *Metrics) Handler(e *Edge) http.Handler {
	return promhttp.HandlerFor(m.gatherer(e.catalog), promhttp.HandlerOpts{
		ErrorLog:      slogPrinter{e},
		ErrorHandling: promhttp.ContinueOnError,
	})
}

// gatherer returns the metrics with the deployment versions of the catalog
// that catalog returns at each scrape.
func (m *Metrics) gatherer(catalog func() *edge.Catalog) prometheus.Gatherer {
	deployments := prometheus.NewRegistry()
	deployments.MustRegister(deploymentCollector{catalog})
	all := prometheus.Gatherers{m.registry, deployments}
	return prometheus.GathererFunc(func() ([]*dto.MetricFamily, error) {
		families, err := all.Gather()
		// Gather returns the families sorted by name: keep them so.
		i, _ := slices.BinarySearchFunc(families, m.buildInfo.GetName(), func(mf *dto.MetricFamily, name string) int {
			return strings.Compare(mf.GetName(), name)
		})
		return slices.Insert(families, i, m.buildInfo), err
	})
}

// write writes every metric in Prometheus' text format.
func (m *Metrics) write(w io.Writer, catalog *edge.Catalog) error {
	families, err := m.gatherer(func() *edge.Catalog { return catalog }).Gather()
	if err != nil {
		return err
	}
	enc := expfmt.NewEncoder(w, expfmt.NewFormat(expfmt.TypeTextPlain))
	for _, mf := range families {
		if err := enc.Encode(mf); err != nil {
			return err
		}
	}
	return nil
}

// catalog returns the catalog the edge answers from, or nil before the
// store is loaded.
func (e *Edge) catalog() *edge.Catalog {
	if lv := e.live.Load(); lv != nil {
		return lv.catalog
	}
	return nil
}

// slogPrinter logs promhttp's errors (a collector that failed) at warning
// level on the edge's logger.
type slogPrinter struct{ e *Edge }

func (p slogPrinter) Println(v ...any) { p.e.Logger.Warn("metrics", "err", fmt.Sprint(v...)) }

var deploymentVersionDesc = prometheus.NewDesc("redirects_deployment_version",
	"Latest deployment version loaded, by project.", []string{"project"}, nil)

// deploymentCollector reports the latest deployment version of every
// project of a catalog, read at each scrape.
type deploymentCollector struct{ catalog func() *edge.Catalog }

func (c deploymentCollector) Describe(ch chan<- *prometheus.Desc) { ch <- deploymentVersionDesc }

func (c deploymentCollector) Collect(ch chan<- prometheus.Metric) {
	catalog := c.catalog()
	if catalog == nil {
		return
	}
	for id, ps := range catalog.View().Projects() {
		if d := ps.Latest; d != nil {
			ch <- prometheus.MustNewConstMetric(deploymentVersionDesc, prometheus.GaugeValue, float64(d.Version), id)
		}
	}
}

// engineMetrics describe the evhttp engine's connection counters, in the
// order engineCollector sends them.
var engineMetrics = [...]struct {
	desc *prometheus.Desc
	kind prometheus.ValueType
}{
	{prometheus.NewDesc("redirects_edge_connections", "Open edge connections.", nil, nil), prometheus.GaugeValue},
	{prometheus.NewDesc("redirects_edge_connections_accepted_total", "Edge connections accepted.", nil, nil), prometheus.CounterValue},
	{prometheus.NewDesc("redirects_edge_connections_limit", "Most open edge connections (MaxConns).", nil, nil), prometheus.GaugeValue},
	{prometheus.NewDesc("redirects_edge_connections_per_addr_limit", "Most open edge connections from one address (0: none).", nil, nil), prometheus.GaugeValue},
	{prometheus.NewDesc("redirects_edge_connections_shed_total", "Edge connections closed at once: the connection limit was reached.", nil, nil), prometheus.CounterValue},
	{prometheus.NewDesc("redirects_edge_connections_shed_per_addr_total", "Edge connections closed at once: the limit per client address was reached.", nil, nil), prometheus.CounterValue},
	{prometheus.NewDesc("redirects_edge_accept_out_of_descriptors_total", "Edge accepts that failed for lack of file descriptors.", nil, nil), prometheus.CounterValue},
	{prometheus.NewDesc("redirects_edge_accept_paused", "1 while the edge waits for file descriptors to accept again.", nil, nil), prometheus.GaugeValue},
}

// engineCollector reports the evhttp engine's connection counters, when the
// edge runs on it.
type engineCollector struct{ m *Metrics }

func (c engineCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, em := range engineMetrics {
		ch <- em.desc
	}
}

func (c engineCollector) Collect(ch chan<- prometheus.Metric) {
	if c.m.engine == nil {
		return
	}
	st := c.m.engine()
	paused := 0
	if st.AcceptPaused {
		paused = 1
	}
	for i, v := range [len(engineMetrics)]int64{int64(st.Conns), int64(st.Accepted), int64(st.MaxConns),
		int64(st.MaxConnsPerAddr), int64(st.Shed), int64(st.ShedPerAddr), int64(st.OutOfDescriptors), int64(paused)} {
		ch <- prometheus.MustNewConstMetric(engineMetrics[i].desc, engineMetrics[i].kind, float64(v))
	}
}

// buildInfoFamily returns redirects_build_info, always 1, with the build's
// version, commit and Go version. The family is made here rather than by a
// collector because a registry sorts the labels of what it gathers by name:
// made here, its line keeps the label order it has had since it was added
// (version, commit, goversion), which scripts matching the line rely on.
func buildInfoFamily(bi version.Info) *dto.MetricFamily {
	name, help, typ, one := "redirects_build_info", "The running build: version, commit and Go version (always 1).", dto.MetricType_GAUGE, 1.0
	names := []string{"version", "commit", "goversion"}
	values := []string{bi.Version, bi.Commit, bi.GoVersion}
	m := &dto.Metric{Gauge: &dto.Gauge{Value: &one}}
	for i := range names {
		m.Label = append(m.Label, &dto.LabelPair{Name: &names[i], Value: &values[i]})
	}
	return &dto.MetricFamily{Name: &name, Help: &help, Type: &typ, Metric: []*dto.Metric{m}}
}
