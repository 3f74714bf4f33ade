package linkgraph

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Path finds how sourcePath and targetPath are connected, following links
// in the allowed directions (both by default, as in Obsidian's graph view)
// and of the allowed edge types, through notes that pass fileFilter and
// folderFilter (the two ends always pass). Without all it returns one
// shortest path (not limited in length unless maxDepth is set). With all
// it returns every simple path of at most maxDepth hops (default 3),
// shortest first, stopping at maxPaths paths or after timeoutMs; Stopped
// says which bound ended the search. Paths are lists of notes: several
// edges between the same two notes make one hop, listed in PathEdges.
func (g *Graph) Path(ctx context.Context, req Request) (*Response, error) {
	start := time.Now()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	q, err := newQuery(req)
	if err != nil {
		return nil, err
	}
	src, err := g.source(req, ActionPath)
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(req.TargetPath) == "" {
		return nil, fmt.Errorf("%w: path needs targetPath (a note's path, title or alias)", ErrInvalidRequest)
	}
	dst, err := g.Resolve(req.TargetPath)
	if err != nil {
		return nil, err
	}
	resp := &Response{Operation: ActionPath, Snapshot: g.snapshot, SourcePath: g.notes[src].Name(), TargetPath: g.notes[dst].Name()}
	var paths [][]int32
	switch {
	case src == dst:
		paths = [][]int32{{src}}
	case req.All:
		ps := &pathSearch{g: g, q: q, src: src, dst: dst, ctx: ctx, deadline: start.Add(q.timeout)}
		paths, resp.Stopped = ps.all()
		if resp.Stopped == "canceled" {
			return nil, ctx.Err()
		}
	default:
		limit := -1
		if q.depthSet {
			limit = q.maxDepth
		}
		p, err := g.shortest(ctx, q, src, dst, limit)
		if err != nil {
			return nil, err
		}
		if p != nil {
			paths = [][]int32{p}
		}
	}
	resp.Truncated = resp.Stopped != ""
	resp.Found = boolPtr(len(paths) > 0)
	g.fillPaths(q, resp, paths)
	resp.Message = q.message(g.pathMessage(q, req.All, resp, paths))
	resp.GraphStats.TraversalTime = elapsedMS(start)
	return resp, nil
}

func (g *Graph) pathMessage(q *query, all bool, resp *Response, paths [][]int32) string {
	if len(paths) == 0 {
		within := ""
		if all || q.depthSet {
			within = " within " + count(q.maxDepth, "hop")
		}
		msg := fmt.Sprintf("No path found between %s and %s%s", resp.SourcePath, resp.TargetPath, within)
		if resp.Stopped == "timeout" {
			msg += " before the timeout"
		}
		return msg
	}
	msg := fmt.Sprintf("Found %s between %s and %s; the shortest has %s", count(len(paths), "path"), resp.SourcePath, resp.TargetPath, count(len(paths[0])-1, "hop"))
	switch resp.Stopped {
	case "maxPaths":
		msg += fmt.Sprintf("; stopped at maxPaths (%d): more paths exist", q.maxPaths)
	case "timeout":
		msg += fmt.Sprintf("; stopped after %s: there may be more paths", q.timeout)
	}
	return msg
}

// fillPaths writes the paths, the edges of each hop and the statistics.
func (g *Graph) fillPaths(q *query, resp *Response, paths [][]int32) {
	nodes := map[int32]bool{}
	for _, p := range paths {
		names := make([]string, len(p))
		var hops []Edge
		for i, u := range p {
			names[i] = g.notes[u].Name()
			nodes[u] = true
			if i > 0 {
				hops = append(hops, g.hopEdges(q, p[i-1], u)...)
			}
		}
		resp.Paths = append(resp.Paths, names)
		resp.PathEdges = append(resp.PathEdges, hops)
		resp.GraphStats.TotalEdges += len(hops)
		resp.GraphStats.MaxDepthReached = max(resp.GraphStats.MaxDepthReached, len(p)-1)
	}
	resp.GraphStats.TotalNodes = len(nodes)
}

