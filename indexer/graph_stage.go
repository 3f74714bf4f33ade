package indexer

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/vaultgraph/vaultgraph/format"
	"github.com/vaultgraph/vaultgraph/snapshot"
	"github.com/vaultgraph/vaultgraph/snapshot/embed"
	"github.com/vaultgraph/vaultgraph/snapshot/graphdb"
)

// GraphStage builds each snapshot's graph database (package graphdb) from
// the snapshot's own notes and edges, inside the snapshot's temporary
// directory so that the publish step checksums it, and records the mapping
// from vault names to its tables in the manifest's Graph section.
//
// When the parent snapshot has a graph of the same layout and few rows
// changed, the stage updates a copy of the parent's database instead of
// building one (graphdb.Update): a saved note then costs milliseconds, not
// a full load. The same holds with code: code files and symbols are
// nodes, code edges are edges, on both sides of the comparison. Whenever
// the update is not possible or fails, the stage
// logs why and builds the database from scratch; the manifest's
// Graph.Build says which happened. Either way the database answers queries
// as a fresh build would.
type GraphStage struct {
	// BufferPoolSize and Threads size the engine while it loads
	// (graphdb's defaults when 0).
	BufferPoolSize uint64
	Threads        int
	// TypedTables bounds the edge types with a relationship table of
	// their own (format.DefaultTypedEdgeTables when 0).
	TypedTables int
	// MinTableEdges is the number of edges a type needs for a table of
	// its own (graphdb's default, in proportion to the notes, when 0;
	// negative for none).
	MinTableEdges int
	// PropertyColumns bounds the property keys with a typed column
	// (format.DefaultPropertyColumns when 0).
	PropertyColumns int
	// UpdateLimit bounds the cost of updating the parent's graph, as a
	// share of its rows (graphdb.DefaultUpdateLimit when 0, or
	// DefaultCodeGraphUpdateLimit for a snapshot with code; 1 always
	// updates); a negative value always builds from scratch.
	UpdateLimit float64
}

// DefaultCodeGraphUpdateLimit is GraphStage.UpdateLimit's default for
// snapshots with code. A saved code file replaces its node (its blob is a
// string, which an update does not set in place) and with it every edge of
// the file: appending a line to flask's app.py changes 196 of 4,051 rows
// (4.8%, over graphdb's 2%), and updating them took 0.5 s where a build
// took 1.45 s; on hono a saved file took 1.2 s against 1.9 s
// (BenchmarkPublicRepository, on the shared 2-core machine).
const DefaultCodeGraphUpdateLimit = 0.1

// Name implements Stage.
func (GraphStage) Name() string { return "graph" }

// Run implements Stage. A failure fails the run: a snapshot is published
// with all of its stages or not at all. A failed update is not a failure:
// the stage builds instead.
func (s GraphStage) Run(ctx context.Context, b *Build) error {
	start := time.Now()
	var meter *embed.Meter
	progress := func(done, total int) {
		if meter == nil {
			meter = embed.NewMeter(b.Progress, "graph database", "steps", total)
		}
		meter.Update(done)
	}
	defer func() { meter.Done() }()
	opts := graphdb.BuildOptions{BufferPoolSize: s.BufferPoolSize, Threads: s.Threads, TypedTables: s.TypedTables, MinTableEdges: s.MinTableEdges, PropertyColumns: s.PropertyColumns, Log: b.Log, Progress: progress}
	notes, edges := b.Notes, b.Edges
	if hasCode(b) {
		// Code rows join the notes as nodes labelled CodeFile and Symbol,
		// and the parent's code rows are compared as its notes are.
		notes = append(slices.Clone(b.Notes), graphdb.CodeNodes(b.CodeFiles, b.Symbols, b.CodeEdges)...)
		edges = append(slices.Clone(b.Edges), b.CodeEdges...)
	}
	g, err := s.update(ctx, b, notes, edges, opts)
	if err != nil {
		return err
	}
	if g == nil {
		if g, err = graphdb.Build(ctx, b.Dir, notes, edges, opts); err != nil {
			return err
		}
	}
	b.Manifest.Graph = g
	b.SealEarly(format.GraphFile)
	b.Log.Info("graph "+g.Build, "notes", g.Notes, "edges", g.Edges, "edge_types", len(g.EdgeTypes),
		"elapsed", time.Since(start).Round(time.Millisecond))
	return nil
}

func hasCode(b *Build) bool {
	return len(b.CodeFiles) > 0 || len(b.CodeEdges) > 0 || (b.Parent != nil && (len(b.Parent.Manifest.Repos) > 0 || b.Parent.Manifest.Counts.CodeEdges > 0))
}

// update tries to update the parent's graph. It returns nil without an
// error when the caller must build: there is no parent graph to update,
// the update is not possible, or it failed (logged). Only a canceled run
// is an error.
func (s GraphStage) update(ctx context.Context, b *Build, notes []format.Note, edges []format.Edge, opts graphdb.BuildOptions) (*format.Graph, error) {
	if s.UpdateLimit < 0 || b.Parent == nil || b.Parent.Manifest.Graph == nil {
		return nil, nil
	}
	limit := s.UpdateLimit
	if limit == 0 && hasCode(b) {
		limit = DefaultCodeGraphUpdateLimit
	}
	// The notes and edges are the tables in order, then the code rows:
	// the update compares only the rows of the segments that changed.
	g, err := graphdb.Update(ctx, b.Dir, b.Parent, notes, edges, graphdb.UpdateOptions{BuildOptions: opts, Limit: limit, Tables: b.Manifest.Tables})
	switch {
	case err == nil:
		return g, nil
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case errors.Is(err, graphdb.ErrNotUpdatable):
		b.Log.Info("building the graph from scratch", "parent", b.Parent.ID, "reason", err)
	default:
		// A bug or an engine failure: worth seeing, but the snapshot can
		// still get its graph.
		b.Log.Warn("could not update the parent snapshot's graph; building it from scratch", "parent", b.Parent.ID, "err", err)
	}
	return nil, nil
}

// Pending implements Pender: a parent snapshot without a graph, or with one
// of another layout or engine version, gets a new snapshot even when the
// vault is unchanged.
func (GraphStage) Pending(parent *snapshot.Snapshot) Pending {
	if g := parent.Manifest.Graph; g == nil || g.Version != format.GraphVersion || g.EngineVersion != graphdb.EngineVersion {
		return PendingRebuild
	}
	return PendingNone
}
