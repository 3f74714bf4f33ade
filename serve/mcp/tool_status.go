package mcp

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/vaultgraph/vaultgraph/format"
	"github.com/vaultgraph/vaultgraph/serve/store"
)

// maxSchemaNames bounds the labels, relationship types and property names
// vault_status lists.
const maxSchemaNames = 200

// statusOutput is vault_status's structured content.
type statusOutput struct {
	// Serving is false while no snapshot is served yet; Status then says
	// so and Message what to run.
	Serving bool `json:"serving"`
	// Status is "serving" or "waiting for the first snapshot".
	Status string `json:"status"`
	// DataDir is the data directory the server watches for snapshots.
	DataDir       string          `json:"data_dir"`
	Snapshot      string          `json:"snapshot"`
	Created       string          `json:"created,omitempty"`
	AgeSeconds    float64         `json:"age_seconds"`
	Parent        string          `json:"parent,omitempty"`
	VaultRoot     string          `json:"vault_root,omitempty"`
	ToolVersion   string          `json:"tool_version,omitempty"`
	FormatVersion int             `json:"format_version,omitempty"`
	Embedder      *statusEmbedder `json:"embedder,omitempty"`
	Counts        format.Counts   `json:"counts"`
	// Edges splits counts.edges by kind.
	Edges        statusEdges        `json:"edges"`
	Pending      statusPending      `json:"pending_vectors"`
	Capabilities []statusCapability `json:"capabilities"`
	// Tools are the tools this snapshot answers (the ones listed).
	Tools     []string      `json:"tools"`
	Graph     *statusGraph  `json:"graph,omitempty"`
	Server    statusServer  `json:"server"`
	Snapshots statusHistory `json:"snapshots"`
	Message   string        `json:"message,omitempty"`
	// Vault names the vault this status is of, and Vaults lists every
	// vault served, when there are several.
	Vault  string        `json:"vault,omitempty"`
	Vaults []statusVault `json:"vaults,omitempty"`
}

// statusVault is one vault of a server that serves several.
type statusVault struct {
	Name     string `json:"name"`
	Default  bool   `json:"default,omitempty"`
	DataDir  string `json:"data_dir"`
	Snapshot string `json:"snapshot,omitempty"`
	// Health is "serving", "waiting for the first snapshot", or the last
	// rejection while nothing is served.
	Health string `json:"health"`
}

type statusEmbedder struct {
	Provider   string `json:"provider"`
	Model      string `json:"model"`
	Dimensions int    `json:"dimensions"`
	// Kind is lexical (matches shared words) or semantic (matches meaning).
	Kind string `json:"kind"`
	Note string `json:"note,omitempty"`
}

// statusEdges counts a snapshot's edges by kind: typed edges (inline
// fields and frontmatter links, one per occurrence), plain links
// (links_to, merged per pair of notes) and embeds.
type statusEdges struct {
	Typed   int `json:"typed"`
	LinksTo int `json:"links_to"`
	Embeds  int `json:"embeds"`
}

type statusPending struct {
	Chunks int    `json:"chunks"`
	Edges  int    `json:"edges"`
	Reason string `json:"reason,omitempty"`
}

type statusCapability struct {
	Name      string `json:"name"`
	Available bool   `json:"available"`
	Reason    string `json:"reason,omitempty"`
}

// statusGraph is the schema Cypher queries are written against.
type statusGraph struct {
	Labels         []format.GraphLabel `json:"labels"`
	EdgeTypes      []statusEdgeType    `json:"edge_types"`
	NoteProperties []string            `json:"note_properties"`
	Truncated      bool                `json:"truncated"`
}

type statusEdgeType struct {
	Name       string   `json:"name"`
	Count      int      `json:"count"`
	Properties []string `json:"properties,omitempty"`
}

type statusServer struct {
	Version       string  `json:"version"`
	Started       string  `json:"started"`
	UptimeSeconds float64 `json:"uptime_seconds"`
}

