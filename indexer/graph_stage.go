package indexer

import (
	"context"
	"time"

	"github.com/vaultgraph/vaultgraph/format"
	"github.com/vaultgraph/vaultgraph/snapshot"
	"github.com/vaultgraph/vaultgraph/snapshot/graphdb"
)

// GraphStage builds each snapshot's graph database (package graphdb) from
// the snapshot's own notes and edges, inside the snapshot's temporary
// directory so that the publish step checksums it, and records the mapping
// from vault names to its tables in the manifest's Graph section.
type GraphStage struct {
	// BufferPoolSize and Threads size the engine while it loads
	// (graphdb's defaults when 0).
	BufferPoolSize uint64
	Threads        int
}

// Name implements Stage.
func (GraphStage) Name() string { return "graph" }

// Run implements Stage. A failure fails the run: a snapshot is published
// with all of its stages or not at all.
func (s GraphStage) Run(ctx context.Context, b *Build) error {
	start := time.Now()
	g, err := graphdb.Build(ctx, b.Dir, b.Notes, b.Edges, graphdb.BuildOptions{
		BufferPoolSize: s.BufferPoolSize, Threads: s.Threads, Log: b.Log,
	})
	if err != nil {
		return err
	}
	b.Manifest.Graph = g
	b.Log.Info("built graph", "notes", g.Notes, "edges", g.Edges, "edge_types", len(g.EdgeTypes),
		"elapsed", time.Since(start).Round(time.Millisecond))
	return nil
}

// Pending implements Pender: a parent snapshot without a graph, or with one
// of another layout or engine version, gets a new snapshot even when the
// vault is unchanged.
func (GraphStage) Pending(parent *snapshot.Snapshot) bool {
	g := parent.Manifest.Graph
	return g == nil || g.Version != format.GraphVersion || g.EngineVersion != graphdb.EngineVersion
}
