package graphdb_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/vaultgraph/vaultgraph/snapshot/cypher"
	"github.com/vaultgraph/vaultgraph/snapshot/graphdb"
)

// TestLargeSkipAfterOrderByIsRefused runs, on a real database of the demo
// vault (34 notes), the SKIPs after ORDER BY that ended the process inside
// Kuzu (SIGSEGV: without the bound this test process dies), on the engine
// and with the direct copy. Each is refused as unsupported with the limit
// in the message; the largest SKIP allowed runs and finds no row, and the
// database keeps answering.
func TestLargeSkipAfterOrderByIsRefused(t *testing.T) {
	dir := demoSnapshot(t)
	ctx := context.Background()
	for _, mode := range []int{graphdb.DirectOff, graphdb.DirectAtOpen} {
		db, err := graphdb.Open(dir, graphdb.Options{BufferPoolSize: 128 << 20, Direct: mode})
		if err != nil {
			t.Fatal(err)
		}
		one, two := cypher.MaxOrderedSkip(1), cypher.MaxOrderedSkip(2)
		for _, c := range []struct {
			query  string
			params map[string]any
			limit  int64
		}{
			{"MATCH (n) WITH n RETURN n.title ORDER BY n.title SKIP 2147483647", nil, one},
			{"MATCH (n) WITH n RETURN n.title ORDER BY n.title SKIP 12000 LIMIT 1", nil, one},
			{"MATCH (n) WITH n RETURN n.title ORDER BY n.title SKIP $s", map[string]any{"s": 1e12}, one},
			{"MATCH (n) WITH n RETURN n.title ORDER BY n.title SKIP $s LIMIT 5", map[string]any{"s": int64(100000)}, one},
			{"MATCH (n) WITH n RETURN n.title ORDER BY n.title SKIP 100000 + 1", nil, one},
			{"MATCH (n) RETURN DISTINCT n.title ORDER BY n.title SKIP 100000 LIMIT 1", nil, one},
			{"MATCH (n) RETURN n.title ORDER BY n.title, n.path SKIP 7300 LIMIT 1", nil, two},
			{"MATCH (n) WITH n ORDER BY n.title SKIP 50000 RETURN n.title", nil, one},
			{"MATCH (n) RETURN n.id ORDER BY n.id SKIP 9000", nil, one},
		} {
			_, err := db.Run(ctx, graphdb.Request{Query: c.query, Params: c.params})
			if cypher.KindOf(err) != cypher.KindUnsupported || !strings.Contains(err.Error(), fmt.Sprintf("more than %d", c.limit)) {
				t.Errorf("direct %v: %s %v: %v, want an unsupported error naming %d", mode, c.query, c.params, err, c.limit)
			}
		}
		for _, q := range []string{
			fmt.Sprintf("MATCH (n) WITH n RETURN n.title ORDER BY n.title SKIP %d LIMIT 1", one),
			fmt.Sprintf("MATCH (n) RETURN n.id ORDER BY n.id SKIP %d", one),
			fmt.Sprintf("MATCH (n) RETURN n.title ORDER BY n.title, n.path SKIP %d LIMIT 1", two),
			fmt.Sprintf("MATCH (n) WITH n ORDER BY n.title SKIP %d RETURN n.title", one),
		} {
			res, err := db.Query(ctx, q, nil)
			if err != nil || len(res.Rows) != 0 {
				t.Errorf("direct %v: %s: %v, %v; want no row", mode, q, err, res)
			}
		}
		// SKIP without ORDER BY is another operator, and is not bounded.
		if res, err := db.Query(ctx, "MATCH (n) RETURN n.title SKIP 2147483647", nil); err != nil || len(res.Rows) != 0 {
			t.Errorf("direct %v: SKIP without ORDER BY: %v, %v", mode, err, res)
		}
		res, err := db.Query(ctx, "MATCH (n) WITH n RETURN n.title ORDER BY n.title SKIP 2 LIMIT 1", nil)
		if err != nil || len(res.Rows) != 1 {
			t.Fatalf("direct %v: after the refusals: %v, %v", mode, err, res)
		}
		db.Close()
	}
}
