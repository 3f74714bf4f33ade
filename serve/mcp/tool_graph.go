package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/vaultgraph/vaultgraph/serve"
	"github.com/vaultgraph/vaultgraph/serve/store"
	"github.com/vaultgraph/vaultgraph/snapshot/linkgraph"
)

// Bounds of the graph tool, lower than the library's: an agent reads
// every node and edge of the answer.
const (
	maxGraphNodes     = 1000
	maxGraphEdges     = 5000
	defaultGraphNodes = linkgraph.DefaultMaxNodes
	defaultGraphEdges = linkgraph.DefaultMaxEdges
	maxGraphPaths     = 100
)

// graphOutput is the structured content of the graph tool:
// linkgraph.Response (the obsidian-mcp-plugin's shapes plus typed-edge
// fields) with edge properties as objects.
type graphOutput struct {
	Operation  string           `json:"operation"`
	Snapshot   string           `json:"snapshot"`
	SourcePath string           `json:"sourcePath,omitempty"`
	TargetPath string           `json:"targetPath,omitempty"`
	Nodes      []linkgraph.Node `json:"nodes,omitempty"`
	Edges      []graphEdge      `json:"edges,omitempty"`
	// Found says, for path, whether the notes are connected; Paths are
	// lists of note paths, shortest first, and PathEdges the edges of each
	// hop of each path.
	Found           *bool                      `json:"found,omitempty"`
	Paths           [][]string                 `json:"paths,omitempty"`
	PathEdges       [][]graphEdge              `json:"pathEdges,omitempty"`
	Statistics      *linkgraph.NoteStatistics  `json:"statistics,omitempty"`
	VaultStatistics *linkgraph.VaultStatistics `json:"vaultStatistics,omitempty"`
	GraphStats      linkgraph.GraphStats       `json:"graphStats"`
	// Truncated is set when more qualified than a bound let through;
	// Stopped names the bound (maxNodes, maxEdges, maxPaths, limit,
	// timeout, bytes).
	Truncated bool   `json:"truncated"`
	Stopped   string `json:"stopped,omitempty"`
	Message   string `json:"message"`
	Notice    string `json:"notice"`
}

// graphEdge is linkgraph.Edge with its properties as a JSON object.
type graphEdge struct {
	Source     string         `json:"source"`
	Target     string         `json:"target"`
	Type       string         `json:"type"`
	Count      int            `json:"count"`
	ID         string         `json:"id,omitempty"`
	Sign       int            `json:"sign"`
	Properties map[string]any `json:"properties,omitempty"`
	Sentence   string         `json:"sentence,omitempty"`
	Unresolved bool           `json:"unresolved,omitempty"`
	Tags       []string       `json:"tags,omitempty"`
}

// graphOutputSchema is the graph tool's output schema: the top-level
// fields only, so that tools/list stays short; the shapes of nodes and
// edges are in the description.
const graphOutputSchema = `{"type":"object","required":["operation","snapshot","graphStats","truncated","message"],"properties":{` +
	`"operation":{"type":"string"},"snapshot":{"type":"string"},"nodes":{"type":"array"},"edges":{"type":"array"},` +
	`"paths":{"type":"array"},"pathEdges":{"type":"array"},"found":{"type":"boolean"},"statistics":{"type":"object"},` +
	`"vaultStatistics":{"type":"object"},"graphStats":{"type":"object"},"truncated":{"type":"boolean"},` +
	`"stopped":{"type":"string"},"message":{"type":"string"},"notice":{"type":"string"}}}`

func graphNeeds(snap *store.Snapshot) error {
	if snap.Links == nil {
		return fmt.Errorf("the snapshot's link graph is not loaded")
	}
	return nil
}

