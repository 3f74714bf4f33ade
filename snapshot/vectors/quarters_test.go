package vectors

import (
	"bytes"
	"context"
	"math/rand"
	"os"
	"path/filepath"
	"testing"
)

// TestQuarterBatchKernelAgrees compares the AVX2 batch kernel on a build
// copy of quarter residuals with the definition of the build distance's
// sums, on random codes and on the extremes Encode writes (codes ±127,
// residuals -128 and 124), where a pair of VPMADDUBSW products comes
// nearest to saturating.
func TestQuarterBatchKernelAgrees(t *testing.T) {
	if !useAVX2 || useVNNI {
		t.Skip("the quarter kernel runs on AVX2 without VNNI")
	}
	r := rand.New(rand.NewSource(11))
	code := func() byte { return byte(int8(r.Intn(255) - 127)) }
	fine := func() byte { return byte(int8(fineUnit * (r.Intn(64) - 32))) }
	extremes := [][2]int8{{127, -128}, {-127, -128}, {127, 124}, {-127, 124}}
	for _, n := range []int{64, 128, 256, 384, 1024} {
		const nodes = 40
		c, res := make([][]byte, nodes), make([][]byte, nodes)
		for i := range nodes {
			c[i], res[i] = make([]byte, n), make([]byte, n)
			for j := range n {
				c[i][j], res[i][j] = code(), fine()
				if i < 2*len(extremes) { // nodes 0..7: extremes, alike or opposite
					e := extremes[(i/2+j)%len(extremes)]
					c[i][j], res[i][j] = byte(e[0]), byte(e[1])
				}
			}
		}
		bc := &buildCodes{cl: n, rows: make([]byte, nodes*2*n), quarters: true}
		for i := range nodes {
			copy(bc.rows[2*i*n:], c[i])
			for j, x := range res[i] {
				bc.rows[(2*i+1)*n+j] = byte(int8(x) / fineUnit)
			}
		}
		batch := make([]candidate, nodes)
		for k := range batch {
			batch[k].id = uint32(r.Intn(nodes))
		}
		batch[0].id, batch[1].id = 0, 1
		out := make([]int32, 2*nodes)
		for qi := range 8 + 4 {
			var q buildQuery
			qc, qr := bc.row(uint32(qi))
			q.set(qc, qr, n, false)
			q.setSigned(qc, qr, n)
			if !buildDotsBatch(&q, bc, batch, out) {
				t.Fatalf("n %d: no batch kernel on a copy of quarters", n)
			}
			for k, b := range batch {
				var cc, cross int32
				for j := range n {
					cc += int32(int8(c[qi][j])) * int32(int8(c[b.id][j]))
					cross += int32(int8(c[qi][j]))*int32(int8(res[b.id][j])) + int32(int8(res[qi][j]))*int32(int8(c[b.id][j]))
				}
				if out[2*k] != cc || out[2*k+1] != cross {
					t.Fatalf("n %d, query %d, node %d: kernel %d %d, want %d %d", n, qi, b.id, out[2*k], out[2*k+1], cc, cross)
				}
			}
		}
	}
}

// TestQuarterResidualsSameGraph builds a graph with one worker on a
// copy of quarter residuals and on the residuals as they are: the sums are
// the same, so the graph files must be byte for byte the same.
func TestQuarterResidualsSameGraph(t *testing.T) {
	set := latentSet(5, 3000, 1, 256, 16)
	f := writeRows(t, set.rows, 256)
	if bc := newBuildCodes(f); bc.quarters != (useAVX2 && !useVNNI) {
		t.Fatalf("quarters %v on a file Encode wrote (AVX2 %v, VNNI %v)", bc.quarters, useAVX2, useVNNI)
	}
	build := func(quarters bool) []byte {
		t.Helper()
		old := quarterResiduals
		quarterResiduals = quarters
		defer func() { quarterResiduals = old }()
		g, err := Build(context.Background(), f, DefaultParams(), 1, nil)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), "g")
		if err := g.WriteFile(path); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	if a, b := build(true), build(false); !bytes.Equal(a, b) {
		t.Fatalf("graphs differ (%d and %d bytes)", len(a), len(b))
	}
}

// TestFileOffTheGridKeepsResiduals: codes Encode never writes (a code of
// -128, a residual off the fineUnit grid) are copied without quarters.
func TestFileOffTheGridKeepsResiduals(t *testing.T) {
	set := latentSet(6, 50, 1, 64, 4)
	f := writeRows(t, set.rows, 64)
	for _, c := range []struct {
		name  string
		plane func(*File) []byte
		b     byte
	}{
		{"code -128", func(f *File) []byte { return f.codes }, 0x80},
		{"residual 3", func(f *File) []byte { return f.fine }, 3},
	} {
		// a heap copy of the file's planes, the map is read-only
		g := *f
		g.codes, g.fine = bytes.Clone(f.codes), bytes.Clone(f.fine)
		if newBuildCodes(&g).quarters != (useAVX2 && !useVNNI) {
			t.Fatalf("%s: quarters on the file as written %v", c.name, !(useAVX2 && !useVNNI))
		}
		c.plane(&g)[3*g.codeLen+5] = c.b
		if newBuildCodes(&g).quarters {
			t.Fatalf("%s: quarters on a file with it", c.name)
		}
	}
}

// TestFitPairKernelAgrees compares the pair kernel of codes -127..127 with
// the portable one, on random codes and the extremes.
func TestFitPairKernelAgrees(t *testing.T) {
	r := rand.New(rand.NewSource(12))
	for _, n := range []int{32, 64, 96, 256, 384, 1024} {
		for trial := range 30 {
			x, y := make([]byte, n), make([]byte, n)
			for j := range n {
				x[j], y[j] = byte(int8(r.Intn(255)-127)), byte(int8(r.Intn(255)-127))
				switch trial {
				case 0:
					x[j], y[j] = 127, 127
				case 1:
					x[j], y[j] = byte(0x81), byte(0x81) // -127
				case 2:
					x[j], y[j] = 127, byte(0x81)
				}
			}
			if got, want := dotCodes8Fit(x, y), dotCodes8Go(x, y); got != want {
				t.Fatalf("n %d, trial %d: kernel %d, portable %d", n, trial, got, want)
			}
		}
	}
}
