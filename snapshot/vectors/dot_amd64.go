//go:build amd64 && !purego

package vectors

import (
	"slices"

	"github.com/viterin/vek"
)

// useAVX2 selects the assembly kernels; without AVX2 the portable ones run.
var useAVX2 = slices.Contains(vek.Info().CPUFeatures, "AVX2")

//go:noescape
func dotCodesAVX2(x *byte, q *int16, n int) int32

// dotCodes returns the dot product of int8 codes x and int16 query codes
// q, of equal length, a multiple of codeAlign.
func dotCodes(x []byte, q []int16) int32 {
	if useAVX2 && len(q) > 0 {
		x = x[:len(q)] // the kernel reads len(q) bytes of x
		return dotCodesAVX2(&x[0], &q[0], len(q))
	}
	return dotCodesGo(x, q)
}

//go:noescape
func dotCodes8AVX2(x, y *byte, n int) int32

// dotCodes8 returns the dot product of two vectors' int8 codes, of equal
// length, a multiple of codeAlign.
func dotCodes8(x, y []byte) int32 {
	if useAVX2 && len(x) > 0 {
		y = y[:len(x)]
		return dotCodes8AVX2(&x[0], &y[0], len(x))
	}
	return dotCodes8Go(x, y)
}

//go:noescape
func prefetchLinesAsm(p *byte, n int)

// prefetchLines asks the CPU to start loading the n cache lines from p,
// so that the loads of several nodes' codes overlap instead of waiting on
// each other. Prefetches never fault: p may point anywhere.
func prefetchLines(p *byte, n int) { prefetchLinesAsm(p, n) }
