package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"github.com/vaultgraph/vaultgraph/snapshot/archive"
)

func exportCommand() *cli.Command {
	return &cli.Command{
		Name:      "export",
		Usage:     "write a snapshot (the newest that passes its checks by default) as a tar archive, to stdout or a file",
		ArgsUsage: "[ID | PATH]",
		Description: `The archive holds manifest.json first, then every file of the snapshot, each
checked against the manifest as it is written. Import it on another machine
with vaultgraph snapshot import. -o writes the file atomically; a name ending
in .zst selects zstd compression unless --compress says otherwise.`,
		Flags: []cli.Flag{
			optionalDataFlag(),
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write the archive to this file instead of stdout"},
			&cli.StringFlag{Name: "compress", Usage: "none or zstd (default: zstd for a -o name ending in .zst, else none)"},
		},
		Before: takesArgs(0, 1, ""),
		Action: runExport,
	}
}

func runExport(c *cli.Context) error {
	out := c.String("output")
	comp := c.String("compress")
	if comp == "" && (strings.HasSuffix(out, ".zst") || strings.HasSuffix(out, ".zstd")) {
		comp = string(archive.Zstd)
	}
	compression, err := archive.ParseCompression(comp)
	if err != nil {
		return usageError(err)
	}
	data := c.String("data")
	log := logger(c)
	e, err := readRef(log, data, c.Args().First())
	if err != nil {
		return err
	}
	defer leaseIfInData(log, data, e)()
	opts := archive.ExportOptions{Compression: compression}
	if out == "" || out == "-" {
		if f, ok := c.App.Writer.(*os.File); ok && isTerminal(f) {
			return usageError(errors.New("refusing to write an archive to a terminal: redirect stdout or use -o FILE"))
		}
		res, err := archive.Export(c.Context, c.App.Writer, e.Dir, opts)
		if err != nil {
			return err
		}
		fmt.Fprintf(c.App.ErrWriter, "exported %s (%s, %d bytes)\n", res.ID, plural(res.Files, "file"), res.Bytes)
		return nil
	}
	var res *archive.ExportResult
	err = writeFileAtomic(out, func(w io.Writer) error {
		var err error
		res, err = archive.Export(c.Context, w, e.Dir, opts)
		return err
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(c.App.Writer, "exported %s to %s (%s, %d bytes)\n", res.ID, out, plural(res.Files, "file"), res.Bytes)
	return nil
}

func isTerminal(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// writeFileAtomic writes a file through a temporary file in the same
// directory, fsynced and renamed into place, so that name never holds a
// partial archive.
func writeFileAtomic(name string, write func(io.Writer) error) (err error) {
	f, err := os.CreateTemp(filepath.Dir(name), "."+filepath.Base(name)+".tmp-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	if err := write(f); err != nil {
		return err
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	if err := os.Chmod(f.Name(), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	if err := os.Rename(f.Name(), name); err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	return nil
}
