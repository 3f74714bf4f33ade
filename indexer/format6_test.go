package indexer

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cespare/xxhash/v2"
	"github.com/parquet-go/parquet-go"

	"github.com/vaultgraph/vaultgraph/format"
	"github.com/vaultgraph/vaultgraph/indexer/note"
	"github.com/vaultgraph/vaultgraph/indexer/vaultgen"
	"github.com/vaultgraph/vaultgraph/snapshot"
)

// format6Chunk is a row of a format 6 chunks table: format.Chunk's columns
// and the context.
type format6Chunk struct {
	ID         string `parquet:"id,plain"`
	Note       string `parquet:"note,plain"`
	Ordinal    int32  `parquet:"ordinal"`
	Heading    string `parquet:"heading,optional,plain"`
	Start      int32  `parquet:"start_byte"`
	End        int32  `parquet:"end_byte"`
	Line       int32  `parquet:"line"`
	Context    string `parquet:"context,plain"`
	TextSHA256 string `parquet:"text_sha256,plain"`
}

// asFormat6 turns the snapshot in dir into one as a format 6 build wrote
// it: chunks segments with a context column, format_version 6, the
// manifest's file sums to match.
func asFormat6(t *testing.T, dir string) {
	t.Helper()
	s := openSnap(t, dir)
	notes, err := s.Notes()
	must(t, err)
	byID := map[string]*format.Note{}
	for i := range notes {
		byID[notes[i].ID] = &notes[i]
	}
	m := s.Manifest
	for _, seg := range m.Tables[format.ChunksTable] {
		path := filepath.Join(dir, seg.File)
		rows, err := parquet.ReadFile[format.Chunk](path)
		must(t, err)
		old := make([]format6Chunk, len(rows))
		for i, c := range rows {
			old[i] = format6Chunk{ID: c.ID, Note: c.Note, Ordinal: c.Ordinal, Heading: c.Heading, Start: c.Start, End: c.End, Line: c.Line,
				Context: note.ChunkContext(note.NoteContext(byID[c.Note]), c.Heading), TextSHA256: c.TextSHA256}
		}
		must(t, os.Remove(path))
		must(t, snapshot.WriteTable(path, old))
		raw, err := os.ReadFile(path)
		must(t, err)
		sum := sha256.Sum256(raw)
		m.Files[seg.File] = format.FileInfo{Size: int64(len(raw)), SHA256: hex.EncodeToString(sum[:]),
			XXH64: fmt.Sprintf("%016x", xxhash.Sum64(raw))}
	}
	m.FormatVersion = 6
	b, err := m.Encode()
	must(t, err)
	must(t, os.WriteFile(filepath.Join(dir, format.ManifestFile), b, 0o644))
}

// TestAFormat6ParentIsReadAndRewritten: a format 6 snapshot, whose chunks
// segments hold a context column, still opens and reads, and its rows are
// reused by the next run, which writes every segment of the new snapshot
// in format 7 (no segment of another layout is linked into it) and gives
// the tables a full build gives.
func TestAFormat6ParentIsReadAndRewritten(t *testing.T) {
	vault := t.TempDir()
	if _, err := vaultgen.Generate(vault, vaultgen.Config{Notes: 800, Seed: 5}); err != nil {
		t.Fatal(err)
	}
	data := t.TempDir()
	first := run(t, vault, data)
	asFormat6(t, first.Dir)
	parent := openSnap(t, first.Dir)
	if parent.Manifest.FormatVersion != 6 || len(parent.Manifest.Tables[format.ChunksTable]) < 2 {
		t.Fatalf("parent: format %d, %d chunks segments", parent.Manifest.FormatVersion, len(parent.Manifest.Tables[format.ChunksTable]))
	}
	if chunks, err := parent.Chunks(); err != nil || len(chunks) != parent.Manifest.Counts.Chunks {
		t.Fatalf("format 6 chunks: %d, %v", len(chunks), err)
	}

	edited, err := vaultgen.Edit(vault, 7, 1)
	if err != nil || len(edited) != 1 {
		t.Fatalf("edit: %v %v", edited, err)
	}
	res := run(t, vault, data)
	if res.Parent != first.ID || res.Parsed != 1 || res.Reused == 0 {
		t.Fatalf("run on the format 6 parent: %+v", res)
	}
	second := openSnap(t, res.Dir)
	for _, table := range format.SegmentedTables {
		for _, s := range second.Manifest.Tables[table] {
			a, err := os.Stat(filepath.Join(second.Dir, s.File))
			must(t, err)
			if b, err := os.Stat(filepath.Join(parent.Dir, s.File)); err == nil && os.SameFile(a, b) {
				t.Errorf("%s is the format 6 parent's file", s.File)
			}
		}
	}
	for _, s := range second.Manifest.Tables[format.ChunksTable] {
		f, err := os.Open(filepath.Join(second.Dir, s.File))
		must(t, err)
		fi, err := f.Stat()
		must(t, err)
		pf, err := parquet.OpenFile(f, fi.Size())
		must(t, err)
		if slices.ContainsFunc(pf.Schema().Columns(), func(c []string) bool { return strings.Join(c, ".") == "context" }) {
			t.Errorf("%s has a context column", s.File)
		}
		f.Close()
	}
	full := openSnap(t, run(t, vault, t.TempDir(), func(o *Options) { o.Full = true }).Dir)
	assertSameTables(t, second, full)
	for _, table := range format.SegmentedTables {
		if a, b := second.Manifest.Tables[table], full.Manifest.Tables[table]; !slices.Equal(a, b) {
			t.Errorf("%s: the segments differ from a full build's:\n%v\n%v", table, a, b)
		}
	}
}
