package vectors

import (
	"math/rand"
	"testing"
)

// TestBuildKernelsAgree compares every build kernel this CPU has with the
// portable one on random codes (-127..127) of several lengths.
func TestBuildKernelsAgree(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	codes := func(n, pad int) []byte {
		b := make([]byte, pad)
		for i := range n {
			b[i] = byte(int8(r.Intn(255) - 127))
		}
		return b
	}
	for _, n := range []int{1, 20, 32, 64, 100, 256, 384, 1000, 1536} {
		for range 20 {
			cl := codeLen(n)
			cl64 := (cl + 63) / 64 * 64
			ci, ri, cj, rj := codes(n, cl64), codes(n, cl64), codes(n, cl64), codes(n, cl64)
			var sc, sr int32
			for k := range cl64 {
				sc += int32(int8(cj[k]))
				sr += int32(int8(rj[k]))
			}
			var q buildQuery
			q.set(ci[:cl], ri[:cl], cl64, useVNNI)
			wantCC, wantCross := dotBuildGo(q.qc, q.qr, cj, rj)
			// exact, from the definition
			var cc, cross int32
			for k := range n {
				cc += int32(int8(ci[k])) * int32(int8(cj[k]))
				cross += int32(int8(ci[k]))*int32(int8(rj[k])) + int32(int8(ri[k]))*int32(int8(cj[k]))
			}
			if cc != wantCC || cross != wantCross {
				t.Fatalf("n %d: portable kernel %d %d, want %d %d", n, wantCC, wantCross, cc, cross)
			}
			if gotCC, gotCross := buildDots(&q, cj, rj, sc, sr); gotCC != cc || gotCross != cross {
				t.Fatalf("n %d (VNNI %v, AVX2 %v): build kernel %d %d, want %d %d", n, useVNNI, useAVX2, gotCC, gotCross, cc, cross)
			}
			var q2 buildQuery // without offset planes, on a file's code length
			q2.set(ci[:cl], ri[:cl], cl, false)
			if gotCC, gotCross := buildDots(&q2, cj[:cl], rj[:cl], 0, 0); gotCC != cc || gotCross != cross {
				t.Fatalf("n %d: file-length kernel %d %d, want %d %d", n, gotCC, gotCross, cc, cross)
			}
			if got, want := pairCodes(ci, cj, sc), dotCodes8Go(ci, cj); got != want || got != cc {
				t.Fatalf("n %d: pair kernel %d, portable %d, want %d", n, got, want, cc)
			}
		}
	}
	t.Logf("VNNI %v, AVX2 %v", useVNNI, useAVX2)
}

func BenchmarkBuildKernels(b *testing.B) {
	const n = 256
	r := rand.New(rand.NewSource(7))
	codes := make([]byte, 4*n)
	for i := range codes {
		codes[i] = byte(int8(r.Intn(255) - 127))
	}
	var q buildQuery
	q.set(codes[:n], codes[n:2*n], n, useVNNI)
	cj, rj := codes[2*n:3*n], codes[3*n:]
	var s int32
	b.Run("build", func(b *testing.B) {
		for b.Loop() {
			cc, cross := buildDots(&q, cj, rj, 1, 2)
			s += cc + cross
		}
	})
	b.Run("go", func(b *testing.B) {
		for b.Loop() {
			cc, cross := dotBuildGo(q.qc, q.qr, cj, rj)
			s += cc + cross
		}
	})
	b.Run("pair", func(b *testing.B) {
		for b.Loop() {
			s += pairCodes(codes[:n], cj, 1)
		}
	})
	b.Run("pair-avx2", func(b *testing.B) {
		for b.Loop() {
			s += dotCodes8(codes[:n], cj)
		}
	})
	_ = s
}

// TestQueryBatchKernelAgrees compares the batch kernel of search walks,
// where the CPU has it, with the portable kernel on random codes and
// query codes as large as queries get.
func TestQueryBatchKernelAgrees(t *testing.T) {
	r := rand.New(rand.NewSource(8))
	for _, n := range []int{32, 64, 96, 256, 384, 1024} {
		rows := 50
		codes := make([]byte, rows*n)
		for i := range codes {
			codes[i] = byte(int8(r.Intn(255) - 127))
		}
		q := make([]int16, n)
		qmax := queryCodeMax(n)
		for i := range q {
			q[i] = int16(r.Intn(2*qmax+1) - qmax)
		}
		batch := []candidate{{id: 3}, {id: 0}, {id: 49}, {id: 17}, {id: 17}, {id: 25}, {id: 8}}
		out := make([]int32, len(batch))
		if !dotCodesBatch(q, codes, n, batch, out) {
			if useVNNI {
				t.Fatalf("n %d: no batch kernel with VNNI", n)
			}
			t.Logf("no batch kernel on this CPU")
			return
		}
		for k, c := range batch {
			want := dotCodesGo(codes[int(c.id)*n:(int(c.id)+1)*n], q)
			if out[k] != want {
				t.Fatalf("n %d, node %d: batch kernel %d, portable %d", n, c.id, out[k], want)
			}
		}
	}
}

// TestSimilarityKernelAgrees compares File.Similarity's kernel on this CPU
// with the portable one (float sums in another order: within 1e-6 of the
// similarity).
func TestSimilarityKernelAgrees(t *testing.T) {
	r := rand.New(rand.NewSource(9))
	for _, n := range []int{1, 15, 16, 20, 32, 48, 100, 256, 384} {
		q := randomUnit(r, n)
		c, f := make([]byte, codeLen(n)), make([]byte, codeLen(n))
		for i := range n {
			c[i], f[i] = byte(int8(r.Intn(255)-127)), byte(int8(r.Intn(255)-127))
		}
		s, u := similarity(q, c, f)
		ws, wu := similarityGo(q, c, f)
		if d := (s + u*fineStep - ws - wu*fineStep) / 127; d > 1e-6 || d < -1e-6 {
			t.Fatalf("n %d: kernel %g %g, portable %g %g", n, s, u, ws, wu)
		}
	}
}

// TestPrefetchIgnoresRowsOutOfRange prefetches every row of a file and rows
// outside it, which must not fault, and checks that similarities are those
// of the rows' vectors.
func TestPrefetchIgnoresRowsOutOfRange(t *testing.T) {
	set := latentSet(3, 40, 1, 48, 4)
	f := writeRows(t, set.rows, 48)
	for _, i := range []int{-1, f.Len(), f.Len() + 1000, 1 << 40} {
		f.Prefetch(i)
	}
	q := set.queries[0]
	for i := range f.Len() {
		f.Prefetch(i)
		if got, want := f.Similarity(q, i), Dot(q, set.rows.vecs[i]); got-want > 1e-3 || want-got > 1e-3 {
			t.Fatalf("row %d: similarity %g, want %g", i, got, want)
		}
	}
}
