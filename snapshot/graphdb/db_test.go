package graphdb

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vaultgraph/vaultgraph/format"
	"github.com/vaultgraph/vaultgraph/snapshot/cypher"
)

// denseDB is a graph where every note links to every other: variable-length
// paths over it explode, which makes a query that only a timeout stops.
func denseDB(t *testing.T) *DB {
	t.Helper()
	return openDense(t, 128<<20)
}

// openDense opens the graph of denseDB with a buffer pool of the given
// size.
func openDense(t *testing.T, bufferPool uint64) *DB {
	t.Helper()
	return openDenseWith(t, Options{BufferPoolSize: bufferPool, Connections: 2})
}

// openDenseWith opens the graph of denseDB with opts.
func openDenseWith(t *testing.T, opts Options) *DB {
	t.Helper()
	var notes []format.Note
	var edges []format.Edge
	for i := range 25 {
		notes = append(notes, format.Note{ID: fmt.Sprintf("n%d.md", i), Path: fmt.Sprintf("n%d.md", i), Title: fmt.Sprint(i)})
	}
	for i := range notes {
		for j := range notes {
			if i != j {
				edges = append(edges, format.Edge{ID: fmt.Sprintf("%d-%d", i, j), Source: notes[i].ID, Target: notes[j].ID, Type: "links_to", Sign: 1, Count: 1})
			}
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

const explodingQuery = "MATCH (a)-[*1..10]->(b) RETURN count(*)"

// TestTimeout runs a query that would take far longer than its timeout:
// it ends with a timeout (a query that ignored its timeout would run
// until go test's own deadline), and the database answers the next.
func TestTimeout(t *testing.T) {
	db := denseDB(t)
	_, err := db.Run(context.Background(), Request{Query: explodingQuery, Timeout: 50 * time.Millisecond})
	if cypher.KindOf(err) != cypher.KindTimeout {
		t.Fatalf("err = %v, want a timeout", err)
	}
	// The connection is usable again.
	if _, err := db.Query(context.Background(), "MATCH (n) RETURN count(n)", nil); err != nil {
		t.Fatalf("query after a timeout: %v", err)
	}
}

// TestOutOfMemory fills a small buffer pool: the error says the engine ran
// out of memory, not that the query is wrong, and the database answers
// the next query.
func TestOutOfMemory(t *testing.T) {
	db := openDense(t, 16<<20)
	_, err := db.Run(context.Background(), Request{Query: "MATCH p=(a)-[*1..10]->(b) RETURN count(p)", Timeout: 5 * time.Minute})
	var e *Error
	if !errors.As(err, &e) || e.Kind != KindOutOfMemory {
		t.Fatalf("err = %v, want kind %s", err, KindOutOfMemory)
	}
	for _, want := range []string{"16 MiB", "buffer pool is full", "variable-length", "more memory"} {
		if !strings.Contains(e.Message, want) {
			t.Errorf("message lacks %q: %s", want, e.Message)
		}
	}
	if !errors.Is(err, &Error{Kind: KindOutOfMemory}) {
		t.Error("errors.Is does not match the kind")
	}
	if _, err := db.Query(context.Background(), "MATCH (n) RETURN count(n)", nil); err != nil {
		t.Fatalf("query after running out of memory: %v", err)
	}
}

func TestEngineErrorKinds(t *testing.T) {
	db := openFixture(t)
	for msg, kind := range map[string]cypher.Kind{
		"Buffer manager exception: Unable to allocate memory! The buffer pool is full and no memory could be freed!": KindOutOfMemory,
		"Buffer manager eager exception: Failed to claim a frame.":                                                   KindOutOfMemory,
		"std::bad_alloc": KindOutOfMemory,
		"IO exception: mmap failed: Cannot allocate memory":       KindOutOfMemory,
		"Binder exception: Variable x is not in scope.":           cypher.KindRuntime,
		"Runtime exception: DFA out of memory: pattern too large": cypher.KindRuntime,
	} {
		if got := db.engineError(errors.New(msg), "").Kind; got != kind {
			t.Errorf("%q: kind %s, want %s", msg, got, kind)
		}
	}
}

// enteringEngine makes db report, on the returned channel, each query
// that is about to enter the engine.
func enteringEngine(db *DB) <-chan string {
	entered := make(chan string, 16)
	db.beforeEngine = func(q string) { entered <- q }
	return entered
}

// TestCanceled cancels a query once it is in the engine.
func TestCanceled(t *testing.T) {
	db := denseDB(t)
	entered := enteringEngine(db)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-entered
		cancel()
	}()
	_, err := db.Run(ctx, Request{Query: explodingQuery, Timeout: 30 * time.Second})
	if cypher.KindOf(err) != cypher.KindCanceled {
		t.Fatalf("err = %v, want canceled", err)
	}
}

func TestRowCap(t *testing.T) {
	db := openFixture(t)
	res, err := db.Run(context.Background(), Request{Query: "MATCH (n) RETURN n.id ORDER BY n.id", MaxRows: 2})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Truncated || len(res.Rows) != 2 || res.MaxRows != 2 {
		t.Errorf("truncated %v rows %d max %d", res.Truncated, len(res.Rows), res.MaxRows)
	}
	res, err = db.Run(context.Background(), Request{Query: "MATCH (n) RETURN n.id", MaxRows: 4})
	if err != nil || res.Truncated || len(res.Rows) != 4 {
		t.Errorf("exactly MaxRows rows: truncated %v rows %d err %v", res.Truncated, len(res.Rows), err)
	}
	// A UNION is not capped by LIMIT; the reader still stops.
	res, err = db.Run(context.Background(), Request{Query: "MATCH (n) RETURN n.id AS x UNION MATCH (m) RETURN m.title AS x", MaxRows: 3})
	if err != nil || !res.Truncated || len(res.Rows) != 3 {
		t.Errorf("union: truncated %v rows %d err %v", res.Truncated, len(res.Rows), err)
	}
}

// TestConcurrentQueries runs queries from many goroutines at once; with
// -race it checks the connection pool.
func TestConcurrentQueries(t *testing.T) {
	db := openFixture(t)
	want := mustQuery(t, db, "MATCH (p:Person)-[r]->(x) RETURN p.title, type(r), x.title ORDER BY p.title, type(r), x.title", nil).Rows
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	for g := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 10 {
				res, err := db.Query(context.Background(), "MATCH (p:Person)-[r]->(x) RETURN p.title, type(r), x.title ORDER BY p.title, type(r), x.title", nil)
				if err != nil {
					errs <- fmt.Errorf("goroutine %d query %d: %w", g, i, err)
					return
				}
				if !reflect.DeepEqual(res.Rows, want) {
					errs <- fmt.Errorf("goroutine %d query %d: rows differ", g, i)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestCloseWaitsForQueries closes the database while queries run: Close
// waits for them, and queries after it get ErrClosed.
func TestCloseWaitsForQueries(t *testing.T) {
	db := denseDB(t)
	entered := enteringEngine(db)
	var wg sync.WaitGroup
	results := make(chan error, 2)
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := db.Run(context.Background(), Request{Query: explodingQuery, Timeout: 300 * time.Millisecond})
			results <- err
		}()
	}
	<-entered
	<-entered
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	close(results)
	for err := range results {
		if err != nil && cypher.KindOf(err) != cypher.KindTimeout && !errors.Is(err, ErrClosed) {
			t.Errorf("query during Close: %v", err)
		}
	}
	if _, err := db.Query(context.Background(), "RETURN 1", nil); !errors.Is(err, ErrClosed) {
		t.Errorf("query after Close: %v, want ErrClosed", err)
	}
	if err := db.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

func TestWaitForConnectionRespectsTimeout(t *testing.T) {
	db := denseDB(t) // two connections
	entered := enteringEngine(db)
	// The two queries hold both connections until they are canceled (a
	// timeout of theirs would open spares).
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			db.Run(ctx, Request{Query: explodingQuery, Timeout: time.Minute})
		}()
	}
	<-entered
	<-entered
	_, err := db.Run(context.Background(), Request{Query: "RETURN 1", Timeout: 20 * time.Millisecond})
	if cypher.KindOf(err) != cypher.KindTimeout {
		t.Errorf("err = %v, want a timeout while waiting for a connection", err)
	}
	cancel()
	wg.Wait()
}

// TestTwoDatabasesAtOnce opens two snapshots' databases in one process, as
// the server does while it swaps snapshots.
func TestTwoDatabasesAtOnce(t *testing.T) {
	a, b := openFixture(t), denseDB(t)
	var wg sync.WaitGroup
	for _, db := range []*DB{a, b, a, b} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := db.Query(context.Background(), "MATCH (n) RETURN count(n)", nil); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	res := mustQuery(t, a, "MATCH (n) RETURN count(n)", nil)
	if res.Rows[0][0] != int64(4) {
		t.Errorf("fixture has %v notes", res.Rows[0][0])
	}
}
