package snapshot

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress/zstd"

	"github.com/vaultgraph/vaultgraph/format"
)

// TestReadTableInBatches reads a table of more rows than a batch, rows with
// and without lists and optional values, in batches and at once
// (parquet.ReadFile, how ReadTable read before): the same rows.
func TestReadTableInBatches(t *testing.T) {
	for _, n := range []int{0, 1, readBatch - 1, readBatch, readBatch + 1, 3*readBatch + 17} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			rows := make([]format.Link, n)
			for i := range rows {
				rows[i] = format.Link{Source: fmt.Sprintf("n%d.md", i/7), Kind: "wikilink", Type: "links_to", Origin: format.OriginBody,
					Target: fmt.Sprintf("t%d", i), Sign: 1, Line: int32(i)}
				if i%3 == 0 {
					rows[i].Anchor, rows[i].Display = "Goals", fmt.Sprintf("shown %d", i)
				}
				for k := range i % 4 {
					text := fmt.Sprintf("v%d", k)
					rows[i].Properties = append(rows[i].Properties, format.Property{Key: fmt.Sprintf("k%d", k), Kind: format.KindString, TextValue: &text})
				}
			}
			path := filepath.Join(t.TempDir(), "links.parquet")
			if err := WriteTable(path, rows); err != nil {
				t.Fatal(err)
			}
			want, err := parquet.ReadFile[format.Link](path)
			if err != nil {
				t.Fatal(err)
			}
			got, err := ReadTable[format.Link](path)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != n || !reflect.DeepEqual(got, want) {
				t.Fatalf("read %d rows in batches, not the %d rows parquet.ReadFile reads", len(got), len(want))
			}
		})
	}
}

// TestWriteTableCompressesBetterThanTheDefaultLevel writes notes whose text
// repeats phrases across notes, as a vault's does, and checks that the
// table's pages are zstd at a level that finds more of the repeats than
// zstd's default (parquet-go's writer at SpeedDefault, the level tables
// were written at before): at least 3% fewer bytes.
func TestWriteTableCompressesBetterThanTheDefaultLevel(t *testing.T) {
	words := strings.Fields("the note links to a vault graph with headings tags aliases and properties; " +
		"an edit changes one note, the index writes a snapshot whose tables are segments of Parquet " +
		"and whose graph is a Kuzu database; search finds chunks by words and vectors")
	rows := make([]format.Note, 2000)
	x := uint32(1)
	for i := range rows {
		var b strings.Builder
		for range 150 {
			x = x*1664525 + 1013904223
			// A small vocabulary, skewed: phrases recur across notes.
			b.WriteString(words[(x>>24)%uint32(len(words))&(x>>16)%uint32(len(words))])
			b.WriteByte(' ')
			if x>>28 == 0 {
				fmt.Fprintf(&b, "[[Note %d]]\n", x%997)
			}
		}
		rows[i] = format.Note{ID: fmt.Sprintf("n%d.md", i), Path: fmt.Sprintf("n%d.md", i), Title: fmt.Sprintf("n%d", i), Content: b.String()}
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "nodes.parquet")
	if err := WriteTable(path, rows); err != nil {
		t.Fatal(err)
	}
	var def bytes.Buffer
	w := parquet.NewGenericWriter[format.Note](&def, parquet.Compression(&zstd.Codec{Level: zstd.SpeedDefault}), parquet.PageBufferSize(tablePageBytes))
	if _, err := w.Write(rows); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("table %d bytes, %d at zstd's default level", st.Size(), def.Len())
	if float64(st.Size()) > 0.97*float64(def.Len()) {
		t.Fatalf("the table takes %d bytes, not 3%% less than the %d of zstd's default level", st.Size(), def.Len())
	}
	got, err := ReadTable[format.Note](path)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(rows) || got[len(got)-1].Content != rows[len(rows)-1].Content {
		t.Fatalf("read back %d rows, the last unlike the one written", len(got))
	}
}
