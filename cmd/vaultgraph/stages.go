package main

import (
	"github.com/urfave/cli/v2"

	"github.com/vaultgraph/vaultgraph/indexer"
	"github.com/vaultgraph/vaultgraph/snapshot"
)

// stageFlags are the flags of the stages an index run adds to snapshots.
func stageFlags() []cli.Flag {
	return append(embedFlags(), graphFlags()...)
}

// stages returns the stages every index run (index, demo) adds to the
// snapshot after the tables, in order, and the newest snapshot when one
// was opened to choose the embedder (indexer.Options.Opened).
func stages(c *cli.Context) ([]indexer.Stage, *snapshot.Snapshot, error) {
	embedding, opened, err := embedStage(c)
	if err != nil {
		return nil, nil, err
	}
	st := []indexer.Stage{embedding, indexer.BM25Stage{}}
	if g := graphStage(c); g != nil {
		st = append(st, g)
	}
	return st, opened, nil
}
