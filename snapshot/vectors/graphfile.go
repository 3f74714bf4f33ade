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
)

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
	words0 := uint64(0) // of the level-0 records, a count and its links each
	for i := range n {
		words0 += 1 + uint64(g.slot(uint32(i), 0)[0])
	}
	w := bufio.NewWriterSize(f, 1<<20)
	var hdr [graphHeaderSize]byte
	copy(hdr[:], graphMagic)
	for i, x := range []uint32{format.HNSWLayout, uint32(n), uint32(dims), uint32(g.m), uint32(g.m0), g.entry,
		uint32(g.top), uint32(slots), uint32(g.efC), uint32(g.efS)} {
		binary.LittleEndian.PutUint32(hdr[8+4*i:], x)
	}
	binary.LittleEndian.PutUint64(hdr[48:], words0)
	w.Write(hdr[:])
	w.Write(g.levels)
	w.Write(make([]byte, pad4(n)))
	writeU32s(w, first)
	for i := range n {
		s := g.slot(uint32(i), 0)
		writeU32s(w, s[:1+s[0]])
	}
	for i, l := range g.levels {
		for lv := 1; lv <= int(l); lv++ {
			writeU32s(w, g.slot(uint32(i), lv))
		}
	}
	return w.Flush()
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

// DecodeGraph checks b against the graph file layout (format.HNSWLayout)
// and the vector file vecs, and returns a graph whose sections alias b (or
// copies of them when b is not 4-byte aligned).
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
	if version != format.HNSWLayout && version != fixedLinksLayout {
		return nil, fmt.Errorf("%w: graph layout version %d, this build reads %d and %d", ErrCorrupt, version, fixedLinksLayout, format.HNSWLayout)
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
	g.stride0 = 1 + int(m0)
	words0 := n * (1 + m0)
	if version != fixedLinksLayout {
		words0 = le.Uint64(b[48:])
		if words0 < n || words0 > n*(1+m0) {
			return nil, fmt.Errorf("%w: %d words of level-0 links for %d nodes of at most %d links", ErrCorrupt, words0, n, m0)
		}
	}
	level0End := firstEnd + 4*words0
	want := level0End + 4*slots*(1+m)
	if uint64(len(b)) != want {
		return nil, fmt.Errorf("%w: graph file of %d bytes, the header implies %d", ErrCorrupt, len(b), want)
	}
	g.levels = b[graphHeaderSize:levelsEnd]
	g.first = asUint32s(b[firstEnd-4*n : firstEnd])
	g.level0 = asUint32s(b[firstEnd:level0End])
	g.upper = asUint32s(b[level0End:])
	if version != fixedLinksLayout {
		offs, err := recordOffsets(g.level0, int(n), int(m0))
		if err != nil {
			return nil, err
		}
		g.offs0 = offs
	}
	g.useCodes()
	if err := g.check(int(slots)); err != nil {
		return nil, err
	}
	return g, nil
}

// fixedLinksLayout is the graph layout before format.HNSWLayout 4, whose
// level-0 records all have room for M0 links. Readers still read it:
// snapshots written before layout 4 keep their graphs.
const fixedLinksLayout = 3

// recordOffsets returns where each of n level-0 records (a count of at
// most m0, then that many links) starts in words, which must hold them
// exactly.
func recordOffsets(words []uint32, n, m0 int) ([]uint32, error) {
	offs := make([]uint32, n)
	at := 0
	for i := range offs {
		if at >= len(words) || int(words[at]) > m0 {
			return nil, fmt.Errorf("%w: level-0 links of node %d do not fit the section", ErrCorrupt, i)
		}
		offs[i] = uint32(at)
		at += 1 + int(words[at])
	}
	if at != len(words) {
		return nil, fmt.Errorf("%w: level-0 links end at word %d of %d", ErrCorrupt, at, len(words))
	}
	return offs, nil
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
	const ahead = 8 // records whose links are being loaded while one is checked
	linkLines := (4*(1+g.m0) + 63) / 64
	for i, l := range g.levels {
		if j := i + ahead; j < n && g.offs0 == nil {
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
