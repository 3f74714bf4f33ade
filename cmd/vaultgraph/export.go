package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"
	"golang.org/x/term"

	"github.com/vaultgraph/vaultgraph/snapshot/archive"
)

func exportCommand() *cli.Command {
	return &cli.Command{
		Name:      "export",
		Usage:     "write a snapshot (the newest that passes its checks by default) as a tar archive, to stdout or a file",
		ArgsUsage: "[ID | PATH]",
		Description: `The archive holds manifest.json first, then every file of the snapshot, each
checked against the manifest as it is written. Import it on another machine
with vaultgraph snapshot import. -o writes the file atomically, compressed
as its name says: .zst (.tar.zst) zstd, .tar none; export writes no gzip, so
a .gz name is refused (pipe the archive through gzip instead), and so is
--compress contradicting the name. Prints the bytes written.

--base ID (usually the snapshot's parent, which the other machine already
has) writes a delta: every file the base lists with the same size and sha256
is left out, and import takes it from the base there, refusing a delta whose
base it does not have and naming it. A one-note edit's delta on its parent is
a few percent of a full archive.`,
		Flags: append([]cli.Flag{
			optionalDataFlag(),
			&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write the archive to this file instead of stdout"},
			&cli.StringFlag{Name: "compress", Usage: "none or zstd (default: as the -o name says, else none)"},
			&cli.StringFlag{Name: "base", Usage: "write a delta on this snapshot (ID or PATH, e.g. the parent): files it has unchanged are left out"},
		}, formatFlags()...),
		Before: takesArgs(0, 1, ""),
		Action: runExport,
	}
}

func runExport(c *cli.Context) error {
	out := c.String("output")
	if out == "-" {
		out = ""
	}
	compression, err := exportCompression(out, c.String("compress"))
	if err != nil {
		return err
	}
	data := c.String("data")
	log := logger(c)
	e, err := readRef(log, data, c.Args().First())
	if err != nil {
		return err
	}
	defer leaseIfInData(log, data, e)()
	opts := archive.ExportOptions{Compression: compression}
	if ref := c.String("base"); ref != "" {
		base, err := resolveRef(data, ref)
		if err != nil {
			return err
		}
		if base.ID == e.ID {
			return usageErrorf("--base %s is the snapshot being exported; a delta is written on another snapshot (usually its parent): export it without --base, or name the base the other machine has", ref)
		}
		defer leaseIfInData(log, data, base)()
		opts.Base = base.Dir
	}
	if out == "" {
		if f, ok := rawWriter(c.App.Writer).(*os.File); ok && isTerminal(f) {
			return usageError(errors.New("refusing to write an archive to a terminal: redirect stdout or use -o FILE"))
		}
		w := &countingWriter{w: rawWriter(c.App.Writer)}
		res, err := archive.Export(c.Context, w, e.Dir, opts)
		if err != nil {
			return err
		}
		// The archive is on stdout: the summary, JSON or not, goes to stderr.
		if jsonOutput(c) {
			return writeJSON(c.App.ErrWriter, exportJSON(res, "", w.n, compression))
		}
		fmt.Fprintf(c.App.ErrWriter, "exported %s%s (%s, %d bytes) as %s\n", res.ID, deltaNote(res), plural(res.Files, "file"), res.Bytes, archiveSize(w.n, string(compression)))
		return nil
	}
	var res *archive.ExportResult
	var written int64
	err = writeFileAtomic(out, 0o644, func(w io.Writer) error {
		cw := &countingWriter{w: w}
		var err error
		res, err = archive.Export(c.Context, cw, e.Dir, opts)
		written = cw.n
		return err
	})
	if err != nil {
		return err
	}
	if jsonOutput(c) {
		return writeJSON(c.App.Writer, exportJSON(res, out, written, compression))
	}
	// "exported ID " first: scripts read the id (ci/snapshot-diff.sh).
	fmt.Fprintf(c.App.Writer, "exported %s%s to %s (%s, %d bytes) as %s\n", res.ID, deltaNote(res), out, plural(res.Files, "file"), res.Bytes, archiveSize(written, string(compression)))
	return nil
}

// deltaNote says what a delta export left out: " as a delta on BASE
// (N files, B bytes left out)"; "" for a full export.
func deltaNote(res *archive.ExportResult) string {
	if res.Base == "" {
		return ""
	}
	note := fmt.Sprintf(" as a delta on %s (%s, %d bytes, left out", res.Base, plural(res.Omitted, "file"), res.OmittedBytes)
	if res.Patched > 0 {
		note += fmt.Sprintf("; %s as patches of %d bytes", plural(res.Patched, "file"), res.PatchBytes)
	}
	return note + ")"
}

