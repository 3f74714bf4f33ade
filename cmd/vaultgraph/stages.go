package main

import (
	"github.com/urfave/cli/v2"

	"github.com/vaultgraph/vaultgraph/indexer"
)

// stageFlags are the flags of the stages an index run adds to snapshots.
func stageFlags() []cli.Flag {
	return append(embedFlags(), graphFlags()...)
}

// stages returns the stages every index run (index, demo) adds to the
// snapshot after the tables, in order.
func stages(c *cli.Context) ([]indexer.Stage, error) {
	embedding, err := embedStage(c)
	if err != nil {
		return nil, err
	}
	st := []indexer.Stage{embedding, indexer.BM25Stage{}}
	if g := graphStage(c); g != nil {
		st = append(st, g)
	}
	return st, nil
}
