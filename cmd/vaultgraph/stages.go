package main

import (
	"github.com/urfave/cli/v2"

	"github.com/vaultgraph/vaultgraph/indexer"
)

// stageFlags are the flags of the stages an index run adds to snapshots.
func stageFlags() []cli.Flag {
	return embedFlags()
}

// stages returns the stages every index run (index, demo) adds to the
// snapshot after the tables, in order.
func stages(c *cli.Context) ([]indexer.Stage, error) {
	embedding, err := embedStage(c)
	if err != nil {
		return nil, err
	}
	return []indexer.Stage{embedding}, nil
}
