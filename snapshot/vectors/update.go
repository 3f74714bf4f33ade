package vectors

import (
	"bytes"
	"context"
	"fmt"
	"slices"
)

// Remap matches the rows of a parent vector file to the rows of its
// successor by text hash: remap[p] is the new row of parent row p, or -1
// when that text is gone. Both files are sorted by hash, so this is one
// merge pass.
func Remap(parent, next *File) []int {
	remap := make([]int, parent.Len())
	// A parent of an older layout stores whole hashes: compare the bytes
	// both store.
	n := min(parent.keyLen, next.keyLen)
	j := 0
	for i := range remap {
		remap[i] = -1
		hi := parent.key(i)[:n]
		for j < next.Len() && bytes.Compare(next.key(j)[:n], hi) < 0 {
			j++
		}
		if j < next.Len() && bytes.Equal(next.key(j)[:n], hi) {
			remap[i] = j
		}
	}
	return remap
}

// UpdateCost is the share of rows a graph update touches: rows removed
// from the parent plus rows added, over the rows of the new file. Callers
// update the parent's graph below a threshold and rebuild above it, since
// many deletions degrade a graph and cost as much as a rebuild.
func UpdateCost(remap []int, next *File) float64 {
	kept := 0
	for _, r := range remap {
		if r >= 0 {
			kept++
		}
	}
	removed, added := len(remap)-kept, next.Len()-kept
	return float64(removed+added) / float64(max(next.Len(), 1))
}

// Update builds the graph over next from the parent's graph: rows whose
// text is unchanged keep their links, links to removed rows are repaired
// from the removed rows' own neighbours, and new rows are inserted. remap
// comes from Remap(parent's file, next). The parent graph is only read.
// Its parameters are kept; ctx is checked every few hundred insertions.
func Update(ctx context.Context, parent *Graph, remap []int, next *File, progress func(done int)) (*Graph, error) {
	if next.Len() >= expanded {
		return nil, fmt.Errorf("update graph: %d rows, more than a graph holds (%d)", next.Len(), expanded-1)
	}
	if len(remap) != len(parent.levels) {
		return nil, fmt.Errorf("update graph: remap of %d rows for a graph of %d", len(remap), len(parent.levels))
	}
	if parent.size > 0 && next.Dims() != parent.vecs.Dims() && next.Len() > 0 {
		return nil, fmt.Errorf("update graph: %w: %d, parent has %d", ErrDims, next.Dims(), parent.vecs.Dims())
	}
	g := newGraph(next, parent.Params())
	st := g.state()
	defer g.states.Put(st)
	type repair struct {
		node, parentNode uint32
		level            int
	}
	var repairs []repair
	for p, r := range remap {
		if r < 0 {
			continue
		}
		pl := int(parent.levels[p])
		g.place(uint32(r), pl)
		g.size++
		for l := 0; l <= pl; l++ {
			ids := st.ids[:0]
			lost := false
			for _, x := range parent.links(uint32(p), l) {
				if nr := remap[x]; nr >= 0 {
					ids = append(ids, uint32(nr))
				} else {
					lost = true
				}
			}
			g.setLinks(uint32(r), l, ids)
			st.ids = ids
			if lost {
				repairs = append(repairs, repair{uint32(r), uint32(p), l})
			}
		}
	}
	g.pickEntry(parent, remap)
	for _, rp := range repairs {
		g.repair(rp.node, rp.level, parent, rp.parentNode, remap, st)
	}
	done := 0
	inserted := make([]bool, next.Len())
	for _, r := range remap {
		if r >= 0 {
			inserted[r] = true
		}
	}
	for i, ok := range inserted {
		if ok {
			continue
		}
		if done%256 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			if progress != nil && done > 0 {
				progress(done)
			}
		}
		g.insert(uint32(i), st)
		done++
	}
	if progress != nil {
		progress(done)
	}
	return g, nil
}

// pickEntry keeps the parent's entry node, or when it was removed takes
// the surviving node on the highest level.
func (g *Graph) pickEntry(parent *Graph, remap []int) {
	if parent.entry != noNode && remap[parent.entry] >= 0 {
		g.entry, g.top = uint32(remap[parent.entry]), parent.top
		return
	}
	g.entry, g.top = noNode, 0
	for i, l := range g.levels {
		if l != absent && (g.entry == noNode || int(l) > g.top) {
			g.entry, g.top = uint32(i), int(l)
		}
	}
}

// repair re-selects node's neighbours on level l after some of them were
// removed: candidates are its remaining neighbours and the removed
// neighbours' neighbours, and, when those are few, what a search from the
// entry node finds.
func (g *Graph) repair(node uint32, l int, parent *Graph, parentNode uint32, remap []int, st *searchState) {
	cands := st.cands[:0]
	seen := map[uint32]bool{node: true}
	add := func(id uint32) {
		if !seen[id] && g.levels[id] != absent && int(g.levels[id]) >= l {
			seen[id] = true
			cands = append(cands, candidate{id, g.pairDist(node, id)})
		}
	}
	for _, x := range g.links(node, l) {
		add(x)
	}
	for _, x := range parent.links(parentNode, l) {
		if remap[x] >= 0 {
			continue
		}
		for _, y := range parent.links(x, l) {
			if r := remap[y]; r >= 0 {
				add(uint32(r))
			}
		}
	}
	if len(cands) < g.capacity(l)/2 && g.entry != noNode && g.entry != node {
		st.setNode(g, node)
		ep := candidate{g.entry, g.dist(st, g.entry)}
		for lv := g.top; lv > l; lv-- {
			ep = g.greedy(ep, lv, st)
		}
		for _, c := range g.searchLayer([]candidate{ep}, g.efC, l, st) {
			add(c.id)
		}
	}
	sortCandidates(cands)
	chosen := g.selectNeighbors(cands, g.capacity(l), &st.chosen)
	ids := st.ids[:0]
	for _, c := range chosen {
		ids = append(ids, c.id)
	}
	g.setLinks(node, l, ids)
	st.ids, st.cands = ids, cands
	// Links are symmetric at insertion; give the new neighbours a way back
	// so the node stays reachable.
	for _, c := range slices.Clone(chosen) {
		if !slices.Contains(g.links(c.id, l), node) {
			g.addLink(c.id, node, c.dist, l, st)
		}
	}
}
