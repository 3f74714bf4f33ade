package linkgraph

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/vaultgraph/vaultgraph/format"
	"github.com/vaultgraph/vaultgraph/snapshot"
)

// NoteInfo is what the graph keeps of a note or stub. Values returned by
// Graph methods point into the graph and must not be modified.
type NoteInfo struct {
	// ID is the note's vault path, or a stub's link text.
	ID string
	// Path is the vault path, "" for a stub.
	Path    string
	Title   string
	Folder  string
	Labels  []string
	Tags    []string
	Aliases []string
	Stub    bool
}

// Name is the path of a note and the id (link text) of a stub: what
// responses call a node's path.
func (n *NoteInfo) Name() string {
	if n.Path != "" {
		return n.Path
	}
	return n.ID
}

// EdgeInfo is one edge of the graph. Values returned by Graph methods point
// into the graph and must not be modified.
type EdgeInfo struct {
	ID string
	// Source and Target are note indexes (see Graph.Note).
	Source, Target int32
	Type           string
	Sign           int32
	Count          int32
	Properties     []format.Property
	Sentence       string
	Unresolved     bool
}

// Typed reports whether the edge is a typed edge (an inline field or a
// frontmatter link) rather than a plain link or an embed.
func (e *EdgeInfo) Typed() bool {
	return e.Type != format.TypeLinksTo && e.Type != format.TypeEmbeds
}

// Graph is the link graph of one snapshot. It is immutable after New or
// Load and safe for concurrent use.
type Graph struct {
	snapshot string
	notes    []NoteInfo
	byID     map[string]int32
	// names maps a folded name (path, path without .md, title, alias, file
	// name) to the notes it names; words maps a name's words joined by one
	// space to the notes, for finding names mentioned in text.
	names map[string][]int32
	words map[string][]int32
	// maxNameWords is the most words any name in words has.
	maxNameWords int
	edges        []EdgeInfo
	// out and in hold each note's edge indexes sorted by the other end,
	// then typed edges before links, then table order.
	out, in csr
	// forward and backward count distinct notes linked to and from (stubs
	// excluded from forward), unresolved the distinct stubs linked to.
	forward, backward, unresolved []int32
	tags                          map[string][]int32 // folded tag -> notes
	typedTypes                    []string
	skipped                       int
}

// csr is a compressed adjacency list: the items of row i are
// items[start[i]:start[i+1]].
type csr struct {
	start []int32
	items []int32
}

func (c *csr) of(i int32) []int32 { return c.items[c.start[i]:c.start[i+1]] }

// New builds the graph of a snapshot from its notes and edges tables. It
// copies what it keeps, so the rows may be released afterwards; notes'
// Content is never read. Edges whose ends are not rows of notes (which the
// indexer never writes) are left out and counted in Skipped.
func New(snapshotID string, notes []format.Note, edges []format.Edge) (*Graph, error) {
	g := &Graph{
		snapshot: snapshotID,
		notes:    make([]NoteInfo, len(notes)),
		byID:     make(map[string]int32, len(notes)),
		names:    make(map[string][]int32, 3*len(notes)),
		words:    make(map[string][]int32, 2*len(notes)),
		tags:     map[string][]int32{},
	}
	for i, n := range notes {
		if _, dup := g.byID[n.ID]; dup {
			return nil, fmt.Errorf("notes table: note id %q appears twice", n.ID)
		}
		g.byID[n.ID] = int32(i)
		g.notes[i] = NoteInfo{ID: n.ID, Path: n.Path, Title: n.Title, Folder: n.Folder,
			Labels: n.Labels, Tags: n.Tags, Aliases: n.Aliases, Stub: n.Stub}
	}
	g.edges = make([]EdgeInfo, 0, len(edges))
	for _, e := range edges {
		src, ok1 := g.byID[e.Source]
		dst, ok2 := g.byID[e.Target]
		if !ok1 || !ok2 {
			g.skipped++
			continue
		}
		g.edges = append(g.edges, EdgeInfo{ID: e.ID, Source: src, Target: dst, Type: e.Type, Sign: e.Sign,
			Count: e.Count, Properties: e.Properties, Sentence: e.Sentence, Unresolved: e.Unresolved})
	}
	g.indexEdges()
	g.typedTypes = typedTypes(g.edges)
	g.indexNames()
	g.indexTags()
	return g, nil
}

// noteRow and edgeRow are the columns Load reads: everything but content.
type noteRow struct {
	ID      string   `parquet:"id"`
	Path    string   `parquet:"path,optional"`
	Title   string   `parquet:"title"`
	Folder  string   `parquet:"folder"`
	Labels  []string `parquet:"labels,list"`
	Tags    []string `parquet:"tags,list"`
	Aliases []string `parquet:"aliases,list"`
	Stub    bool     `parquet:"stub"`
}

type edgeRow struct {
	ID         string            `parquet:"id"`
	Source     string            `parquet:"source"`
	Target     string            `parquet:"target"`
	Type       string            `parquet:"type"`
	Sign       int32             `parquet:"sign"`
	Properties []format.Property `parquet:"properties,list"`
	Count      int32             `parquet:"count"`
	Unresolved bool              `parquet:"unresolved"`
	Sentence   string            `parquet:"sentence"`
}

