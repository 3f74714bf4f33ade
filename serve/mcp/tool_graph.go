package mcp

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/vaultgraph/vaultgraph/serve"
	"github.com/vaultgraph/vaultgraph/serve/store"
	"github.com/vaultgraph/vaultgraph/snapshot/linkgraph"
)

// Bounds of the graph tools, lower than the library's: an agent reads
// every node and edge of the answer.
const (
	maxGraphNodes    = 1000
	maxGraphEdges    = 5000
	defaultListNodes = 100
	maxGraphPaths    = 100
	maxStatsTop      = 500
)

// graphArgs are the arguments of every graph tool, in the
// obsidian-mcp-plugin graph tool's names; each tool's schema admits the
// ones it uses.
type graphArgs struct {
	SourcePath         string   `json:"sourcePath"`
	TargetPath         string   `json:"targetPath"`
	MaxDepth           int      `json:"maxDepth"`
	MaxNodes           int      `json:"maxNodes"`
	MaxEdges           int      `json:"maxEdges"`
	MaxPaths           int      `json:"maxPaths"`
	FollowBacklinks    *bool    `json:"followBacklinks"`
	FollowForwardLinks *bool    `json:"followForwardLinks"`
	FollowTags         bool     `json:"followTags"`
	IncludeUnresolved  bool     `json:"includeUnresolved"`
	FileFilter         string   `json:"fileFilter"`
	FolderFilter       string   `json:"folderFilter"`
	EdgeTypes          []string `json:"edgeTypes"`
	All                bool     `json:"all"`
	TimeoutMS          int      `json:"timeoutMs"`
}

