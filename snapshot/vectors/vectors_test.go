package vectors

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"math"
	"math/rand"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/vaultgraph/vaultgraph/format"
)

func TestFileRoundTrip(t *testing.T) {
	tests := []struct {
		name    string
		n, dims int
	}{
		{"empty", 0, 0},
		{"empty with dims", 0, 8},
		{"one row", 1, 3},
		{"odd count pads the hash section", 3, 5},
		{"many", 1000, 16},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			set := uniformSet(int64(tc.n), tc.n, 0, max(tc.dims, 1))
			f := writeRows(t, set.rows, tc.dims)
			if f.Len() != tc.n || f.Dims() != tc.dims || f.Fingerprint() != (Hash{1}) {
				t.Fatalf("Len %d Dims %d fp %x", f.Len(), f.Dims(), f.Fingerprint())
			}
			for i := range tc.n {
				if want := stored(set.rows.hashes[i]); f.HashAt(i) != want || !f.HasHash(i, set.rows.hashes[i]) {
					t.Fatalf("hash %d differs", i)
				}
				row, ok := f.Find(set.rows.hashes[i])
				if !ok || row != i {
					t.Fatalf("Find(hash %d) = %d, %v", i, row, ok)
				}
				// Each component within a residual step.
				v := set.rows.vecs[i]
				step := f.scales[i] / (1 << fineBits)
				for j, x := range f.Vector(i, nil) {
					if math.Abs(float64(x-v[j])) > float64(step)*1.01+1e-7 {
						t.Fatalf("row %d differs at %d: %g, written %g (step %g)", i, j, x, v[j], step)
					}
				}
				if d, e := f.Similarity(v, i), Dot(v, v); math.Abs(float64(d-e)) > 1e-4 {
					t.Fatalf("row %d: similarity with itself %g, want %g", i, d, e)
				}
				code := make([]byte, RowLen(tc.dims))
				if s := f.CopyRow(i, code); s != f.scales[i] || !bytes.Equal(code, append(f.code(i), f.fineCode(i)...)) {
					t.Fatalf("row %d copied as %g %v", i, s, code)
				}
			}
			if _, ok := f.Find(Hash{0xff, 0xff}); ok {
				t.Error("found a hash that is not there")
			}
		})
	}
}

func TestWriteFileRefusesBadRows(t *testing.T) {
	dir := t.TempDir()
	h := []Hash{{2}, {1}}
	vec := func(int) []float32 { return []float32{1, 0} }
	if err := WriteFile(filepath.Join(dir, "a"), Hash{}, 2, h, vec); err == nil {
		t.Error("unsorted hashes accepted")
	}
	if err := WriteFile(filepath.Join(dir, "b"), Hash{}, 3, []Hash{{1}}, vec); err == nil {
		t.Error("wrong dimension accepted")
	}
	for _, name := range []string{"a", "b"} {
		if _, err := os.Stat(filepath.Join(dir, name)); !os.IsNotExist(err) {
			t.Errorf("failed write left %s behind", name)
		}
	}
}