// hopEdges returns the edges q allows between consecutive notes a and b.
func (g *Graph) hopEdges(q *query, a, b int32) []Edge {
	var out []Edge
	if q.forward {
		for _, e := range g.out.of(a) {
			if ed := &g.edges[e]; ed.Target == b && q.allowEdge(ed) {
				out = append(out, g.edge(e))
			}
		}
	}
	if q.backward {
		for _, e := range g.in.of(a) {
			if ed := &g.edges[e]; ed.Source == b && q.allowEdge(ed) {
				out = append(out, g.edge(e))
			}
		}
	}
	return out
}

// eachNeighbour calls fn once for each distinct note a walk under q may
// step to from u, in index order, until fn returns false. It merges the
// two adjacency rows, both sorted by the other end.
func (g *Graph) eachNeighbour(q *query, u int32, fn func(v int32) bool) bool {
	var out, in []int32
	if q.forward {
		out = g.out.of(u)
	}
	if q.backward {
		in = g.in.of(u)
	}
	i, j := 0, 0
	last := int32(-1)
	for i < len(out) || j < len(in) {
		var e int32
		var v int32
		if j >= len(in) || (i < len(out) && g.edges[out[i]].Target <= g.edges[in[j]].Source) {
			e, v = out[i], g.edges[out[i]].Target
			i++
		} else {
			e, v = in[j], g.edges[in[j]].Source
			j++
		}
		if v == last || !q.allowEdge(&g.edges[e]) {
			continue
		}
		last = v
		if !fn(v) {
			return false
		}
	}
	return true
}

// passes reports whether a path may go through v on its way to dst.
func (g *Graph) passes(q *query, v, dst int32) bool {
	return v == dst || (q.enter(g, v) && q.keepNote(&g.notes[v]))
}

// shortest returns a shortest path from src to dst of at most limit hops
// (no limit when negative), or nil. It searches from both ends at once,
// always widening the smaller frontier, so that a hub on one side does not
// make the search visit the whole vault.
func (g *Graph) shortest(ctx context.Context, q *query, src, dst int32, limit int) ([]int32, error) {
	fwd := newSide(len(g.notes), src, q)
	rev := *q
	rev.forward, rev.backward = q.backward, q.forward
	bwd := newSide(len(g.notes), dst, &rev)
	for hops := 0; len(fwd.frontier) > 0 && len(bwd.frontier) > 0 && (limit < 0 || hops < limit); hops++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		side, other := fwd, bwd
		if len(bwd.frontier) < len(fwd.frontier) {
			side, other = bwd, fwd
		}
		meet := g.widen(side, other, src, dst)
		if meet < 0 {
			continue
		}
		var p []int32
		for v := meet; v >= 0; v = fwd.parent[v] {
			p = append(p, v)
		}
		slices.Reverse(p)
		for v := bwd.parent[meet]; v >= 0; v = bwd.parent[v] {
			p = append(p, v)
		}
		return p, nil
	}
	return nil, nil
}

// side is one end of a bidirectional search: its query (the reverse one
// for the search from the target), every note's distance from its start
// (-1: not reached) and parent towards it, and its frontier.
type side struct {
	q        *query
	dist     []int32
	parent   []int32
	frontier []int32
}

func newSide(n int, start int32, q *query) *side {
	s := &side{q: q, dist: make([]int32, n), parent: make([]int32, n), frontier: []int32{start}}
	for i := range s.dist {
		s.dist[i] = -1
	}
	s.dist[start], s.parent[start] = 0, -1
	return s
}

