package archive

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/klauspost/compress/zstd"

	"github.com/vaultgraph/vaultgraph/format"
	"github.com/vaultgraph/vaultgraph/snapshot"
)

// The tests in this file check that Import's reading and writing stay
// bounded by the archive's manifest, whatever follows it: they count the
// bytes Import pulls from its reader, so a check that comes only after
// extracting (or never) fails them.

// readBuffer is what Import may read ahead of the tar reader: the bufio
// buffer in decompress.
const readBuffer = 64 << 10

// countingReader counts the bytes read from r.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// craftedTar is a hand-made archive that records where the header of the
// entry marked bad ends.
type craftedTar struct {
	buf    bytes.Buffer
	tw     *tar.Writer
	badEnd int64
}

func newCraftedTar() *craftedTar {
	c := &craftedTar{}
	c.tw = tar.NewWriter(&c.buf)
	return c
}

// add writes hdr and body (for a regular file, hdr.Size is set from body
// unless already set, so a header may claim more than body holds).
func (c *craftedTar) add(t *testing.T, hdr *tar.Header, body []byte, bad bool) {
	t.Helper()
	if hdr.Mode == 0 {
		hdr.Mode = 0o644
	}
	if hdr.Typeflag == 0 {
		hdr.Typeflag = tar.TypeReg
	}
	if hdr.Typeflag == tar.TypeReg && hdr.Size == 0 {
		hdr.Size = int64(len(body))
	}
	if err := c.tw.WriteHeader(hdr); err != nil {
		t.Fatal(err)
	}
	if bad {
		c.badEnd = int64(c.buf.Len())
	}
	if _, err := c.tw.Write(body); err != nil {
		t.Fatal(err)
	}
}

// raw appends blocks written by hand, after the entries so far.
func (c *craftedTar) raw(t *testing.T, blocks []byte) {
	t.Helper()
	if err := c.tw.Flush(); err != nil {
		t.Fatal(err)
	}
	c.buf.Write(blocks)
}

// paxHeader returns a PAX extended header entry with the given records,
// which tar.Writer refuses to write for GNU sparse keys.
func paxHeader(t *testing.T, records [][2]string) []byte {
	t.Helper()
	var data strings.Builder
	for _, r := range records {
		rest := " " + r[0] + "=" + r[1] + "\n"
		n := len(rest)
		for len(strconv.Itoa(n))+len(rest) != n {
			n = len(strconv.Itoa(n)) + len(rest)
		}
		data.WriteString(strconv.Itoa(n) + rest)
	}
	var b bytes.Buffer
	tw := tar.NewWriter(&b)
	if err := tw.WriteHeader(&tar.Header{Name: "PaxHeader", Typeflag: tar.TypeReg, Mode: 0o644, Size: int64(data.Len()), Format: tar.FormatUSTAR}); err != nil {
		t.Fatal(err)
	}
	tw.Write([]byte(data.String()))
	tw.Flush()
	blk := b.Bytes()
	blk[156] = tar.TypeXHeader
	copy(blk[148:156], "        ")
	sum := 0
	for _, c := range blk[:512] {
		sum += int(c)
	}
	copy(blk[148:156], fmt.Sprintf("%06o\x00 ", sum))
	return blk
}

func (c *craftedTar) bytes(t *testing.T) []byte {
	t.Helper()
	if err := c.tw.Close(); err != nil {
		t.Fatal(err)
	}
	return c.buf.Bytes()
}

