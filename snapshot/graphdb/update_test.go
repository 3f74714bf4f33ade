package graphdb

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/cespare/xxhash/v2"
	kuzu "github.com/kuzudb/go-kuzu"

	"github.com/vaultgraph/vaultgraph/format"
	"github.com/vaultgraph/vaultgraph/snapshot"
)

var testBuildOptions = BuildOptions{BufferPoolSize: 128 << 20}

// fakeParent writes rows as a snapshot directory with a graph built or
// updated from them, as the indexer would publish it (without the
// publish step's durability, which Update does not rely on).
func fakeParent(t *testing.T, id string, notes []format.Note, edges []format.Edge, g *format.Graph, dir string) *snapshot.Snapshot {
	t.Helper()
	if err := snapshot.WriteTable(filepath.Join(dir, format.NotesFile), notes); err != nil {
		t.Fatal(err)
	}
	if err := snapshot.WriteTable(filepath.Join(dir, format.EdgesFile), edges); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(filepath.Join(dir, format.GraphFile))
	if err != nil {
		t.Fatal(err)
	}
	// As the publish step records it: size, sha256 and xxh64 (which
	// Update checks its copy by).
	data, err := os.ReadFile(filepath.Join(dir, format.GraphFile))
	if err != nil {
		t.Fatal(err)
	}
	info := format.FileInfo{Size: fi.Size(), SHA256: fileSum(t, filepath.Join(dir, format.GraphFile)), XXH64: fmt.Sprintf("%016x", xxhash.Sum64(data))}
	m := &format.Manifest{ID: id, Graph: g, Files: map[string]format.FileInfo{format.GraphFile: info}}
	return &snapshot.Snapshot{ID: id, Dir: dir, Manifest: m}
}

func builtParent(t *testing.T, notes []format.Note, edges []format.Edge) *snapshot.Snapshot {
	t.Helper()
	dir := t.TempDir()
	g, err := Build(context.Background(), dir, notes, edges, testBuildOptions)
	if err != nil {
		t.Fatal(err)
	}
	return fakeParent(t, "parent", notes, edges, g, dir)
}

// dump reads every stored value of a database, table by table, in id
// order: two databases that dump alike hold the same rows, whatever their
// physical order.
func dump(t *testing.T, path string) map[string][]string {
	t.Helper()
	db, err := openReadOnly(path, 64<<20, 2)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	conn, err := kuzu.OpenConnection(db)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	tables, err := queryRows(conn, "CALL show_tables() RETURN name, type ORDER BY name")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for _, tb := range tables {
		name := tb[0].(string)
		info, err := queryRows(conn, "CALL table_info("+quoteString(name)+") RETURN name, type")
		if err != nil {
			t.Fatal(err)
		}
		out["schema "+name] = []string{fmt.Sprint(info)}
		q := "MATCH (x:" + quote(name) + ") RETURN x ORDER BY x.id"
		if tb[1] == "REL" {
			q = "MATCH (a)-[x:" + quote(name) + "]->(b) RETURN a.id, b.id, x ORDER BY x.id"
		}
		rows, err := queryRows(conn, q)
		if err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		for _, r := range rows {
			var props map[string]any
			switch v := r[len(r)-1].(type) {
			case kuzu.Node:
				props = v.Properties
			case kuzu.Relationship:
				props = v.Properties
			default:
				t.Fatalf("%s: %T", q, v)
			}
			out[name] = append(out[name], fmt.Sprint(r[:len(r)-1], sortedProps(props)))
		}
	}
	return out
}

func sortedProps(m map[string]any) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "%s=%#v; ", k, m[k])
	}
	return b.String()
}

func fileSum(t *testing.T, path string) string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%x", h.Sum(nil))
}

func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	des, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, de := range des {
		names = append(names, de.Name())
	}
	return names
}

// compareWithBuild builds the rows from scratch next to an updated
// database and checks that both hold the same values and are described by
// the same manifest section.
func compareWithBuild(t *testing.T, updated string, g *format.Graph, notes []format.Note, edges []format.Edge) {
	t.Helper()
	dir := t.TempDir()
	want, err := Build(context.Background(), dir, notes, edges, testBuildOptions)
	if err != nil {
		t.Fatal(err)
	}
	gotG, wantG := *g, *want
	gotG.Build, wantG.Build, gotG.BuiltSize, wantG.BuiltSize = "", "", 0, 0
	if !reflect.DeepEqual(gotG, wantG) {
		t.Fatalf("manifest section differs from a build's:\n got %+v\nwant %+v", gotG, wantG)
	}
	got, exp := dump(t, filepath.Join(updated, format.GraphFile)), dump(t, filepath.Join(dir, format.GraphFile))
	if !reflect.DeepEqual(got, exp) {
		for _, k := range sortedKeys(exp) {
			if reflect.DeepEqual(got[k], exp[k]) {
				continue
			}
			g, w := got[k], exp[k]
			t.Errorf("table %s: %d rows, want %d", k, len(g), len(w))
			for i := range min(len(g), len(w)) {
				if g[i] != w[i] {
					t.Errorf("first different row:\n got %s\nwant %s", g[i], w[i])
					break
				}
			}
		}
		t.FailNow()
	}
}

