package serve

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/middleware/adaptor"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/vaultgraph/vaultgraph/format"
	"github.com/vaultgraph/vaultgraph/serve/store"
)

// healthResponse is GET /health: whether the process is up and whether it
// serves a snapshot. It is always 200 while the process runs; Ready says
// whether the data routes answer (they return 503 until a snapshot is
// served). Snapshot names the snapshot only to clients that may read it:
// /health needs no token, but without one it says no more than that.
type healthResponse struct {
	Status   string  `json:"status"` // "ok" or "no_snapshot"
	Ready    bool    `json:"ready"`
	Snapshot *string `json:"snapshot"`
}

func (s *Server) health(c *fiber.Ctx) error {
	res := healthResponse{Status: "no_snapshot"}
	id := s.vault(c).Store.Current()
	if id != "" {
		res.Status, res.Ready = "ok", true
	}
	if s.authorized(c) {
		c.Locals(localAuthorized, true)
		if id != "" {
			res.Snapshot = &id
		}
	}
	return c.JSON(res)
}

// statusResponse is GET /status.
type statusResponse struct {
	Snapshot      string           `json:"snapshot"`
	Created       time.Time        `json:"created"`
	AgeSeconds    float64          `json:"age_seconds"`
	Parent        string           `json:"parent,omitempty"`
	VaultRoot     string           `json:"vault_root"`
	ToolVersion   string           `json:"tool_version"`
	FormatVersion int              `json:"format_version"`
	Embedder      *format.Embedder `json:"embedder"`
	Counts        format.Counts    `json:"counts"`
	Pending       pendingVectors   `json:"pending_vectors"`
	Warnings      int              `json:"warnings"`
	Capabilities  capabilities     `json:"capabilities"`
	Loaded        time.Time        `json:"loaded"`
	LoadMS        int64            `json:"load_ms"`
	Server        serverStatus     `json:"server"`
	Snapshots     snapshotsStatus  `json:"snapshots"`
	Graph         *graphSummary    `json:"graph,omitempty"`
	// Vault names the vault that answered; Vaults lists every vault the
	// server serves, in order, the default first marked.
	Vault  string        `json:"vault"`
	Vaults []vaultStatus `json:"vaults"`
	sidecarStatus
}

// vaultStatus is one vault in /status's list.
type vaultStatus struct {
	Name     string  `json:"name"`
	Default  bool    `json:"default,omitempty"`
	DataDir  string  `json:"data_dir"`
	Snapshot *string `json:"snapshot"`
	Ready    bool    `json:"ready"`
	Rejected int64   `json:"rejected"`
}

// vaultList is every vault with what it serves.
func (s *Server) vaultList() []vaultStatus {
	def := s.vaults.Default().Name
	out := make([]vaultStatus, 0, s.vaults.Len())
	for _, v := range s.vaults.All() {
		vs := vaultStatus{Name: v.Name, Default: v.Name == def, DataDir: v.Store.DataDir(), Rejected: v.Store.Stats().Rejected}
		if id := v.Store.Current(); id != "" {
			vs.Snapshot, vs.Ready = &id, true
		}
		out = append(out, vs)
	}
	return out
}

type pendingVectors struct {
	Chunks int    `json:"chunks"`
	Edges  int    `json:"edges"`
	Reason string `json:"reason,omitempty"`
}

type capability struct {
	Available bool   `json:"available"`
	Reason    string `json:"reason,omitempty"`
}

type capabilities struct {
	Query    capability `json:"query"`
	Search   capability `json:"search"`
	Notes    capability `json:"notes"`
	Graph    capability `json:"graph"`
	Retrieve capability `json:"retrieve"`
}

type serverStatus struct {
	Version       string    `json:"version"`
	Started       time.Time `json:"started"`
	UptimeSeconds float64   `json:"uptime_seconds"`
}

type snapshotsStatus struct {
	// Source is where snapshots come from: the data directory, or the
	// bucket (s3://BUCKET/PREFIX) the server polls.
	Source        string           `json:"source"`
	Seen          int64            `json:"seen"`
	Rejected      int64            `json:"rejected"`
	Swaps         int64            `json:"swaps"`
	Fallbacks     int64            `json:"fallbacks"`
	Open          int64            `json:"open"`
	LastRejection *store.Rejection `json:"last_rejection,omitempty"`
	// LastFallback is the last time the served snapshot was found deleted
	// from disk, and what was served instead.
	LastFallback *store.Fallback `json:"last_fallback,omitempty"`
	// SourceError is set while the source does not answer (a bucket
	// whose credentials stopped working): what is served is as old as
	// the last snapshot brought in before it.
	SourceError *store.SourceError `json:"source_error,omitempty"`
}

type graphSummary struct {
	Labels    []format.GraphLabel    `json:"labels"`
	EdgeTypes []format.GraphEdgeType `json:"edge_types"`
}

func capabilityOf(err error) capability {
	if err != nil {
		return capability{Reason: err.Error()}
	}
	return capability{Available: true}
}

// statusRoute is GET /status: the served snapshot's status, or, before
// there is one, 200 with state "starting" (waitingStatus). The Typed
// Graph sidecar answers its /status with 200 and a state at every moment,
// and its clients read state rather than the HTTP status.
func (s *Server) statusRoute(c *fiber.Ctx) error {
	st := s.vault(c).Store
	snap, release := st.Acquire()
	defer release()
	if snap == nil {
		return s.waitingStatus(c, st)
	}
	c.Locals(localSnapshot, snap.ID)
	c.Set(headerSnapshot, snap.ID)
	return s.status(c, snap)
}