// TestImportRefusesOnTheHeader crafts archives whose bad entry is followed
// by 4 MiB of data, and checks that Import refuses each one having read no
// further than the bad entry's header plus one read buffer: it never
// reads, let alone writes, the entry's bytes.
func TestImportRefusesOnTheHeader(t *testing.T) {
	src := publish(t, t.TempDir())
	entries := entriesOf(t, src)
	id := src.ID
	declared := src.Manifest.Files["graph/db"].Size
	big := bytes.Repeat([]byte("A"), 4<<20)
	cases := []struct {
		name string
		bad  func(c *craftedTar)
		msg  string
	}{
		{"larger than declared", func(c *craftedTar) {
			c.add(t, &tar.Header{Name: id + "/graph/db"}, big, true)
		}, fmt.Sprintf("graph/db is %d bytes in the archive, the manifest declares %d", len(big), declared)},
		{"undeclared", func(c *craftedTar) {
			c.add(t, &tar.Header{Name: id + "/graph/extra"}, big, true)
		}, fmt.Sprintf("graph/extra (%d bytes) is not in the manifest", len(big))},
		{"duplicate", func(c *craftedTar) {
			c.add(t, &tar.Header{Name: entries[1].name}, entries[1].body, false)
			c.add(t, &tar.Header{Name: entries[1].name, Size: int64(len(big))}, big, true)
		}, "appears twice"},
		{"path traversal", func(c *craftedTar) {
			c.add(t, &tar.Header{Name: id + "/../" + id + "-evil/x"}, big, true)
		}, "is not a file of snapshot " + id},
		{"symlink", func(c *craftedTar) {
			c.add(t, &tar.Header{Name: id + "/graph/db", Typeflag: tar.TypeSymlink, Linkname: "/etc/passwd"}, nil, true)
			c.add(t, &tar.Header{Name: id + "/graph/later"}, big, false)
		}, `"` + id + `/graph/db" is not a regular file (a symbolic link to "/etc/passwd")`},
		{"hard link", func(c *craftedTar) {
			c.add(t, &tar.Header{Name: id + "/graph/db", Typeflag: tar.TypeLink, Linkname: id + "/empty"}, nil, true)
			c.add(t, &tar.Header{Name: id + "/graph/later"}, big, false)
		}, "a hard link"},
		{"device", func(c *craftedTar) {
			c.add(t, &tar.Header{Name: id + "/graph/db", Typeflag: tar.TypeChar, Devmajor: 1, Devminor: 3}, nil, true)
			c.add(t, &tar.Header{Name: id + "/graph/later"}, big, false)
		}, "a device"},
		{"sparse", func(c *craftedTar) {
			// A PAX sparse entry (GNU format 0.1): 10 bytes in the archive
			// that the tar reader expands to the declared size.
			c.raw(t, paxHeader(t, [][2]string{
				{"GNU.sparse.major", "0"}, {"GNU.sparse.minor", "1"}, {"GNU.sparse.numblocks", "1"}, {"GNU.sparse.map", "0,10"},
				{"GNU.sparse.realsize", fmt.Sprint(declared)},
			}))
			c.add(t, &tar.Header{Name: id + "/graph/db", Format: tar.FormatUSTAR}, []byte("0123456789"), true)
			c.add(t, &tar.Header{Name: id + "/graph/later"}, big, false)
		}, "a sparse file"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := newCraftedTar()
			c.add(t, &tar.Header{Name: entries[0].name}, entries[0].body, false) // the manifest
			tc.bad(c)
			archive := c.bytes(t)
			data := t.TempDir()
			publish(t, data)
			before := tree(t, data)
			in := &countingReader{r: bytes.NewReader(archive)}
			_, err := Import(context.Background(), in, data, ImportOptions{})
			if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("Import = %v, want ErrCorrupt saying %q", err, tc.msg)
			}
			if limit := c.badEnd + readBuffer; in.n > limit {
				t.Errorf("Import read %d bytes before refusing; the bad header ends at %d, so at most %d", in.n, c.badEnd, limit)
			}
			if after := tree(t, data); !slices.Equal(before, after) {
				t.Errorf("the data directory changed:\nbefore %v\nafter  %v", before, after)
			}
		})
	}
}

// TestImportWritesNoMoreThanDeclared feeds an entry whose header matches
// the manifest but whose bytes do not: what lands on disk before the
// checksum fails is at most the declared size, and it is removed.
func TestImportWritesNoMoreThanDeclared(t *testing.T) {
	src := publish(t, t.TempDir())
	entries := entriesOf(t, src)
	c := newCraftedTar()
	for _, e := range entries {
		body := e.body
		if strings.HasSuffix(e.name, "/graph/db") {
			body = bytes.Repeat([]byte("B"), len(body))
		}
		c.add(t, &tar.Header{Name: e.name}, body, false)
	}
	data := t.TempDir()
	_, err := Import(context.Background(), bytes.NewReader(c.bytes(t)), data, ImportOptions{})
	if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "graph/db: sha256 mismatch") {
		t.Fatalf("Import = %v, want a sha256 mismatch in graph/db", err)
	}
	if des, _ := os.ReadDir(snapshot.SnapshotsDir(data)); len(des) != 0 {
		t.Errorf("a refused import left %v", des)
	}
}

