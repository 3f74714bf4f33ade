package graphdb_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/vaultgraph/vaultgraph/snapshot/cypher"
	"github.com/vaultgraph/vaultgraph/snapshot/graphdb"
)

// TestLargeSkipAfterOrderByIsRefused runs, on a real database of the demo
// vault (34 notes), the SKIPs after ORDER BY that ended the process inside
// Kuzu (SIGSEGV: without the bound this test process dies), on the engine
// and with the direct copy. Before the final RETURN each is refused as
// unsupported with the limit in the message; in the final RETURN of a
// query of one part the caller drops the rows and finds none here. The
// largest SKIP allowed runs and finds no row, and the database keeps
// answering.
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
			{"MATCH (n) WITH n ORDER BY n.title SKIP 50000 RETURN n.title", nil, one},
			{"MATCH (n) WITH n ORDER BY n.title, n.path SKIP 7300 LIMIT 1 RETURN n.title", nil, two},
			{"MATCH (n) WITH n ORDER BY n.title SKIP $s LIMIT 5 RETURN n.title", map[string]any{"s": int64(100000)}, one},
			{"MATCH (n) RETURN n.title AS t ORDER BY t SKIP 20000 UNION ALL MATCH (n) RETURN n.path AS t", nil, one},
			{"MATCH (n) RETURN n.title ORDER BY n.title SKIP 20000 LIMIT size(n.title)", nil, one},
		} {
			_, err := db.Run(ctx, graphdb.Request{Query: c.query, Params: c.params})
			if cypher.KindOf(err) != cypher.KindUnsupported || !strings.Contains(err.Error(), fmt.Sprintf("more than %d", c.limit)) {
				t.Errorf("direct %v: %s %v: %v, want an unsupported error naming %d", mode, c.query, c.params, err, c.limit)
			}
		}
		for _, c := range []struct {
			query  string
			params map[string]any
		}{
			{"MATCH (n) WITH n RETURN n.title ORDER BY n.title SKIP 2147483647", nil},
			{"MATCH (n) WITH n RETURN n.title ORDER BY n.title SKIP 12000 LIMIT 1", nil},
			{"MATCH (n) WITH n RETURN n.title ORDER BY n.title SKIP $s", map[string]any{"s": 1e12}},
			{"MATCH (n) WITH n RETURN n.title ORDER BY n.title SKIP $s LIMIT 5", map[string]any{"s": int64(100000)}},
			{"MATCH (n) WITH n RETURN n.title ORDER BY n.title SKIP 100000 + 1", nil},
			{"MATCH (n) RETURN DISTINCT n.title ORDER BY n.title SKIP 100000 LIMIT 1", nil},
			{"MATCH (n) RETURN n.title ORDER BY n.title, n.path SKIP 7300 LIMIT 1", nil},
			{"MATCH (n) RETURN n.id ORDER BY n.id SKIP 9000", nil},
			{"MATCH (n) RETURN n.id ORDER BY n.id SKIP 9223372036854775807 LIMIT 9223372036854775807", nil},
		} {
			res, err := db.Run(ctx, graphdb.Request{Query: c.query, Params: c.params})
			if err != nil || len(res.Rows) != 0 {
				t.Errorf("direct %v: %s %v: %v, %v; want no row", mode, c.query, c.params, err, res)
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

// TestLargeSkipInTheFinalReturn pages far into a sorted result of more rows
// than the engine's first sorted block: the rows are those after the SKIP,
// in order, with a LIMIT, without one (cut at MaxRows) and with two keys.
func TestLargeSkipInTheFinalReturn(t *testing.T) {
	db, err := graphdb.Open(demoSnapshot(t), graphdb.Options{BufferPoolSize: 128 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	ints := func(res *graphdb.Result) []int64 {
		var out []int64
		for _, r := range res.Rows {
			out = append(out, r[0].(int64))
		}
		return out
	}
	for _, c := range []struct {
		query     string
		params    map[string]any
		maxRows   int
		want      []int64
		truncated bool
	}{
		{query: "UNWIND range(1, 30000) AS i RETURN i ORDER BY i SKIP 15000 LIMIT 3", want: []int64{15001, 15002, 15003}},
		{query: "UNWIND range(1, 30000) AS i RETURN i ORDER BY i DESC SKIP $s", params: map[string]any{"s": 29998}, want: []int64{2, 1}},
		{query: "UNWIND range(1, 30000) AS i RETURN i, i % 7 AS m ORDER BY m, i SKIP 25000 LIMIT 2", want: []int64{25002, 25009}},
		{query: "UNWIND range(1, 30000) AS i RETURN DISTINCT i / 2 AS h ORDER BY h SKIP 14999 LIMIT 2", want: []int64{14999, 15000}},
		{query: "UNWIND range(1, 30000) AS i RETURN i ORDER BY i SKIP 20000", maxRows: 3, want: []int64{20001, 20002, 20003}, truncated: true},
		{query: "UNWIND range(1, 30000) AS i RETURN i ORDER BY i SKIP 29999 LIMIT 5", maxRows: 3, want: []int64{30000}},
	} {
		res, err := db.Run(ctx, graphdb.Request{Query: c.query, Params: c.params, MaxRows: c.maxRows})
		if err != nil {
			t.Errorf("%s: %v", c.query, err)
			continue
		}
		if got := ints(res); !slices.Equal(got, c.want) || res.Truncated != c.truncated {
			t.Errorf("%s: %v (truncated %v), want %v (truncated %v)", c.query, got, res.Truncated, c.want, c.truncated)
		}
	}
}
