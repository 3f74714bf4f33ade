package vectors

import (
	"context"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestMergeBatchIsOffer checks that searchLayer's merge of a batch leaves
// the list, and the first position a candidate went to, that offering the
// candidates one after the other does: the same entries in the same order,
// ties (distances drawn from a few values) keeping the earlier first.
func TestMergeBatchIsOffer(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	st := &searchState{}
	for round := range 20000 {
		ef := 1 + r.IntN(12)
		levels := 1 + r.IntN(6)            // few distinct distances: many ties
		list := make([]candidate, 0, ef+1) // offer needs room for one more
		for range r.IntN(ef + 3) {
			list, _ = offer(list, candidate{id: uint32(r.IntN(1000)), dist: float32(r.IntN(levels))}, ef)
		}
		for k := range list {
			if r.IntN(2) == 0 {
				list[k].id |= expanded
			}
		}
		batch := make([]candidate, r.IntN(10))
		for k := range batch {
			batch[k] = candidate{id: 1000 + uint32(k), dist: float32(r.IntN(levels))}
		}
		want := append(make([]candidate, 0, ef+1), list...)
		wantAt := len(want) + 1
		for _, b := range batch {
			var at int
			if want, at = offer(want, b, ef); at < wantAt {
				wantAt = at
			}
		}
		wantAt = min(wantAt, len(want))
		got, at := mergeBatch(slices.Clip(slices.Clone(list)), batch, ef, st)
		if !slices.Equal(got, want) {
			t.Fatalf("round %d: ef %d, list %v, batch %v: merged %v, offered %v", round, ef, list, batch, got, want)
		}
		// offer reports where a candidate went when it entered, even if a
		// later one pushed it out; what searchLayer needs is the first
		// position that is new, which both must agree on.
		firstNew := len(want)
		for k, c := range want {
			if c.id >= 1000 && c.id&expanded == 0 {
				firstNew = k
				break
			}
		}
		if at != firstNew {
			t.Fatalf("round %d: ef %d, list %v, batch %v: merge says first new at %d, it is at %d (offer's %d)", round, ef, list, batch, at, firstNew, wantAt)
		}
		for _, c := range st.merged {
			if !slices.Contains(got, c) {
				t.Fatalf("round %d: merged reports %v, not in the list %v", round, c, got)
			}
		}
	}
}

// TestClosedReselectionSameGraph checks that a build's re-selections that
// skip the pairs compared before (selectClosed) leave the graph that
// comparing every pair does, on clustered vectors and small slots, where
// most inserts re-select some node's links.
func TestClosedReselectionSameGraph(t *testing.T) {
	set := latentSet(3, 4000, 0, 64, 6)
	f := writeRows(t, set.rows, 64)
	p := Params{M: 4, M0: 8, EfConstruction: 40, EfSearch: 16}
	build := func(closed bool) *Graph {
		defer func(old bool) { closedReselection = old }(closedReselection)
		closedReselection = closed
		g, err := Build(context.Background(), f, p, 1, nil)
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	with, without := build(true), build(false)
	if !slices.Equal(with.level0, without.level0) || !slices.Equal(with.upper, without.upper) || with.entry != without.entry {
		t.Fatal("the graph built with closed re-selections differs from the one comparing every pair")
	}
}
