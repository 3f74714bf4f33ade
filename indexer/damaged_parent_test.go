package indexer

import (
	"bytes"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/vaultgraph/vaultgraph/format"
	"github.com/vaultgraph/vaultgraph/indexer/vaultgen"
	"github.com/vaultgraph/vaultgraph/snapshot"
	"github.com/vaultgraph/vaultgraph/snapshot/vectors"
)

// damage flips one byte in the middle of path, in place (as a bad disk
// would: every hard link to it sees the change).
func damage(t *testing.T, path string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	must(t, err)
	defer f.Close()
	fi, err := f.Stat()
	must(t, err)
	b := make([]byte, 1)
	off := fi.Size() / 2
	_, err = f.ReadAt(b, off)
	must(t, err)
	b[0] ^= 0xff
	_, err = f.WriteAt(b, off)
	must(t, err)
}

// assertVerifies fails unless the snapshot in dir passes snapshot.Verify.
func assertVerifies(t *testing.T, dir string) {
	t.Helper()
	_, problems, err := snapshot.Verify(dir)
	if err != nil || len(problems) > 0 {
		t.Fatalf("verify %s: %v %v", filepath.Base(dir), problems, err)
	}
}

// sameInode reports whether a and b are the same file (a hard link).
func sameInode(t *testing.T, a, b string) bool {
	t.Helper()
	fa, err := os.Stat(a)
	must(t, err)
	fb, err := os.Stat(b)
	if os.IsNotExist(err) {
		return false
	}
	must(t, err)
	return os.SameFile(fa, fb)
}

// TestADamagedParentSegmentIsNotLinked: a segment of the parent snapshot
// damaged on disk is not hard-linked into the next snapshot (which would
// publish it with the parent's checksums, failing its own verify): an
// incremental run writes it from its own rows and warns naming it, and a
// --full run links nothing from the parent at all.
func TestADamagedParentSegmentIsNotLinked(t *testing.T) {
	vault := t.TempDir()
	if _, err := vaultgen.Generate(vault, vaultgen.Config{Notes: 1200, Seed: 5}); err != nil {
		t.Fatal(err)
	}
	data := t.TempDir()
	parent := openSnap(t, run(t, vault, data).Dir)
	segs := parent.Manifest.Tables[format.NotesTable]
	if len(segs) < 3 {
		t.Fatalf("1,200 notes in %d segments", len(segs))
	}
	notes, err := parent.Notes()
	must(t, err)
	var edit string
	for _, n := range notes {
		if !n.Stub {
			edit = n.Path
			break
		}
	}
	editSeg := segmentOf(t, parent, edit)
	bad := segs[(editSeg+1)%len(segs)].File
	damage(t, filepath.Join(parent.Dir, bad))

	appendTo := func(text string) {
		f, err := os.OpenFile(filepath.Join(vault, filepath.FromSlash(edit)), os.O_WRONLY|os.O_APPEND, 0)
		must(t, err)
		_, err = f.WriteString(text)
		must(t, err)
		must(t, f.Close())
	}
	var logged bytes.Buffer
	logTo := func(o *Options) { o.Log = slog.New(slog.NewTextHandler(&logged, nil)) }

	appendTo("\nOne more line.\n")
	child := run(t, vault, data, logTo)
	assertVerifies(t, child.Dir)
	if sameInode(t, filepath.Join(parent.Dir, bad), filepath.Join(child.Dir, bad)) {
		t.Errorf("%s: the damaged parent file was linked", bad)
	}
	if !strings.Contains(logged.String(), "damaged") || !strings.Contains(logged.String(), bad) {
		t.Errorf("no warning naming the damaged %s:\n%s", bad, logged.String())
	}
	c := openSnap(t, child.Dir)
	got, err := c.Notes()
	must(t, err)
	if len(got) != len(notes) {
		t.Errorf("the new snapshot reads %d notes, want %d", len(got), len(notes))
	}
	// The segments it did link are intact ones.
	linked := 0
	for _, table := range format.SegmentedTables {
		for _, s := range c.Manifest.Tables[table] {
			if sameInode(t, filepath.Join(c.Dir, s.File), filepath.Join(parent.Dir, s.File)) {
				linked++
			}
		}
	}
	if linked == 0 {
		t.Error("an incremental run linked no segment at all")
	}

	// --full: damage the new snapshot's copy, and link nothing.
	damage(t, filepath.Join(c.Dir, bad))
	appendTo("\nAnd another.\n")
	full := run(t, vault, data, func(o *Options) { o.Full = true })
	assertVerifies(t, full.Dir)
	for name := range openSnap(t, full.Dir).Manifest.Files {
		if sameInode(t, filepath.Join(full.Dir, filepath.FromSlash(name)), filepath.Join(c.Dir, filepath.FromSlash(name))) {
			t.Errorf("--full linked %s from the parent", name)
		}
	}
}