func TestUpdateFixtureEdits(t *testing.T) {
	notes, edges := fixtureRows(t)
	parent := builtParent(t, notes, edges)
	parentSum := fileSum(t, filepath.Join(parent.Dir, format.GraphFile))

	notes2, edges2 := slices.Clone(notes), slices.Clone(edges)
	// Alice: another title, a label and tag less, a changed value of the
	// same kinds, a removed zero value.
	alice := notes2[0]
	alice.Title, alice.Labels, alice.Tags = "Alice L.", []string{}, nil
	alice.Properties = slices.Clone(alice.Properties)
	alice.Properties[0] = prop(t, "role", format.KindNull, nil)
	alice.Properties[1] = prop(t, "hours", format.KindInt, 12)
	alice.Properties[3] = prop(t, "active", format.KindBool, true)
	alice.Properties = slices.Delete(alice.Properties, 15, 16) // when: Bob has one too
	notes2[2].Properties = []format.Property{prop(t, "score", format.KindInt, 4)}
	alice.Modified = alice.Modified.Add(1500 * time.Microsecond)
	notes2[0] = alice
	// The stub becomes a note with the same id; a new note appears.
	notes2[3] = format.Note{ID: "Missing", Path: "Missing", Title: "Missing", Size: 3, Modified: alice.Modified}
	notes2 = append(notes2, format.Note{ID: "New's \\ note.md", Path: "New's \\ note.md", Title: "New 'n' \"quoted\"", Labels: []string{"Person"},
		Properties: []format.Property{prop(t, "score", format.KindInt, 3), prop(t, "nums", format.KindList, []any{})}})
	// A changed typed edge, a moved one, a removed one and a new one.
	edges2[0].Properties = []format.Property{prop(t, "id", format.KindString, "ab"), prop(t, "since", format.KindInt, 2020), prop(t, "count", format.KindInt, 9)}
	edges2[0].Line = 7
	edges2[3].Line, edges2[3].Anchors = 4, []string{"a", "b"}
	edges2[4].Target = "People/Bob.md"
	edges2 = slices.Delete(edges2, 2, 3) // the links_to edge to the stub
	edges2 = append(edges2, format.Edge{ID: "nw", Source: "New's \\ note.md", Target: "Root.md", Type: "knows", Sign: 1, Count: 1, Origin: format.OriginField})

	dir := t.TempDir()
	g, err := Update(context.Background(), dir, parent, notes2, edges2, UpdateOptions{BuildOptions: testBuildOptions, Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	if g.Build != format.GraphUpdated {
		t.Errorf("build mode %q", g.Build)
	}
	if names := dirNames(t, dir); !slices.Equal(names, []string{format.GraphFile}) {
		t.Errorf("files after update: %v", names)
	}
	if fileSum(t, filepath.Join(parent.Dir, format.GraphFile)) != parentSum {
		t.Error("the parent's database changed")
	}
	compareWithBuild(t, dir, g, notes2, edges2)
}

func TestUpdateUnchangedCopies(t *testing.T) {
	notes, edges := fixtureRows(t)
	parent := builtParent(t, notes, edges)
	dir := t.TempDir()
	g, err := Update(context.Background(), dir, parent, notes, edges, UpdateOptions{BuildOptions: testBuildOptions})
	if err != nil {
		t.Fatal(err)
	}
	if fileSum(t, filepath.Join(dir, format.GraphFile)) != fileSum(t, filepath.Join(parent.Dir, format.GraphFile)) {
		t.Error("an update without changes is not a copy of the parent's file")
	}
	compareWithBuild(t, dir, g, notes, edges)
}

// TestUpdateRefuses checks that every change of layout, and a change too
// large, is refused before anything is written.
func TestUpdateRefuses(t *testing.T) {
	notes, edges := fixtureRows(t)
	parent := builtParent(t, notes, edges)
	withNote := func(f func(n *format.Note)) func() ([]format.Note, []format.Edge) {
		return func() ([]format.Note, []format.Edge) {
			ns := slices.Clone(notes)
			n := ns[1]
			n.Properties = slices.Clone(n.Properties)
			f(&n)
			ns[1] = n
			return ns, edges
		}
	}
	for name, change := range map[string]func() ([]format.Note, []format.Edge){
		"new property key": withNote(func(n *format.Note) {
			n.Properties = append(n.Properties, prop(t, "shoe size", format.KindInt, 42))
		}),
		"changed column type": withNote(func(n *format.Note) { // score: DOUBLE -> STRING conflict
			n.Properties[0] = prop(t, "score", format.KindString, "two")
		}),
		"property key gone": func() ([]format.Note, []format.Edge) { // _id is only Bob's
			ns := slices.Clone(notes)
			ns[1].Properties = nil
			return ns, edges
		},
		"conflict gone": withNote(func(n *format.Note) {
			n.Properties[1] = prop(t, "conflict", format.KindInt, 8)
		}),
		"new edge type": func() ([]format.Note, []format.Edge) {
			return notes, append(slices.Clone(edges), format.Edge{ID: "x", Source: "Root.md", Target: "Missing", Type: "funds", Sign: 1, Count: 1})
		},
		"new edge property": func() ([]format.Note, []format.Edge) {
			es := slices.Clone(edges)
			es[4].Properties = []format.Property{prop(t, "round", format.KindInt, 1)}
			return notes, es
		},
		"duplicate edge id": func() ([]format.Note, []format.Edge) {
			e := edges[0]
			e.Line = 99
			return notes, append(slices.Clone(edges), e)
		},
		"too many changes": withNote(func(n *format.Note) { n.Title = "Robert" }),
	} {
		t.Run(name, func(t *testing.T) {
			ns, es := change()
			dir := t.TempDir()
			_, err := Update(context.Background(), dir, parent, ns, es, UpdateOptions{BuildOptions: testBuildOptions, Limit: 0.01})
			if !errors.Is(err, ErrNotUpdatable) {
				t.Fatalf("err = %v, want ErrNotUpdatable", err)
			}
			if names := dirNames(t, dir); len(names) != 0 {
				t.Errorf("left %v", names)
			}
		})
	}
	t.Run("no graph", func(t *testing.T) {
		p := *parent
		m := *p.Manifest
		m.Graph = nil
		p.Manifest = &m
		if _, err := Update(context.Background(), t.TempDir(), &p, notes, edges, UpdateOptions{}); !errors.Is(err, ErrNotUpdatable) {
			t.Fatalf("err = %v, want ErrNotUpdatable", err)
		}
	})
	t.Run("other layout version", func(t *testing.T) {
		p := *parent
		m := *p.Manifest
		g := *m.Graph
		g.Version++
		m.Graph, p.Manifest = &g, &m
		if _, err := Update(context.Background(), t.TempDir(), &p, notes, edges, UpdateOptions{}); !errors.Is(err, ErrNotUpdatable) {
			t.Fatalf("err = %v, want ErrNotUpdatable", err)
		}
	})
	t.Run("graph written before updates", func(t *testing.T) {
		p := *parent
		m := *p.Manifest
		g := *m.Graph
		g.Build = ""
		m.Graph, p.Manifest = &g, &m
		if _, err := Update(context.Background(), t.TempDir(), &p, notes, edges, UpdateOptions{}); !errors.Is(err, ErrNotUpdatable) {
			t.Fatalf("err = %v, want ErrNotUpdatable", err)
		}
	})
	t.Run("file grown too much", func(t *testing.T) {
		p := *parent
		m := *p.Manifest
		g := *m.Graph
		g.BuiltSize = m.Files[format.GraphFile].Size/2 - 1
		m.Graph, p.Manifest = &g, &m
		if _, err := Update(context.Background(), t.TempDir(), &p, notes, edges, UpdateOptions{}); !errors.Is(err, ErrNotUpdatable) {
			t.Fatalf("err = %v, want ErrNotUpdatable", err)
		}
	})
	t.Run("escaping changed", func(t *testing.T) {
		p := *parent
		m := *p.Manifest
		g := *m.Graph
		g.EdgeTypes = slices.Clone(g.EdgeTypes)
		g.EdgeTypes[0].Table += "_old"
		m.Graph, p.Manifest = &g, &m
		if _, err := Update(context.Background(), t.TempDir(), &p, notes, edges, UpdateOptions{}); !errors.Is(err, ErrNotUpdatable) {
			t.Fatalf("err = %v, want ErrNotUpdatable", err)
		}
	})
}

// TestUpdateFailureLeavesNothing alters the parent's file after its
// manifest was written: the copy fails its check and Update removes it.
func TestUpdateFailureLeavesNothing(t *testing.T) {
	notes, edges := fixtureRows(t)
	parent := builtParent(t, notes, edges)
	path := filepath.Join(parent.Dir, format.GraphFile)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)/2] ^= 1 // same size: only the checksum tells
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	_, err = Update(context.Background(), dir, parent, notes, edges, UpdateOptions{BuildOptions: testBuildOptions})
	if err == nil || errors.Is(err, ErrNotUpdatable) || !strings.Contains(err.Error(), "xxh64") {
		t.Fatalf("err = %v, want a checksum failure", err)
	}
	if names := dirNames(t, dir); len(names) != 0 {
		t.Errorf("left %v", names)
	}
	// A manifest written before xxh64 was recorded is checked by sha256.
	old := *parent
	m := *old.Manifest
	m.Files = maps.Clone(m.Files)
	fi := m.Files[format.GraphFile]
	fi.XXH64 = ""
	m.Files[format.GraphFile] = fi
	old.Manifest = &m
	_, err = Update(context.Background(), dir, &old, notes, edges, UpdateOptions{BuildOptions: testBuildOptions})
	if err == nil || errors.Is(err, ErrNotUpdatable) || !strings.Contains(err.Error(), "sha256") {
		t.Fatalf("without xxh64: err = %v, want a sha256 failure", err)
	}
	if names := dirNames(t, dir); len(names) != 0 {
		t.Errorf("left %v", names)
	}
	data[len(data)/2] ^= 1
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	// A canceled update leaves nothing either.
	ns := slices.Clone(notes)
	ns[0].Title = "changed"
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Update(ctx, dir, parent, ns, edges, UpdateOptions{BuildOptions: testBuildOptions, Limit: 100}); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if names := dirNames(t, dir); len(names) != 0 {
		t.Errorf("canceled update left %v", names)
	}
}

