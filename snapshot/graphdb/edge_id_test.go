package graphdb

import (
	"context"
	"path/filepath"
	"testing"

	kuzu "github.com/kuzudb/go-kuzu"

	"github.com/vaultgraph/vaultgraph/format"
)

// TestDerivedEdgeIDsAreNotStored checks that the database stores an
// edge's id only when it is not the derived one, and that every way of
// reading an id answers the same either way.
func TestDerivedEdgeIDsAreNotStored(t *testing.T) {
	notes := []format.Note{
		{ID: "A.md", Path: "A.md", Title: "A"}, {ID: "B.md", Path: "B.md", Title: "B"}, {ID: "C.md", Path: "C.md", Title: "C"},
	}
	edges := []format.Edge{
		{ID: format.EdgeID("A.md", format.TypeLinksTo, "B.md", 0), Source: "A.md", Target: "B.md", Type: format.TypeLinksTo, Sign: 1, Count: 1},
		{ID: format.EdgeID("A.md", "knows", "B.md", 0), Source: "A.md", Target: "B.md", Type: "knows", Sign: 1, Count: 1},
		{ID: format.EdgeID("A.md", "knows", "B.md", 1), Source: "A.md", Target: "B.md", Type: "knows", Sign: 1, Count: 1, Line: 2},
		{ID: "pinned-1", Source: "B.md", Target: "C.md", Type: "knows", Sign: 1, Count: 1,
			Properties: []format.Property{prop(t, "id", format.KindString, "pinned-1")}},
		{ID: format.EdgeID("C.md", "rare type", "A.md", 0), Source: "C.md", Target: "A.md", Type: "rare type", Sign: 1, Count: 1},
	}
	dir := t.TempDir()
	// The rare type goes to the shared table, the others have their own.
	g, err := Build(context.Background(), dir, notes, edges, BuildOptions{BufferPoolSize: 128 << 20, MinTableEdges: 2})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, format.GraphFile)
	stored := map[string]bool{}
	err = reopenChecked(path, BuildOptions{BufferPoolSize: 64 << 20}.withDefaults(), func(conn *kuzu.Connection) error {
		res, err := conn.Query("MATCH ()-[r]->() WHERE r.id IS NOT NULL RETURN r.id")
		if err != nil {
			return err
		}
		defer res.Close()
		for res.HasNext() {
			row, err := res.Next()
			if err != nil {
				return err
			}
			v, _ := row.GetValue(0)
			stored[v.(string)] = true
			row.Close()
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{format.EdgeID("A.md", "knows", "B.md", 1): true, "pinned-1": true}
	if len(stored) != len(want) || !stored["pinned-1"] || !stored[format.EdgeID("A.md", "knows", "B.md", 1)] {
		t.Errorf("stored ids %v, want only %v", stored, want)
	}
	db, err := OpenFile(path, g, Options{BufferPoolSize: 64 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, e := range edges {
		params := map[string]any{"id": e.ID}
		res := mustQuery(t, db, "MATCH (a)-[r]->(b) WHERE r.id = $id RETURN id(r), r.id, r, type(r), a.id, b.id", params)
		if len(res.Rows) != 1 {
			t.Errorf("%s: rows %v", e.ID, res.Rows)
			continue
		}
		row := res.Rows[0]
		r := row[2].(*Relationship)
		if row[0] != e.ID || row[1] != e.ID || r.ID != e.ID || row[3] != e.Type || row[4] != e.Source || row[5] != e.Target {
			t.Errorf("%s: row %v, relationship %+v", e.ID, row, r)
		}
		res = mustQuery(t, db, "MATCH p = (a)-[r]->(b) WHERE id(r) = $id RETURN p, [x IN relationships(p) | x.id]", params)
		if len(res.Rows) != 1 {
			t.Errorf("%s: path rows %v", e.ID, res.Rows)
			continue
		}
		p := res.Rows[0][0].(*Path)
		if len(p.Relationships) != 1 || p.Relationships[0].ID != e.ID {
			t.Errorf("%s: path %+v", e.ID, p)
		}
		if ids, _ := res.Rows[0][1].([]any); len(ids) != 1 || ids[0] != e.ID {
			t.Errorf("%s: ids in the path %v", e.ID, res.Rows[0][1])
		}
	}
}
