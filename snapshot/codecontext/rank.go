package codecontext

import (
	"math"

	"github.com/vaultgraph/vaultgraph/format"
)

// Weights are the weights of edges by type in the walk; a type not listed
// gets DefaultNoteWeight when it joins two notes, DefaultCodeLinkWeight
// when a note points at code.
type Weights map[string]float64

// Default weights: the code's own structure first, the history and plain
// links least.
const (
	DefaultNoteWeight     = 0.5
	DefaultCodeLinkWeight = 1.0
)

// DefaultWeights are the weights Retrieve uses for the types they name.
var DefaultWeights = Weights{
	format.TypeContains: 1.0,
	format.TypeImports:  0.6,
	format.TypeCalls:    0.6,
	format.TypeTests:    0.8,
	format.TypeCoEdits:  0.4,
	format.TypeLinksTo:  0.3,
	format.TypeEmbeds:   0.3,
}

func (ix *Index) weight(w Weights, edge int) float64 {
	e := &ix.edges[edge]
	v, ok := w[e.Type]
	if !ok {
		v, ok = DefaultWeights[e.Type]
	}
	if !ok {
		if format.IsCodeID(e.Target) {
			v = DefaultCodeLinkWeight
		} else {
			v = DefaultNoteWeight
		}
	}
	if e.Type == format.TypeCoEdits && e.Count > 1 {
		v *= math.Min(1, math.Log2(float64(e.Count))/3+0.5)
	}
	return v
}

// pagerank is personalized PageRank from seed (node -> weight, any scale)
// over every edge in both directions, with restart probability 1-damping.
func (ix *Index) pagerank(seed map[int32]float64, w Weights, iterations int, damping float64) []float64 {
	n := len(ix.nodes)
	restart := make([]float64, n)
	total := 0.0
	for i, v := range seed {
		total += v
		restart[i] = v
	}
	if total == 0 {
		return make([]float64, n)
	}
	for i := range restart {
		restart[i] /= total
	}
	out := make([]float64, n)
	copy(out, restart)
	// An edge's weight is the same in every iteration.
	weights := make([]float64, len(ix.edges))
	for i := range weights {
		weights[i] = ix.weight(w, i)
	}
	sums := make([]float64, n)
	for u := range ix.adj {
		for _, a := range ix.adj[u] {
			sums[u] += weights[a.edge]
		}
	}
	next := make([]float64, n)
	for it := 0; it < iterations; it++ {
		for i := range next {
			next[i] = (1 - damping) * restart[i]
		}
		dangling := 0.0
		for u, p := range out {
			if p == 0 {
				continue
			}
			if sums[u] == 0 {
				dangling += p
				continue
			}
			for _, a := range ix.adj[u] {
				next[a.to] += damping * p * weights[a.edge] / sums[u]
			}
		}
		for i := range next {
			next[i] += damping * dangling * restart[i]
		}
		out, next = next, out
	}
	return out
}
