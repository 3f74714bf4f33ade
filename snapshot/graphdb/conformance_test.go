package graphdb_test

// The conformance suite lives in an external test package: it builds a
// snapshot of the demo vault with indexer.Run and the graph stage, and
// package indexer imports graphdb. An external test package may import
// packages that import the package under test, so there is no cycle.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vaultgraph/vaultgraph/format"
	"github.com/vaultgraph/vaultgraph/indexer"
	"github.com/vaultgraph/vaultgraph/snapshot"
	"github.com/vaultgraph/vaultgraph/snapshot/cypher"
	"github.com/vaultgraph/vaultgraph/snapshot/graphdb"
)

var update = flag.Bool("update", false, "rewrite the conformance golden files")

const (
	queriesFile = "../../testdata/cypher/queries.cypher"
	goldenDir   = "../../testdata/cypher/golden"
	demoVault   = "../../testdata/demo-vault"
)

type conformanceQuery struct {
	Name    string
	Query   string
	Params  map[string]any
	Timeout time.Duration
	MaxRows int
}

// golden is one expected outcome: the query as translated and either its
// result or its error.
type golden struct {
	Query      string           `json:"query"`
	Params     map[string]any   `json:"params,omitempty"`
	Translated string           `json:"translated,omitempty"`
	Columns    []graphdb.Column `json:"columns,omitempty"`
	Rows       [][]any          `json:"rows,omitempty"`
	Truncated  bool             `json:"truncated,omitempty"`
	Error      *cypher.Error    `json:"error,omitempty"`
}

func readQueries(t *testing.T) []conformanceQuery {
	data, err := os.ReadFile(queriesFile)
	if err != nil {
		t.Fatal(err)
	}
	var out []conformanceQuery
	var cur *conformanceQuery
	var body []string
	flush := func() {
		if cur != nil {
			cur.Query = strings.TrimSpace(strings.Join(body, "\n"))
			out = append(out, *cur)
		}
		body = nil
	}
	for _, line := range strings.Split(string(data), "\n") {
		switch {
		case strings.HasPrefix(line, "// == "):
			flush()
			cur = &conformanceQuery{Name: strings.TrimPrefix(line, "// == ")}
		case cur == nil:
		case strings.HasPrefix(line, "// params: "):
			dec := json.NewDecoder(strings.NewReader(strings.TrimPrefix(line, "// params: ")))
			dec.UseNumber()
			if err := dec.Decode(&cur.Params); err != nil {
				t.Fatalf("%s: params: %v", cur.Name, err)
			}
		case strings.HasPrefix(line, "// timeout: "):
			d, err := time.ParseDuration(strings.TrimPrefix(line, "// timeout: "))
			if err != nil {
				t.Fatalf("%s: %v", cur.Name, err)
			}
			cur.Timeout = d
		case strings.HasPrefix(line, "// max_rows: "):
			n, err := strconv.Atoi(strings.TrimPrefix(line, "// max_rows: "))
			if err != nil {
				t.Fatalf("%s: %v", cur.Name, err)
			}
			cur.MaxRows = n
		default:
			body = append(body, line)
		}
	}
	flush()
	return out
}

var (
	demoOnce sync.Once
	demoDir  string
	demoErr  error
)

// demoSnapshot indexes the demo vault once per test binary, with the graph
// stage only, every type in a table of its own (TestConformanceSharedTable
// runs the same queries on the shared table).
func demoSnapshot(t testing.TB) string {
	demoOnce.Do(func() {
		data, err := os.MkdirTemp("", "vaultgraph-conformance-")
		if err != nil {
			demoErr = err
			return
		}
		res, err := indexer.Run(context.Background(), indexer.Options{
			Vault: demoVault, Data: data,
			Stages: []indexer.Stage{indexer.GraphStage{BufferPoolSize: 256 << 20, MinTableEdges: -1}},
		})
		if err != nil {
			demoErr = err
			return
		}
		demoDir = res.Dir
	})
	if demoErr != nil {
		t.Fatal(demoErr)
	}
	return demoDir
}

