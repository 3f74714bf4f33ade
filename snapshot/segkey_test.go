package snapshot

import (
	"reflect"
	"testing"
	"time"

	"github.com/vaultgraph/vaultgraph/format"
)

// TestSegmentKey: every column of a row changes the key, a nil list hashes
// as an empty one, and a field that
// is not a column (a chunk's text) changes nothing; a time hashes to the
// nanosecond, finer than its column keeps it.
func TestSegmentKey(t *testing.T) {
	text := "eng"
	base := format.Note{ID: "a.md", Path: "a.md", Title: "a", Labels: []string{"Person"}, Content: "hello",
		Properties: []format.Property{{Key: "team", Kind: format.KindString, TextValue: &text}},
		Modified:   time.Date(2026, 1, 2, 3, 4, 5, 6_000_000, time.UTC), Size: 5}
	key := SegmentKey(format.NotesTable, []format.Note{base})
	if SegmentKey(format.NotesTable, []format.Note{base}) != key {
		t.Fatal("key is not a function of the rows")
	}
	if SegmentKey(format.EdgesTable, []format.Note{base}) == key {
		t.Error("the table's name is not in the key")
	}
	rt := reflect.TypeFor[format.Note]()
	for i := range rt.NumField() {
		f := rt.Field(i)
		changed := base
		v := reflect.ValueOf(&changed).Elem().Field(i)
		switch v.Kind() {
		case reflect.String:
			v.SetString(v.String() + "x")
		case reflect.Bool:
			v.SetBool(!v.Bool())
		case reflect.Int32, reflect.Int64:
			v.SetInt(v.Int() + 1)
		case reflect.Slice:
			v.Set(reflect.Append(reflect.MakeSlice(v.Type(), 0, 1), reflect.Zero(v.Type().Elem())))
		case reflect.Struct:
			changed.Modified = base.Modified.Add(time.Second)
		default:
			t.Fatalf("field %s: kind %s not covered by this test", f.Name, v.Kind())
		}
		if SegmentKey(format.NotesTable, []format.Note{changed}) == key {
			t.Errorf("changing %s keeps the key", f.Name)
		}
	}
	empty := base
	empty.Tags, empty.Aliases = []string{}, nil
	if SegmentKey(format.NotesTable, []format.Note{empty}) != key {
		t.Error("a nil list and an empty one hash apart")
	}
	sub := base
	sub.Modified = base.Modified.Add(time.Nanosecond)
	if SegmentKey(format.NotesTable, []format.Note{sub}) == key {
		t.Error("a nanosecond's change of a time keeps the key")
	}
	other := "ops"
	prop := base
	prop.Properties = []format.Property{{Key: "team", Kind: format.KindString, TextValue: &other}}
	if SegmentKey(format.NotesTable, []format.Note{prop}) == key {
		t.Error("a property's value keeps the key")
	}
	c := format.Chunk{ID: "a.md#0", Note: "a.md", Text: "hello"}
	c2 := c
	c2.Text = "other"
	if SegmentKey(format.ChunksTable, []format.Chunk{c}) != SegmentKey(format.ChunksTable, []format.Chunk{c2}) {
		t.Error("a chunk's text, not a column, changes the key")
	}
	if SegmentKey(format.NotesTable, []format.Note{base, base}) == SegmentKey(format.NotesTable, []format.Note{base}) {
		t.Error("the number of rows is not in the key")
	}
}