// graphTool is the obsidian-mcp-plugin's graph tool: one tool, the
// action says what to do.
func (s *Server) graphTool() *tool {
	note := func(what string) string {
		return what + ": path, title or alias."
	}
	opts := []mcp.ToolOption{
		mcp.WithDescription(`Walk links (plain links, embeds, typed edges) from a note you know, as the obsidian-mcp-plugin's graph tool does. action: neighbors (start here), traverse (up to maxDepth hops), path (sourcePath to targetPath), statistics (a note's, or without sourcePath the vault's hubs, orphans and missing notes), backlinks, forwardlinks. Nodes {path, title, type, tags, links, depth}; edges {source, target, type (link, embed, tag or the typed name), count, sign, properties, sentence of a typed edge, id unless source#type#target#0}, each once, on the page of the later of its notes (next.cursor). For questions in words use graphrag_retrieve.`),
		readOnly("Link graph"),
		mcp.WithString("action", mcp.Required(), mcp.Enum(linkgraph.Actions...), mcp.Description("What to do.")),
		mcp.WithString("sourcePath", mcp.MaxLength(4096), mcp.Description(note("The starting note"))),
		mcp.WithString("targetPath", mcp.MaxLength(4096), mcp.Description("path: the note to reach.")),
		mcp.WithInteger("maxDepth", mcp.Min(1), mcp.Max(linkgraph.MaxDepthLimit),
			mcp.Description("Hops (traverse, default 3); path: longest path.")),
		mcp.WithInteger("maxNodes", mcp.Min(1), mcp.Max(maxGraphNodes), mcp.DefaultNumber(defaultGraphNodes),
			mcp.Description("Most notes.")),
		mcp.WithInteger("maxEdges", mcp.Min(1), mcp.Max(maxGraphEdges), mcp.DefaultNumber(defaultGraphEdges), mcp.Description("Most edges to return.")),
		mcp.WithBoolean("followBacklinks", mcp.DefaultBool(true), mcp.Description("Follow links in.")),
		mcp.WithBoolean("followForwardLinks", mcp.DefaultBool(true), mcp.Description("Follow links out.")),
		mcp.WithBoolean("followTags", mcp.DefaultBool(false), mcp.Description("Connect notes sharing a tag.")),
		mcp.WithBoolean("includeUnresolved", mcp.Description("Missing notes (stubs): walks visit them only when true; lists show them unless false.")),
		mcp.WithString("fileFilter", mcp.MaxLength(1000), mcp.Description("Path regexp (RE2) notes must match.")),
		mcp.WithString("folderFilter", mcp.MaxLength(1000), mcp.Description("Folder notes must be in.")),
		mcp.WithArray("tagFilter", mcp.WithStringItems(mcp.MinLength(1)), mcp.MaxItems(100), mcp.Description("Tags notes must have one of.")),
		mcp.WithArray("edgeTypes", mcp.WithStringItems(mcp.MinLength(1)), mcp.MaxItems(100),
			mcp.Description("Edge types to follow: typed names (works_at), link, embed.")),
		mcp.WithBoolean("all", mcp.DefaultBool(false), mcp.Description("path: every path up to maxDepth, not one shortest.")),
		mcp.WithInteger("maxPaths", mcp.Min(1), mcp.Max(maxGraphPaths), mcp.DefaultNumber(linkgraph.DefaultMaxPaths), mcp.Description("path with all: most paths.")),
		mcp.WithInteger("timeoutMs", mcp.Min(1), mcp.Max(int(linkgraph.MaxTimeoutLimit.Milliseconds())),
			mcp.DefaultNumber(int(linkgraph.DefaultTimeout.Milliseconds())), mcp.Description("path with all: time limit.")),
		mcp.WithBoolean("raw", mcp.DefaultBool(false), mcp.Description("Ignored: the text is always JSON.")),
		mcp.WithString("operation", mcp.Enum("graph"), mcp.Description("Ignored.")),
		mcp.WithRawOutputSchema(json.RawMessage(graphOutputSchema)),
	}
	return &tool{def: mcp.NewTool(toolGraph, opts...), needs: graphNeeds, run: s.runGraph, paged: true}
}

func (s *Server) runGraph(ctx context.Context, snap *store.Snapshot, req mcp.CallToolRequest) (*answer, error) {
	var a serve.GraphRequest
	if err := bind(req, &a); err != nil {
		return nil, err
	}
	r := a.Request
	if r.MaxNodes == 0 {
		r.MaxNodes = defaultGraphNodes
	}
	if r.MaxEdges == 0 {
		r.MaxEdges = defaultGraphEdges
	}
	res, err := snap.Links.Do(ctx, r)
	if err != nil {
		return nil, err
	}
	out := graphOutputOf(snap.ID, res)
	shrink := func(frac float64) bool {
		cut := cutList(&out.Edges, frac, 0)
		cut = cutList(&out.Nodes, frac, 1) || cut
		cut = cutList(&out.Paths, frac, 1) || cut
		cut = cutList(&out.PathEdges, frac, 0) || cut
		if vs := out.VaultStatistics; vs != nil {
			cut = cutList(&vs.MostLinked, frac, 1) || cut
			cut = cutList(&vs.Orphans, frac, 0) || cut
			cut = cutList(&vs.Unresolved, frac, 0) || cut
		}
		if cut {
			out.Truncated, out.Stopped = true, "bytes"
			out.Message += fmt.Sprintf(" (cut to %d nodes and %d edges to fit %d KiB; lower maxNodes or filter)",
				len(out.Nodes), len(out.Edges), s.opts.MaxResultBytes>>10)
		}
		return cut
	}
	return &answer{out: out, page: graphPage(out), shrink: shrink}, nil
}

