package linkgraph

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// Traverse walks breadth-first from sourcePath along links in the allowed
// directions (and shared tags with followTags) up to maxDepth hops,
// keeping at most maxNodes notes. At each note typed edges are followed
// before plain links, so that when maxNodes cuts a hub's thousands of
// backlinks short the typed neighbours are the ones kept. Stubs are visited
// only with includeUnresolved; notes outside fileFilter and folderFilter
// are neither kept nor walked through. The edges returned are those
// between kept notes (at most maxEdges).
func (g *Graph) Traverse(ctx context.Context, req Request) (*Response, error) {
	start := time.Now()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	q, err := newQuery(req)
	if err != nil {
		return nil, err
	}
	src, err := g.source(req, ActionTraverse)
	if err != nil {
		return nil, err
	}
	depth := make(map[int32]int, min(q.maxNodes, len(g.notes)))
	depth[src] = 0
	order := []int32{src}
	var tagEdges []Edge
	stopped, maxReached := "", 0
	for head := 0; head < len(order) && stopped == ""; head++ {
		if head%64 == 63 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		u := order[head]
		d := depth[u]
		if d >= q.maxDepth {
			break // breadth-first: every later note is as deep
		}
		visit := func(v int32) bool {
			if _, seen := depth[v]; seen || !q.keepNote(&g.notes[v]) {
				return true
			}
			if len(order) >= q.maxNodes {
				stopped = "maxNodes"
				return false
			}
			depth[v] = d + 1
			order = append(order, v)
			maxReached = d + 1
			return true
		}
		if !g.walkEdges(q, u, func(v, _ int32) bool { return visit(v) }) {
			break
		}
		if q.tags {
			g.walkTags(u, func(v int32, shared []string) bool {
				_, seen := depth[v]
				ok := visit(v)
				if _, added := depth[v]; !seen && added {
					tagEdges = append(tagEdges, g.tagEdge(u, v, shared))
				}
				return ok
			})
		}
	}
	edges, edgesCut := g.edgesAmong(q, order, depth, q.maxEdges)
	for _, te := range tagEdges {
		if len(edges) >= q.maxEdges {
			edgesCut = true
			break
		}
		edges = append(edges, te)
	}
	if edgesCut && stopped == "" {
		stopped = "maxEdges"
	}
	nodes := make([]Node, len(order))
	for i, u := range order {
		nodes[i] = g.node(u, depth[u])
	}
	resp := &Response{
		Operation: ActionTraverse, Snapshot: g.snapshot, SourcePath: g.notes[src].Name(),
		Nodes: nodes, Edges: edges, Truncated: stopped != "", Stopped: stopped,
		GraphStats: GraphStats{TotalNodes: len(nodes), TotalEdges: len(edges), MaxDepthReached: maxReached},
	}
	msg := fmt.Sprintf("Found %s within %s of separation", count(len(nodes), "connected node"), count(q.maxDepth, "degree"))
	if stopped == "maxNodes" {
		msg += fmt.Sprintf("; stopped at maxNodes (%d): more notes qualified", q.maxNodes)
	}
	// Stopped names one bound (the first reached); when the edges among
	// the notes kept were cut too, the message says so, so that raising
	// maxNodes alone is not taken for the way to get them.
	if edgesCut {
		msg += fmt.Sprintf("; edges cut at maxEdges (%d): more edges join these notes", q.maxEdges)
	}
	resp.Message = q.message(msg)
	resp.GraphStats.TraversalTime = elapsedMS(start)
	return resp, nil
}

// walkEdges calls fn with the other end and the index of each edge of u
// that q lets a walk follow: typed edges first, then plain links and
// embeds; outgoing ones when following forward links, incoming ones when
// following backlinks. It stops when fn returns false and reports whether
// it went through.
func (g *Graph) walkEdges(q *query, u int32, fn func(v, e int32) bool) bool {
	for _, typed := range []bool{true, false} {
		if q.forward {
			for _, e := range g.out.of(u) {
				ed := &g.edges[e]
				if ed.Typed() == typed && q.allowEdge(ed) && q.enter(g, ed.Target) && !fn(ed.Target, e) {
					return false
				}
			}
		}
		if q.backward {
			for _, e := range g.in.of(u) {
				ed := &g.edges[e]
				if ed.Typed() == typed && q.allowEdge(ed) && q.enter(g, ed.Source) && !fn(ed.Source, e) {
					return false
				}
			}
		}
	}
	return true
}

// walkTags calls fn for each note sharing a tag with u, with the shared
// tags, until fn returns false.
func (g *Graph) walkTags(u int32, fn func(v int32, shared []string) bool) bool {
	done := map[int32]bool{u: true}
	for _, t := range g.notes[u].Tags {
		for _, v := range g.tags[strings.ToLower(t)] {
			if done[v] {
				continue
			}
			done[v] = true
			if !fn(v, g.sharedTags(u, v)) {
				return false
			}
		}
	}
	return true
}

func (g *Graph) sharedTags(u, v int32) []string {
	var shared []string
	for _, a := range g.notes[u].Tags {
		for _, b := range g.notes[v].Tags {
			if strings.EqualFold(a, b) {
				shared = append(shared, a)
				break
			}
		}
	}
	return shared
}

func (g *Graph) tagEdge(u, v int32, shared []string) Edge {
	return Edge{Source: g.notes[u].Name(), Target: g.notes[v].Name(), Type: EdgeTypeTag, Count: len(shared), Sign: 1, Tags: shared}
}

// edgesAmong returns the edges q allows whose both ends are in set, in the
// order of their sources in order, at most max; cut reports that more
// qualified.
func (g *Graph) edgesAmong(q *query, order []int32, set map[int32]int, max int) (edges []Edge, cut bool) {
	for _, u := range order {
		for _, e := range g.out.of(u) {
			ed := &g.edges[e]
			if _, ok := set[ed.Target]; !ok || !q.allowEdge(ed) {
				continue
			}
			if len(edges) >= max {
				return edges, true
			}
			edges = append(edges, g.edge(e))
		}
	}
	return edges, false
}
