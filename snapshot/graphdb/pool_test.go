package graphdb

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/vaultgraph/vaultgraph/format"
	"github.com/vaultgraph/vaultgraph/snapshot/cypher"
)

// walkQuery is a variable-length match over the graph of openWide: its
// recursive walks keep every worker thread they may use busy (they start
// from several morsels of nodes), for longer than any test runs (only its
// context stops it).
const walkQuery = "MATCH (a)-[*1..12]->(d) RETURN count(*)"

// openWide opens a graph of 5,000 notes with 6 links each.
func openWide(t *testing.T, opts Options) *DB {
	t.Helper()
	const n = 5000
	var notes []format.Note
	var edges []format.Edge
	for i := range n {
		notes = append(notes, format.Note{ID: fmt.Sprintf("n%d.md", i), Path: fmt.Sprintf("n%d.md", i), Title: fmt.Sprint(i)})
	}
	for i := range n {
		for k := 1; k <= 6; k++ {
			j := (i*7 + k*k*131) % n
			edges = append(edges, format.Edge{ID: fmt.Sprintf("%d-%d", i, k), Source: notes[i].ID, Target: notes[j].ID, Type: "links_to", Sign: 1, Count: 1})
		}
	}
	dir := t.TempDir()
	g, err := Build(context.Background(), dir, notes, edges, BuildOptions{BufferPoolSize: 64 << 20})
	if err != nil {
		t.Fatal(err)
	}
	db, err := OpenFile(filepath.Join(dir, format.GraphFile), g, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// TestSlowQueryDoesNotBlockOthers runs a point lookup while a long walk that
// keeps its workers busy runs on another connection: the lookup answers
// while the walk still runs. (Kuzu's worker threads are shared by the
// connections of a database; with as many workers as one query may use,
// the lookup waited for the walk to end.)
func TestSlowQueryDoesNotBlockOthers(t *testing.T) {
	db := openWide(t, Options{BufferPoolSize: 256 << 20, Connections: 2, Threads: 2})
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel) // before Close, which waits for the walk
	inEngine := make(chan struct{})
	var once sync.Once
	db.beforeEngine = func(string) { once.Do(func() { close(inEngine) }) }
	var walkDone atomic.Bool
	walkErr := make(chan error, 1)
	go func() {
		_, err := db.Run(ctx, Request{Query: walkQuery, Timeout: 10 * time.Minute})
		walkDone.Store(true)
		walkErr <- err
	}()
	<-inEngine
	// The walk plans for a while before its workers start; look up for
	// two seconds (the assertion is about the lookups' answers, not their
	// time: without a worker of its own, one waits for the walk's
	// timeout and times out itself).
	for i, start := 0, time.Now(); time.Since(start) < 2*time.Second; i++ {
		res, err := db.Run(context.Background(), Request{Query: "MATCH (n) WHERE n.id = 'n3.md' RETURN n.title", Timeout: 30 * time.Second})
		if err != nil {
			t.Fatalf("lookup %d while a walk runs: %v", i, err)
		}
		if len(res.Rows) != 1 || res.Rows[0][0] != "3" {
			t.Fatalf("lookup %d: rows %v", i, res.Rows)
		}
	}
	if walkDone.Load() {
		t.Fatal("the walk ended before the lookups; the test proves nothing")
	}
	cancel()
	if err := <-walkErr; cypher.KindOf(err) != cypher.KindCanceled {
		t.Errorf("walk: %v, want canceled", err)
	}
}

// wideParam is a map parameter that Kuzu takes about a second to parse
// (within cypher's limits), a step its own timeout does not cover.
func wideParam() map[string]any {
	m := map[string]any{}
	for i := range cypher.MaxParamItems - 1 {
		m[fmt.Sprint("k", i)] = i
	}
	return m
}

// TestTimeoutCoversParsing gives a query a timeout shorter than the
// engine takes to parse it: Run returns a timeout at its deadline instead
// of the result after the parse, and the next query on a one-connection
// pool runs on a spare connection instead of waiting for the first.
func TestTimeoutCoversParsing(t *testing.T) {
	db := openDenseWith(t, Options{BufferPoolSize: 128 << 20, Connections: 1})
	parsing := make(chan struct{})
	var once sync.Once
	db.beforeEngine = func(string) { once.Do(func() { close(parsing) }) }
	_, err := db.Run(context.Background(), Request{Query: "RETURN $p IS NULL AS x", Params: map[string]any{"p": wideParam()}, Timeout: 20 * time.Millisecond})
	if cypher.KindOf(err) != cypher.KindTimeout {
		t.Fatalf("err = %v, want a timeout", err)
	}
	<-parsing
	// The first connection may still be parsing: this query must not
	// wait for it.
	res, err := db.Run(context.Background(), Request{Query: "MATCH (n) RETURN count(n)", Timeout: time.Minute})
	if err != nil {
		t.Fatalf("query after an abandoned one: %v", err)
	}
	if res.Rows[0][0] != int64(25) {
		t.Errorf("count = %v", res.Rows[0][0])
	}
	// Close waits for the abandoned connection and closes every one.
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Query(context.Background(), "RETURN 1", nil); !errors.Is(err, ErrClosed) {
		t.Errorf("after Close: %v", err)
	}
}
