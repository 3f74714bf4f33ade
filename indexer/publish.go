package indexer

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"

	"golang.org/x/sync/errgroup"

	"github.com/vaultgraph/vaultgraph/format"
	"github.com/vaultgraph/vaultgraph/snapshot"
)

// publish writes the tables into a new snapshot directory, runs the stages
// and publishes the snapshot with its manifest. retry names the stages whose
// retry work is the only reason for the run (Build.Retry); once all of them
// have stalled the build is void and publish returns an *errVoid. On any
// error the temporary directory is removed and nothing is published.
func publish(ctx context.Context, data, id string, parent *snapshot.Snapshot, t *tables, m *format.Manifest, retry []string,
	opts Options) (dir string, err error) {
	w, err := snapshot.Create(data, id)
	if err != nil {
		return "", err
	}
	defer func() {
		if err == nil {
			return
		}
		if aerr := w.Abort(); aerr != nil {
			err = errors.Join(err, aerr)
		}
	}()
	// A full run builds every file from the vault: it links nothing from
	// the parent, so that it also repairs a parent damaged on disk.
	linkFrom := parent
	if opts.Full {
		linkFrom = nil
	}
	var tableWrites *writes
	if m.Tables, tableWrites, err = writeTables(w, linkFrom, t, opts.Log); err != nil {
		return "", err
	}
	sortWarnings(t.warnings)
	m.Warnings = t.warnings
	m.Notes = make(map[string]format.NoteSignature, len(t.notes))
	for _, n := range t.notes {
		if !n.Stub {
			m.Notes[n.Path] = format.NoteSignature{SHA256: n.Signature, Size: n.Size, Modified: n.Modified}
		}
	}
	if t.code != nil {
		m.Repos = t.code.repos
	}
	m.Counts = format.Counts{
		Notes:      len(m.Notes),
		Stubs:      len(t.notes) - len(m.Notes),
		Links:      len(t.links),
		Edges:      len(t.edges),
		Unresolved: t.unresolved,
		Chunks:     len(t.chunks),
		Warnings:   len(t.warnings),
	}
	if t.code != nil {
		m.Counts.CodeFiles, m.Counts.Symbols, m.Counts.CodeEdges = len(t.code.files), len(t.code.symbols), len(t.codeEdges)
		m.Counts.UnresolvedCodeLinks = t.unresolvedCode
	}
	b := &Build{Dir: w.Dir(), Parent: parent, Notes: t.notes, Edges: t.edges, Chunks: t.chunks, Manifest: m, Log: opts.Log, Progress: opts.Progress, Retry: retry, w: w, noLinks: opts.Full,
		parentChunks: t.parentChunks, unread: t.unreadNotes()}
	if t.code != nil {
		b.CodeFiles, b.Symbols, b.CodeEdges, b.CodeChunks = t.code.files, t.code.symbols, t.codeEdges, t.code.chunks
	}
	// The tables are written while the stages run, and sealed once
	// written.
	var written errgroup.Group
	written.Go(func() error {
		names, err := tableWrites.run()
		if err == nil {
			b.SealEarly(names...)
		}
		return err
	})
	err = runStages(ctx, b, opts.Stages)
	if werr := written.Wait(); werr != nil && !errors.As(err, new(*errVoid)) {
		err = errors.Join(werr, err)
	}
	if err != nil {
		return "", err
	}
	if err := ctx.Err(); err != nil {
		return "", err
	}
	return w.Publish(m)
}

// runStages runs the stages on b: one after the other while a progress
// line is drawn (each stage draws its own), else all at once, since no
// stage reads what another builds (the vectors' HNSW build, the BM25 index
// and the graph database then share the cores). It returns errVoid for a
// void build (Build.void).
func runStages(ctx context.Context, b *Build, stages []Stage) error {
	if b.Progress != nil || len(stages) < 2 {
		for _, st := range stages {
			if err := ctx.Err(); err != nil {
				return err
			}
			if err := st.Run(ctx, b); err != nil {
				return fmt.Errorf("stage %s: %w", st.Name(), err)
			}
			if stalls := b.void(); stalls != nil {
				return &errVoid{stalls}
			}
		}
		return nil
	}
	g, gctx := errgroup.WithContext(ctx)
	for _, st := range stages {
		g.Go(func() error {
			if err := st.Run(gctx, b); err != nil {
				if cerr := ctx.Err(); cerr != nil {
					return cerr
				}
				return fmt.Errorf("stage %s: %w", st.Name(), err)
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	if stalls := b.void(); stalls != nil {
		return &errVoid{stalls}
	}
	return ctx.Err()
}

// writeTables keys the tables and links what the parent holds
// (writeSegments); it returns their manifest section and the writes left,
// the code tables' among them. Compressing tables is most of a run's CPU
// time after parsing: the writes run on every core, beside the stages.
func writeTables(w *snapshot.Writer, parent *snapshot.Snapshot, t *tables, log *slog.Logger) (map[string][]format.TableSegment, *writes, error) {
	segs, ws, err := writeSegments(w, parent, t, log)
	if err != nil {
		return nil, nil, err
	}
	if t.code != nil {
		dir := w.Dir()
		ws.add(format.CodeFilesFile, func() error { return snapshot.WriteTable(filepath.Join(dir, format.CodeFilesFile), t.code.files) })
		ws.add(format.SymbolsFile, func() error { return snapshot.WriteTable(filepath.Join(dir, format.SymbolsFile), t.code.symbols) })
		ws.add(format.CodeChunksFile, func() error { return snapshot.WriteTable(filepath.Join(dir, format.CodeChunksFile), t.code.chunks) })
		ws.add(format.CodeEdgesFile, func() error { return snapshot.WriteTable(filepath.Join(dir, format.CodeEdgesFile), t.codeEdges) })
	}
	return segs, ws, nil
}