// archiveJSON is what export and import print with --json.
type archiveJSON struct {
	Snapshot string `json:"snapshot"`
	// File is the archive written (export -o) or read (import FILE); ""
	// for stdout or stdin.
	File  string `json:"file,omitempty"`
	Files int    `json:"files"`
	// Bytes are the snapshot's files' bytes, ArchiveBytes the archive's.
	Bytes        int64  `json:"bytes"`
	ArchiveBytes int64  `json:"archive_bytes"`
	Compression  string `json:"compression"`
	// Import only: Present is an archive of a snapshot already there
	// (nothing was written); Dir is where the snapshot is; Newest is the
	// data directory's newest snapshot when it is another.
	Present bool   `json:"already_imported,omitempty"`
	Dir     string `json:"dir,omitempty"`
	Newest  string `json:"newest,omitempty"`
	// A delta only: its base and the files it left out (import: took
	// from the base).
	Base         string `json:"base,omitempty"`
	Omitted      int    `json:"omitted,omitempty"`
	OmittedBytes int64  `json:"omitted_bytes,omitempty"`
	// Patched files travel as patches of the base's file of that name,
	// of PatchBytes bytes in all.
	Patched    int   `json:"patched,omitempty"`
	PatchBytes int64 `json:"patch_bytes,omitempty"`
}

func exportJSON(res *archive.ExportResult, file string, written int64, c archive.Compression) archiveJSON {
	comp := string(c)
	if comp == "" {
		comp = string(archive.None)
	}
	return archiveJSON{Snapshot: res.ID, File: file, Files: res.Files, Bytes: res.Bytes, ArchiveBytes: written, Compression: comp,
		Base: res.Base, Omitted: res.Omitted, OmittedBytes: res.OmittedBytes, Patched: res.Patched, PatchBytes: res.PatchBytes}
}

// archiveSize says how many bytes of archive, of which compression, were
// written or read: "1234 bytes of zstd", "5120 bytes of plain tar".
func archiveSize(n int64, compression string) string {
	if compression == "" || compression == string(archive.None) {
		compression = "plain tar"
	}
	return fmt.Sprintf("%d bytes of %s", n, compression)
}

// compressionSuffixes map the endings of an archive's file name to the
// compression they promise: archive.Compression, or "" for one export
// does not write.
var compressionSuffixes = []struct {
	suffix, compression string
}{
	{".tar.zst", string(archive.Zstd)}, {".tar.zstd", string(archive.Zstd)}, {".tzst", string(archive.Zstd)},
	{".zst", string(archive.Zstd)}, {".zstd", string(archive.Zstd)},
	{".tar", string(archive.None)},
	{".gz", "gzip"}, {".tgz", "gzip"}, {".gzip", "gzip"}, {".xz", "xz"}, {".txz", "xz"},
	{".bz2", "bzip2"}, {".tbz2", "bzip2"}, {".lz4", "lz4"}, {".zip", "zip"},
}

// exportCompression is the compression of an archive written to out (""
// for stdout): --compress, else what out's name says, else none. A name
// promising a compression export does not write (.gz) is refused, and so
// is --compress contradicting the name: either would leave an archive
// under a name that lies about its contents.
func exportCompression(out, flag string) (archive.Compression, error) {
	byName := ""
	lower := strings.ToLower(out)
	for _, s := range compressionSuffixes {
		if strings.HasSuffix(lower, s.suffix) {
			byName = s.compression
			break
		}
	}
	if byName != "" && byName != string(archive.None) && byName != string(archive.Zstd) {
		return "", usageErrorf("-o %s: the name says %s, but export writes plain tar or zstd: name it %s (zstd) or %s, or pipe the archive: vaultgraph snapshot export … | %s > %s",
			out, byName, trimArchiveSuffix(out)+".tar.zst", trimArchiveSuffix(out)+".tar", byName, out)
	}
	if flag == "" {
		return archive.ParseCompression(byName)
	}
	c, err := archive.ParseCompression(flag)
	if err != nil {
		return "", usageError(err)
	}
	if byName != "" && string(c) != byName {
		return "", usageErrorf("--compress %s with -o %s: the name says %s; name the file for its compression, or leave --compress out", flag, out, archiveKind(byName))
	}
	return c, nil
}

// trimArchiveSuffix is name without its compression ending and ".tar".
func trimArchiveSuffix(name string) string {
	name = strings.TrimSuffix(name, filepath.Ext(name))
	if strings.EqualFold(filepath.Ext(name), ".tar") {
		name = name[:len(name)-len(".tar")]
	}
	return name
}

func archiveKind(compression string) string {
	if compression == string(archive.None) {
		return "plain tar"
	}
	return compression
}

// countingWriter counts the bytes written through it.
type countingWriter struct {
	w io.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// isTerminal reports whether f is a terminal. A character device is not
// one by itself: /dev/null is one too (review5 F16).
func isTerminal(f *os.File) bool { return term.IsTerminal(int(f.Fd())) }

// writeFileAtomic writes a file of mode perm through a temporary file in
// the same directory, fsynced and renamed into place, so that name never
// holds a partial archive.
func writeFileAtomic(name string, perm os.FileMode, write func(io.Writer) error) (err error) {
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
	if err := os.Chmod(f.Name(), perm); err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	if err := os.Rename(f.Name(), name); err != nil {
		return fmt.Errorf("write %s: %w", name, err)
	}
	return nil
}
