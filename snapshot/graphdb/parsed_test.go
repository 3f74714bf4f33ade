package graphdb_test

import (
	"sync"
	"testing"

	"github.com/vaultgraph/vaultgraph/snapshot/cypher"
	"github.com/vaultgraph/vaultgraph/snapshot/graphdb"
)

// TestTranslateLeavesTheTreeAlone checks what the DB's parse cache relies
// on: translating a syntax tree does not change it, so one tree can be
// translated for many requests at once (run with -race). Every
// conformance query's tree is translated by four goroutines at a time;
// each translation must equal one from a fresh parse, and the tree must
// print as it did before.
func TestTranslateLeavesTheTreeAlone(t *testing.T) {
	db, err := graphdb.Open(demoSnapshot(t), graphdb.Options{BufferPoolSize: 64 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	opts := cypher.Options{MaxRows: 1000}
	for _, q := range readQueries(t) {
		want, werr := cypher.Compile(q.Query, db.Graph(), q.Params, opts)
		tree, err := cypher.Parse(q.Query)
		if err != nil {
			continue
		}
		before := cypher.Print(tree)
		var wg sync.WaitGroup
		for range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				got, gerr := cypher.Translate(tree, db.Graph(), q.Params, cypher.Options{MaxRows: 1000, Schema: cypher.NewSchema(db.Graph())})
				switch {
				case (werr == nil) != (gerr == nil):
					t.Errorf("%s: error %v, from a fresh parse %v", q.Name, gerr, werr)
				case werr != nil:
					if werr.Error() != gerr.Error() {
						t.Errorf("%s: error %v, from a fresh parse %v", q.Name, gerr, werr)
					}
				case got.Query != want.Query:
					t.Errorf("%s: translated\n%s\nfrom a fresh parse\n%s", q.Name, got.Query, want.Query)
				}
			}()
		}
		wg.Wait()
		if after := cypher.Print(tree); after != before {
			t.Errorf("%s: translating changed the tree:\n%s\nwas\n%s", q.Name, after, before)
		}
	}
}