type statusHistory struct {
	Seen     int64 `json:"seen"`
	Rejected int64 `json:"rejected"`
	Swaps    int64 `json:"swaps"`
	// LastRejection says why the last snapshot that failed to open was
	// skipped.
	LastRejection string `json:"last_rejection,omitempty"`
	// SourceError says the source (a bucket) has not answered since a
	// time: nothing newer than what is served can come until it does.
	SourceError string `json:"source_error,omitempty"`
}

func (s *Server) statusTool() *tool {
	def := mcp.NewTool(toolStatus,
		mcp.WithDescription(`Which snapshot answers (id, age, vault), the embedder (lexical or semantic), counts, pending vectors, which tools it offers, and the graph schema for cypher_query (labels, relationship types with properties, note properties). Call it first, and when answers seem stale or a tool disappears; before the first snapshot it says what to run.`),
		readOnly("Vault status"),
		mcp.WithOutputSchema[statusOutput](),
	)
	return &tool{def: def, run: s.runStatus, bare: true}
}

// Values of statusOutput.Status.
const (
	statusServing = "serving"
	statusWaiting = "waiting for the first snapshot"
)

// runStatus is also answered without a snapshot (the handler passes nil):
// the server is then waiting for the first one, and says what to run.
func (s *Server) runStatus(ctx context.Context, snap *store.Snapshot, _ mcp.CallToolRequest) (*answer, error) {
	now := time.Now()
	v := s.callVault(ctx)
	st := v.Store.Stats()
	out := &statusOutput{DataDir: v.Store.DataDir(), Capabilities: []statusCapability{}, Tools: s.toolNames(snap),
		Server:    statusServer{Version: s.opts.Version, Started: s.started.UTC().Format(time.RFC3339), UptimeSeconds: now.Sub(s.started).Seconds()},
		Snapshots: statusHistory{Seen: st.Seen, Rejected: st.Rejected, Swaps: st.Swaps}}
	if st.LastRejection != nil {
		out.Snapshots.LastRejection = st.LastRejection.ID + ": " + st.LastRejection.Reason
	}
	if e := st.SourceError; e != nil {
		out.Snapshots.SourceError = fmt.Sprintf("%s has not answered since %s (%s): nothing newer than the served snapshot comes until it does: %s",
			v.Store.Source(), e.Since.Format(time.RFC3339), plural(int(e.Failures), "failed poll"), e.Reason)
	}
	if s.vaults.Len() > 1 {
		out.Vault, out.Vaults = v.Name, s.vaultList()
	}
	if snap == nil {
		out.Status, out.Tools = statusWaiting, []string{toolStatus}
		out.Message = firstSnapshotAdvice(v.Store)
		return &answer{out: out}, nil
	}
	m := snap.Manifest
	out.Serving, out.Status, out.Snapshot, out.Created, out.AgeSeconds = true, statusServing, snap.ID, m.Created.UTC().Format(time.RFC3339), snap.Age(now).Seconds()
	out.Parent, out.VaultRoot, out.ToolVersion, out.FormatVersion, out.Counts = m.Parent, m.VaultRoot, m.ToolVersion, m.FormatVersion, m.Counts
	out.Edges = s.edgeKinds(snap)
	if e := m.Embedder; e != nil {
		out.Embedder = &statusEmbedder{Provider: e.Provider, Model: e.Model, Dimensions: e.Dimensions, Kind: e.Kind, Note: e.Note}
	}
	if v := m.Vectors; v != nil {
		out.Pending = statusPending{Chunks: v.Chunks.Pending, Edges: v.Edges.Pending, Reason: v.PendingReason}
	}
	for _, t := range s.tools {
		c := statusCapability{Name: t.def.Name, Available: true}
		if err := t.unavailable(snap); err != nil {
			c.Available, c.Reason = false, err.Error()
		}
		out.Capabilities = append(out.Capabilities, c)
	}
	if g := m.Graph; g != nil {
		out.Graph = graphSchema(g)
	}
	// A vault with many labels, edge types or properties: the schema is
	// cut, and the rest is a Cypher call away.
	shrink := func(frac float64) bool {
		g := out.Graph
		if g == nil {
			return false
		}
		cut := cutList(&g.Labels, frac, 0)
		cut = cutList(&g.EdgeTypes, frac, 0) || cut
		cut = cutList(&g.NoteProperties, frac, 0) || cut
		if cut {
			g.Truncated = true
			out.Message = "the graph schema is cut to fit; cypher_query lists it all: CALL db.labels(), CALL db.relationshipTypes(), CALL db.propertyKeys()"
		}
		return cut
	}
	return &answer{out: out, shrink: shrink}, nil
}

