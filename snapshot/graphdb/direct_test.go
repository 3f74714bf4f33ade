package graphdb_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/vaultgraph/vaultgraph/indexer"
	"github.com/vaultgraph/vaultgraph/indexer/vaultgen"
	"github.com/vaultgraph/vaultgraph/snapshot/cypher"
	"github.com/vaultgraph/vaultgraph/snapshot/graphdb"
)

// directCase is a query with the answer path it must take on a database
// that has its copy.
type directCase struct {
	query   string
	params  map[string]any
	maxRows int
	// direct says the copy must answer it (else the engine must), unless
	// either is set.
	direct, either bool
}

// TestDirectAnswersEqualTheEngine runs simple queries from every note of
// the demo vault, of every edge type and label, on a database answering
// from its copy and on one answering everything in the engine: the
// answers must be equal, and the copy must answer exactly the queries of
// its shapes.
func TestDirectAnswersEqualTheEngine(t *testing.T) {
	t.Run("demo", func(t *testing.T) { compareDirect(t, demoSnapshot(t)) })
	t.Run("generated", func(t *testing.T) { compareDirect(t, generatedGraph(t, 400, 7)) })
}

// generatedGraph indexes a generated vault of notes notes with the graph
// stage alone and returns its snapshot's directory.
func generatedGraph(t *testing.T, notes int, seed int64) string {
	t.Helper()
	vault := filepath.Join(t.TempDir(), "vault")
	if _, err := vaultgen.Generate(vault, vaultgen.Config{Notes: notes, Seed: seed}); err != nil {
		t.Fatal(err)
	}
	res, err := indexer.Run(context.Background(), indexer.Options{
		Vault: vault, Data: filepath.Join(t.TempDir(), "data"),
		Stages: []indexer.Stage{indexer.GraphStage{BufferPoolSize: 128 << 20}},
	})
	if err != nil {
		t.Fatal(err)
	}
	return res.Dir
}

