package embed

import (
	"math"
	"math/rand/v2"
	"testing"
)

// addScaledGo is addScaled's loop without the kernel.
func addScaledGo(out []float32, row []int8, w float32) {
	for j, r := range row {
		out[j] += w * float32(r)
	}
}

// TestAddScaledEqualsLoop checks that addScaled (the AVX2 kernel where the
// CPU has it) leaves the same bits as the plain loop, for every length up
// to 130 (the table's rows are 100), the extreme int8 values and weights
// whose products round, including sums that cancel.
func TestAddScaledEqualsLoop(t *testing.T) {
	if !useAVX2 {
		t.Log("no AVX2 kernel on this machine: the loop is compared with itself")
	}
	rng := rand.New(rand.NewPCG(1, 2))
	weights := []float32{0, 1, -1, 0.1, 1.0 / 3, 3.0e-5, 7.77e4, math.SmallestNonzeroFloat32, math.MaxFloat32 / 200}
	for n := 0; n <= 130; n++ {
		for trial := 0; trial < 20; trial++ {
			row := make([]int8, n)
			for i := range row {
				switch rng.IntN(8) {
				case 0:
					row[i] = -128
				case 1:
					row[i] = 127
				default:
					row[i] = int8(rng.IntN(256) - 128)
				}
			}
			w := weights[trial%len(weights)]
			if trial >= len(weights) {
				w = float32(rng.NormFloat64()) * float32(math.Pow(10, float64(rng.IntN(9)-4)))
			}
			got := make([]float32, n+3) // the kernel must leave what follows alone
			want := make([]float32, n+3)
			for i := range got {
				v := float32(rng.NormFloat64())
				got[i], want[i] = v, v
			}
			addScaled(got, row, w)
			addScaledGo(want, row, w)
			for i := range got {
				if math.Float32bits(got[i]) != math.Float32bits(want[i]) {
					t.Fatalf("n=%d w=%g: out[%d] = %g (%#x), the loop gives %g (%#x)",
						n, w, i, got[i], math.Float32bits(got[i]), want[i], math.Float32bits(want[i]))
				}
			}
		}
	}
}
