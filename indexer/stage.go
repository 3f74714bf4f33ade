package indexer

import (
	"context"
	"log/slog"

	"github.com/vaultgraph/vaultgraph/format"
	"github.com/vaultgraph/vaultgraph/snapshot"
)

// Stage adds derived files (vectors, a graph database, ...) to a snapshot
// being built. Stages run in order after the tables are written, inside the
// snapshot's temporary directory; an error aborts the run and publishes
// nothing.
type Stage interface {
	Name() string
	Run(ctx context.Context, b *Build) error
}

// Pender is implemented by stages that can have work left over from the
// previous snapshot (e.g. vectors the model server could not compute). A run
// on an unchanged vault still publishes when a stage has pending work.
type Pender interface {
	Pending(parent *snapshot.Snapshot) bool
}

// Build is what a stage sees of the snapshot being built. The tables are
// already written to Dir; stages must not modify the row slices.
type Build struct {
	// Dir is the snapshot's temporary directory.
	Dir string
	// Parent is the snapshot this one is built from, nil on a first run.
	Parent *snapshot.Snapshot
	Notes  []format.Note
	Edges  []format.Edge
	Chunks []format.Chunk
	// Manifest is published after the last stage; stages record what they
	// built in it. Files is filled in by the publish step.
	Manifest *format.Manifest
	Log      *slog.Logger
}