// graphOutput is the structured content of the graph tools:
// linkgraph.Response (the obsidian-mcp-plugin's shapes plus typed-edge
// fields) with edge properties as objects.
type graphOutput struct {
	Operation  string           `json:"operation"`
	Snapshot   string           `json:"snapshot"`
	SourcePath string           `json:"sourcePath,omitempty"`
	TargetPath string           `json:"targetPath,omitempty"`
	Nodes      []linkgraph.Node `json:"nodes,omitempty"`
	Edges      []graphEdge      `json:"edges,omitempty"`
	// Found says, for graph_path, whether the notes are connected; Paths
	// are lists of note paths, shortest first, and PathEdges the edges of
	// each hop of each path.
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

func graphNeeds(snap *store.Snapshot) error {
	if snap.Links == nil {
		return fmt.Errorf("the snapshot's link graph is not loaded")
	}
	return nil
}

// graphTool defines one graph tool over action.
func (s *Server) graphTool(name, action, title, description string, opts ...mcp.ToolOption) *tool {
	opts = append([]mcp.ToolOption{mcp.WithDescription(description), readOnly(title)}, opts...)
	opts = append(opts, mcp.WithOutputSchema[graphOutput]())
	return &tool{def: mcp.NewTool(name, opts...), needs: graphNeeds,
		run: func(ctx context.Context, snap *store.Snapshot, req mcp.CallToolRequest) (*answer, error) {
			return s.runGraph(ctx, snap, req, action)
		}}
}

const graphShapes = ` Answers in the obsidian-mcp-plugin graph tool's shapes: nodes (path, title, tags, labels, links {forward, backward, total}, depth), edges (source, target, type, count, and for typed edges sign, properties, sentence).`

func (s *Server) traverseTool() *tool {
	opts := []mcp.ToolOption{sourcePathArg(),
		mcp.WithInteger("maxDepth", mcp.Min(1), mcp.Max(linkgraph.MaxDepthLimit), mcp.DefaultNumber(linkgraph.DefaultMaxDepth), mcp.Description("Hops to walk.")),
		mcp.WithInteger("maxNodes", mcp.Min(1), mcp.Max(maxGraphNodes), mcp.DefaultNumber(linkgraph.DefaultMaxNodes), mcp.Description("Most notes to visit.")),
		mcp.WithInteger("maxEdges", mcp.Min(1), mcp.Max(maxGraphEdges), mcp.DefaultNumber(linkgraph.DefaultMaxEdges), mcp.Description("Most edges to return.")),
		tagsArg(), unresolvedArg(), edgeTypesArg()}
	opts = append(opts, directionArgs()...)
	opts = append(opts, filterArgs()...)
	return s.graphTool(toolTraverse, linkgraph.ActionTraverse, "Traverse the link graph",
		`Walk the vault's link graph breadth-first from a note, as Obsidian's local graph view does: the notes within maxDepth hops (plain links, embeds and typed edges, both directions by default) and the edges among them, with each note's depth.
Use it to explore a note's neighbourhood several hops out, optionally along some edge types only (edgeTypes ["depends_on"]) or within a folder. For direct links only use graph_neighbors; for how two notes connect use graph_path; to answer a question in words use graphrag_retrieve.`+graphShapes, opts...)
}

func (s *Server) neighborsTool() *tool {
	opts := []mcp.ToolOption{sourcePathArg(), tagsArg(), edgeTypesArg(), listNodesArg()}
	opts = append(opts, directionArgs()...)
	opts = append(opts, filterArgs()...)
	return s.graphTool(toolNeighbors, linkgraph.ActionNeighbors, "Direct neighbours",
		`List a note's direct links in both directions with their types: the notes it links to and that link to it, typed neighbours first, links to missing notes as stubs.
Use it to see what a note is connected to and how (works_at, depends_on, links_to ...). For one direction only use graph_backlinks or graph_forwardlinks; for several hops graph_traverse; for the note's text read_note.`+graphShapes, opts...)
}

func (s *Server) pathTool() *tool {
	opts := []mcp.ToolOption{sourcePathArg(),
		mcp.WithString("targetPath", mcp.Required(), mcp.MinLength(1), mcp.MaxLength(4096), mcp.Description(noteName)),
		mcp.WithBoolean("all", mcp.DefaultBool(false), mcp.Description("Every simple path up to maxDepth hops, shortest first, instead of one shortest path.")),
		mcp.WithInteger("maxDepth", mcp.Min(1), mcp.Max(linkgraph.MaxDepthLimit),
			mcp.Description("Longest path in hops (default: unlimited for the shortest path, 3 with all).")),
		mcp.WithInteger("maxPaths", mcp.Min(1), mcp.Max(maxGraphPaths), mcp.DefaultNumber(linkgraph.DefaultMaxPaths), mcp.Description("Most paths with all.")),
		mcp.WithInteger("timeoutMs", mcp.Min(1), mcp.Max(int(linkgraph.MaxTimeoutLimit.Milliseconds())),
			mcp.DefaultNumber(int(linkgraph.DefaultTimeout.Milliseconds())), mcp.Description("Time bound of the search with all, in milliseconds.")),
		unresolvedArg(), edgeTypesArg()}
	opts = append(opts, directionArgs()...)
	opts = append(opts, filterArgs()...)
	return s.graphTool(toolPath, linkgraph.ActionPath, "Paths between notes",
		`Find how two notes are connected: the shortest path of links between them (both directions by default, as in Obsidian's graph view), or with all every simple path up to maxDepth hops. Paths are lists of note paths; pathEdges gives the edges of each hop with their types and properties.
Use it for "how is X related to Y". Restrict edgeTypes to follow only meaningful typed links (e.g. ["leads", "depends_on"]). Says when it stopped early.`+graphShapes, opts...)
}

func (s *Server) statisticsTool() *tool {
	return s.graphTool(toolStatistics, linkgraph.ActionStatistics, "Link statistics",
		`Link statistics. With sourcePath: one note's in-degree, out-degree, total, unresolved links, tags, labels and per-type edge counts. Without it: the whole vault's counts, most linked notes, orphans (no links at all) and unresolved link targets (missing notes).
Use it to find hubs, orphans and missing notes, or to size a note's connections before listing them. For the snapshot's counts and schema use vault_status.`,
		mcp.WithString("sourcePath", mcp.MaxLength(4096), mcp.Description(noteName+" Leave it out for vault-wide statistics.")),
		mcp.WithInteger("maxNodes", mcp.Min(1), mcp.Max(maxStatsTop), mcp.DefaultNumber(linkgraph.DefaultTopN),
			mcp.Description("Length of the vault-wide lists (most linked, orphans, unresolved).")))
}

func (s *Server) backlinksTool() *tool {
	opts := append([]mcp.ToolOption{sourcePathArg(), edgeTypesArg(), listNodesArg()}, filterArgs()...)
	return s.graphTool(toolBacklinks, linkgraph.ActionBacklinks, "Backlinks",
		`List the notes that link to a note, and the edges from each (plain links with their count, typed edges with type, sign, properties and sentence), as Obsidian's backlinks pane.
Use it for "who/what refers to X", e.g. edgeTypes ["contributes"] for a project's contributors. For outgoing links use graph_forwardlinks; for both graph_neighbors.`+graphShapes, opts...)
}

func (s *Server) forwardlinksTool() *tool {
	opts := append([]mcp.ToolOption{sourcePathArg(), edgeTypesArg(), listNodesArg()}, filterArgs()...)
	return s.graphTool(toolForwardlinks, linkgraph.ActionForwardlinks, "Forward links",
		`List the notes (and missing notes, as stubs) a note links to, and the edges to each.
Use it for "what does X refer to / depend on", e.g. edgeTypes ["depends_on"]. For incoming links use graph_backlinks; for both graph_neighbors.`+graphShapes, opts...)
}

func listNodesArg() mcp.ToolOption {
	return mcp.WithInteger("maxNodes", mcp.Min(1), mcp.Max(maxGraphNodes), mcp.DefaultNumber(defaultListNodes),
		mcp.Description("Most notes to list; the rest are counted in graphStats and the result marked truncated."))
}

func (s *Server) runGraph(ctx context.Context, snap *store.Snapshot, req mcp.CallToolRequest, action string) (*answer, error) {
	var a graphArgs
	if err := bind(req, &a); err != nil {
		return nil, err
	}
	r := linkgraph.Request{Action: action, SourcePath: a.SourcePath, TargetPath: a.TargetPath, MaxDepth: a.MaxDepth,
		MaxNodes: a.MaxNodes, MaxEdges: a.MaxEdges, MaxPaths: a.MaxPaths, FollowBacklinks: a.FollowBacklinks,
		FollowForwardLinks: a.FollowForwardLinks, FollowTags: a.FollowTags, IncludeUnresolved: a.IncludeUnresolved,
		FileFilter: a.FileFilter, FolderFilter: a.FolderFilter, EdgeTypes: a.EdgeTypes, All: a.All, TimeoutMS: a.TimeoutMS}
	switch action {
	case linkgraph.ActionNeighbors, linkgraph.ActionBacklinks, linkgraph.ActionForwardlinks:
		if r.MaxNodes == 0 {
			r.MaxNodes = defaultListNodes
		}
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
	return &answer{out: out, shrink: shrink, text: func() string { return graphText(out) }}, nil
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
