package search

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/vaultgraph/vaultgraph/snapshot/embed"
)

// fusionFixture is bigFixture with a BM25 index and a few notes whose
// exact words (an identifier, a name) only BM25 weighs fully.
func fusionFixture() *fixture {
	fx := bigFixture()
	fx.bm25 = true
	fx.note("ticket.md", []string{"Rare"}, "Ticket VG-4711 tracks the crash in the exporter.", "crawler index ranking query latency")
	fx.note("okafor.md", []string{"Thing"}, "Okafor wrote the posting list code.")
	return fx
}

// TestFusedIsReciprocalRankFusion checks the fused ranking against one
// computed from the two rankings alone, with and without a label filter,
// and that each ranking alone is what it says.
func TestFusedIsReciprocalRankFusion(t *testing.T) {
	ix := openIndex(t, fusionFixture().publish(t))
	e := embed.NewBuiltin()
	ctx := context.Background()
	for _, q := range []Query{
		{Text: "crawler latency VG-4711", Target: Chunks, K: 10},
		{Text: "budget funding grant", Target: Chunks, K: 5, Labels: []string{"Rare"}},
		{Text: "Okafor posting list", Target: Chunks, K: 3},
	} {
		depth := fuseDepth(q.K)
		vq, lq := q, q
		vq.K, vq.Method = depth, VectorsOnly
		lq.K, lq.Method = depth, BM25Only
		vec, err := ix.Search(ctx, vq, e)
		must(t, err)
		lex, err := ix.Search(ctx, lq, nil) // BM25 needs no embedder
		must(t, err)
		if vec.Method != VectorsOnly || lex.Method != BM25Only || len(lex.Chunks) == 0 {
			t.Fatalf("%q: methods %s %s, %d BM25 hits", q.Text, vec.Method, lex.Method, len(lex.Chunks))
		}
		for i := 1; i < len(lex.Chunks); i++ {
			if lex.Chunks[i].Score > lex.Chunks[i-1].Score {
				t.Errorf("%q: BM25 hits out of order", q.Text)
			}
		}
		want := map[string]float64{}
		for _, list := range [][]ChunkHit{vec.Chunks, lex.Chunks} {
			for i, h := range list {
				want[h.ID] += 1 / float64(rrfK+i+1)
			}
		}
		ids := make([]string, 0, len(want))
		for id := range want {
			ids = append(ids, id)
		}
		slices.SortFunc(ids, func(a, b string) int {
			if d := cmp.Compare(want[b], want[a]); d != 0 {
				return d
			}
			return cmp.Compare(a, b)
		})
		ids = ids[:min(q.K, len(ids))]
		got, err := ix.Search(ctx, q, e)
		must(t, err)
		if got.Method != Fused {
			t.Errorf("%q: method %s", q.Text, got.Method)
		}
		var gotIDs []string
		for _, h := range got.Chunks {
			gotIDs = append(gotIDs, h.ID)
			if q.Labels != nil && !ix.noteHasLabel(h.Note, labelSet(q.Labels)) {
				t.Errorf("%q: hit %s of a note without label %v", q.Text, h.ID, q.Labels)
			}
		}
		if !slices.Equal(gotIDs, ids) {
			t.Errorf("%q: fused %v, want %v", q.Text, gotIDs, ids)
		}
	}
	// The identifier is BM25's first hit, which fusion keeps among the
	// first (a passage that only one ranking finds at rank r ties with
	// one the other finds at r).
	got, err := ix.Search(ctx, Query{Text: "VG-4711", Target: Chunks, K: 3}, e)
	must(t, err)
	if !slices.ContainsFunc(got.Chunks[:min(2, len(got.Chunks))], func(h ChunkHit) bool { return h.Note == "ticket.md" }) {
		t.Errorf("VG-4711: %+v", got.Chunks)
	}
}

func TestFusedNotesAreDistinct(t *testing.T) {
	ix := openIndex(t, fusionFixture().publish(t))
	e := embed.NewBuiltin()
	for _, m := range []Method{Fused, BM25Only, VectorsOnly} {
		for _, score := range []Score{Best, Mean} {
			res, err := ix.Search(context.Background(), Query{Text: "crawler index ranking", K: 20, Method: m, Score: score}, e)
			must(t, err)
			seen := map[string]bool{}
			for i, n := range res.Notes {
				if seen[n.ID] || n.Best.Note != n.ID {
					t.Errorf("%s/%s: note %s twice or cited by another's chunk", m, score, n.ID)
				}
				seen[n.ID] = true
				if i > 0 && n.Score > res.Notes[i-1].Score {
					t.Errorf("%s/%s: notes out of order", m, score)
				}
			}
			if len(res.Notes) != 20 || res.Method != m {
				t.Errorf("%s/%s: %d notes, method %s", m, score, len(res.Notes), res.Method)
			}
		}
	}
}

// TestMethodsWithoutBM25 checks what happens where there is no BM25 index:
// fused falls back to vectors and says so, BM25 alone is refused.
func TestMethodsWithoutBM25(t *testing.T) {
	withBM25 := openIndex(t, fusionFixture().publish(t))
	without := openIndex(t, bigFixture().publish(t))
	e := embed.NewBuiltin()
	ctx := context.Background()
	for _, tc := range []struct {
		ix     *Index
		target Target
	}{{without, Chunks}, {without, Notes}, {withBM25, Edges}} {
		res, err := tc.ix.Search(ctx, Query{Text: "crawler", Target: tc.target}, e)
		if err != nil || res.Method != VectorsOnly {
			t.Errorf("%s: fused search gives %v, %v", tc.target, res, err)
		}
		if _, err := tc.ix.Search(ctx, Query{Text: "crawler", Target: tc.target, Method: BM25Only}, nil); !errors.Is(err, ErrNoBM25) {
			t.Errorf("%s: BM25 alone gives %v", tc.target, err)
		}
	}
	if _, err := withBM25.Search(ctx, Query{Text: "crawler", Method: "magic"}, e); err == nil {
		t.Error("an unknown method is accepted")
	}
	if _, err := withBM25.Search(ctx, Query{Text: "crawler"}, nil); err == nil {
		t.Error("a fused search without an embedder is accepted")
	}
	if _, err := ParseMethod("Vectors"); err != nil {
		t.Error(err)
	}
}
