package vectors

// A graph being built compares nodes on their codes many millions of times
// (a node inserted among 40,000 is compared with about 2,000 others), at
// random across the whole file: the cost is the loads and the kernel, not
// the arithmetic. So a build keeps its own copy of the codes (buildCodes),
// laid out for it: each node's int8 and residual codes side by side, in
// memory the kernel backs with huge pages where it can (a file's map uses
// 4 KiB pages, and two planes apart touch two of them per comparison), each
// plane padded to 64 bytes for the AVX-512 kernels.
//
// The distance of a build is exact integer arithmetic on the codes, so that
// every kernel (portable, AVX2, AVX-512 VNNI) gives the same graph: for
// nodes i and j with int8 codes c, residual codes r and scales s,
//
//	dot(i, j) = s_i * s_j * (cc + cross/256), cc = sum c_i*c_j, cross = sum c_i*r_j + r_i*c_j
//
// which is the dot product of the two vectors as the file holds them, but
// for the product of the residuals (below 1/65536 of a code step squared
// per dimension). The neighbour heuristic compares two nodes on cc alone.
// VPDPBUSD multiplies unsigned by signed bytes: the node searched for is
// given as its codes plus 128 (offset planes, in the query), and 128 times
// the sums of the other node's codes (kept per node) are taken off
// afterwards. The neighbour heuristic's kernel offsets one node's codes in
// its registers (x XOR 0x80 is x+128): a copy of the offset planes, a third
// of the build copy, cost more in loads than that instruction.

//
// Without VNNI, the AVX2 batch kernel multiplies bytes with VPMADDUBSW
// (unsigned by signed, pairs added into int16), which is exact only on
// small enough codes: the copy then holds each residual divided by
// fineUnit (quarters: every residual is a multiple of it, -32..31 after),
// and cross is four times the kernels' sum. A file whose codes do not fit
// (an int8 code of -128 or a residual off the grid, which Encode never
// writes) keeps the residuals as they are, and the one-node kernels.

// buildCodes is a build's copy of its vector file's codes.
type buildCodes struct {
	cl       int     // bytes of a plane: the file's code length rounded up to 64
	rows     []byte  // per node 2*cl: int8 codes, then residual codes (quarters: divided by fineUnit)
	quarters bool    // the residual planes hold quarter residuals
	sumC     []int32 // per node: the sum of its int8 codes
	sumR     []int32 // per node: the sum of its residual codes
	mapped   []byte  // anonymous map holding rows, nil on the heap
}

// hugePage is the size of a transparent huge page on amd64 and arm64.
const hugePage = 2 << 20

func newBuildCodes(f *File) *buildCodes {
	cl := (f.codeLen + 63) / 64 * 64
	n := f.count
	bc := &buildCodes{cl: cl, sumC: make([]int32, n), sumR: make([]int32, n)}
	size := n * 2 * cl
	if size == 0 {
		return bc
	}
	mem := allocHuge(size)
	if mem == nil {
		mem = make([]byte, size)
	} else {
		bc.mapped = mem
	}
	bc.rows = mem[:size:size]
	fits := true
	for i := range n {
		c, r := f.code(i), f.fineCode(i)
		copy(bc.rows[2*i*cl:], c)
		copy(bc.rows[(2*i+1)*cl:], r)
		var sc, sr int32
		for j, x := range c {
			sc += int32(int8(x))
			sr += int32(int8(r[j]))
			fits = fits && int8(x) != -128 && int8(r[j])%fineUnit == 0
		}
		bc.sumC[i], bc.sumR[i] = sc, sr
	}
	if fits && useAVX2 && !useVNNI && quarterResiduals {
		bc.quarters = true
		for i := range n {
			r := bc.rows[(2*i+1)*cl : (2*i+2)*cl]
			for j, x := range r {
				r[j] = byte(int8(x) / fineUnit)
			}
		}
	}
	return bc
}

// quarterResiduals lets a test build on the residuals as they are.
var quarterResiduals = true