// validFile returns the bytes of a small valid vector file.
func validFile(t testing.TB, n, dims int) []byte {
	set := uniformSet(3, n, 0, dims)
	path := filepath.Join(t.TempDir(), "v")
	if err := WriteFile(path, Hash{7}, dims, set.rows.hashes, func(i int) []float32 { return set.rows.vecs[i] }); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestCorruptedVectorFile is the corruption table: every damage is an
// error wrapping ErrCorrupt, never a panic or a silently wrong file.
func TestCorruptedVectorFile(t *testing.T) {
	tests := []struct {
		name   string
		damage func(b []byte) []byte
	}{
		{"empty", func(b []byte) []byte { return nil }},
		{"header only half", func(b []byte) []byte { return b[:30] }},
		{"truncated vectors", func(b []byte) []byte { return b[:len(b)-1] }},
		{"extra byte", func(b []byte) []byte { return append(b, 0) }},
		{"bad magic", func(b []byte) []byte { b[0] = 'X'; return b }},
		{"future version", func(b []byte) []byte { binary.LittleEndian.PutUint32(b[8:], format.VectorFileLayout+1); return b }},
		{"float32 rows of layout 1", func(b []byte) []byte { binary.LittleEndian.PutUint32(b[8:], 1); return b }},
		{"layout 2 of byte residuals", func(b []byte) []byte { binary.LittleEndian.PutUint32(b[8:], 2); return b }},
		{"layout 3 of whole hashes", func(b []byte) []byte { binary.LittleEndian.PutUint32(b[8:], 3); return b }},
		{"code length differs", func(b []byte) []byte { binary.LittleEndian.PutUint32(b[56:], 64); return b }},
		{"negative scale", func(b []byte) []byte {
			s, _ := fileSections(10, keySize)
			binary.LittleEndian.PutUint32(b[s:], math.Float32bits(-1))
			return b
		}},
		{"NaN scale", func(b []byte) []byte {
			s, _ := fileSections(10, keySize)
			binary.LittleEndian.PutUint32(b[s+4:], math.Float32bits(float32(math.NaN())))
			return b
		}},
		{"huge count", func(b []byte) []byte { binary.LittleEndian.PutUint64(b[16:], 1<<62); return b }},
		{"count off by one", func(b []byte) []byte { binary.LittleEndian.PutUint64(b[16:], 9); return b }},
		{"huge dims", func(b []byte) []byte { binary.LittleEndian.PutUint32(b[12:], 1<<30); return b }},
		{"zero dims with rows", func(b []byte) []byte { binary.LittleEndian.PutUint32(b[12:], 0); return b }},
		{"hashes out of order", func(b []byte) []byte {
			copy(b[64:96], b[96:128])
			return b
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := tc.damage(validFile(t, 10, 4))
			if _, err := DecodeFile(b); !errors.Is(err, ErrCorrupt) {
				t.Fatalf("err = %v, want ErrCorrupt", err)
			}
			path := filepath.Join(t.TempDir(), "v")
			os.WriteFile(path, b, 0o644)
			if _, err := OpenFile(path); !errors.Is(err, ErrCorrupt) {
				t.Fatalf("OpenFile err = %v, want ErrCorrupt", err)
			}
		})
	}
}

func FuzzDecodeFile(f *testing.F) {
	f.Add(validFile(f, 3, 4))
	f.Add(validFile(f, 0, 0))
	f.Add(validFile(f, 1, 1)[:70])
	f.Fuzz(func(t *testing.T, b []byte) {
		vf, err := DecodeFile(b)
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("error does not wrap ErrCorrupt: %v", err)
			}
			return
		}
		// A file that decodes must be fully readable.
		for i := range vf.Len() {
			_ = vf.Vector(i, nil)
			if row, ok := vf.Find(vf.HashAt(i)); !ok || row != i {
				t.Fatalf("row %d not found by its hash", i)
			}
		}
		if vf.Len() > 0 {
			if _, err := vf.Search(make([]float32, vf.Dims()), 3, nil); err != nil {
				t.Fatal(err)
			}
		}
	})
}

// buildGraph builds and writes a graph over f, and opens it again.
func buildGraph(t testing.TB, f *File, p Params) (*Graph, string) {
	t.Helper()
	g, err := Build(context.Background(), f, p, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "hnsw")
	if err := g.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	og, err := OpenGraph(path, f)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { og.Close() })
	return og, path
}

func TestGraphFindsNearestNeighbours(t *testing.T) {
	set := latentSet(5, 3000, 50, 32, 8)
	f := writeRows(t, set.rows, 32)
	g, _ := buildGraph(t, f, DefaultParams())
	if r := recallAt(t, g, set.rows, set.queries, 10, 64); r < 0.95 {
		t.Errorf("recall@10 = %.3f, want >= 0.95", r)
	}
	// Scores are the codes' similarities, ordered, within 1e-4 of the
	// float32 ones.
	for _, q := range set.queries[:10] {
		hits, _ := g.Search(q, 10, 64)
		for i, h := range hits {
			if math.Abs(float64(h.Score-f.Similarity(q, h.Row))) > 1e-4 || (i > 0 && h.Score > hits[i-1].Score) {
				t.Fatalf("hit %d %+v: coded score %g, previous %+v", i, h, f.Similarity(q, h.Row), hits[max(i-1, 0)])
			}
			if e := Dot(q, set.rows.vecs[h.Row]); math.Abs(float64(h.Score-e)) > 1e-4 {
				t.Fatalf("hit %d %+v: float32 similarity %g", i, h, e)
			}
		}
	}
	// Every row finds itself.
	for i := 0; i < f.Len(); i += 97 {
		hits, err := g.Search(set.rows.vecs[i], 1, 32)
		if err != nil || len(hits) != 1 || hits[0].Row != i || hits[0].Score < 0.999 {
			t.Fatalf("row %d searched for itself: %v %v", i, hits, err)
		}
	}
	if _, err := g.Search(make([]float32, 5), 3, 0); !errors.Is(err, ErrDims) {
		t.Errorf("wrong dims: err = %v", err)
	}
}

