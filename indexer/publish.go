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
	if m.Tables, err = writeTables(w, linkFrom, t, opts.Log); err != nil {
		return "", err
	}
	// The tables are complete: they are sealed while the stages compute.
	w.SealEarly(tableFiles(m.Tables, t)...)
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
	if err := runStages(ctx, b, opts.Stages); err != nil {
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

// writeTables writes the tables concurrently: compressing them is most of
// a run's CPU time after parsing. The notes, links, edges and chunks tables
// are written in segments (writeSegments); it returns their manifest
// section.
func writeTables(w *snapshot.Writer, parent *snapshot.Snapshot, t *tables, log *slog.Logger) (map[string][]format.TableSegment, error) {
	dir := w.Dir()
	var g errgroup.Group
	var segs map[string][]format.TableSegment
	g.Go(func() (err error) { segs, err = writeSegments(w, parent, t, log); return err })
	if t.code != nil {
		g.Go(func() error { return snapshot.WriteTable(filepath.Join(dir, format.CodeFilesFile), t.code.files) })
		g.Go(func() error { return snapshot.WriteTable(filepath.Join(dir, format.SymbolsFile), t.code.symbols) })
		g.Go(func() error { return snapshot.WriteTable(filepath.Join(dir, format.CodeChunksFile), t.code.chunks) })
		g.Go(func() error { return snapshot.WriteTable(filepath.Join(dir, format.CodeEdgesFile), t.codeEdges) })
	}
	return segs, g.Wait()
}

// tableFiles names the files writeTables wrote: the segments, and the
// code tables when there are some.
func tableFiles(segs map[string][]format.TableSegment, t *tables) []string {
	var names []string
	for _, ss := range segs {
		for _, seg := range ss {
			names = append(names, seg.File)
		}
	}
	if t.code != nil {
		names = append(names, format.CodeFilesFile, format.SymbolsFile, format.CodeChunksFile, format.CodeEdgesFile)
	}
	return names
}