// TestUpdateRandomEdits applies random series of edits that keep the
// layout (values of every kind, nulls, empty lists, saved notes and shifted
// edges that are set in place, stubs becoming notes, notes becoming stubs,
// moved, removed and added edges) and, after each step, compares every
// stored value of the updated database with a database built from
// scratch. The next step updates the updated one, so errors would
// accumulate. It also checks that every way of applying a change was
// taken.
// TestUpdateRandomEditsSharedTable repeats the first series of random
// edits with every type but links_to and embeds in the shared table of
// the long tail, which then loses, gains and changes rows of many types,
// and all property keys but two in the tail columns.
func TestUpdateRandomEditsSharedTable(t *testing.T) {
	saved := testBuildOptions
	t.Cleanup(func() { testBuildOptions = saved })
	testBuildOptions.TypedTables, testBuildOptions.PropertyColumns = 2, 2
	r := rand.New(rand.NewPCG(3, 7))
	v := newRandomVault(t, r, 40)
	notes, edges := v.rows()
	parent := builtParent(t, notes, edges)
	shared := 0
	for _, et := range parent.Manifest.Graph.EdgeTypes {
		if et.Table == format.GraphEdgeTable {
			shared++
		}
	}
	if shared < 3 {
		t.Fatalf("%d types in the shared table, want at least 3", shared)
	}
	opts := UpdateOptions{BuildOptions: testBuildOptions, Limit: 100, MaxGrowth: 100}
	for step := range 8 {
		v.edit(r, 1+r.IntN(8))
		notes, edges := v.rows()
		dir := t.TempDir()
		g, err := Update(context.Background(), dir, parent, notes, edges, opts)
		if err != nil {
			t.Fatalf("step %d: %v", step, err)
		}
		compareWithBuild(t, dir, g, notes, edges)
		parent = fakeParent(t, fmt.Sprint("s", step), notes, edges, g, dir)
	}
}

