package store

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/vaultgraph/vaultgraph/format"
	"github.com/vaultgraph/vaultgraph/indexer"
	"github.com/vaultgraph/vaultgraph/indexer/vaultgen"
	"github.com/vaultgraph/vaultgraph/snapshot"
	"github.com/vaultgraph/vaultgraph/snapshot/linkgraph"
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
	// The edit kept every link: the edges are the served snapshot's rows
	// and its link graph's indexes, shared, answering as if built anew.
	if !sameRows(now.Notes.edges, old.Notes.edges) || !now.LinksReused {
		t.Errorf("a text edit: edges shared %v, link graph reused %v", sameRows(now.Notes.edges, old.Notes.edges), now.LinksReused)
	}
	checkLinks(t, now, fresh)

	// An edit that adds a link builds the edges and the graph anew, and
	// leaves those of the snapshot it replaces as they were.
	before = fmt.Sprint(now.Notes.edges)
	path := filepath.Join(f.vault, filepath.FromSlash(now.Notes.notes[0].Path))
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	target := now.Notes.notes[len(now.Notes.notes)/2]
	if err := os.WriteFile(path, append(text, "\nSee [["+strings.TrimSuffix(target.Path, ".md")+"]].\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	third := index()
	if res := refresh(t, st); res.Current != third.ID {
		t.Fatalf("refresh: %+v", res)
	}
	last, release3 := st.Acquire()
	defer release3()
	if sameRows(last.Notes.edges, now.Notes.edges) || last.LinksReused {
		t.Errorf("a new link: edges shared %v, link graph reused %v", sameRows(last.Notes.edges, now.Notes.edges), last.LinksReused)
	}
	fresh, err = loadNotes(third, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(fresh.edges, last.Notes.edges) || !reflect.DeepEqual(fresh.out, last.Notes.out) ||
		!reflect.DeepEqual(fresh.in, last.Notes.in) {
		t.Error("the index after a new link differs from a fresh load of the snapshot")
	}
	checkLinks(t, last, fresh)
	if fmt.Sprint(now.Notes.edges) != before {
		t.Error("the swap changed the edges of the snapshot it replaced")
	}
}

// sameRows reports whether a and b are one slice.
func sameRows[T any](a, b []T) bool { return len(a) == len(b) && len(a) > 0 && &a[0] == &b[0] }

// checkLinks compares what s's link graph answers about every note with a
// graph built anew from fresh's rows.
func checkLinks(t *testing.T, s *Snapshot, fresh *Notes) {
	t.Helper()
	want, err := linkgraph.New(s.ID, fresh.notes, fresh.edges)
	if err != nil {
		t.Fatal(err)
	}
	answer := func(g *linkgraph.Graph) string {
		var all []*linkgraph.Response
		for _, n := range fresh.notes {
			r, err := g.Do(context.Background(), linkgraph.Request{Action: linkgraph.ActionNeighbors, SourcePath: n.ID, FollowBacklinks: new(true)})
			if err != nil {
				t.Fatal(err)
			}
			r.GraphStats.TraversalTime = 0
			all = append(all, r)
		}
		b, err := json.Marshal(all)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	if answer(s.Links) != answer(want) {
		t.Error("the served link graph answers differently from one built from the snapshot's rows")
	}
}