// repeatReader yields its bytes n times over, counting what was read.
type repeatReader struct {
	head  []byte
	chunk []byte
	times int
	off   int
	n     int64
}

func (r *repeatReader) Read(p []byte) (int, error) {
	if len(r.head) > 0 {
		n := copy(p, r.head)
		r.head = r.head[n:]
		r.n += int64(n)
		return n, nil
	}
	if r.times == 0 {
		return 0, io.EOF
	}
	n := copy(p, r.chunk[r.off:])
	r.off += n
	if r.off == len(r.chunk) {
		r.off = 0
		r.times--
	}
	r.n += int64(n)
	return n, nil
}

// TestImportZstdBomb streams a gigabyte of tar directory entries — which
// the tar reader hands over one by one and Import skips, writing nothing —
// compressed to a few hundred kilobytes a frame, before and after a valid
// manifest. Import must stop once the entries exceed what the manifest
// accounts for, long before the end of the stream.
func TestImportZstdBomb(t *testing.T) {
	src := publish(t, t.TempDir())
	entries := entriesOf(t, src)
	enc, err := zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1))
	if err != nil {
		t.Fatal(err)
	}
	// One MiB of directory entries with random names, so that the frame
	// does not compress to nothing and counting frames read means
	// something.
	dirs := newCraftedTar()
	for range (1 << 20) / 512 {
		dirs.add(t, &tar.Header{Name: src.ID + "/" + hex.EncodeToString(randomBytes(t, 20)) + "/", Typeflag: tar.TypeDir, Mode: 0o755}, nil, false)
	}
	if err := dirs.tw.Flush(); err != nil {
		t.Fatal(err)
	}
	if dirs.buf.Len() != 1<<20 {
		t.Fatalf("bomb chunk is %d bytes", dirs.buf.Len())
	}
	bomb := enc.EncodeAll(dirs.buf.Bytes(), nil)
	manifest := newCraftedTar()
	manifest.add(t, &tar.Header{Name: entries[0].name}, entries[0].body, false)
	if err := manifest.tw.Flush(); err != nil {
		t.Fatal(err)
	}
	const frames = 1024 // a GiB of entries
	for _, tc := range []struct {
		name string
		head []byte
		msg  string
	}{
		{"after the manifest", enc.EncodeAll(manifest.buf.Bytes(), nil), "holds more than its manifest declares"},
		{"before the manifest", nil, "no manifest.json in the first"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := t.TempDir()
			in := &repeatReader{head: tc.head, chunk: bomb, times: frames}
			_, err := Import(context.Background(), in, data, ImportOptions{})
			if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("Import = %v, want ErrCorrupt saying %q", err, tc.msg)
			}
			// The manifest allows about 1 MiB of tar data past the files:
			// two frames, a third begun, and the read buffer.
			if limit := int64(len(tc.head)+readBuffer) + 3*int64(len(bomb)); in.n > limit {
				t.Errorf("Import read %d compressed bytes (%d frames of %d bytes) before refusing, want at most %d",
					in.n, in.n/int64(len(bomb)), len(bomb), limit)
			}
			if des, _ := os.ReadDir(snapshot.SnapshotsDir(data)); len(des) != 0 {
				t.Errorf("a refused import left %v", des)
			}
		})
	}
}

func randomBytes(t *testing.T, n int) []byte {
	t.Helper()
	b := make([]byte, n)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return b
}

