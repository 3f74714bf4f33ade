package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"github.com/vaultgraph/vaultgraph/snapshot"
	"github.com/vaultgraph/vaultgraph/snapshot/bucket"
)

func gcCommand() *cli.Command {
	return &cli.Command{
		Name:  "gc",
		Usage: "remove old snapshots: keep the newest N (and those younger than --older-than), never one a server has open",
		Description: `Keeps the newest --keep snapshots, every snapshot younger than --older-than,
and the newest snapshot that opens; removes the others unless a running server
holds a lease on them (those are kept and go in a later run). Also removes the
temporary directories of interrupted index, import and gc runs, and the lease
files of snapshots deleted by hand (unless a process still holds them). Holds
the data directory's lock like an indexer: with an indexer running it waits
--wait, then exits 75. A removed snapshot is renamed away before its files are
deleted, so a crash never leaves a half-deleted snapshot that lists.

With --data s3://BUCKET/PREFIX it works on a bucket: keeps the newest --keep
snapshots, removes the others' manifests, then every file object no kept
snapshot names (also what interrupted pushes left), and the locks of crashed
pushes. It holds a lock in the bucket that excludes pushes to the prefix while
it runs (exits 75 while one runs). Servers of the bucket keep what they
downloaded.`,
		Flags: append([]cli.Flag{
			&cli.StringFlag{Name: "data", Aliases: []string{"d"}, Usage: "data directory holding the snapshots, or a bucket s3://BUCKET/PREFIX", EnvVars: []string{"VAULTGRAPH_DATA"}, Required: true},
			&cli.IntFlag{Name: "keep", Usage: "number of newest snapshots to keep (at least 1)", Required: true, Action: atLeast("keep", 1)},
			&cli.StringFlag{Name: "older-than", Usage: "also keep snapshots younger than this: 36h, 7d, 2w"},
			&cli.BoolFlag{Name: "dry-run", Aliases: []string{"n"}, Usage: "say what would be removed, remove nothing"},
			&cli.DurationFlag{Name: "wait", Usage: "how long to wait for an indexer holding the data directory", Action: notNegative("wait")},
			&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "print nothing on success"},
		}, formatFlags()...),
		Before: takesArgs(0, 0, ""),
		Action: runGC,
	}
}

func runGC(c *cli.Context) error {
	if bucket.IsURL(c.String("data")) {
		return bucketGC(c)
	}
	opts := snapshot.GCOptions{Keep: c.Int("keep"), LockWait: c.Duration("wait"), DryRun: c.Bool("dry-run")}
	if s := c.String("older-than"); s != "" {
		d, err := parseSpan(s)
		if err != nil {
			return usageError(fmt.Errorf("--older-than: %w", err))
		}
		opts.OlderThan = d
	}
	res, err := snapshot.GC(c.Context, c.String("data"), opts)
	if res != nil && !c.Bool("quiet") && jsonOutput(c) {
		if jerr := writeJSON(c.App.Writer, gcJSON(res, opts.DryRun)); jerr != nil && err == nil {
			err = jerr
		}
		return err
	}
	if res != nil && !c.Bool("quiet") {
		verb := "removed"
		if opts.DryRun {
			verb = "would remove"
		}
		w := c.App.Writer
		for _, name := range res.Leftovers {
			fmt.Fprintf(w, "%s leftover %s\n", verb, name)
		}
		for _, id := range res.Removed {
			fmt.Fprintf(w, "%s %s\n", verb, id)
		}
		for _, id := range res.Leased {
			fmt.Fprintf(w, "kept %s: open in a running server (leased)\n", id)
		}
		for _, id := range res.StaleLeases {
			fmt.Fprintf(w, "%s lease file of %s: the snapshot is gone\n", verb, id)
		}
		for _, id := range res.HeldLeases {
			fmt.Fprintf(w, "kept lease file of %s: the snapshot is gone, but a running process still has it open\n", id)
		}
		fmt.Fprintf(w, "%s %s, kept %d\n", verb, plural(len(res.Removed), "snapshot"), len(res.Kept)+len(res.Leased))
	}
	return err
}

// gcJSON is what gc prints with --json: the snapshot ids (and leftover
// directory names) in each of GCResult's lists, never null.
func gcJSON(res *snapshot.GCResult, dryRun bool) any {
	list := func(s []string) []string {
		if s == nil {
			return []string{}
		}
		return s
	}
	return struct {
		DryRun      bool     `json:"dry_run"`
		Removed     []string `json:"removed"`
		Kept        []string `json:"kept"`
		Leased      []string `json:"leased"`
		Leftovers   []string `json:"leftovers"`
		StaleLeases []string `json:"stale_leases"`
		HeldLeases  []string `json:"held_leases"`
	}{dryRun, list(res.Removed), list(res.Kept), list(res.Leased), list(res.Leftovers), list(res.StaleLeases), list(res.HeldLeases)}
}