func compareDirect(t *testing.T, dir string) {
	engine, err := graphdb.Open(dir, graphdb.Options{BufferPoolSize: 128 << 20, Direct: graphdb.DirectOff})
	if err != nil {
		t.Fatal(err)
	}
	defer engine.Close()
	copied, err := graphdb.Open(dir, graphdb.Options{BufferPoolSize: 128 << 20, Direct: graphdb.DirectAtOpen})
	if err != nil {
		t.Fatal(err)
	}
	defer copied.Close()
	ctx := context.Background()
	column := func(q string) []any {
		res, err := engine.Query(ctx, q, nil)
		if err != nil {
			t.Fatal(err)
		}
		var out []any
		for _, r := range res.Rows {
			out = append(out, r[0])
		}
		return out
	}
	var cases []directCase
	add := func(direct bool, q string, params map[string]any) {
		cases = append(cases, directCase{query: q, params: params, direct: direct})
	}
	// either: the copy answers when the rows that LIMIT keeps do not
	// depend on the order of rows the query leaves open.
	either := func(q string, params map[string]any) {
		cases = append(cases, directCase{query: q, params: params, either: true})
	}
	for _, id := range column("MATCH (n) RETURN n.id ORDER BY n.id") {
		p := map[string]any{"p": id}
		add(true, "MATCH (a)-[r]->(b) WHERE a.id = $p RETURN b.id, b.title ORDER BY b.id", p)
		add(true, "MATCH (a)<-[]-(b) WHERE a.path = $p RETURN b.path, b.title, b.stub", p)
		add(true, "MATCH (a {id: $p})-[:links_to]->(b) RETURN b.title, b.stub, count(*) AS c ORDER BY c DESC, b.title, b.stub", p)
		add(true, "MATCH (b)<-[:links_to]-(a) WHERE b.id = $p RETURN count(a) AS n", p)
		add(true, "MATCH (a)-[r]->(b) WHERE b.id = $p RETURN DISTINCT a.folder", p)
		add(true, "MATCH (a)-[r]->(b) WHERE a.id = $p RETURN type(r), b.id ORDER BY b.id, type(r)", p)
		add(true, "MATCH (a)<-[r]-(b) WHERE a.path = $p RETURN type(r) AS t, count(*) AS n ORDER BY t", p)
		// The engine answers these, with the note looked up by its id.
		add(false, "MATCH (a)-[r]->(b) WHERE a.path = $p RETURN b.id, size(b.title) AS n ORDER BY b.id, n", p)
		add(false, "MATCH (a)<-[r*1..2]-(b) WHERE a.path = $p AND b.stub = false RETURN DISTINCT b.id ORDER BY b.id", p)
	}
	for _, title := range column("MATCH (n) RETURN DISTINCT n.title") {
		add(true, "MATCH (a)-[]->(b) WHERE a.title = $t RETURN a.id, b.id ORDER BY a.id, b.id", map[string]any{"t": title})
		add(false, "MATCH (a {title: $t})<-[r]-(b) RETURN b.id, r.sign, toUpper(b.title) AS u ORDER BY b.id, r.sign, u", map[string]any{"t": title})
	}
	add(false, "MATCH (x) WHERE x.title CONTAINS '' RETURN count(*) AS n", nil)
	for _, prefix := range []string{"A", "B", "Ol", "Z", "é", "s", "e", "2019"} {
		p := map[string]any{"s": prefix}
		add(true, "MATCH (p)-[r]->(x) WHERE x.title STARTS WITH $s RETURN p.id, x.id ORDER BY p.id, x.id", p)
		add(true, "MATCH (x) WHERE x.path ENDS WITH $s RETURN count(*) AS n", p)
		add(true, "MATCH (x) WHERE x.folder CONTAINS $s AND x.id STARTS WITH $s RETURN x.title ORDER BY x.title", p)
		either("MATCH (p:Person)-[:authored]->(x) WHERE x.title STARTS WITH $s RETURN p.title, x.title LIMIT 20", p)
		either("MATCH (x) WHERE x.title CONTAINS $s RETURN x.folder, count(*) AS n ORDER BY n DESC LIMIT 2", p)
	}
	add(false, "MATCH (n) RETURN n.id LIMIT 3", nil)
	add(false, "MATCH (n) RETURN n.id SKIP 3", nil)
	for _, typ := range column("CALL db.relationshipTypes() RETURN relationshipType") {
		q := fmt.Sprintf("MATCH (a)-[r:`%s`]->(b) RETURN a.id, b.id ORDER BY a.id DESC, b.id LIMIT 7", typ)
		add(true, q, nil)
		add(true, fmt.Sprintf("MATCH (a)-[:`%s`|links_to]->(b) RETURN count(*) AS n", typ), nil)
		add(true, fmt.Sprintf("MATCH (a)<-[r:`%s`]-(b) WHERE b.stub = false RETURN b.title, count(r) AS n ORDER BY n DESC, b.title", typ), nil)
	}
	for _, label := range column("CALL db.labels() RETURN label") {
		add(true, fmt.Sprintf("MATCH (n:`%s`) RETURN count(*) AS n", label), nil)
		add(true, fmt.Sprintf("MATCH (n:`%s`) RETURN n.id ORDER BY n.id DESC SKIP 1 LIMIT 3", label), nil)
		add(true, fmt.Sprintf("MATCH (a:`%s`)-[r]->(b:Person) RETURN count(r) AS n", label), nil)
		add(true, fmt.Sprintf("MATCH (n:`%s`) UNWIND labels(n) AS l RETURN l, count(*) AS c ORDER BY c DESC, l", label), nil)
	}
	add(true, "MATCH (n) UNWIND labels(n) AS l RETURN l, count(*) AS c ORDER BY c DESC, l", nil)
	add(true, "MATCH (n) UNWIND labels(n) AS l RETURN count(*) AS c", nil)
	add(true, "MATCH (n) RETURN count(n) AS c", nil)
	add(true, "MATCH (n) WHERE n.stub = true RETURN n.id ORDER BY n.id", nil)
	add(true, "MATCH (n) RETURN DISTINCT n.folder ORDER BY n.folder", nil)
	add(true, "MATCH (a)-[:links_to]->(b) WHERE a.path = 'no such note.md' RETURN count(*) AS c", nil)
	add(true, "MATCH (n:Person:NoSuchLabel) RETURN count(*) AS c", nil)
	add(true, "MATCH (a)-[:no_such_type]->(b) RETURN count(*) AS c", nil)
	// Sorting by a null (a stub's path) and shapes outside the copy's
	// are left to the engine.
	add(false, "MATCH (a)-[:links_to]->(b) RETURN b.path ORDER BY b.path", nil)
	add(false, "OPTIONAL MATCH (a)-[:links_to]->(b) WHERE a.id = 'x' RETURN b.title", nil)
	add(false, "MATCH (a)-[:links_to]-(b) RETURN count(*) AS c", nil)
	add(false, "MATCH (a)-[:links_to*1..2]->(b) RETURN count(*) AS c", nil)
	add(true, "MATCH (a)-[:links_to]->(b) WHERE a.title STARTS WITH 'A' RETURN b.title", nil)
	add(false, "MATCH (a)-[:links_to]->(b) WHERE a.title < 'A' RETURN b.title", nil)
	add(false, "MATCH (a)-[:links_to]->(b) RETURN b", nil)
	add(false, "MATCH (a)-[:links_to]->(b) RETURN b.size ORDER BY b.size", nil)
	add(false, "MATCH (n) WHERE n.title = 3 RETURN n.id", nil)
	add(false, "MATCH (a)-[:links_to]->(a) RETURN a.id", nil)
	add(false, "MATCH (n:Person|Company) RETURN count(*) AS c", nil)
	// A column named like a variable shadows it only in the copy: the
	// engine's ORDER BY sorts by the variable or refuses a node, so these
	// are left to the engine.
	add(false, "MATCH (n) UNWIND labels(n) AS l RETURN n.title AS l ORDER BY l LIMIT 4", nil)
	add(false, "MATCH (n) RETURN n.title AS n ORDER BY n LIMIT 3", nil)
	add(false, "MATCH (a)-[:links_to]->(b) RETURN b.title AS a ORDER BY a", nil)
	add(false, "MATCH (a)-[r]->(b) RETURN type(r) AS b ORDER BY b", nil)
	add(false, "MATCH (a)-[r]->(b) RETURN a.title AS r, count(*) AS c ORDER BY c DESC, r LIMIT 5", nil)
	add(true, "MATCH (n) UNWIND labels(n) AS l RETURN l, n.title AS t ORDER BY l, t LIMIT 4", nil)
	cases = append(cases,
		directCase{query: "MATCH (n) RETURN n.id ORDER BY n.id", maxRows: 2, direct: true},
		directCase{query: "MATCH (n) UNWIND labels(n) AS l RETURN l, count(*) AS c ORDER BY c, l", maxRows: 3, direct: true})

	direct, keyed := 0, 0
	for _, c := range cases {
		req := graphdb.Request{Query: c.query, Params: c.params, MaxRows: c.maxRows}
		want, werr := engine.Run(ctx, req)
		got, gerr := copied.Run(ctx, req)
		if werr != nil || gerr != nil {
			if werr == nil || gerr == nil || werr.Error() != gerr.Error() {
				t.Errorf("%s %v: engine error %v, copy error %v", c.query, c.params, werr, gerr)
			}
			continue
		}
		if want.Direct {
			t.Fatalf("%s: the engine's database answered from a copy", c.query)
		}
		if got.Direct != c.direct && !c.either {
			t.Errorf("%s %v: answered from the copy %v, want %v", c.query, c.params, got.Direct, c.direct)
		}
		if got.Direct {
			direct++
		}
		if strings.Contains(got.Translated, "`id`) = ") && !strings.Contains(want.Translated, "`id`) = ") {
			keyed++
		}
		if c.either && !got.Direct {
			// The copy saw a cut inside tied rows and left the query to
			// the engine: both answers are the engine's, and which of the
			// tied rows it keeps may change from run to run.
			if len(want.Rows) != len(got.Rows) || !slices.Equal(want.Columns, got.Columns) {
				t.Errorf("%s %v: the engine answered %d and %d rows", c.query, c.params, len(want.Rows), len(got.Rows))
			}
			continue
		}
		// Rows tied on the sort keys come in either order (openCypher
		// leaves it open, and the engine's order among them changes from
		// run to run): an either case, whose rows the copy answers only
		// when LIMIT cuts between ties, compares its rows as a set.
		ordered := strings.Contains(c.query, "ORDER BY") && !c.either
		if a, b := answerText(t, want, ordered), answerText(t, got, ordered); a != b {
			t.Errorf("%s %v:\n engine %s\n copy   %s", c.query, c.params, a, b)
		}
	}
	if eithers := slices.IndexFunc(cases, func(c directCase) bool { return c.either }); eithers < 0 {
		t.Fatal("no case may go either way")
	}
	if direct < len(cases)/2 {
		t.Errorf("only %d of %d queries answered from the copy", direct, len(cases))
	}
	if keyed == 0 {
		t.Error("no query's note was looked up by its id")
	}
	t.Logf("%d queries, %d answered from the copy, %d looked up by id in the engine", len(cases), direct, keyed)
}

