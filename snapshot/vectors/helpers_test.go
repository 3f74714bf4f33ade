package vectors

import (
	"crypto/sha256"
	"encoding/binary"
	"math"
	"math/rand"
	"path/filepath"
	"slices"
	"testing"
)

// testRows are vectors keyed by made-up text hashes, sorted as a file
// stores them.
type testRows struct {
	hashes []Hash
	vecs   [][]float32
}

// vectorSet is n data vectors and nq query vectors drawn from the same
// distribution.
type vectorSet struct {
	rows    testRows
	queries [][]float32
}

// uniformSet draws unit vectors uniformly from the sphere: the worst case
// for any nearest-neighbour index, since in high dimensions every vector is
// almost equally far from every other.
func uniformSet(seed int64, n, nq, dims int) vectorSet {
	r := rand.New(rand.NewSource(seed))
	return drawSet(seed, n, nq, func() []float32 { return randomUnit(r, dims) })
}

// latentSet draws vectors from a random linear image of a latent Gaussian
// of latent dimensions, plus 10% isotropic noise, normalised: random data
// with the low intrinsic dimension that embeddings of text have.
func latentSet(seed int64, n, nq, dims, latent int) vectorSet {
	r := rand.New(rand.NewSource(seed))
	proj := make([][]float32, latent)
	for i := range proj {
		proj[i] = randomUnit(r, dims)
	}
	return drawSet(seed, n, nq, func() []float32 {
		v := randomUnit(r, dims)
		for j := range v {
			v[j] *= 0.1
		}
		for _, p := range proj {
			z := float32(r.NormFloat64()) / float32(math.Sqrt(float64(latent)))
			for j := range v {
				v[j] += z * p[j]
			}
		}
		Normalize(v)
		return v
	})
}

func drawSet(seed int64, n, nq int, draw func() []float32) vectorSet {
	var s vectorSet
	for i := range n {
		s.rows.hashes = append(s.rows.hashes, hashOf(seed, i))
		s.rows.vecs = append(s.rows.vecs, draw())
	}
	s.rows.sort()
	for range nq {
		s.queries = append(s.queries, draw())
	}
	return s
}

func randomUnit(r *rand.Rand, dims int) []float32 {
	v := make([]float32, dims)
	for j := range v {
		v[j] = float32(r.NormFloat64())
	}
	Normalize(v)
	return v
}

func hashOf(seed int64, i int) Hash {
	var b [16]byte
	binary.LittleEndian.PutUint64(b[:], uint64(seed))
	binary.LittleEndian.PutUint64(b[8:], uint64(i))
	return sha256.Sum256(b[:])
}

func (rows *testRows) sort() {
	idx := make([]int, len(rows.hashes))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return slices.Compare(rows.hashes[a][:], rows.hashes[b][:]) })
	h, v := make([]Hash, len(idx)), make([][]float32, len(idx))
	for i, j := range idx {
		h[i], v[i] = rows.hashes[j], rows.vecs[j]
	}
	rows.hashes, rows.vecs = h, v
}

// writeRows writes rows to a vector file in a temporary directory and
// opens it.
func writeRows(tb testing.TB, rows testRows, dims int) *File {
	tb.Helper()
	path := filepath.Join(tb.TempDir(), "v.f32")
	if err := WriteFile(path, Hash{1}, dims, rows.hashes, func(i int) []float32 { return rows.vecs[i] }); err != nil {
		tb.Fatal(err)
	}
	f, err := OpenFile(path)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { f.Close() })
	return f
}

// recallAt measures how many of the k nearest rows the graph finds for
// each query, on average. The nearest rows are those of rows' float32
// vectors (the vectors the embedder returned, in the file's row order), so
// the recall counts what coding the vectors costs as well as what the
// graph misses.
func recallAt(tb testing.TB, g *Graph, rows testRows, queries [][]float32, k, ef int) float64 {
	tb.Helper()
	found, total := 0, 0
	for _, q := range queries {
		exact := exactRows(rows.vecs, q, k)
		approx, err := g.Search(q, k, ef)
		if err != nil {
			tb.Fatal(err)
		}
		want := map[int]bool{}
		for _, r := range exact {
			want[r] = true
		}
		for _, h := range approx {
			if want[h.Row] {
				found++
			}
		}
		total += len(exact)
	}
	return float64(found) / float64(total)
}

// exactRows returns the k rows of vecs most similar to q, by their float32
// vectors.
func exactRows(vecs [][]float32, q []float32, k int) []int {
	top := make(topK, 0, k+1)
	for i, v := range vecs {
		top.offer(k, i, Dot(q, v))
	}
	out := make([]int, 0, k)
	for _, h := range top.sorted() {
		out = append(out, h.Row)
	}
	return out
}