func TestGraphEdgeSizes(t *testing.T) {
	for _, n := range []int{0, 1, 2, 17} {
		set := uniformSet(int64(n), n, 1, 8)
		f := writeRows(t, set.rows, 8)
		g, _ := buildGraph(t, f, DefaultParams())
		hits, err := g.Search(set.queries[0], 5, 0)
		if err != nil || len(hits) != min(n, 5) {
			t.Errorf("n=%d: %d hits, err %v", n, len(hits), err)
		}
	}
}

func TestGraphFileRoundTripAnswersAlike(t *testing.T) {
	set := latentSet(6, 2000, 20, 16, 6)
	f := writeRows(t, set.rows, 16)
	built, err := Build(context.Background(), f, DefaultParams(), 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	read, _ := buildGraph(t, f, DefaultParams())
	for _, q := range set.queries {
		a, _ := built.Search(q, 10, 50)
		b, _ := read.Search(q, 10, 50)
		if len(a) != len(b) {
			t.Fatalf("%d vs %d hits", len(a), len(b))
		}
		for i := range a {
			if a[i] != b[i] {
				t.Fatalf("hit %d: built %v, read back %v", i, a[i], b[i])
			}
		}
	}
	if read.Params() != DefaultParams() {
		t.Errorf("params read back %+v", read.Params())
	}
}

// validGraph returns a vector file and the bytes of a graph over it.
func validGraph(t testing.TB, n int) (*File, []byte) {
	set := latentSet(8, n, 0, 8, 4)
	f := writeRows(t, set.rows, 8)
	_, path := buildGraph(t, f, Params{M: 4, M0: 8, EfConstruction: 16, EfSearch: 8})
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return f, b
}

// firstLinks returns the offset of node 0's level-0 neighbour count in a
// graph file of the current layout.
func firstLinks(b []byte) int {
	n := int(binary.LittleEndian.Uint32(b[12:]))
	return 64 + n + pad4(n) + 4*n
}

func TestCorruptedGraphFile(t *testing.T) {
	le := binary.LittleEndian
	tests := []struct {
		name   string
		damage func(b []byte) []byte
	}{
		{"truncated", func(b []byte) []byte { return b[:len(b)-4] }},
		{"bad magic", func(b []byte) []byte { b[1] = 0; return b }},
		{"future layout", func(b []byte) []byte { le.PutUint32(b[8:], format.HNSWLayout+1); return b }},
		{"layout 0", func(b []byte) []byte { le.PutUint32(b[8:], 0); return b }},
		{"layout 1", func(b []byte) []byte { le.PutUint32(b[8:], 1); return b }},
		{"layout 2, codes beside the links", func(b []byte) []byte { le.PutUint32(b[8:], 2); return b }},
		{"count differs from vectors", func(b []byte) []byte { le.PutUint32(b[12:], 41); return b }},
		{"entry out of range", func(b []byte) []byte { le.PutUint32(b[28:], 1000); return b }},
		{"M0 too large", func(b []byte) []byte { le.PutUint32(b[24:], 1<<20); return b }},
		{"neighbour out of range", func(b []byte) []byte {
			links := firstLinks(b)
			if le.Uint32(b[links:]) == 0 {
				panic("node 0 has no neighbour")
			}
			le.PutUint32(b[links+4:], 999) // its first neighbour does not exist
			return b
		}},
		{"neighbour count too large", func(b []byte) []byte {
			le.PutUint32(b[firstLinks(b):], 200)
			return b
		}},
		{"neighbour count past the level-0 section", func(b []byte) []byte {
			le.PutUint32(b[firstLinks(b):], le.Uint32(b[firstLinks(b):])+1)
			return b
		}},
		{"level-0 words fewer than the nodes", func(b []byte) []byte { le.PutUint64(b[48:], 39); return b }},
		{"level-0 words more than the section", func(b []byte) []byte { le.PutUint64(b[48:], le.Uint64(b[48:])+1); return b }},
		{"level-0 words beyond any file", func(b []byte) []byte { le.PutUint64(b[48:], 1<<62); return b }},
		{"layout 3 read as layout 3", func(b []byte) []byte { le.PutUint32(b[8:], 3); return b }},
		{"level above top", func(b []byte) []byte { b[64] = 15; return b }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f, b := validGraph(t, 40)
			if _, err := DecodeGraph(tc.damage(b), f); !errors.Is(err, ErrCorrupt) {
				t.Fatalf("err = %v, want ErrCorrupt", err)
			}
		})
	}
}

