package linkgraph

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
)

// NoteStatistics describe one note's links. Degrees count distinct notes
// over edges of every type (as Obsidian counts backlinks); InEdges,
// OutEdges and ByType count edges (plain links merged per pair of notes,
// typed edges one per occurrence).
type NoteStatistics struct {
	InDegree    int `json:"inDegree"`
	OutDegree   int `json:"outDegree"`
	TotalDegree int `json:"totalDegree"`
	// UnresolvedCount is the number of distinct missing notes linked to,
	// Unresolved their names.
	UnresolvedCount int                  `json:"unresolvedCount"`
	Unresolved      []string             `json:"unresolved,omitempty"`
	TagCount        int                  `json:"tagCount"`
	Tags            []string             `json:"tags"`
	Labels          []string             `json:"labels,omitempty"`
	InEdges         int                  `json:"inEdges"`
	OutEdges        int                  `json:"outEdges"`
	ByType          map[string]TypeCount `json:"byType"`
	IsOrphan        bool                 `json:"isOrphan"`
}

// TypeCount counts a note's edges of one type in each direction.
type TypeCount struct {
	In  int `json:"in"`
	Out int `json:"out"`
}

// VaultStatistics describe the whole vault's graph.
type VaultStatistics struct {
	Notes      int            `json:"notes"`
	Stubs      int            `json:"stubs"`
	Edges      int            `json:"edges"`
	TypedEdges int            `json:"typedEdges"`
	Tags       int            `json:"tags"`
	EdgeTypes  map[string]int `json:"edgeTypes"`
	// MostLinked are the notes linked from the most other notes.
	MostLinked []RankedNote `json:"mostLinked"`
	// Orphans are notes without any edge in or out.
	OrphanCount int      `json:"orphanCount"`
	Orphans     []string `json:"orphans"`
	// Unresolved are the missing notes links point to, most linked first.
	UnresolvedCount int                `json:"unresolvedCount"`
	Unresolved      []UnresolvedTarget `json:"unresolved"`
}

// RankedNote is a note and its link counts.
type RankedNote struct {
	Path  string     `json:"path"`
	Title string     `json:"title"`
	Links LinkCounts `json:"links"`
}

// UnresolvedTarget is a missing note: how many links point to it, from how
// many notes.
type UnresolvedTarget struct {
	Target  string `json:"target"`
	Links   int    `json:"links"`
	Sources int    `json:"sources"`
}

// DefaultTopN is the length of the vault statistics' lists unless maxNodes
// says otherwise.
const DefaultTopN = 20

// Statistics describes sourcePath's links or, without a sourcePath, the
// whole vault's.
func (g *Graph) Statistics(ctx context.Context, req Request) (*Response, error) {
	start := time.Now()
	q, err := newQuery(req)
	if err != nil {
		return nil, err
	}
	resp := &Response{Operation: ActionStatistics, Snapshot: g.snapshot}
	if strings.TrimSpace(req.SourcePath) == "" {
		top := DefaultTopN
		if q.nodesSet {
			top = q.maxNodes
		}
		vs, err := g.vaultStatistics(ctx, top)
		if err != nil {
			return nil, err
		}
		resp.VaultStatistics = vs
		resp.GraphStats = GraphStats{TotalNodes: vs.Notes + vs.Stubs, TotalEdges: vs.Edges}
		resp.Truncated = len(vs.Orphans) < vs.OrphanCount || len(vs.Unresolved) < vs.UnresolvedCount
		if resp.Truncated {
			resp.Stopped = "limit"
		}
		resp.Message = q.message(fmt.Sprintf("Vault statistics: %d notes, %d stubs, %d edges, %d orphans, %d unresolved targets",
			vs.Notes, vs.Stubs, vs.Edges, vs.OrphanCount, vs.UnresolvedCount))
		resp.GraphStats.TraversalTime = elapsedMS(start)
		return resp, nil
	}
	src, err := g.source(req, ActionStatistics)
	if err != nil {
		return nil, err
	}
	resp.SourcePath = g.notes[src].Name()
	st := g.noteStatistics(src)
	resp.Statistics = st
	resp.GraphStats = GraphStats{TotalNodes: st.TotalDegree + st.UnresolvedCount, TotalEdges: st.InEdges + st.OutEdges}
	resp.Message = q.message(fmt.Sprintf("Link statistics for %s", resp.SourcePath))
	resp.GraphStats.TraversalTime = elapsedMS(start)
	return resp, nil
}

