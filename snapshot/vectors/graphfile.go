package vectors

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"unsafe"

	"github.com/vaultgraph/vaultgraph/format"
)

// Layout constants of the graph file; see format/vectors.go.
const (
	graphMagic      = "VGHNSW\x00\x01"
	graphHeaderSize = 64
	// recordAlign aligns level-0 records to cache lines, so that a node's
	// codes start a line and are read in as few lines as they fill.
	recordAlign = 64
)

// recordSize is the size of a node's level-0 record in layout 2: codes,
// link count, m0 links, padded to recordAlign.
func recordSize(codeLen, m0 int) int {
	return roundUp(codeLen+4*(1+m0), recordAlign)
}

func roundUp(n, to int) int { return (n + to - 1) / to * to }

// WriteFile writes the graph at path (which must not exist) in the graph
// file layout format.HNSWLayout. Every row of the vector file must have
// been inserted. The file is not fsynced; publishing the snapshot does
// that.
func (g *Graph) WriteFile(path string) (err error) {
	if g.size != len(g.levels) {
		return fmt.Errorf("write graph: %d of %d rows inserted", g.size, len(g.levels))
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return fmt.Errorf("write graph: %w", err)
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			err = errors.Join(fmt.Errorf("write graph %s: %w", filepath.Base(path), err), os.Remove(path))
		}
	}()
	n, dims := len(g.levels), g.vecs.Dims()
	// Upper slots are re-packed in node order, which the reader checks.
	first := make([]uint32, n)
	slots := 0
	for i, l := range g.levels {
		first[i] = noNode
		if l > 0 {
			first[i] = uint32(slots)
			slots += int(l)
		}
	}
	cl := codeLen(dims)
	rec := recordSize(cl, g.m0)
	w := bufio.NewWriterSize(f, 1<<20)
	var hdr [graphHeaderSize]byte
	copy(hdr[:], graphMagic)
	for i, x := range []uint32{format.HNSWLayout, uint32(n), uint32(dims), uint32(g.m), uint32(g.m0), g.entry,
		uint32(g.top), uint32(slots), uint32(g.efC), uint32(g.efS), uint32(rec), uint32(cl)} {
		binary.LittleEndian.PutUint32(hdr[8+4*i:], x)
	}
	w.Write(hdr[:])
	w.Write(g.levels)
	w.Write(make([]byte, pad4(n)))
	writeU32s(w, first)
	codes, stride, scales := g.codesToWrite()
	writeF32s(w, scales)
	scalesEnd := graphHeaderSize + n + pad4(n) + 8*n
	w.Write(make([]byte, roundUp(scalesEnd, recordAlign)-scalesEnd))
	record := make([]byte, rec)
	for i := range n {
		clear(record)
		copy(record, codes[i*stride:i*stride+cl])
		for j, x := range g.slot(uint32(i), 0) {
			binary.LittleEndian.PutUint32(record[cl+4*j:], x)
		}
		w.Write(record)
	}
	for i, l := range g.levels {
		for lv := 1; lv <= int(l); lv++ {
			writeU32s(w, g.slot(uint32(i), lv))
		}
	}
	return w.Flush()
}

// codesToWrite returns the nodes' codes, stride bytes apart, and their
// scales: the graph's own, or for a graph read from a layout 1 file,
// computed now.
func (g *Graph) codesToWrite() (codes []byte, stride int, scales []float32) {
	if g.codes != nil {
		return g.codes, g.codeStride, g.scales
	}
	n, cl := len(g.levels), codeLen(g.vecs.Dims())
	codes, scales = make([]byte, n*cl), make([]float32, n)
	for i := range n {
		scales[i] = encodeVector(codes[i*cl:(i+1)*cl], g.vec(uint32(i)))
	}
	return codes, cl, scales
}

func pad4(n int) int { return (4 - n%4) % 4 }

func writeF32s(w *bufio.Writer, s []float32) {
	var b [4]byte
	for _, x := range s {
		binary.LittleEndian.PutUint32(b[:], math.Float32bits(x))
		w.Write(b[:])
	}
}

func writeU32s(w *bufio.Writer, s []uint32) {
	var b [4]byte
	for _, x := range s {
		binary.LittleEndian.PutUint32(b[:], x)
		w.Write(b[:])
	}
}

// OpenGraph memory-maps and checks the graph file at path against the
// vector file of the same target. Errors about the bytes wrap ErrCorrupt;
// it never panics on bad input.
func OpenGraph(path string, vecs *File) (*Graph, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open graph: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("open graph: %w", err)
	}
	b, err := mapFile(f, fi.Size())
	if err != nil {
		return nil, fmt.Errorf("open graph: %w", err)
	}
	g, err := DecodeGraph(b, vecs)
	if err != nil {
		return nil, errors.Join(fmt.Errorf("%s: %w", filepath.Base(path), err), unmap(b))
	}
	g.mapped = b
	return g, nil
}

// GraphLayout returns the layout version of the graph file at path, read
// from its header alone.
func GraphLayout(path string) (int, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	var h [12]byte
	if _, err := io.ReadFull(f, h[:]); err != nil {
		return 0, fmt.Errorf("%w: %s: %v", ErrCorrupt, filepath.Base(path), err)
	}
	if string(h[:8]) != graphMagic {
		return 0, fmt.Errorf("%w: %s: bad graph magic", ErrCorrupt, filepath.Base(path))
	}
	return int(binary.LittleEndian.Uint32(h[8:])), nil
}