// edgeKinds counts snap's edges by kind, from its link graph (the edges
// table as loaded): the manifest counts only their total. The counts of
// the last snapshot asked about are kept, so that a status call does not
// walk every edge again.
func (s *Server) edgeKinds(snap *store.Snapshot) statusEdges {
	if c := s.edgeCounts.Load(); c != nil && c.snapshot == snap.ID {
		return c.edges
	}
	var k statusEdges
	if g := snap.Links; g != nil {
		for i := range int32(g.EdgeCount()) {
			switch g.Edge(i).Type {
			case format.TypeLinksTo:
				k.LinksTo++
			case format.TypeEmbeds:
				k.Embeds++
			default:
				k.Typed++
			}
		}
	}
	s.edgeCounts.Store(&snapshotEdges{snapshot: snap.ID, edges: k})
	return k
}

// snapshotEdges are the edge counts of one snapshot.
type snapshotEdges struct {
	snapshot string
	edges    statusEdges
}

// firstSnapshotAdvice says, while no snapshot is served, what publishes
// one and why earlier ones were not served: deleted from disk, or
// rejected.
func firstSnapshotAdvice(store *store.Store) string {
	data := store.DataDir()
	msg := "run vaultgraph index --vault VAULT --data " + data + " to publish the first snapshot; this server serves it as soon as it appears"
	st := store.Stats()
	if f := st.LastFallback; f != nil && f.Serving == "" {
		msg = fmt.Sprintf("snapshot %s was deleted from disk and no other snapshot opens; run vaultgraph index --vault VAULT --data %s "+
			"to publish one; this server serves it as soon as it appears", f.Deleted, data)
	}
	if _, err := os.Stat(data); errors.Is(err, fs.ErrNotExist) {
		msg = "the data directory does not exist yet; " + msg + " (vaultgraph index creates the directory)"
	}
	if st.LastRejection != nil {
		msg += fmt.Sprintf("; %s rejected, the last (%s) because: %s", plural(int(st.Rejected), "snapshot"), st.LastRejection.ID, st.LastRejection.Reason)
	}
	return msg
}

// vaultList is every vault served, with its snapshot and health.
func (s *Server) vaultList() []statusVault {
	def := s.vaults.Default().Name
	out := make([]statusVault, 0, s.vaults.Len())
	for _, v := range s.vaults.All() {
		sv := statusVault{Name: v.Name, Default: v.Name == def, DataDir: v.Store.DataDir(), Snapshot: v.Store.Current(), Health: statusServing}
		if sv.Snapshot == "" {
			sv.Health = statusWaiting
			if r := v.Store.Stats().LastRejection; r != nil {
				sv.Health = "nothing served: " + r.ID + " was rejected: " + r.Reason
			}
		}
		out = append(out, sv)
	}
	return out
}

func graphSchema(g *format.Graph) *statusGraph {
	sg := &statusGraph{Labels: g.Labels[:min(len(g.Labels), maxSchemaNames)], EdgeTypes: []statusEdgeType{}, NoteProperties: []string{}}
	if sg.Labels == nil {
		sg.Labels = []format.GraphLabel{}
	}
	for _, t := range g.EdgeTypes[:min(len(g.EdgeTypes), maxSchemaNames)] {
		sg.EdgeTypes = append(sg.EdgeTypes, statusEdgeType{Name: t.Name, Count: t.Count, Properties: t.Properties})
	}
	for _, p := range g.NoteProperties[:min(len(g.NoteProperties), maxSchemaNames)] {
		sg.NoteProperties = append(sg.NoteProperties, p.Name)
	}
	sg.Truncated = len(g.Labels) > maxSchemaNames || len(g.EdgeTypes) > maxSchemaNames || len(g.NoteProperties) > maxSchemaNames
	return sg
}