// answerText is a result's columns, rows (sorted when the query does not
// order them) and truncation, as JSON.
func answerText(t *testing.T, res *graphdb.Result, ordered bool) string {
	rows := make([]string, len(res.Rows))
	for i, r := range res.Rows {
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		rows[i] = string(b)
	}
	if !ordered {
		slices.Sort(rows)
	}
	b, err := json.Marshal(struct {
		Columns   []graphdb.Column
		Rows      []string
		Truncated bool
	}{res.Columns, rows, res.Truncated})
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestDirectAnswersKeepTheContract checks that a database answering from
// its copy still refuses a canceled query and queries after Close.
func TestDirectAnswersKeepTheContract(t *testing.T) {
	db, err := graphdb.Open(demoSnapshot(t), graphdb.Options{BufferPoolSize: 64 << 20, Direct: graphdb.DirectAtOpen})
	if err != nil {
		t.Fatal(err)
	}
	const q = "MATCH (n:Person) RETURN count(*) AS c"
	res, err := db.Query(context.Background(), q, nil)
	if err != nil || !res.Direct || res.Snapshot == "" {
		t.Fatalf("%v %+v", err, res)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var e *cypher.Error
	if _, err := db.Query(ctx, q, nil); !errors.As(err, &e) || e.Kind != cypher.KindCanceled {
		t.Fatalf("canceled: %v", err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Query(context.Background(), q, nil); !errors.Is(err, graphdb.ErrClosed) {
		t.Fatalf("after Close: %v", err)
	}
}

// TestDirectAnswersLazily checks the default: the copy is read after the
// first query of its shapes (answered by the engine meanwhile), and a
// database closed while it reads closes cleanly.
func TestDirectAnswersLazily(t *testing.T) {
	db, err := graphdb.Open(demoSnapshot(t), graphdb.Options{BufferPoolSize: 64 << 20})
	if err != nil {
		t.Fatal(err)
	}
	const q = "MATCH (n:Person) RETURN count(*) AS c"
	first, err := db.Query(context.Background(), q, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}
	if len(first.Rows) != 1 {
		t.Fatalf("rows %v", first.Rows)
	}
	if _, err := db.Query(context.Background(), q, nil); !errors.Is(err, graphdb.ErrClosed) {
		t.Fatalf("after Close: %v", err)
	}
}

// TestDirectTopRowsEqualSortingEveryMatch: a sorted query with SKIP and
// LIMIT answered from the rows a heap kept (topRows) is the answer of
// sorting every match, row for row, and is left to the engine in the
// same cases (a cut inside tied rows that differ, a null sort key), over
// queries whose sort keys tie often.
func TestDirectTopRowsEqualSortingEveryMatch(t *testing.T) {
	db, err := graphdb.Open(generatedGraph(t, 300, 11), graphdb.Options{BufferPoolSize: 128 << 20, Direct: graphdb.DirectAtOpen})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	defer graphdb.SetDirectTopK(graphdb.SetDirectTopK(true))
	sorts := []string{
		"MATCH (a)-[e]->(b) RETURN a.title, b.title ORDER BY b.title DESC, a.title",
		"MATCH (a)-[e]->(b) RETURN a.title, b.title ORDER BY b.title",            // ties on b.title, rows differ
		"MATCH (a)-[e]->(b) RETURN b.title ORDER BY b.title",                     // ties, rows equal
		"MATCH (a)-[e]->(b) RETURN type(e), b.title ORDER BY type(e)",            // long runs of ties
		"MATCH (a)-[e]->(b) RETURN a.id ORDER BY b.stub, a.id DESC",              // an extra sort key
		"MATCH (a)-[:links_to]->(b) RETURN b.path ORDER BY b.path",               // a null sort key: the engine
		"MATCH (n) UNWIND labels(n) AS l RETURN l, n.title AS t ORDER BY l, t",   // unwound labels
		"MATCH (n) UNWIND labels(n) AS l RETURN l ORDER BY l",                    // ties, rows equal
		"MATCH (n) WHERE n.stub = false RETURN n.folder, n.id ORDER BY n.folder", // ties, rows differ
		// ties whose rows are mostly equal, some not
		"MATCH (a)-[e]->(b) RETURN b.title, type(e) ORDER BY b.title",
		"MATCH (a)-[e]->(b) RETURN type(e), b.stub ORDER BY type(e)",
		"MATCH (a)-[e]->(b) RETURN type(e), b.stub ORDER BY type(e) DESC",
	}
	ctx := context.Background()
	compared, direct, ambiguous := 0, 0, 0
	for _, q := range sorts {
		for _, cut := range []struct{ skip, limit, maxRows int }{
			{0, 1, 0}, {0, 7, 0}, {3, 5, 0}, {17, 13, 0}, {40, 2, 0}, {0, 100, 0}, {250, 30, 0},
			{1, 1, 0}, {5, 0, 0}, {0, 5000, 0}, {10, 50, 7}, {100000, 3, 0},
		} {
			query := fmt.Sprintf("%s SKIP %d LIMIT %d", q, cut.skip, cut.limit)
			req := graphdb.Request{Query: query, MaxRows: cut.maxRows}
			graphdb.SetDirectTopK(false)
			want, werr := db.Run(ctx, req)
			graphdb.SetDirectTopK(true)
			got, gerr := db.Run(ctx, req)
			if werr != nil || gerr != nil {
				t.Fatalf("%s: %v / %v", query, werr, gerr)
			}
			if want.Direct != got.Direct {
				t.Errorf("%s: answered from the copy %v sorting every match, %v from the heap", query, want.Direct, got.Direct)
				continue
			}
			compared++
			if !got.Direct {
				// Both left it to the engine, which may order ties its own way.
				ambiguous++
				continue
			}
			direct++
			if a, b := answerText(t, want, true), answerText(t, got, true); a != b {
				t.Errorf("%s:\n sorting every match %s\n from the heap        %s", query, a, b)
			}
		}
	}
	if direct == 0 || ambiguous == 0 {
		t.Errorf("%d cuts answered from the copy and %d left to the engine; want some of each", direct, ambiguous)
	}
	t.Logf("%d cuts compared: %d answered from the copy, %d left to the engine", compared, direct, ambiguous)
}