func TestUpdateRandomEdits(t *testing.T) {
	type series struct {
		seed               uint64
		notes, steps, size int // size bounds the edits per step
	}
	all := []series{{0, 40, 10, 8}, {1, 40, 10, 8}, {2, 3000, 3, 60}}
	if testing.Short() {
		all = all[:1]
	}
	totals := &totals{}
	opts := UpdateOptions{BuildOptions: testBuildOptions, Limit: 100, MaxGrowth: 100}
	opts.Log = slog.New(totals)
	for _, sr := range all {
		t.Run(fmt.Sprintf("seed%d_notes%d", sr.seed, sr.notes), func(t *testing.T) {
			r := rand.New(rand.NewPCG(sr.seed, 7))
			v := newRandomVault(t, r, sr.notes)
			notes, edges := v.rows()
			parent := builtParent(t, notes, edges)
			for step := range sr.steps {
				v.edit(r, 1+r.IntN(sr.size))
				notes, edges := v.rows()
				dir := t.TempDir()
				g, err := Update(context.Background(), dir, parent, notes, edges, opts)
				if err != nil {
					t.Fatalf("step %d: %v", step, err)
				}
				compareWithBuild(t, dir, g, notes, edges)
				parent = fakeParent(t, fmt.Sprint("s", step), notes, edges, g, dir)
			}
		})
	}
	for _, k := range []string{"notes_removed", "notes_added", "notes_set", "notes_replaced", "edges_removed", "edges_added", "edges_set", "edges_replaced"} {
		if totals.sum[k] == 0 {
			t.Errorf("no update had %s", k)
		}
	}
}

