package graphdb_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/vaultgraph/vaultgraph/snapshot/cypher"
	"github.com/vaultgraph/vaultgraph/snapshot/graphdb"
)

// TestColumnNamedLikeAVariable orders by a column that has the name of a
// variable of the pattern or the UNWIND, on the engine: Kuzu's ORDER BY
// takes the variable (sorting by the label, or refusing a node), so the
// translator sorts by the column's expression, and each query must give
// the rows of the same query with the column named apart. Where the
// expression is gone after DISTINCT or an aggregation the query is
// refused, saying to rename the column.
func TestColumnNamedLikeAVariable(t *testing.T) {
	db, err := graphdb.Open(demoSnapshot(t), graphdb.Options{BufferPoolSize: 128 << 20, Direct: graphdb.DirectOff})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	rows := func(q string) string {
		res, err := db.Query(ctx, q, nil)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		return fmt.Sprint(res.Rows)
	}
	for _, c := range []struct{ query, apart string }{
		{"MATCH (n) UNWIND labels(n) AS l RETURN n.title AS l ORDER BY n.title LIMIT 3",
			"MATCH (n) UNWIND labels(n) AS l RETURN n.title AS t ORDER BY t LIMIT 3"},
		{"MATCH (n) UNWIND labels(n) AS l RETURN n.title AS l ORDER BY l DESC LIMIT 4",
			"MATCH (n) UNWIND labels(n) AS l RETURN n.title AS t ORDER BY t DESC LIMIT 4"},
		{"MATCH (a)-[r]->(b) WHERE a.title = 'Search' RETURN b.title AS r ORDER BY b.title LIMIT 3",
			"MATCH (a)-[r]->(b) WHERE a.title = 'Search' RETURN b.title AS t ORDER BY t LIMIT 3"},
		{"MATCH (n) RETURN n.title AS n ORDER BY n LIMIT 3",
			"MATCH (n) RETURN n.title AS t ORDER BY t LIMIT 3"},
		{"MATCH (a)-[r]->(b) RETURN type(r) AS b, a.title AS t ORDER BY b, t LIMIT 5",
			"MATCH (a)-[r]->(b) RETURN type(r) AS x, a.title AS t ORDER BY x, t LIMIT 5"},
		{"MATCH (n) WITH n.title AS n ORDER BY n SKIP 1 LIMIT 2 RETURN n",
			"MATCH (n) WITH n.title AS t ORDER BY t SKIP 1 LIMIT 2 RETURN t"},
	} {
		if got, want := rows(c.query), rows(c.apart); got != want {
			t.Errorf("%s: %s, want %s", c.query, got, want)
		}
	}
	for _, q := range []string{
		"MATCH (n) RETURN DISTINCT n.title AS n ORDER BY n LIMIT 3",
		"MATCH (n) UNWIND labels(n) AS l RETURN n.title AS l, count(*) AS c ORDER BY n.title LIMIT 3",
	} {
		_, err := db.Query(ctx, q, nil)
		if cypher.KindOf(err) != cypher.KindUnsupported {
			t.Errorf("%s: %v, want an unsupported error asking to rename the column", q, err)
		}
	}
}
