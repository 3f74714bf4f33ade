package store

import (
	"testing"
	"unsafe"
)

// TestNoteIndexSharesIDs: the note index holds each note id once: an
// edge's ends and a chunk's note are the note's own id string, and the
// edges of one type share one type string.
func TestNoteIndexSharesIDs(t *testing.T) {
	f := newFixture(t)
	f.publish()
	st := f.store(Options{})
	refresh(t, st)
	s, release := st.Acquire()
	defer release()
	n := s.Notes
	same := func(a, b string) bool { return len(a) == len(b) && unsafe.StringData(a) == unsafe.StringData(b) }
	types := map[string]string{}
	for _, e := range n.edges {
		src, ok1 := n.byID[e.Source]
		dst, ok2 := n.byID[e.Target]
		if !ok1 || !ok2 {
			t.Fatalf("edge %s: an end is not a row", e.ID)
		}
		if !same(e.Source, n.notes[src].ID) || !same(e.Target, n.notes[dst].ID) {
			t.Errorf("edge %s: its ends are copies of the notes' ids", e.ID)
		}
		if t0, ok := types[e.Type]; ok && !same(t0, e.Type) {
			t.Errorf("edge %s: its type %q is a copy", e.ID, e.Type)
		}
		types[e.Type] = e.Type
	}
	if len(n.edges) < 2 || len(n.chunks) == 0 {
		t.Fatalf("fixture too small: %d edges, %d chunks", len(n.edges), len(n.chunks))
	}
	for _, c := range n.chunks {
		if !same(c.Note, n.notes[n.byID[c.Note]].ID) {
			t.Errorf("chunk %s: its note is a copy of the note's id", c.ID)
		}
	}
}
