package graphdb

import (
	"context"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/vaultgraph/vaultgraph/format"
	"github.com/vaultgraph/vaultgraph/snapshot"
)

// segmentRows cuts rows into table segments as the indexer lays them out
// (format/segments.go), with a segment every few notes so that small
// vaults have many: the notes in order, each edge in its source's segment.
// It returns the edges in that order and the Tables section.
func segmentRows(notes []format.Note, edges []format.Edge, every int) ([][]format.Note, [][]format.Edge, []format.Edge, map[string][]format.TableSegment) {
	var ns [][]format.Note
	seg := map[string]int{}
	for start := 0; start < len(notes); start += every {
		part := notes[start:min(start+every, len(notes))]
		for _, n := range part {
			seg[n.ID] = len(ns)
		}
		ns = append(ns, part)
	}
	es := make([][]format.Edge, len(ns))
	for _, e := range edges {
		i, ok := seg[e.Source]
		if !ok {
			i = len(ns) - 1
		}
		es[i] = append(es[i], e)
	}
	tables := map[string][]format.TableSegment{}
	for i := range ns {
		tables[format.NotesTable] = append(tables[format.NotesTable], format.TableSegment{File: format.SegmentFile(format.NotesTable, i), Rows: len(ns[i]), Key: snapshot.SegmentKey(format.NotesTable, ns[i])})
		tables[format.EdgesTable] = append(tables[format.EdgesTable], format.TableSegment{File: format.SegmentFile(format.EdgesTable, i), Rows: len(es[i]), Key: snapshot.SegmentKey(format.EdgesTable, es[i])})
	}
	return ns, es, slices.Concat(es...), tables
}

// segmentedParent is fakeParent with the tables in segments.
func segmentedParent(t *testing.T, id string, notes []format.Note, edges []format.Edge, g *format.Graph, dir string, every int) *snapshot.Snapshot {
	t.Helper()
	p := fakeParent(t, id, notes, edges, g, dir)
	ns, es, _, tables := segmentRows(notes, edges, every)
	for i := range ns {
		if i == 0 {
			continue // fakeParent wrote the whole tables under the first segments' names
		}
		if err := snapshot.WriteTable(filepath.Join(dir, format.SegmentFile(format.NotesTable, i)), ns[i]); err != nil {
			t.Fatal(err)
		}
		if err := snapshot.WriteTable(filepath.Join(dir, format.SegmentFile(format.EdgesTable, i)), es[i]); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{format.NotesFile, format.EdgesFile} {
		must(t, os.Remove(filepath.Join(dir, f)))
	}
	must(t, snapshot.WriteTable(filepath.Join(dir, format.NotesFile), ns[0]))
	must(t, snapshot.WriteTable(filepath.Join(dir, format.EdgesFile), es[0]))
	p.Manifest.Tables = tables
	return p
}

// TestUpdateBySegments: random edits applied through an update that reads
// and compares only the rows of the segments that changed give the
// database a build gives, step after step, and the update reads fewer of
// the parent's rows than there are.
func TestUpdateBySegments(t *testing.T) {
	for _, sr := range []struct {
		seed                      uint64
		notes, steps, size, every int
	}{{0, 40, 10, 8, 4}, {1, 40, 10, 3, 5}, {2, 600, 3, 20, 40}} {
		t.Run(fmt.Sprintf("seed%d_notes%d", sr.seed, sr.notes), func(t *testing.T) {
			totals := &totals{}
			opts := UpdateOptions{BuildOptions: testBuildOptions, Limit: 100, MaxGrowth: 100}
			opts.Log = slog.New(totals)
			r := rand.New(rand.NewPCG(sr.seed, 9))
			v := newRandomVault(t, r, sr.notes)
			notes, edges := v.rows()
			_, _, edges, _ = segmentRows(notes, edges, sr.every)
			dir := t.TempDir()
			g, err := Build(context.Background(), dir, notes, edges, testBuildOptions)
			must(t, err)
			parent := segmentedParent(t, "parent", notes, edges, g, dir, sr.every)
			rows := 0
			for step := range sr.steps {
				v.edit(r, 1+r.IntN(sr.size))
				notes, edges := v.rows()
				_, _, edges, tables := segmentRows(notes, edges, sr.every)
				opts.Tables = tables
				rows += len(notes) + len(edges)
				dir := t.TempDir()
				g, err := Update(context.Background(), dir, parent, notes, edges, opts)
				if err != nil {
					t.Fatalf("step %d: %v", step, err)
				}
				compareWithBuild(t, dir, g, notes, edges)
				parent = segmentedParent(t, fmt.Sprint("s", step), notes, edges, g, dir, sr.every)
			}
			if read := totals.sum["parent_rows_read"]; read == 0 || int(read) >= rows {
				t.Errorf("the updates read %d of the parents' rows, of %d", read, rows)
			}
		})
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
