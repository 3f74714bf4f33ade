package mcp

import (
	"context"
	"fmt"
	"strings"
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
	// Serving is false while no snapshot is served yet; Message says why.
	Serving       bool               `json:"serving"`
	Snapshot      string             `json:"snapshot"`
	Created       string             `json:"created,omitempty"`
	AgeSeconds    float64            `json:"age_seconds"`
	Parent        string             `json:"parent,omitempty"`
	VaultRoot     string             `json:"vault_root,omitempty"`
	ToolVersion   string             `json:"tool_version,omitempty"`
	FormatVersion int                `json:"format_version,omitempty"`
	Embedder      *statusEmbedder    `json:"embedder,omitempty"`
	Counts        format.Counts      `json:"counts"`
	Pending       statusPending      `json:"pending_vectors"`
	Capabilities  []statusCapability `json:"capabilities"`
	// Tools are the tools this snapshot answers (the ones listed).
	Tools     []string      `json:"tools"`
	Graph     *statusGraph  `json:"graph,omitempty"`
	Server    statusServer  `json:"server"`
	Snapshots statusHistory `json:"snapshots"`
	Message   string        `json:"message,omitempty"`
}

type statusEmbedder struct {
	Provider   string `json:"provider"`
	Model      string `json:"model"`
	Dimensions int    `json:"dimensions"`
	// Kind is lexical (matches shared words) or semantic (matches meaning).
	Kind string `json:"kind"`
	Note string `json:"note,omitempty"`
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
}

func (s *Server) statusTool() *tool {
	def := mcp.NewTool(toolStatus,
		mcp.WithDescription(`Describe what this server answers from: the snapshot id, when it was built and how old it is, the vault root, the embedding model (and whether its similarity is lexical or semantic), counts of notes, links, edges and chunks, vectors still pending, which capabilities (and so which tools) this snapshot offers, and the graph schema for cypher_query (labels, relationship types with their properties, note property names).
Call it first, and again when answers seem stale or a tool disappears: snapshots are swapped in as the vault is re-indexed. Cheap; quotes no note text.`),
		readOnly("Vault status"),
		mcp.WithOutputSchema[statusOutput](),
	)
	return &tool{def: def, run: s.runStatus, bare: true}
}

// runStatus is also answered without a snapshot (the handler passes nil),
// saying why none is served.
func (s *Server) runStatus(_ context.Context, snap *store.Snapshot, _ mcp.CallToolRequest) (*answer, error) {
	now := time.Now()
	st := s.st.Stats()
	out := &statusOutput{Capabilities: []statusCapability{}, Tools: s.toolNames(snap),
		Server:    statusServer{Version: s.opts.Version, Started: s.started.UTC().Format(time.RFC3339), UptimeSeconds: now.Sub(s.started).Seconds()},
		Snapshots: statusHistory{Seen: st.Seen, Rejected: st.Rejected, Swaps: st.Swaps}}
	if st.LastRejection != nil {
		out.Snapshots.LastRejection = st.LastRejection.ID + ": " + st.LastRejection.Reason
	}
	if snap == nil {
		out.Tools = []string{toolStatus}
		out.Message = s.noSnapshot()
		return &answer{out: out, text: func() string { return statusText(out) }}, nil
	}
	m := snap.Manifest
	out.Serving, out.Snapshot, out.Created, out.AgeSeconds = true, snap.ID, m.Created.UTC().Format(time.RFC3339), snap.Age(now).Seconds()
	out.Parent, out.VaultRoot, out.ToolVersion, out.FormatVersion, out.Counts = m.Parent, m.VaultRoot, m.ToolVersion, m.FormatVersion, m.Counts
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
	return &answer{out: out, text: func() string { return statusText(out) }}, nil
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

func statusText(out *statusOutput) string {
	var b strings.Builder
	if !out.Serving {
		b.WriteString("no snapshot served: " + out.Message + "\n")
		return b.String()
	}
	b.WriteString(heading(out.Snapshot, false))
	fmt.Fprintf(&b, "created %s (%s ago) from %s by vaultgraph %s; server %s\n", out.Created,
		time.Duration(out.AgeSeconds*float64(time.Second)).Round(time.Second), out.VaultRoot, out.ToolVersion, out.Server.Version)
	c := out.Counts
	fmt.Fprintf(&b, "%d notes, %d stubs, %d links, %d typed edges, %d unresolved links, %d chunks, %d warnings\n",
		c.Notes, c.Stubs, c.Links, c.Edges, c.Unresolved, c.Chunks, c.Warnings)
	if e := out.Embedder; e != nil {
		fmt.Fprintf(&b, "embedder %s:%s (%d dims, %s)", e.Provider, e.Model, e.Dimensions, e.Kind)
		if out.Pending.Chunks+out.Pending.Edges > 0 {
			fmt.Fprintf(&b, ", %d chunks and %d edges without vectors yet", out.Pending.Chunks, out.Pending.Edges)
		}
		b.WriteString("\n")
	}
	b.WriteString("tools: " + strings.Join(out.Tools, ", ") + "\n")
	for _, c := range out.Capabilities {
		if !c.Available {
			fmt.Fprintf(&b, "unavailable: %s (%s)\n", c.Name, c.Reason)
		}
	}
	if g := out.Graph; g != nil {
		labels := make([]string, len(g.Labels))
		for i, l := range g.Labels {
			labels[i] = fmt.Sprintf("%s %d", l.Name, l.Count)
		}
		types := make([]string, len(g.EdgeTypes))
		for i, t := range g.EdgeTypes {
			types[i] = fmt.Sprintf("%s %d", t.Name, t.Count)
			if len(t.Properties) > 0 {
				types[i] += " {" + strings.Join(t.Properties, ", ") + "}"
			}
		}
		fmt.Fprintf(&b, "labels: %s\nrelationship types: %s\nnote properties: %s\n", strings.Join(labels, ", "),
			strings.Join(types, ", "), strings.Join(g.NoteProperties, ", "))
	}
	fmt.Fprintf(&b, "snapshots seen %d, rejected %d, swaps %d\n", out.Snapshots.Seen, out.Snapshots.Rejected, out.Snapshots.Swaps)
	return b.String()
}
