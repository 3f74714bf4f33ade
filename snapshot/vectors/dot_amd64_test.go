//go:build !purego

package vectors

import "testing"

// TestKernelsAgreeAtEveryLevel runs the kernel checks again with the
// AVX-512 kernels turned off, then with AVX2 off too, so that a machine
// that has them also tests the paths a machine without them takes (where
// a 384-dimension similarity once summed no dimension at all: the AVX2-only
// path was never run on the machines with AVX-512).
func TestKernelsAgreeAtEveryLevel(t *testing.T) {
	avx2, avx512, vnni := useAVX2, useAVX512, useVNNI
	t.Cleanup(func() { useAVX2, useAVX512, useVNNI = avx2, avx512, vnni })
	for _, level := range []struct {
		name               string
		avx2, avx512, vnni bool
	}{
		{"without AVX-512", avx2, false, false},
		{"portable", false, false, false},
	} {
		useAVX2, useAVX512, useVNNI = level.avx2, level.avx512, level.vnni
		t.Run(level.name, func(t *testing.T) {
			TestBuildKernelsAgree(t)
			TestQueryBatchKernelAgrees(t)
			TestSimilarityKernelAgrees(t)
			TestPrefetchIgnoresRowsOutOfRange(t)
			TestFitPairKernelAgrees(t)
			// The quarter kernels run on AVX2 without VNNI: at the
			// level without AVX-512 a VNNI machine checks them too (each
			// in its own subtest, as they skip at the portable level).
			t.Run("quarters", TestQuarterBatchKernelAgrees)
			t.Run("quarter graph", TestQuarterResidualsSameGraph)
			t.Run("off the grid", TestFileOffTheGridKeepsResiduals)
		})
	}
}