// Load reads the notes and edges tables of s (not the notes' content) and
// builds its graph.
func Load(s *snapshot.Snapshot) (*Graph, error) {
	nrows, err := snapshot.ReadSegments[noteRow](s, format.NotesTable)
	if err != nil {
		return nil, err
	}
	erows, err := snapshot.ReadSegments[edgeRow](s, format.EdgesTable)
	if err != nil {
		return nil, err
	}
	notes := make([]format.Note, len(nrows))
	for i, r := range nrows {
		notes[i] = format.Note{ID: r.ID, Path: r.Path, Title: r.Title, Folder: r.Folder,
			Labels: r.Labels, Tags: r.Tags, Aliases: r.Aliases, Stub: r.Stub}
	}
	edges := make([]format.Edge, len(erows))
	for i, r := range erows {
		edges[i] = format.Edge{ID: r.ID, Source: r.Source, Target: r.Target, Type: r.Type, Sign: r.Sign,
			Properties: r.Properties, Count: r.Count, Unresolved: r.Unresolved, Sentence: r.Sentence}
	}
	g, err := New(s.ID, notes, edges)
	if err != nil {
		return nil, fmt.Errorf("snapshot %s: %w", s.ID, err)
	}
	return g, nil
}

// indexEdges builds both adjacency lists and the degree counts.
func (g *Graph) indexEdges() {
	n := len(g.notes)
	g.out = buildCSR(n, g.edges, func(e *EdgeInfo) int32 { return e.Source }, func(e *EdgeInfo) int32 { return e.Target })
	g.in = buildCSR(n, g.edges, func(e *EdgeInfo) int32 { return e.Target }, func(e *EdgeInfo) int32 { return e.Source })
	g.forward = make([]int32, n)
	g.backward = make([]int32, n)
	g.unresolved = make([]int32, n)
	for u := range int32(n) {
		for _, v := range g.distinct(g.out.of(u), func(e *EdgeInfo) int32 { return e.Target }) {
			if g.notes[v].Stub {
				g.unresolved[u]++
			} else {
				g.forward[u]++
			}
		}
		g.backward[u] = int32(len(g.distinct(g.in.of(u), func(e *EdgeInfo) int32 { return e.Source })))
	}
}

// buildCSR groups edge indexes by key, each row sorted by the other end,
// typed edges before plain links, then table order.
func buildCSR(n int, edges []EdgeInfo, key, other func(*EdgeInfo) int32) csr {
	c := csr{start: make([]int32, n+1), items: make([]int32, len(edges))}
	for i := range edges {
		c.start[key(&edges[i])+1]++
	}
	for i := 1; i <= n; i++ {
		c.start[i] += c.start[i-1]
	}
	fill := slices.Clone(c.start[:n])
	for i := range edges {
		k := key(&edges[i])
		c.items[fill[k]] = int32(i)
		fill[k]++
	}
	for i := range int32(n) {
		row := c.of(i)
		slices.SortFunc(row, func(a, b int32) int {
			ea, eb := &edges[a], &edges[b]
			if d := cmp.Compare(other(ea), other(eb)); d != 0 {
				return d
			}
			if ea.Typed() != eb.Typed() {
				if ea.Typed() {
					return -1
				}
				return 1
			}
			return cmp.Compare(a, b)
		})
	}
	return c
}

func typedTypes(edges []EdgeInfo) []string {
	seen := map[string]bool{}
	var out []string
	for i := range edges {
		if t := edges[i].Type; edges[i].Typed() && !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	slices.Sort(out)
	return out
}

// distinct returns the distinct other ends of a sorted adjacency row.
func (g *Graph) distinct(row []int32, other func(*EdgeInfo) int32) []int32 {
	var out []int32
	for _, e := range row {
		v := other(&g.edges[e])
		if len(out) == 0 || out[len(out)-1] != v {
			out = append(out, v)
		}
	}
	return out
}

func (g *Graph) indexTags() {
	for i, n := range g.notes {
		for _, t := range n.Tags {
			k := strings.ToLower(t)
			g.tags[k] = append(g.tags[k], int32(i))
		}
	}
}

// Snapshot returns the id of the snapshot the graph was built from.
func (g *Graph) Snapshot() string { return g.snapshot }

// Len returns the number of notes and stubs.
func (g *Graph) Len() int { return len(g.notes) }

// EdgeCount returns the number of edges.
func (g *Graph) EdgeCount() int { return len(g.edges) }

// Skipped returns the number of edges left out because an end is not a
// note of the snapshot.
func (g *Graph) Skipped() int { return g.skipped }

// Note returns the note or stub with index i (0 <= i < Len()).
func (g *Graph) Note(i int32) *NoteInfo { return &g.notes[i] }

// Find returns the index of the note or stub with the given id.
func (g *Graph) Find(id string) (int32, bool) {
	i, ok := g.byID[id]
	return i, ok
}

// Edge returns the edge with index e.
func (g *Graph) Edge(e int32) *EdgeInfo { return &g.edges[e] }

// Out returns the indexes of the edges leaving note i, sorted by target.
// The slice belongs to the graph.
func (g *Graph) Out(i int32) []int32 { return g.out.of(i) }

// In returns the indexes of the edges arriving at note i, sorted by source.
// The slice belongs to the graph.
func (g *Graph) In(i int32) []int32 { return g.in.of(i) }

// TypedEdgeTypes returns the types of the typed edges in the graph,
// sorted. The slice belongs to the graph.
func (g *Graph) TypedEdgeTypes() []string { return g.typedTypes }

// Links returns the distinct notes note i links to (forward, stubs
// excluded) and is linked from (backward).
func (g *Graph) Links(i int32) LinkCounts {
	f, b := int(g.forward[i]), int(g.backward[i])
	return LinkCounts{Forward: f, Backward: b, Total: f + b}
}