func FuzzDecodeGraph(f *testing.F) {
	vf, b := validGraph(f, 30)
	f.Add(b)
	f.Fuzz(func(t *testing.T, b []byte) {
		g, err := DecodeGraph(b, vf)
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("error does not wrap ErrCorrupt: %v", err)
			}
			return
		}
		// A graph that decodes must be searchable without a panic.
		if _, err := g.Search(vf.Vector(0, nil), 5, 10); err != nil {
			t.Fatal(err)
		}
	})
}

func TestUpdateKeepsRecall(t *testing.T) {
	const dims = 24
	set := latentSet(9, 3000, 50, dims, 8)
	parentFile := writeRows(t, set.rows, dims)
	parent, _ := buildGraph(t, parentFile, DefaultParams())

	// The next snapshot drops every 10th row (and with it, some of the
	// parent's entry and upper-level nodes) and adds 300 new rows.
	extra := latentSet(10, 300, 0, dims, 8)
	var next testRows
	for i := range set.rows.hashes {
		if i%10 != 0 {
			next.hashes = append(next.hashes, set.rows.hashes[i])
			next.vecs = append(next.vecs, set.rows.vecs[i])
		}
	}
	next.hashes = append(next.hashes, extra.rows.hashes...)
	next.vecs = append(next.vecs, extra.rows.vecs...)
	next.sort()
	nextFile := writeRows(t, next, dims)

	remap := Remap(parentFile, nextFile)
	kept := 0
	for p, r := range remap {
		if r >= 0 {
			kept++
			if nextFile.HashAt(r) != parentFile.HashAt(p) {
				t.Fatalf("remap %d -> %d joins different texts", p, r)
			}
		}
	}
	if kept != 2700 {
		t.Fatalf("kept %d rows, want 2700", kept)
	}
	if c := UpdateCost(remap, nextFile); c < 0.2 || c > 0.21 {
		t.Errorf("UpdateCost = %.3f, want 600/3000", c)
	}
	g, err := Update(context.Background(), parent, remap, nextFile, nil)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "hnsw")
	if err := g.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	og, err := OpenGraph(path, nextFile)
	if err != nil {
		t.Fatal(err)
	}
	defer og.Close()
	if r := recallAt(t, og, next, set.queries, 10, 64); r < 0.95 {
		t.Errorf("recall@10 after update = %.3f, want >= 0.95", r)
	}
	// Every row, old or new, is still reachable.
	for i := range nextFile.Len() {
		hits, _ := og.Search(next.vecs[i], 1, 64)
		if len(hits) == 0 || hits[0].Row != i {
			t.Fatalf("row %d cannot be found after the update", i)
		}
	}
}

func TestExactSearchWithRows(t *testing.T) {
	set := uniformSet(11, 100, 1, 8)
	f := writeRows(t, set.rows, 8)
	all, _ := f.Search(set.queries[0], 100, nil)
	rows := []int{5, 17, 42, 99, -1, 1000}
	some, err := f.Search(set.queries[0], 10, rows)
	if err != nil || len(some) != 4 {
		t.Fatalf("hits %v, err %v; want 4 distinct valid rows", some, err)
	}
	for i := 1; i < len(all); i++ {
		if all[i-1].Score < all[i].Score {
			t.Fatal("exact hits not sorted by score")
		}
	}
}

