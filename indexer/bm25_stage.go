package indexer

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/vaultgraph/vaultgraph/format"
	"github.com/vaultgraph/vaultgraph/snapshot"
	"github.com/vaultgraph/vaultgraph/snapshot/bm25"
	"github.com/vaultgraph/vaultgraph/snapshot/embed"
)

// BM25Stage adds the lexical index of the snapshot's chunks
// (format.BM25File, package bm25) and records it in the manifest's BM25
// section. With a parent indexed the same way it tokenizes only the chunks
// of notes that changed and takes the others' postings from the parent's
// index (bm25.Update, the same bytes as a rebuild); otherwise it tokenizes
// every chunk.
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
	// The terms of a note's names, tokenized once for all its chunks.
	nameTerms := make(map[string][]string, len(b.Notes))
	var buf []string
	var tk bm25.Tokenizer
	terms := func(i int) []string {
		c := &b.Chunks[i]
		b.needText(c.Note)
		buf = tk.AppendTerms(buf[:0], b.ChunkContext(i))
		buf = tk.AppendTerms(buf, c.Text)
		nt, ok := nameTerms[c.Note]
		if !ok {
			for _, name := range names[c.Note] {
				nt = tk.AppendTerms(nt, name)
			}
			nameTerms[c.Note] = nt
		}
		for range format.BM25TitleWeight - 1 {
			buf = append(buf, nt...)
		}
		return buf
	}
	bld, reused := updateBM25(b, terms)
	if err := b.unreadNeeded(); err != nil {
		return err
	}
	if bld == nil && len(b.unread) > 0 {
		return fmt.Errorf("%w: the parent's bm25 index cannot be updated", errReadEveryNote)
	}
	if bld == nil {
		bld = bm25.NewBuilder()
		meter := embed.NewMeter(b.Progress, "bm25 index", "chunks", len(b.Chunks))
		for i, c := range b.Chunks {
			if i%1024 == 0 {
				if err := ctx.Err(); err != nil {
					return err
				}
				meter.Update(i)
			}
			bld.Add(c.ID, terms(i))
		}
		meter.Update(len(b.Chunks))
		meter.Done()
	}
	sec, err := bld.WriteFile(filepath.Join(b.Dir, format.BM25File))
	if err != nil {
		return err
	}
	b.Manifest.BM25 = sec
	b.SealEarly(format.BM25File)
	b.Log.Info("bm25 index", "docs", sec.Docs, "terms", sec.Terms, "postings", sec.Postings, "reused", reused,
		"elapsed", time.Since(start).Round(time.Millisecond))
	return nil
}

// parentChunk is what updateBM25 reads of the parent's chunks.
type parentChunk struct {
	ID   string `parquet:"id"`
	Note string `parquet:"note"`
}

// updateBM25 returns a builder of the snapshot's index made from the
// parent's, and how many documents it took from it; nil when the parent
// has no usable index. A chunk is taken from the parent when its note is
// unchanged (same signature, same parsing options): its context, text and
// the note's names, all the terms of its document, are then the same.
func updateBM25(b *Build, terms func(i int) []string) (*bm25.Builder, int) {
	p := b.Parent
	if p == nil || (BM25Stage{}).Pending(p) != PendingNone || !equalOptions(p.Manifest.Options, b.Manifest.Options) {
		return nil, 0
	}
	fail := func(err error) (*bm25.Builder, int) {
		b.Log.Info("cannot update the parent snapshot's bm25 index; building it from scratch", "parent", p.ID, "err", err)
		return nil, 0
	}
	ix, err := bm25.Open(filepath.Join(p.Dir, format.BM25File))
	if err != nil {
		return fail(err)
	}
	rows := b.parentChunks
	if rows == nil {
		if rows, err = snapshot.ReadSegments[parentChunk](p, format.ChunksTable); err != nil {
			return fail(err)
		}
	}
	ids := make([]string, len(rows))
	for i, r := range rows {
		ids[i] = r.ID
	}
	if ix.Docs() != len(rows) || ix.DocsDigest() != bm25.DocsDigest(ids) {
		return fail(bm25.ErrCorrupt)
	}
	unchanged := make(map[string]bool, len(b.Notes))
	for _, n := range b.Notes {
		if sig, ok := p.Manifest.Notes[n.ID]; ok && !n.Stub && sig.SHA256 == n.Signature {
			unchanged[n.ID] = true
		}
	}
	old := make(map[string]int, len(rows))
	for j, r := range rows {
		if unchanged[r.Note] {
			old[r.ID] = j
		}
	}
	from := make([]int, len(b.Chunks))
	newIDs := make([]string, len(b.Chunks))
	reused, last := 0, -1
	for i, c := range b.Chunks {
		newIDs[i] = c.ID
		from[i] = -1
		if j, ok := old[c.ID]; ok && unchanged[c.Note] && j > last {
			from[i], last = j, j
			reused++
		}
	}
	bld, err := bm25.Update(ix, newIDs, from, terms)
	if err != nil {
		return fail(err)
	}
	return bld, reused
}

// Pending implements Pender: a parent without the current index layout
// and tokenizer gets a new snapshot.
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
