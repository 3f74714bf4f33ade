package mcp

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"
)

// Outcomes of a tool call, the outcome label of
// vaultgraph_mcp_tool_calls_total.
const (
	outcomeOK          = "ok"          // answered
	outcomeError       = "error"       // a tool error the agent can fix: arguments, names, a query, a bound
	outcomeUnavailable = "unavailable" // no snapshot yet, or the snapshot cannot answer the tool
	outcomeTimeout     = "timeout"     // ran past the query timeout
	outcomeInternal    = "internal"    // the server's fault; logged
)

var outcomes = []string{outcomeOK, outcomeError, outcomeUnavailable, outcomeTimeout, outcomeInternal}

// metrics are the MCP server's Prometheus metrics. They are served on the
// REST server's /metrics (serve.Options.Collectors) when MCP runs over
// HTTP; over stdio nothing serves them.
type metrics struct {
	calls    *prometheus.CounterVec
	duration *prometheus.HistogramVec
	streams  prometheus.Gauge
}

func newMetrics(s *Server) *metrics {
	m := &metrics{
		calls: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "vaultgraph_mcp_tool_calls_total",
			Help: "MCP tool calls by tool and outcome (ok, error: a tool error the agent can fix, unavailable: no snapshot or not for this snapshot, timeout, internal).",
		}, []string{"tool", "outcome"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "vaultgraph_mcp_tool_call_duration_seconds",
			Help:    "Time from the start of an MCP tool call to its answer being encoded, by tool.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30},
		}, []string{"tool"}),
		streams: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "vaultgraph_mcp_event_streams",
			Help: "MCP event streams (GET /mcp) open now.",
		}),
	}
	// Every series exists from the start, so that rates and absent()
	// work before the first call.
	for _, t := range s.tools {
		for _, o := range outcomes {
			m.calls.WithLabelValues(t.def.Name, o)
		}
		m.duration.WithLabelValues(t.def.Name)
	}
	return m
}

func (m *metrics) observe(tool, outcome string, d time.Duration) {
	m.calls.WithLabelValues(tool, outcome).Inc()
	m.duration.WithLabelValues(tool).Observe(d.Seconds())
}

// Collectors returns the MCP server's metrics, for serve.Options.Collectors.
func (s *Server) Collectors() []prometheus.Collector {
	return []prometheus.Collector{
		s.metrics.calls, s.metrics.duration, s.metrics.streams,
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "vaultgraph_mcp_sessions",
			Help: "MCP sessions over HTTP live now (ended by DELETE, by idling, or past the cap by a newer one).",
		}, func() float64 { return float64(s.sessions.count()) }),
	}
}
