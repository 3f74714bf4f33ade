package serve

import (
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"

	"github.com/vaultgraph/vaultgraph/serve/store"
)

// metrics are the server's Prometheus metrics, in a registry of its own
// (several servers can run in one process, as in tests). With several
// vaults every series about requests or snapshots has a vault label; with
// one it has none, as before vaults could be several.
type metrics struct {
	reg           *prometheus.Registry
	byVault       bool
	requests      *prometheus.CounterVec
	duration      *prometheus.HistogramVec
	heavyInFlight prometheus.Gauge
	heavyRejected prometheus.Counter
	answerHits    prometheus.Counter
	answerMisses  prometheus.Counter
}

func newMetrics(vs *store.Vaults, extra []prometheus.Collector) *metrics {
	byVault := vs.Len() > 1
	labels := func(names ...string) []string {
		if byVault {
			return append([]string{"vault"}, names...)
		}
		return names
	}
	m := &metrics{
		reg:     prometheus.NewRegistry(),
		byVault: byVault,
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "vaultgraph_http_requests_total",
			Help: "HTTP requests by route pattern, method and status code.",
		}, labels("route", "method", "status")),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "vaultgraph_http_request_duration_seconds",
			Help:    "Time from the start of routing to the response being ready, by route pattern and method.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30},
		}, labels("route", "method")),
		heavyInFlight: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "vaultgraph_heavy_requests_in_flight",
			Help: "Queries and searches running now.",
		}),
		heavyRejected: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "vaultgraph_heavy_requests_rejected_total",
			Help: "Queries and searches turned away with 429 because every slot was taken.",
		}),
	}
	m.answerHits = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "vaultgraph_answer_cache_hits_total",
		Help: "Queries and retrievals answered from the answer cache.",
	})
	m.answerMisses = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "vaultgraph_answer_cache_misses_total",
		Help: "Queries and retrievals computed (and kept in the answer cache when they succeeded).",
	})
	m.reg.MustRegister(
		m.requests, m.duration, m.heavyInFlight, m.heavyRejected, m.answerHits, m.answerMisses,
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
	)
	for _, v := range vs.All() {
		reg := prometheus.Registerer(m.reg)
		if byVault {
			reg = prometheus.WrapRegistererWith(prometheus.Labels{"vault": v.Name}, reg)
		}
		registerStore(reg, v.Store)
	}
	m.reg.MustRegister(extra...)
	return m
}

// registerStore registers the metrics of one vault's store.
func registerStore(reg prometheus.Registerer, st *store.Store) {
	stat := func(f func(store.Stats) int64) func() float64 {
		return func() float64 { return float64(f(st.Stats())) }
	}
	reg.MustRegister(
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "vaultgraph_snapshot_swaps_total",
			Help: "Times the served snapshot was replaced by another: a newer one, or after it was deleted from disk the newest one left (see vaultgraph_snapshot_fallbacks_total).",
		}, stat(func(s store.Stats) int64 { return s.Swaps })),
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "vaultgraph_snapshot_fallbacks_total",
			Help: "Times the served snapshot was found deleted from disk and the server fell back to the newest snapshot that opens, older or not, or stopped serving when none did.",
		}, stat(func(s store.Stats) int64 { return s.Fallbacks })),
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "vaultgraph_snapshots_rejected_total",
			Help: "Snapshots that failed to open or verify and were skipped.",
		}, stat(func(s store.Stats) int64 { return s.Rejected })),
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "vaultgraph_source_errors_total",
			Help: "Polls whose source did not answer (a bucket: credentials, network, the store down); the served snapshot stays, and nothing newer comes until it answers.",
		}, stat(func(s store.Stats) int64 { return s.SourceErrors })),
		prometheus.NewCounterFunc(prometheus.CounterOpts{
			Name: "vaultgraph_snapshots_seen_total",
			Help: "Distinct snapshot ids found in the data directory.",
		}, stat(func(s store.Stats) int64 { return s.Seen })),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "vaultgraph_snapshots_open",
			Help: "Snapshots open: the served one and retired ones still in use by requests.",
		}, stat(func(s store.Stats) int64 { return s.Open })),
		&snapshotCollector{st: st},
	)
}

// registerAnswers reports the answer cache's size.
func (m *metrics) registerAnswers(a *answers) {
	m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "vaultgraph_answer_cache_bytes",
		Help: "Bytes the answer cache holds, of its budget (--answer-cache).",
	}, func() float64 { return float64(a.bytes()) }))
}

// observe counts one request to vault (the default vault's name, or ""
// before routing).
func (m *metrics) observe(vault, route, method string, status int, d time.Duration) {
	method = methodLabel(method)
	if m.byVault {
		m.requests.WithLabelValues(vault, route, method, strconv.Itoa(status)).Inc()
		m.duration.WithLabelValues(vault, route, method).Observe(d.Seconds())
		return
	}
	m.requests.WithLabelValues(route, method, strconv.Itoa(status)).Inc()
	m.duration.WithLabelValues(route, method).Observe(d.Seconds())
}

// methodLabel maps a request method to a constant label value. fiber's
// strings alias buffers reused by the next request, so they must not be
// kept as labels; and a client inventing methods must not grow the label
// set.
func methodLabel(m string) string {
	for _, known := range []string{"GET", "POST", "HEAD", "OPTIONS", "PUT", "DELETE", "PATCH"} {
		if m == known {
			return known
		}
	}
	return "other"
}

// snapshotCollector reports the served snapshot: its age, and its id as an
// info metric whose only series is the current one.
type snapshotCollector struct{ st *store.Store }

var (
	snapshotAgeDesc = prometheus.NewDesc("vaultgraph_snapshot_age_seconds",
		"Age of the served snapshot: time since the indexer created it.", nil, nil)
	snapshotInfoDesc = prometheus.NewDesc("vaultgraph_snapshot_info",
		"The served snapshot (value 1, id in the label).", []string{"snapshot"}, nil)
)

func (sc *snapshotCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- snapshotAgeDesc
	ch <- snapshotInfoDesc
}

func (sc *snapshotCollector) Collect(ch chan<- prometheus.Metric) {
	snap, release := sc.st.Acquire()
	defer release()
	if snap == nil {
		return
	}
	ch <- prometheus.MustNewConstMetric(snapshotAgeDesc, prometheus.GaugeValue, snap.Age(time.Now()).Seconds())
	ch <- prometheus.MustNewConstMetric(snapshotInfoDesc, prometheus.GaugeValue, 1, snap.ID)
}
