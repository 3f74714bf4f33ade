package indexer

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/vaultgraph/vaultgraph/format"
)

var update = flag.Bool("update", false, "rewrite golden files from the current output")

// TestDemoVaultGolden indexes testdata/demo-vault and compares every table,
// dumped to JSON, with testdata/golden/demo/. Regenerate with
// `go test ./indexer/ -update` after an intended change and review the diff.
func TestDemoVaultGolden(t *testing.T) {
	res, err := Run(context.Background(), Options{Vault: "../testdata/demo-vault", Data: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	s := openSnap(t, res.Dir)
	notes, err := s.Notes()
	must(t, err)
	type goldenNote struct {
		format.Note
		Content  string `json:"content,omitempty"`
		Modified string `json:"modified,omitempty"`
		// ContentSHA256 stands in for the content, which the vault holds.
		ContentSHA256 string `json:"content_sha256,omitempty"`
	}
	var gnotes []goldenNote
	for _, n := range notes {
		g := goldenNote{Note: n}
		if !n.Stub {
			g.ContentSHA256 = format.TextHash(n.Content)
		}
		gnotes = append(gnotes, g)
	}
	links, err := s.Links()
	must(t, err)
	edges, err := s.Edges()
	must(t, err)
	chunks, err := s.Chunks()
	must(t, err)
	m := s.Manifest
	compareGolden(t, "nodes.json", gnotes)
	compareGolden(t, "links.json", links)
	compareGolden(t, "edges.json", edges)
	compareGolden(t, "chunks.json", chunks)
	compareGolden(t, "manifest.json", map[string]any{"counts": m.Counts, "warnings": m.Warnings, "options": m.Options})
}

func compareGolden(t *testing.T, name string, v any) {
	t.Helper()
	got, err := json.MarshalIndent(v, "", "  ")
	must(t, err)
	got = append(got, '\n')
	path := filepath.Join("..", "testdata", "golden", "demo", name)
	if *update {
		must(t, os.MkdirAll(filepath.Dir(path), 0o755))
		must(t, os.WriteFile(path, got, 0o644))
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./indexer/ -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s differs from the golden file (-want +got); if intended, run go test ./indexer/ -update:\n%s", name, diff)
	}
}
