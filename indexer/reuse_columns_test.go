package indexer

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/vaultgraph/vaultgraph/format"
	"github.com/vaultgraph/vaultgraph/indexer/vaultgen"
	"github.com/vaultgraph/vaultgraph/snapshot"
)

// TestParentRowsReadByColumnAsGenerically indexes real vaults (the demo
// and broken vaults, a generated one of several segments, and Obsidian's
// help and dataview vaults when /work/shared/vaults has them) and reads
// the rows an edit reuses (notes, links, chunks) column by column and with
// the generic reader: the same rows.
func TestParentRowsReadByColumnAsGenerically(t *testing.T) {
	generated := t.TempDir()
	if _, err := vaultgen.Generate(generated, vaultgen.Config{Notes: 1200, Seed: 3}); err != nil {
		t.Fatal(err)
	}
	vaults := map[string]string{
		"demo":      filepath.Join("..", "testdata", "demo-vault"),
		"broken":    filepath.Join("..", "testdata", "broken-vault"),
		"generated": generated,
		"help":      "/work/shared/vaults/obsidian-help",
		"dataview":  "/work/shared/vaults/dataview-deep-dive",
	}
	for name, vault := range vaults {
		t.Run(name, func(t *testing.T) {
			if name == "help" && testing.Short() {
				t.Skip("the help vault's 6,280 notes take a while; not in -short")
			}
			if _, err := os.Stat(vault); err != nil {
				t.Skipf("no vault at %s: %v", vault, err)
			}
			s := openSnap(t, run(t, vault, t.TempDir()).Dir)
			sameRows[noteMeta](t, s, format.NotesTable)
			sameRows[format.Link](t, s, format.LinksTable)
			sameRows[chunkMeta](t, s, format.ChunksTable)
		})
	}
}

func sameRows[T any](t *testing.T, s *snapshot.Snapshot, table string) {
	t.Helper()
	want, err := snapshot.ReadSegmentsContext[T](t.Context(), s, table)
	must(t, err)
	got, err := snapshot.ReadSegmentsByColumn[T](t.Context(), s, table)
	must(t, err)
	if len(want) == 0 {
		t.Fatalf("%s: no rows", table)
	}
	if !reflect.DeepEqual(got, want) {
		for i := range min(len(got), len(want)) {
			if !reflect.DeepEqual(got[i], want[i]) {
				t.Fatalf("%s row %d by column:\n%#v\ngenerically:\n%#v", table, i, got[i], want[i])
			}
		}
		t.Fatalf("%s: %d rows by column, %d generically", table, len(got), len(want))
	}
}
