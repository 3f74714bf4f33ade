package snapshot

import (
	"fmt"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/parquet-go/parquet-go"

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
