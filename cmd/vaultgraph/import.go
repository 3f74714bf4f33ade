package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"github.com/vaultgraph/vaultgraph/snapshot/archive"
)

func importCommand() *cli.Command {
	return &cli.Command{
		Name:      "import",
		Usage:     "publish a snapshot archive (from stdin or FILE) into a data directory",
		ArgsUsage: "[FILE]",
		Description: `Reads an archive written by vaultgraph snapshot export (plain, zstd or gzip),
checks every file against the manifest in a temporary directory and publishes
the snapshot atomically, so a server on this machine swaps to it and never
sees a half-copied one. An archive of a snapshot that is already there, with
the same manifest, is checked to its end, reported "already imported" (on
stderr) and exits 0, so a job importing the latest release succeeds when the
release has not changed. Refuses another snapshot under an id that is already
present, a format version this build cannot read and a snapshot larger than
the free space; refuses, before writing any of it, an entry the manifest does
not declare with that exact size (and links, devices, paths outside the
snapshot); on any error nothing is published. A delta (export --base) is
refused unless its base snapshot is here, and gets the files it leaves out
from the base, checked like the others. Holds the data directory's
lock while it writes, like an indexer: with one running it waits --wait,
then exits 75.`,
		Flags: append([]cli.Flag{
			dataFlag(),
			&cli.DurationFlag{Name: "wait", Usage: "how long to wait for an indexer holding the data directory", Action: notNegative("wait")},
			&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "print nothing on success"},
		}, formatFlags()...),
		Before: takesArgs(0, 1, ""),
		Action: runImport,
	}
}

func runImport(c *cli.Context) error {
	var in io.Reader = os.Stdin
	if name := c.Args().First(); name != "" && name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return err
		}
		defer f.Close()
		in = f
	} else if isTerminal(os.Stdin) {
		return usageError(errors.New("no archive: give a FILE or pipe one in (vaultgraph snapshot import --data D < snap.tar)"))
	}
	data, err := filepath.Abs(c.String("data"))
	if err != nil {
		return err
	}
	r := &countingReader{r: in}
	res, err := archive.Import(c.Context, r, data, archive.ImportOptions{LockWait: c.Duration("wait")})
	if err != nil {
		return err
	}
	if len(res.Leftovers) > 0 {
		logger(c).Info("removed leftovers of an interrupted run", "dirs", res.Leftovers)
	}
	if jsonOutput(c) && !c.Bool("quiet") {
		out := archiveJSON{Snapshot: res.ID, File: c.Args().First(), Files: res.Files, Bytes: res.Bytes, ArchiveBytes: r.n,
			Compression: string(res.Compression), Present: res.Present, Dir: res.Dir, Base: res.Base, Omitted: res.Taken}
		if out.File == "-" {
			out.File = ""
		}
		if res.Newest != res.ID {
			out.Newest = res.Newest
		}
		return writeJSON(c.App.Writer, out)
	}
	if res.Newest != res.ID {
		fmt.Fprintf(c.App.ErrWriter, "note: %s already holds a newer snapshot, %s; servers keep serving that one\n", data, res.Newest)
	}
	switch {
	case c.Bool("quiet"):
	case res.Present:
		// Like index's "unchanged": on stderr, so a timer's job stays quiet.
		fmt.Fprintf(c.App.ErrWriter, "already imported %s: %s holds this very snapshot (the archive checks out); nothing to do\n", res.ID, res.Dir)
	default:
		// "imported ID " first: scripts read the id (ci/snapshot-diff.sh).
		from := ""
		if res.Taken > 0 {
			from = fmt.Sprintf(", %s taken from %s", plural(res.Taken, "more file"), res.Base)
		}
		fmt.Fprintf(c.App.Writer, "imported %s (%s, %d bytes%s) from %s\n", res.ID, plural(res.Files, "file"), res.Bytes, from, archiveSize(r.n, res.Compression))
	}
	return nil
}

// countingReader counts the bytes read through it.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}
