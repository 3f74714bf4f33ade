package graphdb_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vaultgraph/vaultgraph/indexer"
	"github.com/vaultgraph/vaultgraph/snapshot/graphdb"
)

// TestInlineTagsFieldIsTags: an inline tags:: field (empty or not) adds
// tags, as the frontmatter key does, so that keys(n) never lists an
// internal name (_tags, a property shadowed by the built-in tags).
func TestInlineTagsFieldIsTags(t *testing.T) {
	vault := t.TempDir()
	for name, text := range map[string]string{
		"Empty.md": "# Empty\ntags::\n\nSome text.\n",
		"Full.md":  "# Full\ntags:: a, #b\n",
		"Both.md":  "---\ntags: [x]\n---\n# Both\nTags:: y\n",
	} {
		if err := os.WriteFile(filepath.Join(vault, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	res, err := indexer.Run(context.Background(), indexer.Options{Vault: vault, Data: t.TempDir(),
		Stages: []indexer.Stage{indexer.GraphStage{BufferPoolSize: 64 << 20}}})
	if err != nil {
		t.Fatal(err)
	}
	db, err := graphdb.Open(res.Dir, graphdb.Options{BufferPoolSize: 64 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	out, err := db.Query(context.Background(), "MATCH (n) RETURN n.title, keys(n), n.tags ORDER BY n.title", nil)
	if err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprint(out.Rows)
	if want := "[[Both [path title tags] [x y]] [Empty [path title] <nil>] [Full [path title tags] [a b]]]"; got != want {
		t.Errorf("rows %s, want %s", got, want)
	}
	if strings.Contains(got, "_tags") {
		t.Errorf("an internal name shows: %s", got)
	}
}