// TestImportZstdWindow refuses a zstd frame asking for a 1 GiB window
// before allocating it.
func TestImportZstdWindow(t *testing.T) {
	// Magic, a frame header without content size whose window descriptor
	// says 2^30 bytes, and one empty last raw block.
	frame := []byte{0x28, 0xb5, 0x2f, 0xfd, 0x00, 20 << 3, 0x01, 0x00, 0x00}
	_, err := Import(context.Background(), bytes.NewReader(frame), t.TempDir(), ImportOptions{})
	if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "window over the 64 MiB") {
		t.Fatalf("Import = %v, want a refused zstd window", err)
	}
	frame[5] = 10 << 3 // 1 MiB: decodes (to an empty, manifest-less archive)
	if _, err := Import(context.Background(), bytes.NewReader(frame), t.TempDir(), ImportOptions{}); err == nil || strings.Contains(err.Error(), "window") {
		t.Fatalf("Import of a 1 MiB window = %v, want only a missing manifest", err)
	}
}

// TestImportManifestBounds refuses a manifest entry over maxManifestBytes
// without reading it, and a manifest whose sizes add up past any disk.
func TestImportManifestBounds(t *testing.T) {
	src := publish(t, t.TempDir())
	entries := entriesOf(t, src)
	t.Run("manifest too large", func(t *testing.T) {
		var buf bytes.Buffer
		tw := tar.NewWriter(&buf)
		tw.WriteHeader(&tar.Header{Name: entries[0].name, Typeflag: tar.TypeReg, Mode: 0o644, Size: maxManifestBytes + 1})
		buf.Write(bytes.Repeat([]byte{' '}, 4<<20))
		in := &countingReader{r: &buf}
		_, err := Import(context.Background(), in, t.TempDir(), ImportOptions{})
		if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "over the 268435456-byte limit") {
			t.Fatalf("Import = %v", err)
		}
		if in.n > 512+readBuffer {
			t.Errorf("read %d bytes of an oversized manifest", in.n)
		}
	})
	withSizes := func(t *testing.T, sizes map[string]int64) []byte {
		t.Helper()
		m, err := format.DecodeManifest(entries[0].body)
		if err != nil {
			t.Fatal(err)
		}
		for name, size := range sizes {
			fi := m.Files[name]
			fi.Size = size
			m.Files[name] = fi
		}
		raw, err := m.Encode()
		if err != nil {
			t.Fatal(err)
		}
		out := append([]tarEntry{{name: entries[0].name, body: raw}}, entries[1:]...)
		return makeTar(out)
	}
	for _, tc := range []struct {
		name  string
		sizes map[string]int64
		want  error
		msg   string
	}{
		{"more than the disk holds", map[string]int64{"graph/db": 1 << 58}, ErrNoSpace, "needs 288230376151"},
		{"sizes past int64", map[string]int64{"graph/db": 1 << 59, "empty": 1 << 59, format.NotesFile: 1 << 59}, ErrCorrupt, "declares more than"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := t.TempDir()
			publish(t, data)
			before := tree(t, data)
			_, err := Import(context.Background(), bytes.NewReader(withSizes(t, tc.sizes)), data, ImportOptions{})
			if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.msg) {
				t.Fatalf("Import = %v, want %v saying %q", err, tc.want, tc.msg)
			}
			if after := tree(t, data); !slices.Equal(before, after) {
				t.Errorf("the data directory changed:\nbefore %v\nafter  %v", before, after)
			}
		})
	}
}

// TestImportLongNames round-trips a snapshot of many files with names
// long enough to need PAX headers, more of them than streamSlack alone
// would cover: the bound on tar data must never refuse what Export
// writes.
func TestImportLongNames(t *testing.T) {
	w, err := snapshot.Create(t.TempDir(), format.NewSnapshotID(time.Now(), ""))
	if err != nil {
		t.Fatal(err)
	}
	var long []string
	for i := range 14 {
		long = append(long, fmt.Sprintf("%02d-%s", i, strings.Repeat("x", 237)))
	}
	dir := filepath.Join(append([]string{w.Dir()}, long...)...)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	const files = 300
	for i := range files {
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("file-%04d", i)), []byte{byte(i)}, 0o644)
	}
	p, err := w.Publish(&format.Manifest{Created: time.Now().UTC()})
	if err != nil {
		t.Fatal(err)
	}
	s, err := snapshot.Open(p, snapshot.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	archive := export(t, s, Zstd)
	res, err := Import(context.Background(), bytes.NewReader(archive), t.TempDir(), ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Files != files+1 {
		t.Errorf("imported %d files, want %d", res.Files, files+1)
	}
}
