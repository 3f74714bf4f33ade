package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/vaultgraph/vaultgraph/indexer/vaultgen"
)

func genCommand() *cli.Command {
	return &cli.Command{
		Name:      "gen",
		Usage:     "write a synthetic vault for benchmarks (power-law links, typed edges, frontmatter)",
		ArgsUsage: "DIR",
		Flags: append([]cli.Flag{
			&cli.IntFlag{Name: "notes", Value: 10000, Usage: "number of notes", Action: atLeast("notes", 1)},
			&cli.Int64Flag{Name: "seed", Value: 1, Usage: "random seed; the same seed writes the same vault"},
		}, formatFlags()...),
		Before: takesArgs(1, 1, ""),
		Action: func(c *cli.Context) error {
			dir := c.Args().First()
			st, err := vaultgen.Generate(dir, vaultgen.Config{Notes: c.Int("notes"), Seed: c.Int64("seed")})
			if err != nil {
				return err
			}
			if jsonOutput(c) {
				return writeJSON(c.App.Writer, struct {
					Dir string `json:"dir"`
					vaultgen.Stats
				}{dir, st})
			}
			fmt.Fprintf(c.App.Writer, "wrote %s: %+v\n", dir, st)
			return nil
		},
	}
}
