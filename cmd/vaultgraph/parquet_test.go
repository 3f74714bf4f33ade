package main

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"testing"

	"github.com/vaultgraph/vaultgraph/format"
	"github.com/vaultgraph/vaultgraph/snapshot"
)

// TestTablesOpenInIndependentReaders reads every table of a demo snapshot
// with two readers that share no code with parquet-go (hyparquet and
// DuckDB) and checks they see the same rows as vaultgraph.
func TestTablesOpenInIndependentReaders(t *testing.T) {
	data := t.TempDir()
	vgOK(t, "index", "--vault", repoPath("testdata/demo-vault"), "--data", data)
	e, err := snapshot.Resolve(data, "")
	if err != nil {
		t.Fatal(err)
	}
	s, err := snapshot.Open(e.Dir, snapshot.OpenOptions{})
	if err != nil {
		t.Fatal(err)
	}
	notes, _ := s.Notes()
	links, _ := s.Links()
	edges, _ := s.Edges()
	chunks, _ := s.Chunks()
	ids := func(n int, id func(int) string) []string {
		out := make([]string, n)
		for i := range n {
			out[i] = id(i)
		}
		return out
	}
	tables := []struct {
		file, key string
		want      []string
	}{
		{format.NotesFile, "id", ids(len(notes), func(i int) string { return notes[i].ID })},
		{format.LinksFile, "target", ids(len(links), func(i int) string { return links[i].Target })},
		{format.EdgesFile, "id", ids(len(edges), func(i int) string { return edges[i].ID })},
		{format.ChunksFile, "id", ids(len(chunks), func(i int) string { return chunks[i].ID })},
	}
	for _, tc := range tables {
		t.Run(tc.file, func(t *testing.T) {
			var got struct {
				Hyparquet struct {
					Rows int      `json:"rows"`
					Keys []string `json:"keys"`
				} `json:"hyparquet"`
				DuckDB struct {
					Rows int      `json:"rows"`
					Keys []string `json:"keys"`
				} `json:"duckdb"`
				Sample map[string]any `json:"sample"`
			}
			out := node(t, "read-parquet.mjs", filepath.Join(s.Dir, tc.file), tc.key)
			if err := json.Unmarshal(out, &got); err != nil {
				t.Fatalf("reader output %q: %v", out, err)
			}
			if len(tc.want) == 0 {
				t.Fatal("vaultgraph read no rows")
			}
			if !slices.Equal(got.Hyparquet.Keys, tc.want) {
				t.Errorf("hyparquet read %d rows (%v...), vaultgraph %d", got.Hyparquet.Rows, head(got.Hyparquet.Keys), len(tc.want))
			}
			if !slices.Equal(got.DuckDB.Keys, tc.want) {
				t.Errorf("DuckDB read %d rows (%v...), vaultgraph %d", got.DuckDB.Rows, head(got.DuckDB.Keys), len(tc.want))
			}
		})
	}
}

func head(s []string) []string {
	if len(s) > 3 {
		return s[:3]
	}
	return s
}
