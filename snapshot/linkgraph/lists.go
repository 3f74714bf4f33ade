package linkgraph

import (
	"context"
	"fmt"
	"time"
)

// Neighbors returns sourcePath and the notes it links to or is linked from
// directly (in the allowed directions, of the allowed edge types, with
// shared tags when followTags), each edge with its type. Stubs are listed
// too (type "stub"). Typed neighbours come first. At most maxNodes
// neighbours (default 500) and maxEdges edges are listed; GraphStats still
// counts them all.
func (g *Graph) Neighbors(ctx context.Context, req Request) (*Response, error) {
	return g.list(ctx, req, ActionNeighbors)
}

// Backlinks lists the notes linking to sourcePath and the edges from each.
func (g *Graph) Backlinks(ctx context.Context, req Request) (*Response, error) {
	return g.list(ctx, req, ActionBacklinks)
}

// Forwardlinks lists the notes (and stubs) sourcePath links to and the
// edges to each.
func (g *Graph) Forwardlinks(ctx context.Context, req Request) (*Response, error) {
	return g.list(ctx, req, ActionForwardlinks)
}

func (g *Graph) list(ctx context.Context, req Request, action string) (*Response, error) {
	start := time.Now()
	q, err := newQuery(req)
	if err != nil {
		return nil, err
	}
	src, err := g.source(req, action)
	if err != nil {
		return nil, err
	}
	switch action {
	case ActionBacklinks:
		q.forward, q.backward, q.tags = false, true, false
	case ActionForwardlinks:
		q.forward, q.backward, q.tags = true, false, false
	}
	// Lists show links to missing notes unless asked not to; walks leave
	// them out by default.
	q.unresolved = req.IncludeUnresolved == nil || *req.IncludeUnresolved
	maxEdges := q.maxEdges
	if req.MaxEdges == 0 {
		maxEdges = 4 * q.limit
	}
	resp := &Response{Operation: action, Snapshot: g.snapshot, SourcePath: g.notes[src].Name()}
	if action == ActionNeighbors {
		resp.Nodes = append(resp.Nodes, g.node(src, 0))
	}
	// listed holds the neighbours shown; edges are shown for them only, so
	// that a hub's thousands of backlinks cost a bounded response.
	listed := map[int32]bool{src: true}
	seen := map[int32]bool{src: true}
	neighbours, edges := 0, 0
	add := func(v int32, e Edge) {
		edges++
		if !seen[v] {
			seen[v] = true
			neighbours++
			if neighbours <= q.limit {
				listed[v] = true
				resp.Nodes = append(resp.Nodes, g.node(v, 1))
			} else {
				resp.Truncated, resp.Stopped = true, "limit"
			}
		}
		if !listed[v] {
			return
		}
		if len(resp.Edges) >= maxEdges {
			resp.Truncated, resp.Stopped = true, "maxEdges"
			return
		}
		resp.Edges = append(resp.Edges, e)
	}
	g.walkEdges(q, src, func(v, e int32) bool {
		if q.keepNote(&g.notes[v]) {
			add(v, g.edge(e))
		}
		return true
	})
	if q.tags {
		g.walkTags(src, func(v int32, shared []string) bool {
			if q.keepNote(&g.notes[v]) {
				add(v, g.tagEdge(src, v, shared))
			}
			return true
		})
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	resp.GraphStats = GraphStats{TotalNodes: neighbours, TotalEdges: edges, MaxDepthReached: min(neighbours, 1)}
	what := map[string]string{
		ActionNeighbors:    "direct neighbors of",
		ActionBacklinks:    "notes linking to",
		ActionForwardlinks: "notes linked from",
	}[action]
	msg := fmt.Sprintf("Found %d %s %s", neighbours, what, g.notes[src].Name())
	if resp.Truncated {
		msg += fmt.Sprintf("; listing %d nodes and %d edges (raise maxNodes or maxEdges for more)", len(resp.Nodes), len(resp.Edges))
	}
	resp.Message = q.message(msg)
	resp.GraphStats.TraversalTime = elapsedMS(start)
	return resp, nil
}