// totals sums the integer attributes of log records.
type totals struct{ sum map[string]int64 }

func (h *totals) Enabled(context.Context, slog.Level) bool { return true }
func (h *totals) Handle(_ context.Context, r slog.Record) error {
	if h.sum == nil {
		h.sum = map[string]int64{}
	}
	r.Attrs(func(a slog.Attr) bool {
		if a.Value.Kind() == slog.KindInt64 {
			h.sum[a.Key] += a.Value.Int64()
		}
		return true
	})
	return nil
}
func (h *totals) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *totals) WithGroup(string) slog.Handler      { return h }

// TestUpdateTailTypesComeAndGo checks that types of the long tail may
// appear and disappear in an update (they share a table, whose columns
// stay), while a type with a table of its own that loses its last edge
// changes the layout.
func TestUpdateTailTypesComeAndGo(t *testing.T) {
	saved := testBuildOptions
	t.Cleanup(func() { testBuildOptions = saved })
	testBuildOptions.TypedTables, testBuildOptions.MinTableEdges = 3, -1
	var notes []format.Note
	for i := range 6 {
		id := fmt.Sprintf("n%d", i)
		notes = append(notes, format.Note{ID: id, Path: id + ".md", Title: id, Size: 1, Modified: time.Unix(1700000000, 0)})
	}
	edge := func(id, typ string, a, b int) format.Edge {
		return format.Edge{ID: id, Type: typ, Source: fmt.Sprintf("n%d", a), Target: fmt.Sprintf("n%d", b), Sign: 1, Count: 1, Origin: format.OriginField}
	}
	// often has three edges and a table of its own; rare1 and rare2 share
	// one.
	edges := []format.Edge{edge("l1", format.TypeLinksTo, 0, 1), edge("o1", "often", 0, 1), edge("o2", "often", 1, 2),
		edge("o3", "often", 2, 3), edge("r1", "rare1", 3, 4), edge("r2", "rare2", 4, 5)}
	parent := builtParent(t, notes, edges)
	tables := map[string]string{}
	for _, et := range parent.Manifest.Graph.EdgeTypes {
		tables[et.Name] = et.Table
	}
	if tables["often"] == format.GraphEdgeTable || tables["rare1"] != format.GraphEdgeTable || tables["rare2"] != format.GraphEdgeTable {
		t.Fatalf("tables %v: want often in its own, rare1 and rare2 in %s", tables, format.GraphEdgeTable)
	}
	opts := UpdateOptions{BuildOptions: testBuildOptions, Limit: 100}
	// rare2 goes, rare3 comes.
	edges2 := append(slices.Clone(edges[:5]), edge("r3", "rare3", 5, 0))
	dir := t.TempDir()
	g, err := Update(context.Background(), dir, parent, notes, edges2, opts)
	if err != nil {
		t.Fatal(err)
	}
	if g.Build != format.GraphUpdated {
		t.Fatalf("build %q, want updated", g.Build)
	}
	compareWithBuild(t, dir, g, notes, edges2)
	// often loses its edges: its table would be gone.
	edges3 := []format.Edge{edges[0], edges[4], edges[5]}
	if _, err := Update(context.Background(), t.TempDir(), parent, notes, edges3, opts); !errors.Is(err, ErrNotUpdatable) {
		t.Fatalf("err = %v, want ErrNotUpdatable", err)
	}
}
