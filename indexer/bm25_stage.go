package indexer

import (
	"context"
	"path/filepath"
	"time"

	"github.com/vaultgraph/vaultgraph/format"
	"github.com/vaultgraph/vaultgraph/snapshot"
	"github.com/vaultgraph/vaultgraph/snapshot/bm25"
)

// BM25Stage adds the lexical index of the snapshot's chunks
// (format.BM25File, package bm25) and records it in the manifest's BM25
// section. It rebuilds the index on every run: tokenizing the chunks costs
// a fraction of parsing them.
type BM25Stage struct{}

// Name implements Stage.
func (BM25Stage) Name() string { return "bm25" }

// Run implements Stage.
func (BM25Stage) Run(ctx context.Context, b *Build) error {
	start := time.Now()
	names := make(map[string][]string, len(b.Notes))
	for _, n := range b.Notes {
		names[n.ID] = append([]string{n.Title}, n.Aliases...)
	}
	bld := bm25.NewBuilder()
	var terms []string
	for i, c := range b.Chunks {
		if i%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		terms = bm25.AppendTerms(terms[:0], c.Context)
		terms = bm25.AppendTerms(terms, c.Text)
		for range format.BM25TitleWeight - 1 {
			for _, name := range names[c.Note] {
				terms = bm25.AppendTerms(terms, name)
			}
		}
		bld.Add(c.ID, terms)
	}
	sec, err := bld.WriteFile(filepath.Join(b.Dir, format.BM25File))
	if err != nil {
		return err
	}
	b.Manifest.BM25 = sec
	b.Log.Info("bm25 index", "docs", sec.Docs, "terms", sec.Terms, "postings", sec.Postings, "elapsed", time.Since(start).Round(time.Millisecond))
	return nil
}

// Pending implements Pender: a parent without a BM25 index, or with one of
// another layout or tokenizer, gets a new snapshot even when the vault is
// unchanged.
func (BM25Stage) Pending(parent *snapshot.Snapshot) Pending {
	if m := parent.Manifest.BM25; m == nil || m.Version != format.BM25Version || m.Tokenizer != bm25.TokenizerVersion {
		return PendingRebuild
	}
	return PendingNone
}

var _ interface {
	Stage
	Pender
} = BM25Stage{}