// TestADamagedParentVectorFileIsNotShared: the embed stage shares the
// parent's edge vectors and graph when no edge sentence changed; a damaged
// parent file is written afresh instead, and the snapshot verifies.
func TestADamagedParentVectorFileIsNotShared(t *testing.T) {
	vault := writeVault(t, embedVault)
	data := t.TempDir()
	st := stageFor(t, "lexical", nil, false)
	s1 := openSnap(t, mustRunStage(t, vault, data, st).Dir)
	damage(t, filepath.Join(s1.Dir, format.EdgeVectorsFile))

	bob := filepath.Join(vault, "People/Bob.md")
	must(t, os.WriteFile(bob, []byte(strings.Replace(embedVault["People/Bob.md"], "long walks in the hills", "sailing on the lake", 1)), 0o644))
	s2 := openSnap(t, mustRunStage(t, vault, data, st).Dir)
	assertVerifies(t, s2.Dir)
	for _, name := range []string{format.EdgeVectorsFile, format.EdgeHNSWFile} {
		if sameInode(t, filepath.Join(s1.Dir, name), filepath.Join(s2.Dir, name)) {
			t.Errorf("%s: the damaged parent's file was shared", name)
		}
	}
}

// TestADamagedParentVectorFileIsNotReused damages the parent's chunk
// vectors, then indexes an edit: every vector of the new snapshot is the
// one a fresh build of the same vault has, none carried from the damaged
// file, and the parent's damaged graph is not updated either.
func TestADamagedParentVectorFileIsNotReused(t *testing.T) {
	vault := writeVault(t, embedVault)
	data := t.TempDir()
	st := stageFor(t, "lexical", nil, false)
	s1 := openSnap(t, mustRunStage(t, vault, data, st).Dir)
	for _, name := range []string{format.ChunkVectorsFile, format.ChunkHNSWFile} {
		f, err := os.OpenFile(filepath.Join(s1.Dir, name), os.O_RDWR, 0)
		must(t, err)
		fi, err := f.Stat()
		must(t, err)
		// Every byte of the second half flipped: values, not only one.
		b := make([]byte, fi.Size()-fi.Size()/2)
		_, err = f.ReadAt(b, fi.Size()/2)
		must(t, err)
		for i := range b {
			b[i] ^= 0x5a
		}
		_, err = f.WriteAt(b, fi.Size()/2)
		must(t, err)
		f.Close()
	}

	bob := filepath.Join(vault, "People/Bob.md")
	must(t, os.WriteFile(bob, []byte(strings.Replace(embedVault["People/Bob.md"], "long walks in the hills", "sailing on the lake", 1)), 0o644))
	s2 := openSnap(t, mustRunStage(t, vault, data, st).Dir)
	assertVerifies(t, s2.Dir)
	fresh := openSnap(t, mustRunStage(t, vault, t.TempDir(), st).Dir)

	got, err := vectors.OpenFile(filepath.Join(s2.Dir, format.ChunkVectorsFile))
	must(t, err)
	defer got.Close()
	want, err := vectors.OpenFile(filepath.Join(fresh.Dir, format.ChunkVectorsFile))
	must(t, err)
	defer want.Close()
	if got.Len() != want.Len() || got.Len() == 0 {
		t.Fatalf("%d chunk vectors after the edit, %d in a fresh build", got.Len(), want.Len())
	}
	for i := 0; i < want.Len(); i++ {
		j, ok := got.Find(want.HashAt(i))
		if !ok {
			t.Errorf("row %d of the fresh build is missing after the edit", i)
			continue
		}
		if a, b := got.Vector(j, nil), want.Vector(i, nil); !slices.Equal(a, b) {
			t.Errorf("row %d: the vector after the edit differs from a fresh build's", i)
		}
	}
}