// DecodeGraph checks b against the graph file layout (format.HNSWLayout,
// or layout 1, whose graphs are searched on the float32 vectors) and the
// vector file vecs, and returns a graph whose sections alias b (or copies
// of them when b is not 4-byte aligned).
func DecodeGraph(b []byte, vecs *File) (*Graph, error) {
	if len(b) < graphHeaderSize {
		return nil, fmt.Errorf("%w: %d bytes is shorter than the graph header", ErrCorrupt, len(b))
	}
	if string(b[:8]) != graphMagic {
		return nil, fmt.Errorf("%w: bad graph magic", ErrCorrupt)
	}
	le := binary.LittleEndian
	h := func(off int) uint64 { return uint64(le.Uint32(b[off:])) }
	version := h(8)
	if version != 1 && version != format.HNSWLayout {
		return nil, fmt.Errorf("%w: graph layout version %d, this build reads 1 and %d", ErrCorrupt, version, format.HNSWLayout)
	}
	n, dims, m, m0, entry, top, slots := h(12), h(16), h(20), h(24), h(28), h(32), h(36)
	efC, efS := h(40), h(44)
	switch {
	case n != uint64(vecs.Len()) || (n > 0 && dims != uint64(vecs.Dims())):
		return nil, fmt.Errorf("%w: graph of %d rows x %d dims over a vector file of %d x %d", ErrCorrupt, n, dims, vecs.Len(), vecs.Dims())
	case m < 2 || m0 < m || m0 > maxLinks || top > maxLevel || efC == 0 || efS == 0 || efS > 1<<20:
		return nil, fmt.Errorf("%w: graph parameters M=%d M0=%d top=%d ef=%d/%d", ErrCorrupt, m, m0, top, efC, efS)
	case slots > n*maxLevel:
		return nil, fmt.Errorf("%w: %d upper slots for %d nodes", ErrCorrupt, slots, n)
	case dims > MaxDims:
		return nil, fmt.Errorf("%w: %d dimensions", ErrCorrupt, dims)
	}
	g := &Graph{
		vecs: vecs, m: int(m), m0: int(m0), efC: int(efC), efS: int(efS),
		entry: uint32(entry), top: int(top), size: int(n),
	}
	levelsEnd := graphHeaderSize + n
	firstEnd := levelsEnd + uint64(pad4(int(n))) + 4*n
	level0Off, rec := firstEnd, 4*(1+m0)
	g.stride0 = 1 + int(m0)
	if version != 1 {
		cl := uint64(codeLen(int(dims)))
		rec = uint64(recordSize(int(cl), int(m0)))
		if h(48) != rec || h(52) != cl {
			return nil, fmt.Errorf("%w: level-0 records of %d bytes with %d code bytes, want %d and %d", ErrCorrupt, h(48), h(52), rec, cl)
		}
		level0Off = uint64(roundUp(int(firstEnd+4*n), recordAlign))
		g.stride0, g.off0 = int(rec/4), int(cl/4)
		g.codeStride, g.codeLen = int(rec), int(cl)
	}
	level0End := level0Off + n*rec
	want := level0End + 4*slots*(1+m)
	if uint64(len(b)) != want {
		return nil, fmt.Errorf("%w: graph file of %d bytes, the header implies %d", ErrCorrupt, len(b), want)
	}
	g.levels = b[graphHeaderSize:levelsEnd]
	g.first = asUint32s(b[firstEnd-4*n : firstEnd])
	g.level0 = asUint32s(b[level0Off:level0End])
	g.upper = asUint32s(b[level0End:])
	if version != 1 && n > 0 {
		g.scales = asFloat32s(b[firstEnd : firstEnd+4*n])
		g.codes = b[level0Off:level0End]
	}
	if err := g.check(int(slots)); err != nil {
		return nil, err
	}
	return g, nil
}

// check verifies every invariant a search relies on, so that a damaged
// file yields an error instead of an out-of-range read.
func (g *Graph) check(slots int) error {
	n := len(g.levels)
	if n == 0 {
		if g.entry != noNode || slots != 0 {
			return fmt.Errorf("%w: empty graph with an entry node", ErrCorrupt)
		}
		return nil
	}
	if int(g.entry) >= n || int(g.levels[g.entry]) != g.top {
		return fmt.Errorf("%w: entry node %d is not on the top level %d", ErrCorrupt, g.entry, g.top)
	}
	next := 0
	for i, l := range g.levels {
		switch {
		case int(l) > g.top:
			return fmt.Errorf("%w: node %d on level %d above the top %d", ErrCorrupt, i, l, g.top)
		case l == 0 && g.first[i] != noNode, l > 0 && int(g.first[i]) != next:
			return fmt.Errorf("%w: node %d has upper slot %d, want %d", ErrCorrupt, i, g.first[i], next)
		}
		next += int(l)
	}
	if next != slots {
		return fmt.Errorf("%w: levels need %d upper slots, the header says %d", ErrCorrupt, next, slots)
	}
	for i, s := range g.scales {
		if !(s >= 0 && s <= math.MaxFloat32) {
			return fmt.Errorf("%w: node %d has codes of scale %g", ErrCorrupt, i, s)
		}
	}
	const ahead = 8 // records whose links are being loaded while one is checked
	linkLines := (4*(1+g.m0) + 63) / 64
	for i, l := range g.levels {
		if j := i + ahead; j < n {
			prefetchLines((*byte)(unsafe.Pointer(&g.level0[j*g.stride0+g.off0])), linkLines)
		}
		for lv := 0; lv <= int(l); lv++ {
			s := g.slot(uint32(i), lv)
			if int(s[0]) > len(s)-1 {
				return fmt.Errorf("%w: node %d has %d neighbours on level %d", ErrCorrupt, i, s[0], lv)
			}
			for _, x := range s[1 : 1+s[0]] {
				if int(x) >= n || int(g.levels[x]) < lv {
					return fmt.Errorf("%w: node %d links to node %d on level %d", ErrCorrupt, i, x, lv)
				}
			}
		}
	}
	return nil
}