// waitingResponse is GET /status while no snapshot is served: the
// sidecar's fields (state starting, no notes, no mirror, no vectors),
// vaultgraph's fields that hold without a snapshot, and Message, which
// says what the server is waiting for (the text of the 503 not_ready the
// data routes answer meanwhile).
type waitingResponse struct {
	Snapshot     *string         `json:"snapshot"`
	Message      string          `json:"message"`
	Capabilities capabilities    `json:"capabilities"`
	Server       serverStatus    `json:"server"`
	Snapshots    snapshotsStatus `json:"snapshots"`
	Vault        string          `json:"vault"`
	Vaults       []vaultStatus   `json:"vaults"`
	sidecarStatus
}

func (s *Server) waitingStatus(c *fiber.Ctx, st *store.Store) error {
	now := time.Now()
	stats := st.Stats()
	msg := noSnapshot(st).Message
	none := capability{Reason: "no snapshot is served yet"}
	res := waitingResponse{
		Message:      msg,
		Capabilities: capabilities{Query: none, Search: none, Notes: none, Graph: none, Retrieve: none},
		Server:       serverStatus{Version: s.opts.Version, Started: s.started, UptimeSeconds: now.Sub(s.started).Seconds()},
		Snapshots: snapshotsStatus{Source: st.Source(), Seen: stats.Seen, Rejected: stats.Rejected, Swaps: stats.Swaps, Fallbacks: stats.Fallbacks,
			Open: stats.Open, LastRejection: stats.LastRejection, LastFallback: stats.LastFallback, SourceError: stats.SourceError},
		sidecarStatus: sidecarStatus{State: "starting"},
	}
	res.Vault, res.Vaults = s.vault(c).Name, s.vaultList()
	return c.JSON(res)
}

func (s *Server) status(c *fiber.Ctx, snap *store.Snapshot) error {
	m := snap.Manifest
	now := time.Now()
	st := s.vault(c).Store.Stats()
	res := statusResponse{
		Snapshot: snap.ID, Created: m.Created, AgeSeconds: snap.Age(now).Seconds(), Parent: m.Parent,
		VaultRoot: m.VaultRoot, ToolVersion: m.ToolVersion, FormatVersion: m.FormatVersion,
		Embedder: m.Embedder, Counts: m.Counts, Warnings: m.Counts.Warnings,
		Capabilities: capabilities{
			Query:    capabilityOf(snap.GraphErr),
			Search:   capabilityOf(snap.SearchErr),
			Notes:    capability{Available: true},
			Graph:    capability{Available: snap.Links != nil},
			Retrieve: capabilityOf(snap.RetrieveErr),
		},
		Loaded: snap.Loaded, LoadMS: snap.LoadTime.Milliseconds(),
		Server: serverStatus{Version: s.opts.Version, Started: s.started, UptimeSeconds: now.Sub(s.started).Seconds()},
		Snapshots: snapshotsStatus{Source: s.vault(c).Store.Source(), Seen: st.Seen, Rejected: st.Rejected, Swaps: st.Swaps, Fallbacks: st.Fallbacks,
			Open: st.Open, LastRejection: st.LastRejection, LastFallback: st.LastFallback, SourceError: st.SourceError},
	}
	res.Vault, res.Vaults = s.vault(c).Name, s.vaultList()
	res.sidecarStatus = sidecarStatusOf(snap)
	if v := m.Vectors; v != nil {
		res.Pending = pendingVectors{Chunks: v.Chunks.Pending, Edges: v.Edges.Pending, Reason: v.PendingReason}
	}
	if g := m.Graph; g != nil {
		res.Graph = &graphSummary{Labels: g.Labels, EdgeTypes: g.EdgeTypes}
	}
	return c.JSON(res)
}

// reloadResponse is POST /admin/reload.
type reloadResponse struct {
	Snapshot *string           `json:"snapshot"`
	Previous string            `json:"previous"`
	Swapped  bool              `json:"swapped"`
	Rejected []store.Rejection `json:"rejected"`
}

func (s *Server) reload(c *fiber.Ctx) error {
	ctx, cancel := context.WithTimeout(context.Background(), s.opts.ReloadTimeout)
	defer cancel()
	st := s.vault(c).Store
	refresh := st.Refresh
	if c.QueryBool("retry") {
		refresh = st.Retry
	}
	res, err := refresh(ctx)
	switch {
	case errors.Is(err, store.ErrClosed):
		return newError(http.StatusServiceUnavailable, KindUnavailable, "the server is shutting down")
	case errors.Is(err, context.DeadlineExceeded):
		return newError(http.StatusGatewayTimeout, KindTimeout, "the reload ran past %s; the server keeps serving %s and goes on watching", s.opts.ReloadTimeout, res.Current)
	case err != nil:
		return err
	}
	out := reloadResponse{Previous: res.Previous, Swapped: res.Swapped, Rejected: res.Rejected}
	if res.Current != "" {
		out.Snapshot = &res.Current
		c.Locals(localSnapshot, res.Current)
	}
	return c.JSON(out)
}

func (s *Server) metricsHandler() fiber.Handler {
	return adaptor.HTTPHandler(promhttp.HandlerFor(s.metrics.reg, promhttp.HandlerOpts{}))
}

// openAPI serves the OpenAPI document with the answering snapshot's id
// added as the root extension field x-snapshot.
func (s *Server) openAPI(c *fiber.Ctx) error {
	c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSONCharsetUTF8)
	return c.Send(withSnapshotField(s.openapi, s.vault(c).Store.Current()))
}