// widen advances s by one level and returns the note where it met other
// on the shortest path found, or -1. Every meeting in the level is
// considered, because a note reached by the other side at a lower level
// makes a shorter path than one reached first.
func (g *Graph) widen(s, other *side, src, dst int32) int32 {
	var next []int32
	meet, best := int32(-1), int32(0)
	for _, u := range s.frontier {
		g.eachNeighbour(s.q, u, func(v int32) bool {
			if s.dist[v] >= 0 || !(v == src || v == dst || (s.q.enter(g, v) && s.q.keepNote(&g.notes[v]))) {
				return true
			}
			s.dist[v], s.parent[v] = s.dist[u]+1, u
			next = append(next, v)
			if d := other.dist[v]; d >= 0 && (meet < 0 || s.dist[v]+d < best) {
				meet, best = v, s.dist[v]+d
			}
			return true
		})
	}
	s.frontier = next
	return meet
}

// pathSearch enumerates simple paths by iterative deepening, pruned by the
// distance of every note to dst, so that a branch is entered only if it can
// still reach dst in the hops left.
type pathSearch struct {
	g        *Graph
	q        *query
	src, dst int32
	ctx      context.Context
	deadline time.Time
	dist     []int32 // hops to dst, -1 beyond maxDepth
	onPath   []bool
	stack    []int32
	paths    [][]int32
	steps    int
	stopped  string
}

// all returns the paths found and why the search stopped early ("" when
// it found every path).
func (ps *pathSearch) all() ([][]int32, string) {
	ps.distances()
	d := int(ps.dist[ps.src])
	if d < 0 {
		return nil, ps.stopped
	}
	ps.onPath = make([]bool, len(ps.g.notes))
	ps.onPath[ps.src] = true
	for length := max(d, 1); length <= ps.q.maxDepth && ps.stopped == ""; length++ {
		ps.stack = append(ps.stack[:0], ps.src)
		ps.walk(ps.src, length)
	}
	return ps.paths, ps.stopped
}

// distances fills dist breadth-first from dst against the walk's
// directions, up to maxDepth hops.
func (ps *pathSearch) distances() {
	g, q := ps.g, ps.q
	rev := *q
	rev.forward, rev.backward = q.backward, q.forward
	ps.dist = make([]int32, len(g.notes))
	for i := range ps.dist {
		ps.dist[i] = -1
	}
	ps.dist[ps.dst] = 0
	frontier := []int32{ps.dst}
	for hops := int32(1); int(hops) <= q.maxDepth && len(frontier) > 0; hops++ {
		var next []int32
		for _, u := range frontier {
			g.eachNeighbour(&rev, u, func(v int32) bool {
				if ps.dist[v] < 0 && (v == ps.src || g.passes(q, v, ps.dst)) {
					ps.dist[v] = hops
					next = append(next, v)
				}
				return true
			})
		}
		frontier = next
	}
}

// walk extends the path on the stack, which ends at u, to paths of exactly
// length hops ending at dst.
func (ps *pathSearch) walk(u int32, length int) {
	left := length - (len(ps.stack) - 1)
	ps.g.eachNeighbour(ps.q, u, func(v int32) bool {
		if ps.steps++; ps.steps%1024 == 0 {
			if ps.ctx.Err() != nil {
				ps.stopped = "canceled"
			} else if time.Now().After(ps.deadline) {
				ps.stopped = "timeout"
			}
		}
		if ps.stopped != "" {
			return false
		}
		if v == ps.dst {
			if left == 1 {
				if len(ps.paths) == ps.q.maxPaths {
					ps.stopped = "maxPaths"
					return false
				}
				ps.paths = append(ps.paths, append(append([]int32(nil), ps.stack...), v))
			}
			return true
		}
		if d := ps.dist[v]; d < 0 || int(d) > left-1 || ps.onPath[v] {
			return true
		}
		ps.onPath[v] = true
		ps.stack = append(ps.stack, v)
		ps.walk(v, length)
		ps.stack = ps.stack[:len(ps.stack)-1]
		ps.onPath[v] = false
		return ps.stopped == ""
	})
}
