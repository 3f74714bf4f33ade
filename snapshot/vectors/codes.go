package vectors

import (
	"encoding/binary"
	"math"
)

// A vector file stores every vector as codes with a scale of its own
// (format/vectors.go), the only representation a snapshot keeps: a vector
// v with scale s = max|v_i| / 127 has int8 codes c_i = round(v_i / s), in
// -127..127, and residual codes r_i = round(64 * (v_i/s - c_i)), in
// -32..31, so that v_i ~ s * (c_i + r_i/64). The two planes are stored
// apart: the int8 plane a byte per component, a quarter of float32, the
// residual plane six bits (fineBits) per component. In memory a residual is
// a byte of 4*r_i, in 1/256 steps of an int8 code (fineStep), which is
// what the kernels read: a file of layout 2 held residuals of 1/256 steps,
// and its planes are used in place.
//
// Search walks compare the int8 codes only: every component within s/2, a
// similarity within a few thousandths (TestCodedSimilarity), and the
// thousands of rows a search visits at random come from memory four times
// faster than float32 vectors would. The candidates a walk ends with, and
// every row of an exact scan, are scored on both planes: within about 1e-4
// of the float32 similarity, so rankings are those of the vectors the
// embedder returned (six bits, not eight: the retrieval evaluation and
// recall@10 are unchanged, measured, where four and five bits moved
// figures of the evaluation). Builds walk on both planes (the graph is then
// as good as one built on float32 vectors) and compare two nodes on their
// int8 codes in the neighbour heuristic (dotCodes8). A query is coded in
// int16 with a scale chosen so that no sum can overflow an int32
// (queryCodeMax), which keeps its rounding error far below the codes'.

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

// fineStep is the weight of a residual code in memory: 1/256 of an int8
// code. Residuals are coded in fineBits bits, steps of fineUnit of those.
const (
	fineStep = 1.0 / 256
	fineBits = 6
	fineUnit = 1 << (8 - fineBits)
	fineMax  = 1<<(fineBits-1) - 1
)

// fineRound rounds an in-memory residual (a byte of a layout-2 file holds
// any value) to a multiple of fineUnit that fineBits bits hold.
func fineRound(r int8) int8 {
	return int8(fineUnit * max(-fineMax-1, min(fineMax, (int(r)+fineUnit/2)>>(8-fineBits))))
}

// packedFineLen is the bytes of a row's residual plane in a file: six bits
// per component of a code length (a multiple of codeAlign, so of 4).
func packedFineLen(codeLen int) int { return codeLen * fineBits / 8 }

// packFine writes the residuals of fine (in-memory bytes, multiples of
// fineUnit) into dst, packedFineLen(len(fine)) bytes: every four
// residuals, six bits each from the lowest, in three bytes.
func packFine(dst, fine []byte) {
	for i, o := 0, 0; i < len(fine); i, o = i+4, o+3 {
		var u uint32
		for k := range 4 {
			u |= uint32(byte(fineRound(int8(fine[i+k])))>>(8-fineBits)) << (fineBits * k)
		}
		dst[o], dst[o+1], dst[o+2] = byte(u), byte(u>>8), byte(u>>16)
	}
}

// unpackFine is packFine's inverse: dst gets 4*len(src)/3 in-memory
// residuals.
func unpackFine(dst, src []byte) {
	i, o := 0, 0
	// Eight residuals (six bytes, loaded as eight) at a time: the halves
	// of 24 bits go to 32-bit lanes, their pairs of 12 bits to 16-bit
	// lanes, the residuals to bytes, each shifted to its high bits.
	for ; o+8 <= len(src) && i+8 <= len(dst); i, o = i+8, o+6 {
		u := binary.LittleEndian.Uint64(src[o:])
		y := u&0xFFFFFF | (u>>24&0xFFFFFF)<<32
		y = y&0x00000FFF00000FFF | (y&0x00FFF00000FFF000)<<4
		y = y&0x003F003F003F003F | (y&0x0FC00FC00FC00FC0)<<2
		binary.LittleEndian.PutUint64(dst[i:], y<<2)
	}
	for ; o < len(src); i, o = i+4, o+3 {
		u := uint32(src[o]) | uint32(src[o+1])<<8 | uint32(src[o+2])<<16
		for k := range 4 {
			dst[i+k] = byte(u>>(fineBits*k)) << (8 - fineBits)
		}
	}
}

// RowLen returns the number of code bytes of a row of dims dimensions,
// both planes: the int8 codes, then the residual codes, each dims rounded
// up to codeAlign.
func RowLen(dims int) int { return 2 * codeLen(dims) }

// Encode writes the codes of v into dst (RowLen(len(v)) bytes: the int8
// codes, then the residual codes as held in memory, the padding zero) and
// returns their scale.
func Encode(dst []byte, v []float32) float32 {
	cl := codeLen(len(v))
	s := encodeVector(dst[:cl], v)
	fine := dst[cl : 2*cl]
	clear(fine)
	if s == 0 {
		return 0
	}
	for i, x := range v {
		r := round((x/s - float32(int8(dst[i]))) * (1 << fineBits))
		fine[i] = byte(int8(fineUnit * max(-fineMax-1, min(fineMax, r))))
	}
	return s
}

// encodeVector writes the int8 codes of v into dst (codeLen(len(v))
// bytes, the padding zero) and returns their scale.
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

// dotCodes8Go is the portable kernel for two vectors' codes.
func dotCodes8Go(x, y []byte) int32 {
	y = y[:len(x)]
	var s0, s1, s2, s3 int32
	i := 0
	for ; i+4 <= len(x); i += 4 {
		s0 += int32(int8(x[i])) * int32(int8(y[i]))
		s1 += int32(int8(x[i+1])) * int32(int8(y[i+1]))
		s2 += int32(int8(x[i+2])) * int32(int8(y[i+2]))
		s3 += int32(int8(x[i+3])) * int32(int8(y[i+3]))
	}
	for ; i < len(x); i++ {
		s0 += int32(int8(x[i])) * int32(int8(y[i]))
	}
	return s0 + s1 + s2 + s3
}
