package graphdb

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"testing"
	"time"

	"github.com/vaultgraph/vaultgraph/format"
	"github.com/vaultgraph/vaultgraph/snapshot/cypher"
)

func prop(t testing.TB, key, kind string, v any) format.Property {
	t.Helper()
	p, err := format.NewProperty(key, kind, v)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func rawProp(key, kind, value string) format.Property {
	return format.PropertyFromJSON(key, kind, value)
}

// fixtureRows is a small vault in table form with every case the builder
// must handle: each property kind, conflicting kinds, keys that need
// escaping or collide with built-ins, zero values, a stub, a root note, and
// edge types named like keywords, with spaces, non-ASCII letters and
// differing only in case.
func fixtureRows(t testing.TB) ([]format.Note, []format.Edge) {
	mod := time.Date(2024, 5, 6, 7, 8, 9, 0, time.UTC)
	notes := []format.Note{
		{ID: "People/Alice.md", Path: "People/Alice.md", Title: "Alice", Folder: "People", Labels: []string{"Person"},
			Tags: []string{"people"}, Aliases: []string{"Al"}, Size: 10, Modified: mod, Properties: []format.Property{
				prop(t, "role", format.KindString, "lead"),
				prop(t, "hours", format.KindInt, 0),
				prop(t, "score", format.KindFloat, 1.5),
				prop(t, "active", format.KindBool, false),
				prop(t, "joined", format.KindDate, "2018-03-05"),
				prop(t, "start", format.KindDateTime, "2024-01-02T03:04:05Z"),
				prop(t, "langs", format.KindList, []any{"Go", "Rust"}),
				prop(t, "nums", format.KindList, []any{1, 2}),
				prop(t, "mixed", format.KindList, []any{1, "a", true}),
				prop(t, "meta", format.KindMap, map[string]any{"a": 1}),
				prop(t, "conflict", format.KindInt, 7),
				prop(t, "id", format.KindString, "zettel-1"),
				prop(t, "Start date", format.KindDate, "2020-01-01"),
				prop(t, "Über", format.KindString, "ü"),
				prop(t, "empty", format.KindString, ""),
				prop(t, "when", format.KindDate, "2021-01-01"),
				rawProp("broken", format.KindDate, `"not a date"`),
			}},
		{ID: "People/Bob.md", Path: "People/Bob.md", Title: "Bob", Folder: "People", Labels: []string{"Person", "Engineer"},
			Size: 20, Modified: mod, Properties: []format.Property{
				prop(t, "score", format.KindInt, 2),
				prop(t, "conflict", format.KindString, "seven"),
				prop(t, "_id", format.KindInt, 5),
				prop(t, "when", format.KindDateTime, "2022-02-02T02:02:02Z"),
				prop(t, "nothing", format.KindNull, nil),
			}},
		{ID: "Root.md", Path: "Root.md", Title: "Root", Folder: "", Size: 0, Modified: mod},
		{ID: "Missing", Title: "Missing", Stub: true},
	}
	edges := []format.Edge{
		{ID: "ab", Source: "People/Alice.md", Target: "People/Bob.md", Type: "knows", Sign: 1, Count: 1, Origin: format.OriginField,
			Heading: "Alice", Line: 3, Sentence: "Alice knows Bob", Properties: []format.Property{
				prop(t, "id", format.KindString, "ab"), prop(t, "since", format.KindInt, 2019), prop(t, "count", format.KindInt, 9)}},
		{ID: "ba", Source: "People/Bob.md", Target: "People/Alice.md", Type: "Knows", Sign: 1, Count: 1, Origin: format.OriginField},
		{ID: "am", Source: "People/Alice.md", Target: "Missing", Type: format.TypeLinksTo, Sign: 1, Count: 2, Origin: format.OriginBody, Unresolved: true, Anchors: []string{"x"}},
		{ID: "br", Source: "People/Bob.md", Target: "Root.md", Type: "mentored by", Sign: -1, Count: 1, Origin: format.OriginField,
			Properties: []format.Property{prop(t, "since", format.KindString, "long ago")}},
		{ID: "rm", Source: "Root.md", Target: "People/Alice.md", Type: "match", Sign: 1, Count: 1, Origin: format.OriginField},
		{ID: "ru", Source: "Root.md", Target: "People/Bob.md", Type: "über", Sign: 1, Count: 1, Origin: format.OriginField,
			Properties: []format.Property{prop(t, "hours", format.KindInt, 0), prop(t, "ok", format.KindBool, false)}},
		{ID: "dangling", Source: "Root.md", Target: "Nowhere.md", Type: "knows", Sign: 1, Count: 1},
	}
	return notes, edges
}

// buildFixture builds the fixture with every type in a table of its own.
func buildFixture(t testing.TB) (string, *format.Graph) {
	t.Helper()
	dir := t.TempDir()
	notes, edges := fixtureRows(t)
	g, err := Build(context.Background(), dir, notes, edges, BuildOptions{BufferPoolSize: 128 << 20, MinTableEdges: -1})
	if err != nil {
		t.Fatal(err)
	}
	return dir, g
}

func openFixture(t testing.TB) *DB {
	t.Helper()
	dir, g := buildFixture(t)
	db, err := OpenFile(filepath.Join(dir, format.GraphFile), g, Options{BufferPoolSize: 64 << 20, Connections: 4})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func TestBuildLeavesOnlyTheDatabase(t *testing.T) {
	dir, g := buildFixture(t)
	des, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, de := range des {
		names = append(names, de.Name())
	}
	if !reflect.DeepEqual(names, []string{format.GraphFile}) {
		t.Errorf("files after build = %v, want only %s", names, format.GraphFile)
	}
	if g.Notes != 4 || g.Edges != 6 || g.SkippedEdges != 1 {
		t.Errorf("counts: notes %d edges %d skipped %d", g.Notes, g.Edges, g.SkippedEdges)
	}
}

func TestBuildSchema(t *testing.T) {
	_, g := buildFixture(t)
	props := map[string]format.GraphProperty{}
	for _, p := range g.NoteProperties {
		props[p.Name] = p
	}
	for name, want := range map[string]struct {
		typ      string
		conflict bool
	}{
		"role": {"STRING", false}, "hours": {"INT64", false}, "score": {"DOUBLE", false}, "active": {"BOOLEAN", false},
		"joined": {"DATE", false}, "start": {"TIMESTAMP", false}, "langs": {"STRING[]", false}, "nums": {"INT64[]", false},
		"mixed": {"STRING[]", true}, "meta": {"STRING", false}, "conflict": {"STRING", true}, "Start date": {"DATE", false},
		"when": {"TIMESTAMP", false}, "broken": {"STRING", false}, "nothing": {"STRING", false}, "__id": {"STRING", false},
		"_id": {"INT64", false},
	} {
		p, ok := props[name]
		if !ok {
			t.Errorf("property %q missing; have %v", name, sortedNames(props))
			continue
		}
		if p.Type != want.typ || p.Conflict != want.conflict {
			t.Errorf("%s: type %s conflict %v, want %s %v", name, p.Type, p.Conflict, want.typ, want.conflict)
		}
	}
	if p := props["__id"]; p.Key != "id" || p.Column != "p_id" {
		t.Errorf("frontmatter id: %+v, want name __id (since _id is taken) for key id", p)
	}
	if p := props["Start date"]; p.Column != "p_Start_date_"+hash8("Start date") {
		t.Errorf("escaped column %q", p.Column)
	}
	types := map[string]format.GraphEdgeType{}
	for _, et := range g.EdgeTypes {
		types[et.Name] = et
	}
	for name, table := range map[string]string{
		"knows": "e_knows_" + hash8("knows"), "Knows": "e_Knows", "mentored by": "e_mentored_by_93c49ec0",
		"match": "e_match", "links_to": "e_links_to", "embeds": "e_embeds", "über": "e__ber_" + hash8("über"),
	} {
		if types[name].Table != table {
			t.Errorf("type %q table %q, want %q", name, types[name].Table, table)
		}
	}
	edgeProps := map[string]format.GraphProperty{}
	for _, p := range g.EdgeProperties {
		edgeProps[p.Name] = p
	}
	if p := edgeProps["since"]; p.Type != "STRING" || !p.Conflict {
		t.Errorf("since across types: %+v, want a STRING conflict", p)
	}
	if _, ok := edgeProps["id"]; ok {
		t.Errorf("pinned edge id stored as a property")
	}
	if p := edgeProps["_count"]; p.Key != "count" {
		t.Errorf("edge property count shadowed by the built-in: %+v", edgeProps)
	}
}

// hash8 is the hash suffix of an escaped name (format/graph.go).
func hash8(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:4])
}

