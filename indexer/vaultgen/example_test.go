package vaultgen_test

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/vaultgraph/vaultgraph/indexer/vaultgen"
)

// What `vaultgraph gen --notes 200 --seed 1 DIR` does.
func ExampleGenerate() {
	dir, err := os.MkdirTemp("", "vaultgen-example-")
	if err != nil {
		panic(err)
	}
	defer os.RemoveAll(dir)

	st, err := vaultgen.Generate(filepath.Join(dir, "vault"), vaultgen.Config{Notes: 200, Seed: 1})
	if err != nil {
		panic(err)
	}
	fmt.Printf("%d notes in %d folders, %d links, %d typed edges, %d to %d missing notes\n",
		st.Notes, st.Folders, st.Links, st.TypedEdges, st.Unresolved, st.Stubs)
	// Output:
	// 200 notes in 10 folders, 1140 links, 311 typed edges, 12 to 10 missing notes
}