// graphPage pages a graph answer: paths, or nodes with their edges. Each
// edge is on one page, the one of the later of its two notes in the list
// (the source note, and a note not listed, count as before the first), so
// that its two ends are known by then and no edge is sent twice.
func graphPage(out *graphOutput) *page {
	switch {
	case len(out.Paths) > 0:
		paths, hops := out.Paths, out.PathEdges
		return &page{n: len(paths), noun: "paths", show: func(from, to int) {
			out.Paths = paths[from:to]
			if len(hops) == len(paths) {
				out.PathEdges = hops[from:to]
			}
		}}
	case len(out.Nodes) > 0:
		nodes, edges := out.Nodes, out.Edges
		place := make(map[string]int, len(nodes))
		for i, n := range nodes {
			if n.Path != out.SourcePath {
				place[n.Path] = i + 1 // 0: the source note, or not listed
			}
		}
		return &page{n: len(nodes), noun: "nodes", show: func(from, to int) {
			out.Nodes = nodes[from:to]
			out.Edges = nil
			for _, e := range edges {
				if at := max(place[e.Source], place[e.Target]) - 1; at >= from && at < to {
					out.Edges = append(out.Edges, e)
				}
			}
		}}
	}
	return nil
}

func graphOutputOf(snapshot string, r *linkgraph.Response) *graphOutput {
	out := &graphOutput{Operation: r.Operation, Snapshot: snapshot, SourcePath: r.SourcePath, TargetPath: r.TargetPath,
		Nodes: r.Nodes, Found: r.Found, Paths: r.Paths, Statistics: r.Statistics, VaultStatistics: r.VaultStatistics,
		GraphStats: r.GraphStats, Truncated: r.Truncated, Stopped: r.Stopped, Message: r.Message, Notice: serve.VaultTextNotice}
	for _, e := range r.Edges {
		out.Edges = append(out.Edges, graphEdgeOf(e))
	}
	for _, hop := range r.PathEdges {
		edges := make([]graphEdge, 0, len(hop))
		for _, e := range hop {
			edges = append(edges, graphEdgeOf(e))
		}
		out.PathEdges = append(out.PathEdges, edges)
	}
	return out
}

// graphEdgeOf is e as the graph tool sends it: without what the agent
// reads from its other fields already, which was most of an edge's bytes.
// An id of the usual form, source#type#target#0, is left out (ids of
// other forms are kept), and so is the sentence of a plain link or embed
// ("A links to B", its ends' titles).
func graphEdgeOf(e linkgraph.Edge) graphEdge {
	g := graphEdge{Source: e.Source, Target: e.Target, Type: e.Type, Count: e.Count, Sign: e.Sign,
		Unresolved: e.Unresolved, Tags: e.Tags}
	if !usualEdgeID(e) {
		g.ID = e.ID
	}
	if e.Type != linkgraph.EdgeTypeLink && e.Type != linkgraph.EdgeTypeEmbed {
		g.Sentence = e.Sentence
	}
	if len(e.Properties) > 0 {
		g.Properties = e.Properties.Map()
	}
	return g
}

// usualEdgeID reports whether e's id is source#name#target#0, the id of
// the first edge of its type between its two notes.
func usualEdgeID(e linkgraph.Edge) bool {
	mid, ok := strings.CutPrefix(e.ID, e.Source+"#")
	if !ok {
		return false
	}
	mid, ok = strings.CutSuffix(mid, "#"+e.Target+"#0")
	return ok && mid != "" && !strings.Contains(mid, "#")
}

// propertyMap decodes edge properties, never nil.
func propertyMap(p linkgraph.Properties) map[string]any { return p.Map() }
