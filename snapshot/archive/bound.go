package archive

import (
	"fmt"
	"io"
	"path"

	"github.com/vaultgraph/vaultgraph/format"
)

// Bounds on what Import reads from the (decompressed) tar stream beyond the
// bytes of the files the manifest declares. A legitimate archive stays far
// below them; they exist so that an archive which keeps going without
// ever handing Import a file to write (a zstd bomb of directory entries,
// which Import skips, or of PAX headers, which the tar reader consumes
// without returning) ends with an error instead of being read forever.
const (
	// entryOverhead is the most tar data one entry needs besides its file
	// bytes: a header block, a PAX header for a long name (names are at
	// most 4096 bytes after the id, see validRel) and the padding to a
	// 512-byte block.
	entryOverhead = 8 << 10
	// streamSlack covers everything else: the end-of-archive blocks and
	// the few metadata entries other tar writers add (a PAX global header,
	// directory entries before the manifest).
	streamSlack = 1 << 20
)

// boundedReader passes on at most a budget of bytes and fails every read
// past it, so a tar reader on top of it can consume only what Import has
// allowed so far. The budget grows as the archive's manifest declares
// what follows. Not safe for concurrent use.
type boundedReader struct {
	r    io.Reader
	left int64 // bytes that may still be read
	read int64 // bytes read so far
	// over describes what the budget stands for, for the error.
	over func(read int64) error
}

// allow adds n bytes to the budget; over describes a read past it.
func (b *boundedReader) allow(n int64, over func(read int64) error) {
	b.left += n
	b.over = over
}

func (b *boundedReader) Read(p []byte) (int, error) {
	if b.left <= 0 {
		return 0, b.over(b.read)
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.r.Read(p)
	b.left -= int64(n)
	b.read += int64(n)
	return n, err
}

// blockPadded rounds n up to whole 512-byte tar blocks.
func blockPadded(n int64) int64 { return (n + 511) &^ 511 }

// declaredTotal sums the sizes the manifest declares, refusing a sum that
// does not fit in an int64 (no real snapshot comes near it).
func declaredTotal(m *format.Manifest) (int64, error) {
	var total int64
	for name, fi := range m.Files {
		if fi.Size > maxDeclaredBytes-total {
			return 0, fmt.Errorf("%w: the manifest declares more than %d bytes (at %s, %d bytes)", ErrCorrupt, int64(maxDeclaredBytes), name, fi.Size)
		}
		total += fi.Size
	}
	return total, nil
}

// maxDeclaredBytes caps a manifest's declared total well below the int64
// limit, so that sums with tar overheads cannot overflow.
const maxDeclaredBytes = 1 << 60

// allowFiles lets stream, positioned after the manifest, read what the
// manifest's files need (streamAllowance) and no more.
func allowFiles(stream *boundedReader, m *format.Manifest, total int64) {
	start := stream.read
	stream.allow(streamAllowance(m, total), func(read int64) error {
		return fmt.Errorf("%w: the archive holds more than its manifest declares: over %d bytes of tar data after %s, for %d files of %d bytes in all (it was altered, or not written by vaultgraph snapshot export)",
			ErrCorrupt, read-start, format.ManifestFile, len(m.Files), total)
	})
}

// streamAllowance is how many bytes of tar data may follow the manifest:
// every declared file's bytes, padding and headers, a directory entry for
// each folder the files are in, and streamSlack.
func streamAllowance(m *format.Manifest, total int64) int64 {
	dirs := map[string]bool{}
	for name := range m.Files {
		for d := path.Dir(name); d != "." && !dirs[d]; d = path.Dir(d) {
			dirs[d] = true
		}
	}
	entries := int64(len(m.Files) + len(dirs) + 1) // +1: the snapshot's own directory
	return total + entries*entryOverhead + streamSlack
}
