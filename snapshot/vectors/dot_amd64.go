//go:build amd64 && !purego

package vectors

import (
	"slices"

	"github.com/viterin/vek"
	"golang.org/x/sys/cpu"
)

// useAVX2 selects the assembly kernels; without AVX2 the portable ones run.
var useAVX2 = slices.Contains(vek.Info().CPUFeatures, "AVX2")

// useAVX512 selects the AVX-512F kernel of File.Similarity.
var useAVX512 = cpu.X86.HasAVX512F

// useVNNI selects the AVX-512 VNNI kernels of builds (cpu checks that the
// operating system saves the registers too).
var useVNNI = cpu.X86.HasAVX512F && cpu.X86.HasAVX512BW && cpu.X86.HasAVX512VNNI

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
func dotCodes8SignAVX2(x, y *byte, n int) int32

// dotCodes8Fit is dotCodes8 of codes that are all -127..127 (a build copy
// of quarters), a multiple of 32 long.
func dotCodes8Fit(x, y []byte) int32 {
	if useAVX2 && len(x) > 0 && len(x)%32 == 0 {
		y = y[:len(x)]
		return dotCodes8SignAVX2(&x[0], &y[0], len(x))
	}
	return dotCodes8(x, y)
}

//go:noescape
func prefetchLinesAsm(p *byte, n int)

// prefetchLines asks the CPU to start loading the n cache lines from p,
// so that the loads of several nodes' codes overlap instead of waiting on
// each other. Prefetches never fault: p may point anywhere.
func prefetchLines(p *byte, n int) { prefetchLinesAsm(p, n) }

//go:noescape
func dotBuildAVX2(qc, qr *int16, c, r *byte, n int) (cc, cross int32)

//go:noescape
func dotBuildVNNI(a, b, c, r *byte, n int) (cc, cross int32)

//go:noescape
func dotCodes8VNNI(x, y *byte, n int) int32

// buildDots returns the sums cc and cross of the build distance
// (buildcodes.go) of query q and the node with codes c and r, whose sums
// are sc and sr. All kernels give the same sums.
func buildDots(q *buildQuery, c, r []byte, sc, sr int32) (cc, cross int32) {
	n := len(c)
	if useVNNI && len(q.a) == n && n%64 == 0 && n > 0 {
		r = r[:n]
		cc, cross = dotBuildVNNI(&q.a[0], &q.b[0], &c[0], &r[0], n)
		return cc - 128*sc, cross - 128*(sc+sr)
	}
	if useAVX2 && n%16 == 0 && n > 0 {
		r, qc, qr := r[:n], q.qc[:n], q.qr[:n]
		return dotBuildAVX2(&qc[0], &qr[0], &c[0], &r[0], n)
	}
	return dotBuildGo(q.qc, q.qr, c, r)
}

// pairCodes returns the dot product of the int8 codes x and y of two
// nodes; sy is the sum of y where the VNNI kernel takes it (buildCodes.sums).
func pairCodes(x, y []byte, sy int32) int32 {
	if useVNNI && len(x) == len(y) && len(y)%64 == 0 && len(y) > 0 {
		return dotCodes8VNNI(&x[0], &y[0], len(y)) - 128*sy
	}
	return dotCodes8(x, y)
}

//go:noescape
func dotBuildBatchVNNI(a, b, rows *byte, stride int, ids *candidate, count, n int, out *int32)

// buildDotsBatch sets out[2k], out[2k+1] to the sums cc and cross of the
// build distance of q and node batch[k].id of bc, and reports whether it
// could (VNNI, or AVX2 on a copy of quarter residuals).
func buildDotsBatch(q *buildQuery, bc *buildCodes, batch []candidate, out []int32) bool {
	n := bc.cl
	if len(batch) == 0 {
		return false
	}
	if bc.quarters && useAVX2 && len(q.ca) == n && n%32 == 0 {
		out = out[:2*len(batch)]
		dotBuildBatchAVX2(&q.c8[0], &q.ca[0], &q.r8[0], &q.ra[0], &bc.rows[0], 2*n, &batch[0], len(batch), n, &out[0])
		for k := range batch {
			out[2*k+1] *= fineUnit
		}
		return true
	}
	if !useVNNI || len(q.a) != n {
		return false
	}
	out = out[:2*len(batch)]
	dotBuildBatchVNNI(&q.a[0], &q.b[0], &bc.rows[0], 2*n, &batch[0], len(batch), n, &out[0])
	for k, c := range batch {
		sc, sr := bc.sumC[c.id], bc.sumR[c.id]
		out[2*k] -= 128 * sc
		out[2*k+1] -= 128 * (sc + sr)
	}
	return true
}

//go:noescape
func dotBuildBatchAVX2(qc, qa, qr, ra, rows *byte, stride int, ids *candidate, count, n int, out *int32)

//go:noescape
func dotCodesBatchVNNI(q *int16, codes *byte, stride int, ids *candidate, count, n int, out *int32)

// dotCodesBatch sets out[k] to dotCodes of the query codes q and the int8
// codes of node batch[k].id (codes stride bytes apart, len(q) of them), and
// reports whether it could (VNNI only).
func dotCodesBatch(q []int16, codes []byte, stride int, batch []candidate, out []int32) bool {
	n := len(q)
	if !useVNNI || n == 0 || n%32 != 0 || len(batch) == 0 {
		return false
	}
	out = out[:len(batch)]
	dotCodesBatchVNNI(&q[0], &codes[0], stride, &batch[0], len(batch), n, &out[0])
	return true
}

//go:noescape
func similarityAVX512(q *float32, c, r *byte, n int) (s, t float32)

// similarity returns sum q*c and sum q*r over the length of q (c and r at
// least as long): what File.Similarity scales.
func similarity(q []float32, c, r []byte) (s, t float32) {
	n := 0
	if useAVX512 {
		n = len(q) / 16 * 16
	}
	if n > 0 {
		c, r = c[:len(q)], r[:len(q)]
		s, t = similarityAVX512(&q[0], &c[0], &r[0], n)
		if n == len(q) {
			return s, t
		}
	}
	s1, t1 := similarityGo(q[n:], c[n:], r[n:])
	return s + s1, t + t1
}
