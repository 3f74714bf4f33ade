package format

import (
	"fmt"
	"slices"
	"testing"
)

func segmentIDs(n int) []string {
	ids := make([]string, n)
	for i := range ids {
		ids[i] = fmt.Sprintf("Folder %d/Note %05d.md", i%7, i)
	}
	return ids
}

// TestSegmentEnds: segments cover the rows in order, hold at least
// SegmentMinNotes notes (but the last) and at most SegmentMaxNotes, and a
// note added or removed moves no cut but those next to it.
func TestSegmentEnds(t *testing.T) {
	if got := SegmentEnds(nil); !slices.Equal(got, []int{0}) {
		t.Fatalf("no rows: %v", got)
	}
	if got := SegmentEnds(segmentIDs(SegmentMinNotes)); !slices.Equal(got, []int{SegmentMinNotes}) {
		t.Fatalf("%d rows: %v", SegmentMinNotes, got)
	}
	ids := segmentIDs(10000)
	ends := SegmentEnds(ids)
	if len(ends) < 10 || len(ends) > 10000/SegmentMinNotes || ends[len(ends)-1] != len(ids) {
		t.Fatalf("10,000 rows cut into %d segments: %v", len(ends), ends)
	}
	start := 0
	for i, end := range ends {
		if n := end - start; n > SegmentMaxNotes || (n < SegmentMinNotes && i < len(ends)-1) {
			t.Fatalf("segment %d holds %d notes", i, n)
		}
		start = end
	}
	// Remove one note from the middle: every cut before it stays, and
	// the cuts after it are the old ones, one row earlier, from the second
	// cut after it on.
	removed := slices.Delete(slices.Clone(ids), 5000, 5001)
	after := SegmentEnds(removed)
	cutsOf := func(ids []string, ends []int) map[string]bool {
		m := map[string]bool{}
		for _, e := range ends {
			m[ids[e-1]] = true
		}
		return m
	}
	old, now := cutsOf(ids, ends), cutsOf(removed, after)
	differ := 0
	for id := range old {
		if !now[id] && id != ids[5000] {
			differ++
		}
	}
	for id := range now {
		if !old[id] {
			differ++
		}
	}
	if differ > 2 {
		t.Errorf("removing one note moved %d cuts", differ)
	}
	if n := len(SegmentEnds(segmentIDs(3 * SegmentMaxNotes))); n < 3 {
		t.Errorf("%d rows in %d segments", 3*SegmentMaxNotes, n)
	}
}

func TestSegmentFile(t *testing.T) {
	for i, want := range map[int]string{0: "nodes.parquet", 1: "nodes-0001.parquet", 42: "nodes-0042.parquet"} {
		if got := SegmentFile(NotesTable, i); got != want || !IsSegmentFile(NotesTable, got) {
			t.Errorf("segment %d: %q, want %q", i, got, want)
		}
	}
	for _, name := range []string{"nodes-1.parquet", "nodes-00a1.parquet", "edges.parquet", "code_edges.parquet", "nodes.parquet.tmp"} {
		if IsSegmentFile(NotesTable, name) {
			t.Errorf("%q taken for a segment of nodes", name)
		}
	}
}
