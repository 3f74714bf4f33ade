package graphdb

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vaultgraph/vaultgraph/format"
)

// A query naming a label or type the snapshot lacks answers as openCypher
// does (no match: a count of 0) and carries a notice saying so, from the
// engine and from the copy in memory alike.
func TestNoticesOnUnknownNames(t *testing.T) {
	dir, g := buildFixture(t)
	for _, mode := range []int{DirectOff, DirectAtOpen} {
		db, err := OpenFile(filepath.Join(dir, format.GraphFile), g, Options{BufferPoolSize: 64 << 20, Connections: 2, Direct: mode})
		if err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct{ query, notice string }{
			{"MATCH (n:Persn) RETURN count(n)", "no label Persn in this snapshot; did you mean Person?"},
			{"MATCH ()-[r:link]->() RETURN count(r)", "link is links_to in Cypher (the graph tool and POST /graph call plain links link); this snapshot has no relationship type link"},
			{"MATCH (a)-[r:knowz]->(b) RETURN a.title, b.title", "no relationship type knowz in this snapshot; did you mean knows?"},
		} {
			res, err := db.Run(context.Background(), Request{Query: tc.query})
			if err != nil {
				t.Fatalf("direct %d: %s: %v", mode, tc.query, err)
			}
			if strings.Join(res.Notices, "\n") != tc.notice {
				t.Errorf("direct %d (answered directly: %v): %s: notices %q, want %q", mode, res.Direct, tc.query, res.Notices, tc.notice)
			}
			if strings.Contains(tc.query, "count") && (len(res.Rows) != 1 || res.Rows[0][0] != int64(0)) {
				t.Errorf("direct %d: %s: rows %v, want one count of 0", mode, tc.query, res.Rows)
			}
			if !strings.Contains(tc.query, "count") && len(res.Rows) != 0 {
				t.Errorf("direct %d: %s: rows %v, want none", mode, tc.query, res.Rows)
			}
		}
		res, err := db.Run(context.Background(), Request{Query: "MATCH (n:Person)-[r:knows|links_to]->() RETURN count(r)"})
		if err != nil || len(res.Notices) != 0 {
			t.Errorf("direct %d: known names: notices %q, err %v", mode, res.Notices, err)
		}
		db.Close()
	}
}
