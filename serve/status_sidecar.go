package serve

import (
	"time"

	"github.com/vaultgraph/vaultgraph/format"
	"github.com/vaultgraph/vaultgraph/serve/store"
)

// sidecarStatus are the fields of the Typed Graph sidecar's GET /status,
// so that its clients read them unchanged. They repeat facts the rest of
// statusResponse holds in vaultgraph's own words (counts, pending_vectors,
// created, embedder, capabilities).
type sidecarStatus struct {
	// State is ready when a snapshot is served, starting until the first
	// one is (the sidecar's state before its first sync).
	State string `json:"state"`
	Notes int    `json:"notes"`
	Edges int    `json:"edges"`
	// Pending counts the texts (chunks and edge sentences) without a
	// vector yet: the work the next index run still has to do.
	Pending int `json:"pending"`
	// LastSync is when the served snapshot was written, null before one
	// is served.
	LastSync *time.Time `json:"lastSync"`
	// FrontmatterErrors counts notes whose frontmatter did not parse.
	FrontmatterErrors int `json:"frontmatterErrors"`
	// Mirror is the graph database (the sidecar's LadybugDB mirror), null
	// when the snapshot has none.
	Mirror *sidecarMirror `json:"mirror"`
	// Vectors is the vector index, null when the snapshot has none.
	Vectors        *sidecarVectors  `json:"vectors"`
	EmbeddingModel *format.Embedder `json:"embeddingModel"`
}

type sidecarMirror struct {
	State   string `json:"state"` // ready or unavailable
	Message string `json:"message,omitempty"`
}

type sidecarVectors struct {
	// State is ready, degraded (texts without a vector) or unavailable
	// (the server cannot search them).
	State    string           `json:"state"`
	Message  string           `json:"message,omitempty"`
	Chunks   int              `json:"chunks"`
	Edges    int              `json:"edges"`
	Pending  int              `json:"pending"`
	Identity *format.Embedder `json:"identity"`
}

func sidecarStatusOf(snap *store.Snapshot) sidecarStatus {
	m := snap.Manifest
	st := sidecarStatus{State: "ready", Notes: m.Counts.Notes, Edges: m.Counts.Edges, LastSync: &m.Created, EmbeddingModel: m.Embedder}
	for _, w := range m.Warnings {
		if w.Kind == format.WarnInvalidYAML || w.Kind == format.WarnYAMLAliasBomb || w.Kind == format.WarnUnclosedFrontmatter {
			st.FrontmatterErrors++
		}
	}
	if m.Graph != nil {
		st.Mirror = &sidecarMirror{State: "ready"}
		if snap.GraphErr != nil {
			st.Mirror = &sidecarMirror{State: "unavailable", Message: snap.GraphErr.Error()}
		}
	}
	if v := m.Vectors; v != nil {
		st.Pending = v.Chunks.Pending + v.Edges.Pending
		sv := &sidecarVectors{State: "ready", Chunks: v.Chunks.Items, Edges: v.Edges.Items, Pending: st.Pending, Identity: m.Embedder}
		switch {
		case snap.SearchErr != nil:
			sv.State, sv.Message = "unavailable", snap.SearchErr.Error()
		case st.Pending > 0:
			sv.State, sv.Message = "degraded", v.PendingReason
		}
		st.Vectors = sv
	}
	return st
}