func (g *Graph) noteStatistics(i int32) *NoteStatistics {
	n := &g.notes[i]
	lc := g.Links(i)
	st := &NoteStatistics{
		InDegree: lc.Backward, OutDegree: lc.Forward, TotalDegree: lc.Total,
		UnresolvedCount: int(g.unresolved[i]), TagCount: len(n.Tags), Tags: n.Tags, Labels: n.Labels,
		ByType: map[string]TypeCount{},
	}
	if st.Tags == nil {
		st.Tags = []string{}
	}
	for _, e := range g.out.of(i) {
		ed := &g.edges[e]
		st.OutEdges++
		tc := st.ByType[responseType(ed.Type)]
		tc.Out++
		st.ByType[responseType(ed.Type)] = tc
		if t := &g.notes[ed.Target]; t.Stub && !slices.Contains(st.Unresolved, t.ID) {
			st.Unresolved = append(st.Unresolved, t.ID)
		}
	}
	for _, e := range g.in.of(i) {
		ed := &g.edges[e]
		st.InEdges++
		tc := st.ByType[responseType(ed.Type)]
		tc.In++
		st.ByType[responseType(ed.Type)] = tc
	}
	st.IsOrphan = st.InEdges == 0 && st.OutEdges == 0
	return st
}

func (g *Graph) vaultStatistics(ctx context.Context, top int) (*VaultStatistics, error) {
	vs := &VaultStatistics{Edges: len(g.edges), Tags: len(g.tags), EdgeTypes: map[string]int{},
		MostLinked: []RankedNote{}, Orphans: []string{}, Unresolved: []UnresolvedTarget{}}
	for i := range g.edges {
		ed := &g.edges[i]
		vs.EdgeTypes[responseType(ed.Type)]++
		if ed.Typed() {
			vs.TypedEdges++
		}
	}
	var linked []int32
	for i := range int32(len(g.notes)) {
		if i%4096 == 4095 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		n := &g.notes[i]
		if n.Stub {
			vs.Stubs++
			vs.UnresolvedCount++
			vs.Unresolved = append(vs.Unresolved, g.unresolvedTarget(i))
			continue
		}
		vs.Notes++
		if len(g.out.of(i)) == 0 && len(g.in.of(i)) == 0 {
			vs.OrphanCount++
			if len(vs.Orphans) < top {
				vs.Orphans = append(vs.Orphans, n.Name())
			}
		}
		if g.backward[i] > 0 {
			linked = append(linked, i)
		}
	}
	slices.SortFunc(linked, func(a, b int32) int {
		if d := cmp.Compare(g.backward[b], g.backward[a]); d != 0 {
			return d
		}
		return cmp.Compare(g.notes[a].Name(), g.notes[b].Name())
	})
	for _, i := range linked[:min(top, len(linked))] {
		vs.MostLinked = append(vs.MostLinked, RankedNote{Path: g.notes[i].Name(), Title: g.notes[i].Title, Links: g.Links(i)})
	}
	slices.SortFunc(vs.Unresolved, func(a, b UnresolvedTarget) int {
		if d := cmp.Compare(b.Sources, a.Sources); d != 0 {
			return d
		}
		if d := cmp.Compare(b.Links, a.Links); d != 0 {
			return d
		}
		return cmp.Compare(a.Target, b.Target)
	})
	vs.Unresolved = vs.Unresolved[:min(top, len(vs.Unresolved))]
	return vs, nil
}

func (g *Graph) unresolvedTarget(i int32) UnresolvedTarget {
	u := UnresolvedTarget{Target: g.notes[i].Name(), Sources: int(g.backward[i])}
	for _, e := range g.in.of(i) {
		u.Links += int(max(g.edges[e].Count, 1))
	}
	return u
}