// TestParallelBuild builds with several workers (run it with -race) and
// checks the graph is as good as a sequential one.
func TestParallelBuild(t *testing.T) {
	set := latentSet(12, 4000, 50, 32, 8)
	f := writeRows(t, set.rows, 32)
	g, err := Build(context.Background(), f, DefaultParams(), 4, nil)
	if err != nil {
		t.Fatal(err)
	}
	if g.Len() != f.Len() {
		t.Fatalf("Len = %d", g.Len())
	}
	if r := recallAt(t, g, set.rows, set.queries, 10, 64); r < 0.95 {
		t.Errorf("recall@10 of a parallel build = %.3f", r)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Build(ctx, f, DefaultParams(), 4, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled build: err = %v", err)
	}
}

// Fixtures of the current layouts (testdata/graphs): a vector file and a
// graph over it, built with one worker (reproducibly). Regenerate them with
// -update after a deliberate change of a layout, which must bump
// format.VectorFileLayout or format.HNSWLayout.
var updateFixtures = flag.Bool("update", false, "rewrite testdata/graphs from their generator")

func fixturePaths() (vecs, graph string) {
	dir := filepath.Join("testdata", "graphs")
	return filepath.Join(dir, fmt.Sprintf("vectors-layout%d", format.VectorFileLayout)),
		filepath.Join(dir, fmt.Sprintf("hnsw-layout%d", format.HNSWLayout))
}

// TestFixturesAreWrittenAlike writes the fixtures' vectors and graph again
// and compares them byte for byte: a change in either layout shows here.
func TestFixturesAreWrittenAlike(t *testing.T) {
	set := latentSet(21, 60, 0, 20, 4)
	dir := t.TempDir()
	vecPath, graphPath := filepath.Join(dir, "v"), filepath.Join(dir, "g")
	wantVecs, wantGraph := fixturePaths()
	if *updateFixtures {
		vecPath, graphPath = wantVecs, wantGraph
		os.Remove(vecPath)
		os.Remove(graphPath)
	}
	if err := WriteFile(vecPath, Hash{9}, 20, set.rows.hashes, func(i int) []float32 { return set.rows.vecs[i] }); err != nil {
		t.Fatal(err)
	}
	f, err := OpenFile(vecPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	g, err := Build(context.Background(), f, Params{M: 4, M0: 8, EfConstruction: 32, EfSearch: 16}, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := g.WriteFile(graphPath); err != nil {
		t.Fatal(err)
	}
	for _, p := range [][2]string{{vecPath, wantVecs}, {graphPath, wantGraph}} {
		if got, want := mustRead(t, p[0]), mustRead(t, p[1]); !bytes.Equal(got, want) {
			t.Errorf("%s written again differs from the fixture (%d and %d bytes): regenerate it with -update after a change of the build, and give a new layout a new layout version", p[1], len(got), len(want))
		}
	}
}

// TestCurrentLayoutRoundTrip reads the current layout's fixtures, searches
// them and writes the graph again unchanged.
func TestCurrentLayoutRoundTrip(t *testing.T) {
	vecPath, fixture := fixturePaths()
	f, err := OpenFile(vecPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	g, err := OpenGraph(fixture, f)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if g.Params() != (Params{M: 4, M0: 8, EfConstruction: 32, EfSearch: 16}) {
		t.Fatalf("params %+v", g.Params())
	}
	for i := range f.Len() {
		hits, err := g.Search(f.Vector(i, nil), 1, 16)
		if err != nil || len(hits) != 1 || hits[0].Row != i {
			t.Fatalf("row %d searched for itself: %v %v", i, hits, err)
		}
	}
	path := filepath.Join(t.TempDir(), "hnsw")
	if err := g.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(mustRead(t, path), mustRead(t, fixture)) {
		t.Fatal("the current layout's fixture does not survive a read and a write")
	}
	updated, err := Update(context.Background(), g, Remap(f, f), f, nil)
	if err != nil || updated.Len() != f.Len() {
		t.Fatalf("update over the same rows: %v", err)
	}
}

// TestLayout3IsRead reads the graph fixture of layout 3 (room for M0
// links on level 0), searches it, and writes it again in the current
// layout: the current layout's fixture, which holds the same graph.
func TestLayout3IsRead(t *testing.T) {
	// The vectors of layout 2 that graph was built over.
	f, err := OpenFile(filepath.Join("testdata", "graphs", "vectors-layout2"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	old := filepath.Join("testdata", "graphs", "hnsw-layout3")
	g, err := OpenGraph(old, f)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	for i := range f.Len() {
		hits, err := g.Search(f.Vector(i, nil), 1, 16)
		if err != nil || len(hits) != 1 || hits[0].Row != i {
			t.Fatalf("row %d searched for itself: %v %v", i, hits, err)
		}
	}
	path := filepath.Join(t.TempDir(), "hnsw")
	if err := g.WriteFile(path); err != nil {
		t.Fatal(err)
	}
	if len(mustRead(t, old)) <= len(mustRead(t, path)) {
		t.Fatalf("layout 3's file (%d bytes) is not larger than layout %d's (%d)", len(mustRead(t, old)), format.HNSWLayout, len(mustRead(t, path)))
	}
	again, err := OpenGraph(path, f)
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	for i := range f.Len() {
		for l := 0; l <= int(g.levels[i]); l++ {
			if !slices.Equal(g.links(uint32(i), l), again.links(uint32(i), l)) {
				t.Fatalf("node %d level %d: links %v written again as %v", i, l, g.links(uint32(i), l), again.links(uint32(i), l))
			}
		}
	}
}

// TestVectorLayout3IsRead reads the vector fixture of layout 3 (whole
// 32-byte text hashes): its rows are the current layout's rows, with the same
// keys (HashAt: the first 16 bytes in every layout), found by
// the same hashes, and Remap matches the two files row for row both ways
// (an edit whose parent is of layout 3).
func TestVectorLayout3IsRead(t *testing.T) {
	old, err := OpenFile(filepath.Join("testdata", "graphs", "vectors-layout3"))
	if err != nil {
		t.Fatal(err)
	}
	defer old.Close()
	vecPath, _ := fixturePaths()
	cur, err := OpenFile(vecPath)
	if err != nil {
		t.Fatal(err)
	}
	defer cur.Close()
	if old.Len() != cur.Len() || old.Len() == 0 {
		t.Fatalf("%d and %d rows", old.Len(), cur.Len())
	}
	set := latentSet(21, 60, 0, 20, 4) // the fixtures' generator
	for i := range old.Len() {
		h := set.rows.hashes[i]
		if old.HashAt(i) != cur.HashAt(i) || !old.HasHash(i, h) || !cur.HasHash(i, h) {
			t.Fatalf("row %d: hashes %x and %x, want %x", i, old.HashAt(i), cur.HashAt(i), h)
		}
		for _, f := range []*File{old, cur} {
			if r, ok := f.Find(h); !ok || r != i {
				t.Fatalf("row %d found at %d, %v", i, r, ok)
			}
		}
		if r, ok := cur.Find(cur.HashAt(i)); !ok || r != i {
			t.Fatalf("row %d found by its stored 16 bytes at %d, %v", i, r, ok)
		}
		if !slices.Equal(old.Vector(i, nil), cur.Vector(i, nil)) {
			t.Fatalf("row %d differs", i)
		}
	}
	other := h16(0xff)
	if _, ok := cur.Find(other); ok {
		t.Fatal("a hash no row has was found")
	}
	for _, m := range [][]int{Remap(old, cur), Remap(cur, old)} {
		for i, r := range m {
			if r != i {
				t.Fatalf("remap %v", m)
			}
		}
	}
	if d := len(mustRead(t, filepath.Join("testdata", "graphs", "vectors-layout3"))) - len(mustRead(t, vecPath)); d < 16*old.Len() {
		t.Fatalf("layout 4 saves %d bytes over %d rows", d, old.Len())
	}
}

// stored is h as a file of the current layout stores it: its first 16
// bytes, then zeros.
func stored(h Hash) Hash {
	clear(h[keySize:])
	return h
}

// h16 is a text hash of 16 bytes b, then zeros.
func h16(b byte) Hash {
	var h Hash
	for i := range keySize {
		h[i] = b
	}
	return h
}

// TestVectorLayout2IsRead reads the vector fixture of layout 2 (a byte
// per residual): its rows decode as written, and written again in the
// current layout they lose no more than its rounding of the residuals.
func TestVectorLayout2IsRead(t *testing.T) {
	f, err := OpenFile(filepath.Join("testdata", "graphs", "vectors-layout2"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	set := latentSet(21, 60, 0, 20, 4) // the fixture's generator
	for i := range f.Len() {
		for j, x := range f.Vector(i, nil) {
			if d := math.Abs(float64(x - set.rows.vecs[i][j])); d > float64(f.scales[i])*fineStep {
				t.Fatalf("row %d component %d: %g, written %g", i, j, x, set.rows.vecs[i][j])
			}
		}
	}
	path := filepath.Join(t.TempDir(), "v")
	hashes := make([]Hash, f.Len())
	for i := range hashes {
		hashes[i] = f.HashAt(i)
	}
	err = WriteCodes(path, f.Fingerprint(), f.Dims(), hashes, func(i int, dst []byte) (float32, error) { return f.CopyRow(i, dst), nil })
	if err != nil {
		t.Fatal(err)
	}
	g, err := OpenFile(path)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	for i := range f.Len() {
		a, b := f.Vector(i, nil), g.Vector(i, nil)
		for j := range a {
			// Rounded to the nearest step of 4/256, or 3/256 down from
			// the largest residual.
			if d := math.Abs(float64(a[j] - b[j])); d > 3*float64(f.scales[i])*fineStep+1e-7 {
				t.Fatalf("row %d component %d: %g read from layout 2, %g written again", i, j, a[j], b[j])
			}
		}
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestFindByPrefix: Find, which searches only the rows of the hash's
// prefix, finds every row and no hash that is absent, also when the
// hashes are not spread evenly (many sharing a prefix, some at the ends
// of the range) and for absent hashes whose prefix rows have.
func TestFindByPrefix(t *testing.T) {
	var rows testRows
	seen := map[Hash]bool{}
	add := func(h Hash) {
		if !seen[h] {
			seen[h] = true
			rows.hashes = append(rows.hashes, h)
			rows.vecs = append(rows.vecs, []float32{1})
		}
	}
	add(Hash{})
	add(Hash{0xff, 0xff, 0xff, 0xff, 0xff})
	for i := range 300 {
		add(hashOf(7, i))
		h := hashOf(8, i)
		h[0], h[1] = 0x42, 0x17 // a crowded prefix
		add(h)
	}
	rows.sort()
	f := writeRows(t, rows, 1)
	if f.firstRow == nil {
		t.Fatal("no prefix index for 602 rows")
	}
	for i, h := range rows.hashes {
		if row, ok := f.Find(h); !ok || row != i {
			t.Fatalf("Find(row %d) = %d, %v", i, row, ok)
		}
		// The last byte the file stores, the prefix's and the first.
		for _, b := range []int{keySize - 1, 3, 0} {
			miss := h
			miss[b] ^= 0x01
			if seen[miss] {
				continue
			}
			if row, ok := f.Find(miss); ok {
				t.Fatalf("found absent hash %x at row %d", miss[:4], row)
			}
		}
	}
}

// TestWriteRefusesSharedHashPrefixes: two texts whose hashes agree in the
// 16 bytes a file stores cannot both have a row.
func TestWriteRefusesSharedHashPrefixes(t *testing.T) {
	a, b := h16(7), h16(7)
	b[hashSize-1] = 1
	err := WriteFile(filepath.Join(t.TempDir(), "v"), Hash{9}, 1, []Hash{a, b}, func(int) []float32 { return []float32{1} })
	if err == nil || !strings.Contains(err.Error(), "first 16 bytes") {
		t.Fatalf("rows sharing 16 bytes of hash written: %v", err)
	}
}

// TestWriteRowsCopiesRuns writes a successor of a parent file (rows
// removed, rows added among them, at the ends and in between; a second
// parent of another dimension whose rows are coded afresh) with WriteRows
// and with WriteCodes and File.CopyRow: the files are byte for byte the
// same, and so are they when the parent keeps its residuals unpacked
// (layout 2), whose rows WriteRows codes one by one.
func TestWriteRowsCopiesRuns(t *testing.T) {
	const dims = 40
	parentRows := latentSet(31, 300, 0, dims, 6).rows
	parentRows.sort()
	parentPath := filepath.Join(t.TempDir(), "parent.f32")
	if err := WriteFile(parentPath, Hash{1}, dims, parentRows.hashes, func(i int) []float32 { return parentRows.vecs[i] }); err != nil {
		t.Fatal(err)
	}
	parent, err := OpenFile(parentPath)
	if err != nil {
		t.Fatal(err)
	}
	defer parent.Close()
	other := writeRows(t, latentSet(32, 20, 0, dims+8, 6).rows, dims+8)
	r := rand.New(rand.NewSource(7))
	type src struct {
		file *File
		row  int
		vec  []float32
	}
	var hashes []Hash
	var rows []src
	for i := range parent.Len() {
		if r.Intn(10) == 0 {
			continue // removed
		}
		hashes, rows = append(hashes, parent.HashAt(i)), append(rows, src{file: parent, row: i})
	}
	for i := range 40 {
		hashes, rows = append(hashes, hashOf(99, i)), append(rows, src{vec: randomUnit(r, dims)})
	}
	hashes = append(hashes, hashOf(98, 0))
	rows = append(rows, src{file: other, row: 3}) // another dimension: coded again
	idx := make([]int, len(hashes))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return slices.Compare(hashes[a][:], hashes[b][:]) })
	sh, sr := make([]Hash, len(idx)), make([]src, len(idx))
	for i, j := range idx {
		sh[i], sr[i] = hashes[j], rows[j]
	}
	hashes, rows = sh, sr
	row := func(i int, dst []byte) (float32, error) {
		if s := rows[i]; s.file == parent {
			return s.file.CopyRow(s.row, dst), nil
		} else if s.file != nil {
			return Encode(dst, s.file.Vector(s.row, nil)[:dims]), nil
		}
		return Encode(dst, rows[i].vec), nil
	}
	from := func(i int) (*File, int) { return rows[i].file, rows[i].row }
	dir := t.TempDir()
	write := func(name string, from func(int) (*File, int)) []byte {
		p := filepath.Join(dir, name)
		if err := WriteRows(p, parent.Fingerprint(), dims, hashes, from, row); err != nil {
			t.Fatal(err)
		}
		return mustRead(t, p)
	}
	want := write("codes", nil)
	runs, err := rowRuns(len(hashes), dims, from, row)
	if err != nil {
		t.Fatal(err)
	}
	copied := 0
	for _, r := range runs {
		if r.file == parent {
			copied += r.n
		}
	}
	if copied != len(hashes)-41 || len(runs) < 3 {
		t.Fatalf("%d runs copy %d of the parent's rows, want its %d kept rows", len(runs), copied, len(hashes)-41)
	}
	if got := write("runs", from); !bytes.Equal(got, want) {
		for i := range got {
			if got[i] != want[i] {
				t.Logf("first difference at byte %d of %d: %d, want %d", i, len(got), got[i], want[i])
				break
			}
		}
		t.Fatal("WriteRows with runs of the parent's rows wrote other bytes than WriteCodes")
	}
	// Opened only to copy from, its residuals still packed: the same
	// bytes by runs and row by row.
	toCopy, err := OpenFileToCopy(parentPath)
	if err != nil {
		t.Fatal(err)
	}
	defer toCopy.Close()
	if toCopy.fine != nil {
		t.Fatal("OpenFileToCopy unpacked the residuals")
	}
	mapped := parent
	parent = toCopy
	for i, s := range rows {
		if s.file == mapped {
			rows[i].file = toCopy
		}
	}
	if got := write("to-copy runs", from); !bytes.Equal(got, want) {
		t.Fatal("WriteRows from a file opened to copy wrote other bytes than WriteCodes")
	}
	if got := write("to-copy rows", nil); !bytes.Equal(got, want) {
		t.Fatal("CopyRow of a file opened to copy wrote other bytes than of one opened to search")
	}
	parent.packed, parent.fine = nil, mapped.fine // as a file of layout 2 holds its residuals
	if got := write("unpacked", from); !bytes.Equal(got, want) {
		t.Fatal("WriteRows from a parent without packed residuals wrote other bytes than WriteCodes")
	}
	f, err := OpenFile(filepath.Join(dir, "runs"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if f.Len() != len(hashes) {
		t.Fatalf("%d rows, want %d", f.Len(), len(hashes))
	}
}

// TestTextKeyIsTheStoredPrefix: a chunk's text key (format.TextKey, format
// version 6) and a whole text hash (version 5, format.TextHash) parse to
// the same Hash, the bytes a vector file stores per row, so rows are found
// by either.
func TestTextKeyIsTheStoredPrefix(t *testing.T) {
	if keySize != format.TextKeyBytes {
		t.Fatalf("vector files store %d bytes of a text hash, chunks' text keys hold %d", keySize, format.TextKeyBytes)
	}
	key, ok1 := ParseHash(format.TextKey("a passage"))
	whole, ok2 := ParseHash(format.TextHash("a passage"))
	if !ok1 || !ok2 || key != whole || key == (Hash{}) {
		t.Fatalf("ParseHash(TextKey) = %x %v, ParseHash(TextHash) = %x %v", key, ok1, whole, ok2)
	}
	for _, bad := range []string{"", format.TextKey("a")[:31], format.TextHash("a") + "00", strings.Repeat("zz", 16)} {
		if _, ok := ParseHash(bad); ok {
			t.Errorf("ParseHash(%q) accepted", bad)
		}
	}
}
