package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
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
	defaultGraphEdges = 200
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
		return what + ": a vault path (People/Alice.md, .md optional), title or alias; an ambiguous name is an error listing the candidates."
	}
	opts := []mcp.ToolOption{
		mcp.WithDescription(`Walk the vault's link graph (plain links, embeds and typed edges) from a note you know, as the obsidian-mcp-plugin's graph tool does, with the same parameters and answer shapes. Actions: neighbors (a note's direct links both ways; start here), traverse (breadth-first up to maxDepth hops), path (how two notes connect: sourcePath to targetPath), statistics (a note's link counts; without sourcePath the whole vault's hubs, orphans and missing notes), backlinks (notes linking to it), forwardlinks (notes it links to).
Answers: nodes {path, title, type file|stub, tags, labels, links {forward, backward, total}, depth}; edges {source, target, type (link, embed, tag or the typed edge's name), count, and for typed edges sign, properties, sentence}; paths (lists of note paths) with pathEdges; graphStats; message; truncated when a bound cut it. edgeTypes keeps only some edge types (["depends_on"], ["link"]). For a question in words use graphrag_retrieve; for exact filters cypher_query; for a note's text read_note.`),
		readOnly("Link graph"),
		mcp.WithString("action", mcp.Required(), mcp.Enum(linkgraph.Actions...), mcp.Description("What to do.")),
		mcp.WithString("sourcePath", mcp.MaxLength(4096), mcp.Description(note("The starting note (every action but vault-wide statistics)"))),
		mcp.WithString("targetPath", mcp.MaxLength(4096), mcp.Description(note("The note path leads to"))),
		mcp.WithInteger("maxDepth", mcp.Min(1), mcp.Max(linkgraph.MaxDepthLimit),
			mcp.Description("Hops to walk (traverse, default 3); for path the longest path (default: any length; with all, 3).")),
		mcp.WithInteger("maxNodes", mcp.Min(1), mcp.Max(maxGraphNodes), mcp.DefaultNumber(defaultGraphNodes),
			mcp.Description("Most notes to return; the rest are counted in graphStats and the answer marked truncated.")),
		mcp.WithInteger("maxEdges", mcp.Min(1), mcp.Max(maxGraphEdges), mcp.DefaultNumber(defaultGraphEdges), mcp.Description("Most edges to return.")),
		mcp.WithBoolean("followBacklinks", mcp.DefaultBool(true), mcp.Description("Follow links that point to a note.")),
		mcp.WithBoolean("followForwardLinks", mcp.DefaultBool(true), mcp.Description("Follow links a note makes.")),
		mcp.WithBoolean("followTags", mcp.DefaultBool(false), mcp.Description("Also connect notes that share a tag (edges of type tag).")),
		mcp.WithBoolean("includeUnresolved", mcp.DefaultBool(false), mcp.Description("Also step onto links to missing notes (type stub).")),
		mcp.WithString("fileFilter", mcp.MaxLength(1000), mcp.Description("Keep only notes whose path matches this regular expression (RE2, ^Projects/).")),
		mcp.WithString("folderFilter", mcp.MaxLength(1000), mcp.Description("Keep only notes in this folder or below (People).")),
		mcp.WithArray("tagFilter", mcp.WithStringItems(mcp.MinLength(1)), mcp.MaxItems(100), mcp.Description("Keep only notes with one of these tags (#project or project; nested tags count).")),
		mcp.WithArray("edgeTypes", mcp.WithStringItems(mcp.MinLength(1)), mcp.MaxItems(100),
			mcp.Description("Follow only these edge types: a typed edge's name as written (works_at), link for plain links, embed for embeds. Case-insensitive.")),
		mcp.WithBoolean("all", mcp.DefaultBool(false), mcp.Description("path: every simple path up to maxDepth hops, shortest first, not one shortest path.")),
		mcp.WithInteger("maxPaths", mcp.Min(1), mcp.Max(maxGraphPaths), mcp.DefaultNumber(linkgraph.DefaultMaxPaths), mcp.Description("path with all: most paths.")),
		mcp.WithInteger("timeoutMs", mcp.Min(1), mcp.Max(int(linkgraph.MaxTimeoutLimit.Milliseconds())),
			mcp.DefaultNumber(int(linkgraph.DefaultTimeout.Milliseconds())), mcp.Description("path with all: time bound in milliseconds.")),
		mcp.WithBoolean("raw", mcp.DefaultBool(false), mcp.Description("Text content as the JSON of the answer instead of a compact listing.")),
		mcp.WithString("operation", mcp.Enum("graph"), mcp.Description("Accepted as the plugin's examples write it; ignored.")),
		mcp.WithRawOutputSchema(json.RawMessage(graphOutputSchema)),
	}
	return &tool{def: mcp.NewTool(toolGraph, opts...), needs: graphNeeds, run: s.runGraph}
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
		if cut {
			out.Truncated, out.Stopped = true, "bytes"
			out.Message += fmt.Sprintf(" (cut to %d nodes and %d edges to fit %d KiB; lower maxNodes or filter)",
				len(out.Nodes), len(out.Edges), s.opts.MaxResultBytes>>10)
		}
		return cut
	}
	text := func() string { return graphText(out) }
	if a.Raw {
		text = func() string {
			b, _ := marshal(out)
			return string(b)
		}
	}
	return &answer{out: out, shrink: shrink, text: text}, nil
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

