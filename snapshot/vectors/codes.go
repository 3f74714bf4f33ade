package vectors

import "math"

// Graph searches compare the query with int8 codes of the vectors rather
// than with the float32 vectors themselves: a code is a quarter of the
// bytes, so the thousands of vectors a search visits at random come from
// memory four times faster, and they are stored in one record with the
// node's links (format/vectors.go). Codes only steer the walk; the
// candidates it ends with are re-ranked by their exact float32 similarity,
// so the scores returned are exact and the order of the hits is the exact
// order of the candidates found.
//
// A vector v is coded with its own scale s = max|v_i| / 127 as
// round(v_i / s), in -127..127. The query is coded in int16 with a scale
// chosen so that no sum can overflow an int32 (queryCodeMax), which keeps
// its rounding error far below the codes'.

const (
	// codeAlign is the multiple the code length is padded to with zeros,
	// so that the kernels need no tail loop.
	codeAlign = 32
	// codeMax is the largest magnitude of a vector code.
	codeMax = 127
)

// codeLen returns the length of a vector's codes: dims rounded up to
// codeAlign.
func codeLen(dims int) int { return (dims + codeAlign - 1) / codeAlign * codeAlign }

// encodeVector writes the codes of v into dst (codeLen(len(v)) bytes, the
// padding zero) and returns their scale.
func encodeVector(dst []byte, v []float32) float32 {
	var m float32
	for _, x := range v {
		m = max(m, abs32(x))
	}
	clear(dst)
	if m == 0 || math.IsInf(float64(m), 0) || math.IsNaN(float64(m)) {
		return 0 // a zero (or unusable) vector is similar to nothing
	}
	inv := codeMax / m
	for i, x := range v {
		dst[i] = byte(int8(round(x * inv)))
	}
	return m / codeMax
}

// round rounds x, of magnitude below 2^31, half away from zero, like
// math.Round but without its bit manipulation (encoding is on the indexer's
// path for every vector).
func round(x float32) int32 {
	if x < 0 {
		return -int32(-x + 0.5)
	}
	return int32(x + 0.5)
}

// queryCodeMax bounds the query codes: with vector codes of magnitude at
// most 128 (a damaged file may hold -128), the sum of n products stays
// within an int32.
func queryCodeMax(n int) int {
	return min(1<<14-1, math.MaxInt32/(128*max(n, 1)))
}

// encodeQuery writes the int16 codes of q into dst (codeLen(len(q)) long,
// the padding zero) and returns the scale that turns their dot product
// with a vector's codes, times that vector's scale, into the similarity.
func encodeQuery(dst []int16, q []float32) float32 {
	var m float32
	for _, x := range q {
		m = max(m, abs32(x))
	}
	clear(dst)
	if m == 0 || math.IsInf(float64(m), 0) || math.IsNaN(float64(m)) {
		return 0
	}
	qmax := float32(queryCodeMax(len(dst)))
	inv := qmax / m
	for i, x := range q {
		dst[i] = int16(round(x * inv))
	}
	return m / qmax
}

func abs32(x float32) float32 { return math.Float32frombits(math.Float32bits(x) &^ (1 << 31)) }

// dotCodesGo is the portable kernel.
func dotCodesGo(x []byte, q []int16) int32 {
	x = x[:len(q)]
	var s0, s1, s2, s3 int32
	i := 0
	for ; i+4 <= len(q); i += 4 {
		s0 += int32(int8(x[i])) * int32(q[i])
		s1 += int32(int8(x[i+1])) * int32(q[i+1])
		s2 += int32(int8(x[i+2])) * int32(q[i+2])
		s3 += int32(int8(x[i+3])) * int32(q[i+3])
	}
	for ; i < len(q); i++ {
		s0 += int32(int8(x[i])) * int32(q[i])
	}
	return s0 + s1 + s2 + s3
}
