package indexer

import (
	"reflect"
	"testing"

	"github.com/vaultgraph/vaultgraph/format"
)

// TestGroupRuns groups rows by key as appending them one by one does, for
// runs and for a key met again after another, and an append to one group
// leaves the next group's rows alone.
func TestGroupRuns(t *testing.T) {
	rows := []format.Link{{Source: "a", Line: 1}, {Source: "a", Line: 2}, {Source: "b", Line: 3}, {Source: "a", Line: 4}, {Source: "c", Line: 5}, {Source: "c", Line: 6}}
	want := map[string][]format.Link{}
	for _, l := range rows {
		want[l.Source] = append(want[l.Source], l)
	}
	got := map[string][]format.Link{}
	groupRuns(got, rows, func(l *format.Link) string { return l.Source })
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("groupRuns gives %+v, want %+v", got, want)
	}
	got["b"] = append(got["b"], format.Link{Source: "b", Line: 99})
	if got["a"][2].Line != 4 || got["c"][0].Line != 5 || rows[3].Line != 4 {
		t.Errorf("appending to b's rows changed others: a %+v, c %+v, rows %+v", got["a"], got["c"], rows)
	}
}

// TestReusedText: valid UTF-8 is the text as it is, invalid bytes are
// replaced as note.Text replaces them, and an empty file is empty.
func TestReusedText(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"# Title\n\nSome text — with ü.\n", "# Title\n\nSome text — with ü.\n"},
		{"bad \xff byte", "bad \uFFFD byte"},
	} {
		if got := reusedText([]byte(tc.in)); got != tc.want {
			t.Errorf("reusedText(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestBySegment: rows in segment order become sub-slices of the rows,
// rows out of it (a note's rows after a later segment's, a row of no note,
// which goes to the last segment) are copied into place; either way each
// segment holds its rows in order, as appending them one by one does, and
// an append to a segment leaves the next one alone.
func TestBySegment(t *testing.T) {
	of := map[string]int{"a": 0, "b": 0, "c": 1, "d": 2}
	key := func(l *format.Link) string { return l.Source }
	for _, sources := range [][]string{
		{"a", "a", "b", "c", "d", "d"},
		{"a", "c", "b", "d"},
		{"a", "x", "c", "d"},
		{"c", "c", "d"},
		{},
	} {
		var rows []format.Link
		for i, s := range sources {
			rows = append(rows, format.Link{Source: s, Line: int32(i)})
		}
		want := make([][]format.Link, 3)
		for _, l := range rows {
			seg, ok := of[l.Source]
			if !ok {
				seg = 2
			}
			want[seg] = append(want[seg], l)
		}
		got := bySegment(rows, 3, key, of, 2)
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%v: bySegment gives %+v, want %+v", sources, got, want)
		}
		if len(got[0]) > 0 && len(got[1]) > 0 {
			next := got[1][0]
			got[0] = append(got[0], format.Link{Source: "z"})
			if !reflect.DeepEqual(got[1][0], next) {
				t.Errorf("%v: appending to segment 0 changed segment 1", sources)
			}
		}
	}
}