func graphEdgeOf(e linkgraph.Edge) graphEdge {
	g := graphEdge{Source: e.Source, Target: e.Target, Type: e.Type, Count: e.Count, ID: e.ID, Sign: e.Sign,
		Sentence: e.Sentence, Unresolved: e.Unresolved, Tags: e.Tags}
	if len(e.Properties) > 0 {
		g.Properties = e.Properties.Map()
	}
	return g
}

// propertyMap decodes edge properties, never nil.
func propertyMap(p linkgraph.Properties) map[string]any { return p.Map() }

func graphText(out *graphOutput) string {
	var b strings.Builder
	b.WriteString(heading(out.Snapshot, true))
	b.WriteString(out.Message + "\n")
	switch {
	case out.Statistics != nil:
		noteStatsText(&b, out.Statistics)
	case out.VaultStatistics != nil:
		vaultStatsText(&b, out.VaultStatistics)
	case out.Operation == linkgraph.ActionPath:
		for i, p := range out.Paths {
			fmt.Fprintf(&b, "%d. %s: %s\n", i+1, plural(len(p)-1, "hop"), strings.Join(p, " → "))
			if i < len(out.PathEdges) {
				for _, e := range out.PathEdges[i] {
					b.WriteString("   " + edgeText(e) + "\n")
				}
			}
		}
	default:
		if len(out.Nodes) > 0 {
			b.WriteString("notes (depth, path, labels, tags, links out/in):\n")
		}
		for _, n := range out.Nodes {
			extra := ""
			if len(n.Labels) > 0 {
				extra += " :" + strings.Join(n.Labels, ":")
			}
			if len(n.Tags) > 0 {
				extra += " #" + strings.Join(n.Tags, " #")
			}
			if n.Type == "stub" {
				extra += " (missing note)"
			}
			fmt.Fprintf(&b, "  %d %s%s  %d/%d\n", n.Depth, n.Path, extra, n.Links.Forward, n.Links.Backward)
		}
		if len(out.Edges) > 0 {
			b.WriteString("edges:\n")
		}
		for _, e := range out.Edges {
			b.WriteString("  " + edgeText(e) + "\n")
		}
	}
	fmt.Fprintf(&b, "%d notes, %d edges in all", out.GraphStats.TotalNodes, out.GraphStats.TotalEdges)
	if out.Truncated {
		fmt.Fprintf(&b, "; truncated (%s)", out.Stopped)
	}
	b.WriteString("\n")
	return b.String()
}

// edgeText is "source -[type]-> target" with the count of plain links, or a
// typed edge's properties.
func edgeText(e graphEdge) string {
	s := fmt.Sprintf("%s -[%s]-> %s", e.Source, signed(e.Type, e.Sign), e.Target)
	if e.Count > 1 {
		s += fmt.Sprintf(" ×%d", e.Count)
	}
	if len(e.Properties) > 0 {
		p, _ := marshal(e.Properties)
		s += " " + string(p)
	}
	if len(e.Tags) > 0 {
		s += " (shared tags: " + strings.Join(e.Tags, ", ") + ")"
	}
	return s
}

func noteStatsText(b *strings.Builder, st *linkgraph.NoteStatistics) {
	fmt.Fprintf(b, "linked from %d notes, links to %d notes (%d edges in, %d out)\n", st.InDegree, st.OutDegree, st.InEdges, st.OutEdges)
	if st.UnresolvedCount > 0 {
		fmt.Fprintf(b, "links to %d missing notes: %s\n", st.UnresolvedCount, strings.Join(st.Unresolved, ", "))
	}
	if len(st.Tags) > 0 {
		fmt.Fprintf(b, "tags: %s\n", strings.Join(st.Tags, ", "))
	}
	types := make([]string, 0, len(st.ByType))
	for t, n := range st.ByType {
		types = append(types, fmt.Sprintf("%s %d in / %d out", t, n.In, n.Out))
	}
	sort.Strings(types)
	if len(types) > 0 {
		fmt.Fprintf(b, "by type: %s\n", strings.Join(types, "; "))
	}
	if st.IsOrphan {
		b.WriteString("an orphan: no links in or out\n")
	}
}

func vaultStatsText(b *strings.Builder, vs *linkgraph.VaultStatistics) {
	b.WriteString("most linked (backlinks, path):\n")
	for _, n := range vs.MostLinked {
		fmt.Fprintf(b, "  %d %s\n", n.Links.Backward, n.Path)
	}
	types := make([]string, 0, len(vs.EdgeTypes))
	for t, n := range vs.EdgeTypes {
		types = append(types, fmt.Sprintf("%s %d", t, n))
	}
	sort.Strings(types)
	fmt.Fprintf(b, "edge types: %s\n", strings.Join(types, ", "))
	fmt.Fprintf(b, "orphans (%d): %s\n", vs.OrphanCount, strings.Join(vs.Orphans, ", "))
	fmt.Fprintf(b, "missing notes (%d):\n", vs.UnresolvedCount)
	for _, u := range vs.Unresolved {
		fmt.Fprintf(b, "  %s (%d links from %d notes)\n", u.Target, u.Links, u.Sources)
	}
}
