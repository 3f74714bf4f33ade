package snapshot

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/vaultgraph/vaultgraph/format"
)

// TestReadSegmentsInPlace reads a table of three segments whose counts the
// manifest gives (each decoded into its place in one slice), then the same
// segments with a count that disagrees with its file and with one missing:
// every way gives the files' rows in order, as reading each file and
// concatenating them does.
func TestReadSegmentsInPlace(t *testing.T) {
	dir := t.TempDir()
	parts := [][]format.Link{
		{{Source: "a.md", Kind: "wikilink", Target: "B", Sign: 1, Line: 1}, {Source: "a.md", Kind: "wikilink", Target: "C", Sign: 1, Line: 2}},
		{{Source: "b.md", Kind: "wikilink", Target: "A", Anchor: "Goals", Sign: 1, Line: 3}},
		{{Source: "c.md", Kind: "markdown", Target: "a.md", Display: "a", Sign: -1, Line: 4,
			Properties: []format.Property{format.PropertyFromJSON("since", format.KindInt, "2024")}}, {Source: "c.md", Kind: "wikilink", Target: "D", Sign: 1, Line: 5}},
	}
	var want []format.Link
	var segs []format.TableSegment
	for i, p := range parts {
		name := format.SegmentFile(format.LinksTable, i)
		if err := WriteTable(filepath.Join(dir, name), p); err != nil {
			t.Fatal(err)
		}
		want = append(want, p...)
		segs = append(segs, format.TableSegment{File: name, Rows: len(p)})
	}
	for _, tc := range []struct {
		name    string
		rows    []int
		inPlace bool
	}{
		{"counted", []int{2, 1, 2}, true},
		{"a count too high", []int{2, 2, 2}, false},
		{"a count too low", []int{1, 1, 2}, false},
		{"a count missing", []int{2, -1, 2}, false},
	} {
		m := &format.Manifest{Tables: map[string][]format.TableSegment{format.LinksTable: slices.Clone(segs)}}
		for i, n := range tc.rows {
			m.Tables[format.LinksTable][i].Rows = n
		}
		s := &Snapshot{Dir: dir, Manifest: m}
		got, err := ReadSegments[format.Link](s, format.LinksTable)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if !slices.EqualFunc(got, want, linkEqual) {
			t.Errorf("%s: read %+v, want %+v", tc.name, got, want)
		}
		_, inPlace, err := readSegmentsInPlace[format.Link](t.Context(), s, s.Segments(format.LinksTable), false)
		if err != nil || inPlace != tc.inPlace {
			t.Errorf("%s: read in place %v (err %v), want %v", tc.name, inPlace, err, tc.inPlace)
		}
	}
}

func linkEqual(a, b format.Link) bool {
	return a.Source == b.Source && a.Kind == b.Kind && a.Type == b.Type && a.Origin == b.Origin && a.Target == b.Target &&
		a.Anchor == b.Anchor && a.Display == b.Display && a.Sign == b.Sign && a.Heading == b.Heading && a.Line == b.Line &&
		format.EqualProperties(a.Properties, b.Properties)
}