func sortedNames(m map[string]format.GraphProperty) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func TestBuildRefusesExistingFile(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, format.GraphFile), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Build(context.Background(), dir, nil, nil, BuildOptions{}); err == nil {
		t.Fatal("Build overwrote an existing database file")
	}
}

func TestBuildCanceledLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	notes, edges := fixtureRows(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Build(ctx, dir, notes, edges, BuildOptions{BufferPoolSize: 64 << 20}); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if des, _ := os.ReadDir(dir); len(des) != 0 {
		t.Errorf("canceled build left %d entries", len(des))
	}
}

func TestBuildEmptyVault(t *testing.T) {
	dir := t.TempDir()
	g, err := Build(context.Background(), dir, nil, nil, BuildOptions{BufferPoolSize: 64 << 20})
	if err != nil {
		t.Fatal(err)
	}
	db, err := OpenFile(filepath.Join(dir, format.GraphFile), g, Options{BufferPoolSize: 64 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	res, err := db.Query(context.Background(), "MATCH (n)-[r]->(m) RETURN n, r, m", nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Rows) != 0 {
		t.Errorf("rows = %v", res.Rows)
	}
}

// TestValues checks what comes back for each kind of value, zero values
// included (Parquet writers like to turn them into nulls).
func TestValues(t *testing.T) {
	db := openFixture(t)
	res := mustQuery(t, db, `MATCH (a {title: 'Alice'}) RETURN a.hours, a.active, a.empty, a.score, a.joined, a.start,
		a.langs, a.nums, a.mixed, a.meta, a.conflict, a.__id, a.`+"`Start date`"+`, a.Über, a.broken, a.when, a.folder, a.size, a.nothing`, nil)
	want := []any{int64(0), false, "", 1.5, "2018-03-05", "2024-01-02T03:04:05Z",
		[]any{"Go", "Rust"}, []any{int64(1), int64(2)}, []any{"1", "a", "true"}, `{"a":1}`, "7", "zettel-1", "2020-01-01", "ü",
		"not a date", "2021-01-01T00:00:00Z", "People", int64(10), nil}
	if !reflect.DeepEqual(res.Rows[0], want) {
		t.Errorf("values\n got %#v\nwant %#v", res.Rows[0], want)
	}
	types := make([]string, len(res.Columns))
	for i, c := range res.Columns {
		types[i] = c.Type
	}
	wantTypes := []string{"int", "bool", "string", "float", "date", "datetime", "list", "list", "list", "string", "string", "string", "date", "string", "string", "datetime", "string", "int", "null"}
	if !reflect.DeepEqual(types, wantTypes) {
		t.Errorf("column types %v, want %v", types, wantTypes)
	}
	res = mustQuery(t, db, "MATCH (r {title: 'Root'}) RETURN r.folder, r.size, r.stub, labels(r)", nil)
	if want := []any{"", int64(0), false, []any{}}; !reflect.DeepEqual(res.Rows[0], want) {
		t.Errorf("root note %#v, want %#v", res.Rows[0], want)
	}
}

func TestNodesAndRelationships(t *testing.T) {
	db := openFixture(t)
	res := mustQuery(t, db, "MATCH (b:Engineer)-[r:`mentored by`]->(x) RETURN b, r, x", nil)
	if len(res.Rows) != 1 {
		t.Fatalf("rows = %v", res.Rows)
	}
	b := res.Rows[0][0].(*Node)
	if b.ID != "People/Bob.md" || !reflect.DeepEqual(b.Labels, []string{"Person", "Engineer"}) || b.Properties["_id"] != int64(5) || b.Properties["conflict"] != "seven" {
		t.Errorf("node %+v", b)
	}
	if _, ok := b.Properties["nothing"]; ok {
		t.Errorf("null property present: %+v", b.Properties)
	}
	r := res.Rows[0][1].(*Relationship)
	if r.Type != "mentored by" || r.ID != "br" || r.Source != "People/Bob.md" || r.Target != "Root.md" || r.Properties["sign"] != int64(-1) || r.Properties["since"] != "long ago" {
		t.Errorf("relationship %+v", r)
	}
	res = mustQuery(t, db, "MATCH (a)-[r:knows]->(b) RETURN r, r.count, r._count, r.since, keys(r)", nil)
	r = res.Rows[0][0].(*Relationship)
	if r.ID != "ab" || res.Rows[0][1] != int64(1) || res.Rows[0][2] != int64(9) || res.Rows[0][3] != "2019" {
		t.Errorf("knows: %+v %v", r, res.Rows[0])
	}
	res = mustQuery(t, db, "MATCH (m {title: 'Missing'}) RETURN m, properties(m)", nil)
	m := res.Rows[0][0].(*Node)
	// A stub has no tags and no aliases: null, so left out.
	if !reflect.DeepEqual(m.Properties, map[string]any{"title": "Missing", "folder": "", "stub": true}) || !m.Stub {
		t.Errorf("stub %+v", m.Properties)
	}
	if !reflect.DeepEqual(res.Rows[0][1], m.Properties) {
		t.Errorf("properties(m) = %v, node properties %v", res.Rows[0][1], m.Properties)
	}
	res = mustQuery(t, db, "MATCH p = (a {title: 'Root'})-[:über]->(b) RETURN p", nil)
	p := res.Rows[0][0].(*Path)
	if len(p.Nodes) != 2 || len(p.Relationships) != 1 || p.Relationships[0].Type != "über" || p.Relationships[0].Properties["hours"] != int64(0) || p.Relationships[0].Properties["ok"] != false {
		t.Errorf("path %+v %+v", p, p.Relationships[0])
	}
}

func mustQuery(t testing.TB, db *DB, q string, params map[string]any) *Result {
	t.Helper()
	res, err := db.Query(context.Background(), q, params)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return res
}

// TestEngineIsReadOnly checks the second guard: the engine itself refuses
// writes that would get past the translator.
func TestEngineIsReadOnly(t *testing.T) {
	db := openFixture(t)
	conn, err := db.acquire(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer db.release(conn)
	res, err := conn.Query("CREATE (:Note {id: 'x'})")
	if res != nil {
		res.Close()
	}
	if err == nil {
		t.Fatal("the engine accepted a write")
	}
}

func TestErrorKinds(t *testing.T) {
	db := openFixture(t)
	for q, kind := range map[string]cypher.Kind{
		"MATCH (n RETURN n":              cypher.KindSyntax,
		"MATCH (n) DETACH DELETE n":      cypher.KindReadOnly,
		"RETURN $missing":                cypher.KindParameter,
		"MATCH (n) RETURN [(n)-->(m)|m]": cypher.KindUnsupported,
		"RETURN date('not a date')":      cypher.KindRuntime,
		"RETURN nosuchfunction(1)":       cypher.KindRuntime,
	} {
		_, err := db.Query(context.Background(), q, nil)
		var e *Error
		if !errors.As(err, &e) || e.Kind != kind {
			t.Errorf("%s: err = %v, want kind %s", q, err, kind)
		}
	}
	// Values of types that never compare are answered, as openCypher
	// does, not refused by the engine's cast.
	if res, err := db.Query(context.Background(), "RETURN 1 = 'a' AS x", nil); err != nil || len(res.Rows) != 1 || res.Rows[0][0] != false {
		t.Errorf("RETURN 1 = 'a': %v, %v; want false", res, err)
	}
}
