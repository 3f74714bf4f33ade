package graphdb_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vaultgraph/vaultgraph/format"
	"github.com/vaultgraph/vaultgraph/indexer"
	"github.com/vaultgraph/vaultgraph/snapshot/graphdb"
)

// TestNoteWithThousandsOfEdgeTypes indexes a vault whose one note has
// 2,000 inline fields of 2,000 keys, each linking to a note (issue 12:
// one relationship table per type made this take minutes). The frequent
// types keep tables of their own, the long tail shares one, and queries
// in the vault's words find the edges of both.
func TestNoteWithThousandsOfEdgeTypes(t *testing.T) {
	vault := t.TempDir()
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(vault, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var hub strings.Builder
	hub.WriteString("# Hub\n\n")
	for i := range 2000 {
		fmt.Fprintf(&hub, "key%04d:: [[T%d]]\n", i, i%100)
	}
	write("Hub.md", hub.String())
	for i := range 100 {
		write(fmt.Sprintf("T%d.md", i), "a target\n")
	}
	// 40 people work at T0: works_at is the vault's frequent type.
	for i := range 40 {
		write(fmt.Sprintf("P%d.md", i), "works_at:: [[T0]]\n")
	}
	res, err := indexer.Run(context.Background(), indexer.Options{Vault: vault, Data: t.TempDir(),
		Stages: []indexer.Stage{indexer.GraphStage{BufferPoolSize: 128 << 20, MinTableEdges: -1}}})
	if err != nil {
		t.Fatal(err)
	}
	g := res.Manifest.Graph
	tables := map[string]bool{}
	typeTable := map[string]string{}
	for _, et := range g.EdgeTypes {
		tables[et.Table] = true
		typeTable[et.Name] = et.Table
	}
	if len(g.EdgeTypes) < 2001 || len(tables) > format.DefaultTypedEdgeTables+1 {
		t.Fatalf("%d edge types in %d tables, want 2,001 types in at most %d", len(g.EdgeTypes), len(tables), format.DefaultTypedEdgeTables+1)
	}
	if typeTable["works_at"] == format.GraphEdgeTable || typeTable["key1999"] != format.GraphEdgeTable {
		t.Fatalf("works_at in %s, key1999 in %s: want a table of its own and the shared one", typeTable["works_at"], typeTable["key1999"])
	}
	db, err := graphdb.Open(res.Dir, graphdb.Options{BufferPoolSize: 64 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, c := range []struct{ query, want string }{
		{"MATCH (h)-[r:key1999]->(x) RETURN h.title, type(r), x.title", "[[Hub key1999 T99]]"},
		{"MATCH (h)-[r:key0005|key0105]->(x) RETURN type(r), x.title ORDER BY type(r)", "[[key0005 T5] [key0105 T5]]"},
		{"MATCH (p)-[:works_at]->(x) RETURN x.title, count(p)", "[[T0 40]]"},
		{"MATCH (h {title: 'Hub'})-[r]->() RETURN count(r), count(DISTINCT type(r))", "[[2000 2000]]"},
		{"MATCH (h {title: 'Hub'})-[:key0042*1..2]->(x) RETURN x.title", "[[T42]]"},
		{"MATCH (x)<-[r]-() WHERE x.title = 'T7' AND type(r) STARTS WITH 'key' RETURN count(*)", "[[20]]"},
	} {
		res, err := db.Query(context.Background(), c.query, nil)
		if err != nil {
			t.Fatalf("%s: %v", c.query, err)
		}
		if got := fmt.Sprint(res.Rows); got != c.want {
			t.Errorf("%s: %s, want %s", c.query, got, c.want)
		}
	}
}

// TestNoteWithThousandsOfPropertyKeys indexes a vault whose one note has
// 20,000 frontmatter keys (issue 12's torture suite: one column per key
// filled the engine's buffer pool and failed the run; 256 integer keys
// were enough). The keys on most notes keep typed columns; the others are
// read from the tail columns, typed alike.
func TestNoteWithThousandsOfPropertyKeys(t *testing.T) {
	vault := t.TempDir()
	var wide strings.Builder
	wide.WriteString("---\n")
	for i := range 20000 {
		fmt.Fprintf(&wide, "field%05d: %d\n", i, i)
	}
	wide.WriteString("tags: [a, b]\nlisted: [x, '', 'y z']\nwhen: 2024-01-02\n---\nbody\n")
	if err := os.WriteFile(filepath.Join(vault, "Wide.md"), []byte(wide.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	for i := range 30 {
		text := fmt.Sprintf("---\nstatus: s%d\nfield19999: 7\n---\n", i%3)
		if err := os.WriteFile(filepath.Join(vault, fmt.Sprintf("N%d.md", i)), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	res, err := indexer.Run(context.Background(), indexer.Options{Vault: vault, Data: t.TempDir(),
		Stages: []indexer.Stage{indexer.GraphStage{BufferPoolSize: 64 << 20}}})
	if err != nil {
		t.Fatal(err)
	}
	tail, columns := 0, 0
	for _, p := range res.Manifest.Graph.NoteProperties {
		if p.Tail {
			tail++
		} else {
			columns++
		}
	}
	if columns > format.DefaultPropertyColumns || tail < 20000-format.DefaultPropertyColumns {
		t.Fatalf("%d keys with columns, %d in the tail", columns, tail)
	}
	db, err := graphdb.Open(res.Dir, graphdb.Options{BufferPoolSize: 64 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, c := range []struct{ query, want string }{
		{"MATCH (n) WHERE n.field12345 = 12345 RETURN n.title, n.field00042 + 1, n.when, n.listed", "[[Wide 43 2024-01-02 [x  y z]]]"},
		{"MATCH (n) WHERE n.field19999 = 7 RETURN count(n)", "[[30]]"},
		{"MATCH (n) WHERE n.status = 's1' RETURN count(n)", "[[10]]"},
		{"MATCH (n {title: 'Wide'}) RETURN size(keys(n)) > 20000, properties(n).field00007, n.nope", "[[true 7 <nil>]]"},
	} {
		res, err := db.Query(context.Background(), c.query, nil)
		if err != nil {
			t.Fatalf("%s: %v", c.query, err)
		}
		if got := fmt.Sprint(res.Rows); got != c.want {
			t.Errorf("%s: %s, want %s", c.query, got, c.want)
		}
	}
	// A node read whole carries the tail's properties, typed.
	node, err := db.Query(context.Background(), "MATCH (n {title: 'Wide'}) RETURN n", nil)
	if err != nil {
		t.Fatal(err)
	}
	props := node.Rows[0][0].(*graphdb.Node).Properties
	if len(props) < 20000 || props["field00009"] != int64(9) {
		t.Errorf("node has %d properties, field00009 = %#v", len(props), props["field00009"])
	}
}