func (bc *buildCodes) release() {
	if bc.mapped != nil {
		unmap(bc.mapped)
	}
	bc.rows, bc.mapped = nil, nil
}

// row returns node i's int8 and residual codes.
func (bc *buildCodes) row(i uint32) (c, r []byte) {
	b := int(i) * 2 * bc.cl
	return bc.rows[b : b+bc.cl : b+bc.cl], bc.rows[b+bc.cl : b+2*bc.cl : b+2*bc.cl]
}

// sums returns the sums of node i's int8 and residual codes where the
// kernels take them (VNNI), else zeros without loading them: the loads are
// two more cache lines per comparison.
func (bc *buildCodes) sums(i uint32) (sc, sr int32) {
	if !useVNNI {
		return 0, 0
	}
	return bc.sumC[i], bc.sumR[i]
}

// buildQuery is the node being inserted, in the forms the kernels take.
type buildQuery struct {
	qc, qr []int16 // int8 and residual codes widened (portable and AVX2 kernels)
	a, b   []byte  // codes and residuals plus 128, n bytes (VNNI), only with a buildCodes copy
	// codes and quarter residuals, and their magnitudes (AVX2 batch
	// kernel), only with a buildCodes copy of quarters
	c8, ca, r8, ra []byte
}

// setSigned gives q the planes of the AVX2 batch kernel from the node's
// codes c and quarter residuals r, n bytes each.
func (q *buildQuery) setSigned(c, r []byte, n int) {
	q.c8, q.ca = append(q.c8[:0], c[:n]...), grow8(q.ca, n)
	q.r8, q.ra = append(q.r8[:0], r[:n]...), grow8(q.ra, n)
	for i := range n {
		q.ca[i], q.ra[i] = abs8(q.c8[i]), abs8(q.r8[i])
	}
}

func abs8(x byte) byte {
	if int8(x) < 0 {
		return -x
	}
	return x
}

func grow8(s []byte, n int) []byte {
	if cap(s) < n {
		return make([]byte, n)
	}
	return s[:n]
}

// set makes the node with codes c and r (up to n bytes each, zero padded
// to n) the query; with vnni the offset planes of the VNNI kernels too.
func (q *buildQuery) set(c, r []byte, n int, vnni bool) {
	q.qc, q.qr = grow16(q.qc, n), grow16(q.qr, n)
	clear(q.qc)
	clear(q.qr)
	for i, x := range c {
		q.qc[i], q.qr[i] = int16(int8(x)), int16(int8(r[i]))
	}
	q.a, q.b = q.a[:0], q.b[:0]
	if vnni {
		q.a, q.b = grow8(q.a, n), grow8(q.b, n)
		for i := range n {
			q.a[i], q.b[i] = 128, 128
		}
		for i, x := range c {
			q.a[i], q.b[i] = x+128, r[i]+128
		}
	}
}

func grow16(s []int16, n int) []int16 {
	if cap(s) < n {
		return make([]int16, n)
	}
	return s[:n]
}

// dotBuildGo is the portable kernel of the build distance: cc and cross
// over the length of c.
func dotBuildGo(qc, qr []int16, c, r []byte) (cc, cross int32) {
	qc, qr, r = qc[:len(c)], qr[:len(c)], r[:len(c)]
	var c0, c1, x0, x1 int32
	i := 0
	for ; i+2 <= len(c); i += 2 {
		cj0, cj1 := int32(int8(c[i])), int32(int8(c[i+1]))
		c0 += int32(qc[i]) * cj0
		c1 += int32(qc[i+1]) * cj1
		x0 += int32(qc[i])*int32(int8(r[i])) + int32(qr[i])*cj0
		x1 += int32(qc[i+1])*int32(int8(r[i+1])) + int32(qr[i+1])*cj1
	}
	for ; i < len(c); i++ {
		cj := int32(int8(c[i]))
		c0 += int32(qc[i]) * cj
		x0 += int32(qc[i])*int32(int8(r[i])) + int32(qr[i])*cj
	}
	return c0 + c1, x0 + x1
}