func TestMain(m *testing.M) {
	code := m.Run()
	if demoDir != "" {
		os.RemoveAll(filepath.Dir(filepath.Dir(demoDir)))
	}
	cleanupBench()
	os.Exit(code)
}

// TestDemoSnapshotIsSealed checks that the graph file is covered by the
// manifest and that the stage left nothing else in the snapshot.
func TestDemoSnapshotIsSealed(t *testing.T) {
	dir := demoSnapshot(t)
	m, problems, err := snapshot.Verify(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(problems) > 0 {
		t.Fatalf("snapshot problems: %v", problems)
	}
	if _, ok := m.Files["graph.kuzu"]; !ok || m.Graph == nil {
		t.Fatalf("graph not in the manifest: files %v", m.Files)
	}
	// Querying does not write to the snapshot: checksums still match.
	db, err := graphdb.Open(dir, graphdb.Options{BufferPoolSize: 64 << 20})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Query(context.Background(), "MATCH (n)-[r]->(m) RETURN count(*)", nil); err != nil {
		t.Fatal(err)
	}
	db.Close()
	if _, problems, _ := snapshot.Verify(dir); len(problems) > 0 {
		t.Fatalf("after a query: %v", problems)
	}
}

func TestOpenSnapshotWithoutGraph(t *testing.T) {
	data := t.TempDir()
	res, err := indexer.Run(context.Background(), indexer.Options{Vault: demoVault, Data: data})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := graphdb.Open(res.Dir, graphdb.Options{}); !errors.Is(err, graphdb.ErrNoGraph) {
		t.Fatalf("err = %v, want ErrNoGraph", err)
	}
	// The graph stage reports pending work, so the next run adds the
	// graph although the vault did not change.
	res2, err := indexer.Run(context.Background(), indexer.Options{Vault: demoVault, Data: data,
		Stages: []indexer.Stage{indexer.GraphStage{BufferPoolSize: 128 << 20}}})
	if err != nil {
		t.Fatal(err)
	}
	if res2.Unchanged || res2.Manifest.Graph == nil {
		t.Fatalf("second run: unchanged %v graph %v", res2.Unchanged, res2.Manifest.Graph)
	}
}

func TestConformance(t *testing.T) {
	queries := readQueries(t)
	if len(queries) < 60 {
		t.Fatalf("%d conformance queries, want at least 60", len(queries))
	}
	db, err := graphdb.Open(demoSnapshot(t), graphdb.Options{BufferPoolSize: 128 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	seen := map[string]bool{}
	for _, q := range queries {
		if seen[q.Name] {
			t.Fatalf("duplicate query name %s", q.Name)
		}
		seen[q.Name] = true
		t.Run(q.Name, func(t *testing.T) {
			got := run(db, q)
			path := filepath.Join(goldenDir, q.Name+".json")
			if *update {
				if err := os.MkdirAll(goldenDir, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("result differs from %s (run with -update after checking it):\n got:\n%s", path, got)
			}
		})
	}
}

// TestConformanceDirect runs the conformance queries on a database that
// answers simple queries from its copy in memory (graphdb.DirectAtOpen):
// every answer must equal the golden one, and the copy must answer some.
func TestConformanceDirect(t *testing.T) {
	queries := readQueries(t)
	db, err := graphdb.Open(demoSnapshot(t), graphdb.Options{BufferPoolSize: 128 << 20, Direct: graphdb.DirectAtOpen})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	direct := 0
	for _, q := range queries {
		how := "from the engine"
		if res, err := db.Run(context.Background(), graphdb.Request{Query: q.Query, Params: q.Params, Timeout: q.Timeout, MaxRows: q.MaxRows}); err == nil && res.Direct {
			direct++
			how = "from the copy"
			t.Logf("from the copy: %s", q.Query)
		}
		got := run(db, q)
		want, err := os.ReadFile(filepath.Join(goldenDir, q.Name+".json"))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s: answered %s, the result differs from the golden one:\n got:\n%s\nwant:\n%s", q.Name, how, got, want)
		}
	}
	t.Logf("%d of %d queries answered from the copy", direct, len(queries))
	if direct == 0 {
		t.Error("no conformance query was answered from the copy")
	}
}

func run(db *graphdb.DB, q conformanceQuery) []byte {
	g := golden{Query: q.Query, Params: q.Params}
	maxRows := q.MaxRows
	if maxRows == 0 {
		maxRows = graphdb.DefaultMaxRows
	}
	if tr, err := cypher.Compile(q.Query, db.Graph(), q.Params, cypher.Options{MaxRows: maxRows}); err == nil {
		g.Translated = tr.Query
	}
	res, err := db.Run(context.Background(), graphdb.Request{Query: q.Query, Params: q.Params, Timeout: q.Timeout, MaxRows: q.MaxRows})
	if err != nil {
		var e *cypher.Error
		if !errors.As(err, &e) {
			e = &cypher.Error{Kind: "go", Message: err.Error()}
		}
		if e.Kind == cypher.KindTimeout {
			// Where the clock ran out (waiting for a connection, before
			// the engine started, while it ran) depends on the machine's
			// load; the kind is the contract.
			e = &cypher.Error{Kind: e.Kind, Message: "the query ran longer than its timeout"}
		}
		g.Error = e
	} else {
		g.Columns, g.Rows, g.Truncated = res.Columns, res.Rows, res.Truncated
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(g); err != nil {
		panic(err)
	}
	return normalize(buf.Bytes(), !ordered(q.Query))
}

// ordered reports whether a query fixes the order of its rows. Rows of a
// query without ORDER BY come in whatever order the engine's plan yields
// (UNION deduplicates through a hash table, so its order changes from run
// to run); like the openCypher TCK's "in any order", such results are
// compared as sorted rows.
func ordered(query string) bool {
	return strings.Contains(strings.ToUpper(query), "ORDER BY")
}

// normalize replaces the notes' modification times, which depend on the
// checkout, in the JSON text, and sorts the rows of an unordered result
// by their JSON text.
func normalize(b []byte, sortRows bool) []byte {
	var v any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		panic(err)
	}
	v = scrub(v)
	if m, ok := v.(map[string]any); ok && sortRows {
		if rows, ok := m["rows"].([]any); ok {
			key := func(r any) string {
				b, err := json.Marshal(r)
				if err != nil {
					panic(err)
				}
				return string(b)
			}
			slices.SortStableFunc(rows, func(a, b any) int { return strings.Compare(key(a), key(b)) })
		}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		panic(err)
	}
	return buf.Bytes()
}

func scrub(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			if k == "modified" && x != nil {
				v[k] = "<file mtime>"
				continue
			}
			v[k] = scrub(x)
		}
	case []any:
		for i, x := range v {
			v[i] = scrub(x)
		}
	}
	return v
}

// TestConformanceSharedTable runs the conformance suite on the demo vault
// built with only links_to and embeds in tables of their own, so that
// every other type lives in the shared table of the long tail: each query
// must give the result its golden file records. Rows that no ORDER BY
// fixes may come in another order (the tables are scanned in another
// order), so rows are compared as sets when they differ in order only;
// the translated query differs by design and is not compared.
func TestConformanceSharedTable(t *testing.T) {
	conformanceWith(t, indexer.GraphStage{BufferPoolSize: 128 << 20, TypedTables: 2})
}

func conformanceWith(t *testing.T, stage indexer.GraphStage) {
	data := t.TempDir()
	res, err := indexer.Run(context.Background(), indexer.Options{
		Vault: demoVault, Data: data,
		Stages: []indexer.Stage{stage},
	})
	if err != nil {
		t.Fatal(err)
	}
	shared := 0
	for _, et := range res.Manifest.Graph.EdgeTypes {
		if et.Table == format.GraphEdgeTable {
			shared++
		} else if et.Name != format.TypeLinksTo && et.Name != format.TypeEmbeds {
			t.Errorf("type %q has table %s, want the shared one", et.Name, et.Table)
		}
	}
	if shared < 5 {
		t.Fatalf("%d types in the shared table, want the demo vault's typed edges (at least 5)", shared)
	}
	db, err := graphdb.Open(res.Dir, graphdb.Options{BufferPoolSize: 128 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	for _, q := range readQueries(t) {
		t.Run(q.Name, func(t *testing.T) {
			var got, want golden
			if err := json.Unmarshal(run(db, q), &got); err != nil {
				t.Fatal(err)
			}
			raw, err := os.ReadFile(filepath.Join(goldenDir, q.Name+".json"))
			if err != nil {
				t.Fatal(err)
			}
			if err := json.Unmarshal(raw, &want); err != nil {
				t.Fatal(err)
			}
			if msg := sameOutcome(got, want); msg != "" {
				t.Errorf("%s\nquery: %s\ntranslated: %s", msg, q.Query, got.Translated)
			}
		})
	}
}

// sameOutcome compares two outcomes but for the translated query and the
// order of rows.
func sameOutcome(got, want golden) string {
	text := func(v any) string { b, _ := json.Marshal(v); return string(b) }
	switch {
	case text(got.Error) != text(want.Error):
		return "error " + text(got.Error) + ", want " + text(want.Error)
	case text(got.Columns) != text(want.Columns):
		return "columns " + text(got.Columns) + ", want " + text(want.Columns)
	case got.Truncated != want.Truncated:
		return "truncated " + strconv.FormatBool(got.Truncated) + ", want " + strconv.FormatBool(want.Truncated)
	}
	rows := func(g golden) []string {
		out := make([]string, len(g.Rows))
		for i, r := range g.Rows {
			out[i] = text(r)
		}
		return out
	}
	a, b := rows(got), rows(want)
	if slices.Equal(a, b) {
		return ""
	}
	slices.Sort(a)
	slices.Sort(b)
	if slices.Equal(a, b) {
		return ""
	}
	return "rows:\n " + strings.Join(rows(got), "\n ") + "\nwant:\n " + strings.Join(rows(want), "\n ")
}

// TestConformanceTailProperties runs the conformance suite with one
// note and one edge property key in a column of its own: every other
// property is read from the tail columns.
func TestConformanceTailProperties(t *testing.T) {
	conformanceWith(t, indexer.GraphStage{BufferPoolSize: 128 << 20, TypedTables: 2, PropertyColumns: 1})
}

// TestTailListsKeepNullItems: a list of strings with a null item reads
// back the same from the tail columns as from a column of its own, the
// null included, through a property, properties() and a map projection.
func TestTailListsKeepNullItems(t *testing.T) {
	vault := t.TempDir()
	for name, text := range map[string]string{
		"A.md": "---\nstatus: draft\nreviewers: [ann, null, bob]\n---\nA.\n",
		"B.md": "---\nstatus: done\n---\nB.\n",
	} {
		if err := os.WriteFile(filepath.Join(vault, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	query := "MATCH (n {title: 'A'}) RETURN n.reviewers AS r, properties(n).reviewers AS p, n {.reviewers} AS m, n {.*}.status AS s"
	answer := func(columns int) string {
		res, err := indexer.Run(context.Background(), indexer.Options{
			Vault: vault, Data: t.TempDir(),
			Stages: []indexer.Stage{indexer.GraphStage{BufferPoolSize: 64 << 20, PropertyColumns: columns}},
		})
		if err != nil {
			t.Fatal(err)
		}
		tail := false
		for _, p := range res.Manifest.Graph.NoteProperties {
			if p.Name == "reviewers" {
				tail = p.Tail
			}
		}
		if tail != (columns == 1) {
			t.Fatalf("with %d property columns reviewers is in the tail: %v", columns, tail)
		}
		db, err := graphdb.Open(res.Dir, graphdb.Options{BufferPoolSize: 64 << 20})
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		r, err := db.Run(context.Background(), graphdb.Request{Query: query})
		if err != nil {
			t.Fatal(err)
		}
		out, _ := json.Marshal(r.Rows)
		return string(out)
	}
	want := `[[["ann",null,"bob"],["ann",null,"bob"],{"reviewers":["ann",null,"bob"]},"draft"]]`
	for _, columns := range []int{0, 1} {
		if got := answer(columns); got != want {
			t.Errorf("with %d property columns: %s, want %s", columns, got, want)
		}
	}
}
