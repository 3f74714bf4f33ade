package main

import (
	"errors"
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/vaultgraph/vaultgraph/snapshot"
	"github.com/vaultgraph/vaultgraph/snapshot/diff"
)

// exitDiffFailed is the exit status of snapshot diff when a --fail-on
// condition holds; 1 stays "the diff could not be made".
const exitDiffFailed = 3

func diffCommand() *cli.Command {
	return &cli.Command{
		Name:      "diff",
		Usage:     "show what changed between two snapshots (notes, edges and their properties, unresolved links, warnings, model)",
		ArgsUsage: "[A [B]]",
		Description: `A and B are snapshot ids, id prefixes or "latest" in --data (B in --to-data
when given), or paths of snapshot directories. With one argument B is the
newest snapshot that passes its checks; with none, that snapshot is compared
with the one before it.

--fail-on removed-edges,new-unresolved,new-warnings,model-change,changed-edges,new-divergence
makes the command exit 3 when one of those changes is present (after printing
the diff), for CI gates; changed-edges is an edge whose properties changed
({critical: true} became {critical: false}); new-divergence is a note's code
link that names no tracked file or symbol any more. Exit 1 means the diff could not
be made, 2 bad usage.`,
		Flags: append([]cli.Flag{
			optionalDataFlag(),
			&cli.StringFlag{Name: "to-data", Usage: "data directory of B, when it is not --data (another machine's copy)"},
			&cli.StringSliceFlag{Name: "fail-on", Usage: "exit 3 when any of these holds: removed-edges, new-unresolved, new-warnings, model-change, changed-edges, new-divergence"},
			&cli.IntFlag{Name: "limit", Value: diff.DefaultLimit, Usage: "items shown per list in text and markdown (json shows all)", Action: atLeast("limit", 1)},
		}, formatFlags(diff.FormatText, diff.FormatMarkdown, diff.FormatJSON)...),
		Before: takesArgs(0, 2, ""),
		Action: runDiff,
	}
}

func runDiff(c *cli.Context) error {
	gate, err := diff.ParseConditions(c.StringSlice("fail-on"))
	if err != nil {
		return usageError(err)
	}
	outFormat, err := outputFormat(c)
	if err != nil {
		return err
	}
	data := c.String("data")
	toData := c.String("to-data")
	if toData == "" {
		toData = data
	}
	refA, refB := c.Args().Get(0), c.Args().Get(1)
	log := logger(c)
	eb, err := readRef(log, toData, refB)
	if err != nil {
		return err
	}
	var ea snapshot.Entry
	if refA == "" {
		ea, err = previous(data, eb.ID)
	} else {
		ea, err = readRef(log, data, refA)
	}
	if err != nil {
		return err
	}
	defer leaseIfInData(log, data, ea)()
	defer leaseIfInData(log, toData, eb)()
	a, err := snapshot.Open(ea.Dir, snapshot.OpenOptions{})
	if err != nil {
		return err
	}
	b, err := snapshot.Open(eb.Dir, snapshot.OpenOptions{})
	if err != nil {
		return err
	}
	report, err := diff.Compare(a, b)
	if err != nil {
		return err
	}
	if err := report.Render(c.App.Writer, outFormat, c.Int("limit")); err != nil {
		return err
	}
	if failed := report.Failed(gate); len(failed) > 0 {
		return &exitError{code: exitDiffFailed, err: errors.New(diff.FailureMessage(failed))}
	}
	return nil
}

// previous returns the snapshot of data just before id.
func previous(data, id string) (snapshot.Entry, error) {
	if data == "" {
		return snapshot.Entry{}, usageError(errors.New("give two snapshots, or --data to compare the newest with the one before it"))
	}
	entries, err := snapshot.List(data)
	if err != nil {
		return snapshot.Entry{}, err
	}
	for i := len(entries) - 1; i > 0; i-- {
		if entries[i].ID == id {
			return entries[i-1], nil
		}
	}
	return snapshot.Entry{}, fmt.Errorf("%w: no snapshot before %s in %s", snapshot.ErrNotFound, id, data)
}
