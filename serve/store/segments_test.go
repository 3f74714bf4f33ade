package store

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	"github.com/vaultgraph/vaultgraph/format"
	"github.com/vaultgraph/vaultgraph/indexer"
	"github.com/vaultgraph/vaultgraph/indexer/vaultgen"
	"github.com/vaultgraph/vaultgraph/snapshot"
)

// TestSwapDecodesOnlyChangedSegments: after an edit of one note, the swap
// decodes only the segment files whose bytes changed and takes the rows of
// the others from the snapshot it served; the index it builds is the one
// a fresh load builds, and the snapshot it replaced still reads as it was.
func TestSwapDecodesOnlyChangedSegments(t *testing.T) {
	f := &fixture{t: t, vault: t.TempDir(), data: t.TempDir()}
	if _, err := vaultgen.Generate(f.vault, vaultgen.Config{Notes: 1200, Seed: 5}); err != nil {
		t.Fatal(err)
	}
	index := func() *snapshot.Snapshot {
		res, err := indexer.Run(context.Background(), indexer.Options{Vault: f.vault, Data: f.data})
		if err != nil || res.Unchanged {
			t.Fatalf("index: %+v %v", res, err)
		}
		s, err := snapshot.Open(res.Dir, snapshot.OpenOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	first := index()
	st := f.store(Options{})
	refresh(t, st)
	old, release := st.Acquire()
	defer release()
	segs := 0
	for _, table := range []string{format.NotesTable, format.EdgesTable, format.ChunksTable} {
		segs += len(first.Segments(table))
	}
	if old.Notes.Decoded != segs || old.Notes.Reused != 0 || segs < 6 {
		t.Fatalf("first load: %d decoded, %d reused of %d segments", old.Notes.Decoded, old.Notes.Reused, segs)
	}
	before := fmt.Sprint(old.Notes.notes, old.Notes.edges, old.Notes.chunks)

	if _, err := vaultgen.Edit(f.vault, 11, 1); err != nil {
		t.Fatal(err)
	}
	second := index()
	changed := 0
	for _, table := range []string{format.NotesTable, format.EdgesTable, format.ChunksTable} {
		was := map[string]bool{}
		for _, s := range first.Segments(table) {
			was[first.Manifest.Files[s.File].SHA256] = true
		}
		for _, s := range second.Segments(table) {
			if !was[second.Manifest.Files[s.File].SHA256] {
				changed++
			}
		}
	}
	if changed == 0 {
		t.Fatal("the edit changed no segment file")
	}
	if res := refresh(t, st); res.Current != second.ID {
		t.Fatalf("refresh: %+v", res)
	}
	now, release2 := st.Acquire()
	defer release2()
	if now.Notes.Decoded != changed || now.Notes.Reused+now.Notes.Decoded != segs {
		t.Errorf("swap: %d decoded, %d reused; %d of %d segment files changed", now.Notes.Decoded, now.Notes.Reused, changed, segs)
	}
	fresh, err := loadNotes(second, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(fresh.notes, now.Notes.notes) || !reflect.DeepEqual(fresh.edges, now.Notes.edges) ||
		!reflect.DeepEqual(fresh.chunks, now.Notes.chunks) || !reflect.DeepEqual(fresh.out, now.Notes.out) ||
		!reflect.DeepEqual(fresh.chunksOf, now.Notes.chunksOf) {
		t.Error("the swapped index differs from a fresh load of the snapshot")
	}
	if fmt.Sprint(old.Notes.notes, old.Notes.edges, old.Notes.chunks) != before {
		t.Error("the swap changed the rows of the snapshot it replaced")
	}
}
