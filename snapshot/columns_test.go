package snapshot

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/vaultgraph/vaultgraph/format"
)

// noteRow and chunkRow are the columns of the notes and chunks tables an
// edit reads (the indexer's noteMeta and chunkMeta).
type noteRow struct {
	ID         string            `parquet:"id,plain"`
	Path       string            `parquet:"path,optional,plain"`
	Title      string            `parquet:"title,plain"`
	Folder     string            `parquet:"folder,plain"`
	Labels     []string          `parquet:"labels,list,plain"`
	Tags       []string          `parquet:"tags,list,plain"`
	Aliases    []string          `parquet:"aliases,list,plain"`
	Properties []format.Property `parquet:"properties,list"`
	Stub       bool              `parquet:"stub"`
	Signature  string            `parquet:"signature,optional,plain"`
	Size       int64             `parquet:"size"`
	BodyStart  int32             `parquet:"body_start"`
}

type chunkRow struct {
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

// everyProperty returns properties of every kind and shape the column
// decoder must tell apart: null, text, numbers, booleans, dates,
// datetimes, lists with items, null items, no items.
func everyProperty(i int) []format.Property {
	str := func(s string) *string { return &s }
	props := []format.Property{
		format.PropertyFromJSON("none", format.KindNull, "null"),
		format.PropertyFromJSON("s", format.KindString, fmt.Sprintf("%q", fmt.Sprint("text ", i))),
		format.PropertyFromJSON("empty", format.KindString, `""`),
		format.PropertyFromJSON("n", format.KindInt, fmt.Sprint(i)),
		format.PropertyFromJSON("f", format.KindFloat, "2.5"),
		format.PropertyFromJSON("b", format.KindBool, fmt.Sprint(i%2 == 0)),
		format.PropertyFromJSON("d", format.KindDate, `"2024-03-01"`),
		format.PropertyFromJSON("dt", format.KindDateTime, `"2024-03-01T10:20:30.123456+02:00"`),
		format.PropertyFromJSON("l", format.KindList, `["a", null, 3, ""]`),
		format.PropertyFromJSON("el", format.KindList, `[]`),
		{Key: "raw", Kind: format.KindList, TextValue: str("[]"), List: []*string{nil}},
	}
	return props[:i%(len(props)+1)] // some rows have none
}

// writeSmallPages writes rows with pages of about 1 KiB and row groups of
// 100 rows: columns of many pages, several row groups.
func writeSmallPages[T any](t *testing.T, path string, rows []T) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := parquet.NewGenericWriter[T](f, parquet.Compression(tableCodec), parquet.PageBufferSize(1<<10), parquet.MaxRowsPerRowGroup(100))
	if _, err := w.Write(rows); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// sameByColumn reads path with the generic reader and column by column,
// and fails unless the column decoder decoded it (no fallback) into the
// same rows.
func sameByColumn[T any](t *testing.T, path string) int {
	t.Helper()
	want, err := readTableInto[T](path, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	pf, err := parquet.OpenFile(f, st.Size())
	if err != nil {
		t.Fatal(err)
	}
	got := make([]T, pf.NumRows())
	ok, err := decodeByColumn(pf, got)
	if err != nil || !ok {
		t.Fatalf("%s: decoded by column %v, err %v", filepath.Base(path), ok, err)
	}
	if !reflect.DeepEqual(got, want) {
		for i := range want {
			if !reflect.DeepEqual(got[i], want[i]) {
				t.Fatalf("%s: row %d decoded by column\n%#v\nnot as the generic reader\n%#v", filepath.Base(path), i, got[i], want[i])
			}
		}
		t.Fatalf("%s: %d rows decoded by column, %d by the generic reader", filepath.Base(path), len(got), len(want))
	}
	return len(want)
}

// TestDecodeByColumnAsTheGenericReader writes links, notes and chunks with
// every shape of value (nulls, empty strings, empty and null lists, every
// property kind) in one page and in many pages and row groups, and reads
// them column by column: the rows the generic reader reads.
func TestDecodeByColumnAsTheGenericReader(t *testing.T) {
	links := make([]format.Link, 1000)
	notes := make([]noteRow, 500)
	chunks := make([]chunkRow, 700)
	for i := range links {
		links[i] = format.Link{Source: fmt.Sprintf("n%d.md", i/7), Kind: []string{"wikilink", "markdown", "embed"}[i%3],
			Type: "links_to", Origin: []string{format.OriginBody, format.OriginFrontmatter}[i%2], Target: fmt.Sprintf("t%d", i),
			Sign: int32(1 - 2*(i%2)), Line: int32(i), Properties: everyProperty(i % 17)}
		if i%3 == 0 {
			links[i].Anchor, links[i].Display, links[i].Heading = "Goals", fmt.Sprintf("shown %d", i), "A > B"
		}
		if i%5 == 0 {
			links[i].Target = ""
		}
	}
	for i := range notes {
		n := noteRow{ID: fmt.Sprintf("f/n%d.md", i), Path: fmt.Sprintf("f/n%d.md", i), Title: fmt.Sprint("n", i), Folder: "f",
			Properties: everyProperty(i % 13), Signature: fmt.Sprintf("%064x", i), Size: int64(i) << 33, BodyStart: int32(i)}
		for k := range i % 3 {
			n.Labels = append(n.Labels, fmt.Sprint("label", k))
			n.Tags = append(n.Tags, fmt.Sprint("tag", k), "")
		}
		if i%4 == 1 {
			n.Aliases = []string{"an alias"}
		}
		if i%9 == 0 {
			n = noteRow{ID: fmt.Sprint("Missing ", i), Title: fmt.Sprint("Missing ", i), Stub: true}
		}
		notes[i] = n
	}
	full := make([]format.Note, len(notes))
	for i, n := range notes {
		full[i] = format.Note{ID: n.ID, Path: n.Path, Title: n.Title, Folder: n.Folder, Labels: n.Labels, Tags: n.Tags, Aliases: n.Aliases,
			Properties: n.Properties, Stub: n.Stub, Signature: n.Signature, Size: n.Size, BodyStart: n.BodyStart, Content: fmt.Sprint("text ", i)}
		if !n.Stub {
			full[i].Modified = time.Date(2020+i%7, time.Month(1+i%12), 1+i%28, i%24, i%60, i%60, (i%1000)*int(time.Millisecond), time.UTC)
		}
	}
	for i := range chunks {
		chunks[i] = chunkRow{ID: fmt.Sprintf("c%d", i), Note: fmt.Sprintf("n%d.md", i/3), Ordinal: int32(i % 3), Start: int32(i * 10),
			End: int32(i*10 + 9), Line: int32(i), Context: fmt.Sprint("context ", i), TextSHA256: fmt.Sprintf("%064x", i*7)}
		if i%2 == 0 {
			chunks[i].Heading = "H"
		}
	}
	dir := t.TempDir()
	for _, pages := range []string{"one", "many"} {
		t.Run(pages, func(t *testing.T) {
			write := func(name string, w func(path string)) string {
				path := filepath.Join(dir, pages+"-"+name)
				w(path)
				return path
			}
			if pages == "one" {
				sameByColumn[format.Link](t, write("links", func(p string) { must(t, WriteTable(p, links)) }))
				sameByColumn[noteRow](t, write("notes", func(p string) { must(t, WriteTable(p, notes)) }))
				sameByColumn[format.Note](t, write("full-notes", func(p string) { must(t, WriteTable(p, full)) }))
				sameByColumn[chunkRow](t, write("chunks", func(p string) { must(t, WriteTable(p, chunks)) }))
				return
			}
			sameByColumn[format.Link](t, write("links", func(p string) { writeSmallPages(t, p, links) }))
			sameByColumn[noteRow](t, write("notes", func(p string) { writeSmallPages(t, p, notes) }))
			sameByColumn[format.Note](t, write("full-notes", func(p string) { writeSmallPages(t, p, full) }))
			sameByColumn[chunkRow](t, write("chunks", func(p string) { writeSmallPages(t, p, chunks) }))
		})
	}
	t.Run("empty", func(t *testing.T) {
		path := filepath.Join(dir, "empty-links")
		must(t, WriteTable(path, []format.Link{}))
		sameByColumn[format.Link](t, path)
	})
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestDecodeByColumnFallsBack reads with row types the column decoder
// does not decode (a field the file lacks, a field of another type than
// the file's column), and format.Note: ReadSegmentsByColumn reads them as
// the generic reader does.
func TestDecodeByColumnFallsBack(t *testing.T) {
	dir := t.TempDir()
	name := format.SegmentFile(format.NotesTable, 0)
	modified := time.Date(2024, 3, 1, 10, 0, 0, 0, time.UTC)
	notes := []format.Note{{ID: "a.md", Path: "a.md", Title: "a", Signature: "s", Size: 3, Modified: modified, Content: "abc"},
		{ID: "B", Title: "B", Stub: true}}
	must(t, WriteTable(filepath.Join(dir, name), notes))
	s := &Snapshot{Dir: dir, Manifest: &format.Manifest{Tables: map[string][]format.TableSegment{format.NotesTable: {{File: name, Rows: 2}}}}}
	got, err := ReadSegmentsByColumn[format.Note](t.Context(), s, format.NotesTable)
	if err != nil || len(got) != 2 || !got[0].Modified.Equal(modified) || got[0].Content != "abc" || !got[1].Stub {
		t.Fatalf("notes with a time read by column: %+v, err %v", got, err)
	}
	type missing struct {
		ID    string `parquet:"id,plain"`
		Other string `parquet:"other,plain"`
	}
	type otherType struct {
		ID   string `parquet:"id,plain"`
		Size int32  `parquet:"size"`
	}
	m, err := ReadSegmentsByColumn[missing](t.Context(), s, format.NotesTable)
	if err != nil || len(m) != 2 || m[0].ID != "a.md" || m[1].Other != "" {
		t.Fatalf("a column the file lacks: %+v, err %v", m, err)
	}
	if _, err := ReadSegmentsByColumn[otherType](t.Context(), s, format.NotesTable); err == nil {
		t.Log("an int32 field over an int64 column reads (the generic reader converts)")
	}
}

// BenchmarkReadSegmentsByColumn reads the links, notes and chunks of the
// newest snapshot in $VAULTGRAPH_BENCH_DATA with the generic reader and
// column by column, as an edit reads its parent's:
//
//	VAULTGRAPH_BENCH_DATA=D go test ./snapshot -run '^$' -bench ReadSegmentsByColumn -benchmem
func BenchmarkReadSegmentsByColumn(b *testing.B) {
	data := os.Getenv("VAULTGRAPH_BENCH_DATA")
	if data == "" {
		b.Skip("VAULTGRAPH_BENCH_DATA names a data directory with a snapshot")
	}
	s, _, err := Latest(data, OpenOptions{})
	if err != nil {
		b.Fatal(err)
	}
	for _, byColumn := range []bool{false, true} {
		name := "generic"
		if byColumn {
			name = "by-column"
		}
		b.Run("links/"+name, func(b *testing.B) { benchSegments[format.Link](b, s, format.LinksTable, byColumn) })
		b.Run("notes/"+name, func(b *testing.B) { benchSegments[noteRow](b, s, format.NotesTable, byColumn) })
		b.Run("chunks/"+name, func(b *testing.B) { benchSegments[chunkRow](b, s, format.ChunksTable, byColumn) })
	}
}

func benchSegments[T any](b *testing.B, s *Snapshot, table string, byColumn bool) {
	for b.Loop() {
		if _, err := readSegments[T](b.Context(), s, table, byColumn); err != nil {
			b.Fatal(err)
		}
	}
}
