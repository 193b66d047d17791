package syncagent

import (
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Metrics are the agent's, for Prometheus, on a registry of their own
// (served by Handler on the agent's metrics listener).
type Metrics struct {
	registry     *prometheus.Registry
	appliedV     *prometheus.GaugeVec
	liveV        *prometheus.GaugeVec
	lastSuccess  *prometheus.GaugeVec
	failures     *prometheus.CounterVec
	checkFailed  *prometheus.GaugeVec
	appliesTotal *prometheus.CounterVec
}

// NewMetrics returns zeroed metrics.
func NewMetrics() *Metrics {
	m := &Metrics{
		registry: prometheus.NewRegistry(),
		appliedV: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "redirects_sync_applied_version",
			Help: "Deployment version of the file in place and applied (reloaded or swapped), by target; 0 while unknown."}, []string{"target"}),
		liveV: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "redirects_sync_live_version",
			Help: "Latest deployment version the edge reported, by target."}, []string{"target"}),
		lastSuccess: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "redirects_sync_last_success_timestamp_seconds",
			Help: "When the target was last known current (a version applied, or the edge said nothing changed), Unix time."}, []string{"target"}),
		failures: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "redirects_sync_failures_total",
			Help: "Failed rounds by target and stage (fetch, write, check, reload, haproxy)."}, []string{"target", "stage"}),
		checkFailed: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "redirects_sync_check_failing",
			Help: "1 while the latest version failed its check and the previous file is kept, by target."}, []string{"target"}),
		appliesTotal: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "redirects_sync_applies_total",
			Help: "New versions applied, by target."}, []string{"target"}),
	}
	m.registry.MustRegister(m.appliedV, m.liveV, m.lastSuccess, m.failures, m.checkFailed, m.appliesTotal,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	return m
}

// Handler serves the metrics.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{})
}

// target makes every series of a target exist from the start, at zero.
func (m *Metrics) target(name string) {
	m.appliedV.WithLabelValues(name)
	m.liveV.WithLabelValues(name)
	m.lastSuccess.WithLabelValues(name)
	m.checkFailed.WithLabelValues(name)
	m.appliesTotal.WithLabelValues(name)
	for _, s := range []Stage{StageFetch, StageWrite, StageCheck, StageReload, StageHAProxy} {
		m.failures.WithLabelValues(name, string(s))
	}
}

func (m *Metrics) applied(name string, version int, now time.Time) {
	m.appliedV.WithLabelValues(name).Set(float64(version))
	m.lastSuccess.WithLabelValues(name).Set(float64(now.UnixNano()) / 1e9)
}

func (m *Metrics) live(name string, version int) {
	if version > 0 {
		m.liveV.WithLabelValues(name).Set(float64(version))
	}
}

func (m *Metrics) failure(name string, stage Stage) {
	m.failures.WithLabelValues(name, string(stage)).Inc()
}

func (m *Metrics) apply(name string) { m.appliesTotal.WithLabelValues(name).Inc() }

func (m *Metrics) checkFailing(name string, failing bool) {
	v := 0.0
	if failing {
		v = 1
	}
	m.checkFailed.WithLabelValues(name).Set(v)
}
