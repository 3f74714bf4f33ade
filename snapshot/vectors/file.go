package vectors

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"math/bits"
	"os"
	"path/filepath"
	"sort"

	"github.com/vaultgraph/vaultgraph/format"
)

// Layout constants of the vector file; see format/vectors.go.
const (
	fileMagic      = "VGVEC\x00\x00\x01"
	fileVersion    = format.VectorFileLayout
	fileHeaderSize = 64
	hashSize       = 32
	// keySize is how much of a row's text hash the current layout stores:
	// its first 128 bits (layouts 2 and 3 stored all 32 bytes).
	keySize = 16
	// MaxDims bounds the dimension a vector file may declare.
	MaxDims = 1 << 16
)

// ErrCorrupt is wrapped by every error about a vector or graph file whose
// bytes do not follow the layout.
var ErrCorrupt = errors.New("corrupt vector file")

// Hash is the raw sha256 of an embedded text: the key of a vector row.
type Hash [hashSize]byte

// ParseHash decodes a text key as written in format.Chunk.TextSHA256: the
// hex of a sha256's first 16 bytes (format version 6), or of all 32
// (version 5, and format.TextHash). Only the first 16 bytes are kept, the
// rest are zero, so that the key of a text is one value whichever way it
// was written: rows are found by those 16 bytes in every layout (Find).
func ParseHash(s string) (Hash, bool) {
	var h Hash
	if len(s) != 2*keySize && len(s) != 2*hashSize {
		return h, false
	}
	if _, err := hex.Decode(h[:len(s)/2], []byte(s)); err != nil {
		return h, false
	}
	clear(h[keySize:])
	return h, true
}

// String returns the hash in hex.
func (h Hash) String() string { return hex.EncodeToString(h[:]) }

// File is a vector file opened for reading: rows of codes, each with its
// scale, keyed by sorted text hashes (codes.go). It is used in place from
// its memory map, but for the residual plane, which is unpacked (a byte
// per component) into anonymous memory when it opens.
type File struct {
	dims        int
	count       int
	codeLen     int // bytes of one plane's codes per row: dims rounded up to codeAlign
	fingerprint Hash
	hashes      []byte // count*keyLen: each row's text hash, or its first keyLen bytes
	keyLen      int    // bytes of each row's hash stored: keySize, or hashSize before layout 4
	// firstRow[p] is the first row whose hash starts with prefix p or a
	// greater one (prefixBits bits), so that Find searches a bucket of
	// about one row rather than the whole file; nil: search it all.
	firstRow   []int32
	prefixBits uint
	scales     []float32 // count
	codes      []byte    // count*codeLen: the int8 codes
	fine       []byte    // count*codeLen: the residual codes, in 1/256 steps (unpacked, codes.go)
	// packed is the residual plane as the file stores it (nil in layout
	// 2, whose residuals are used in place), which WriteRows copies from.
	packed  []byte
	mapped  []byte // the memory map to release, nil when not mapped
	fineMap []byte // the anonymous map fine was unpacked into, nil when none
}

// OpenFile memory-maps and checks the vector file at path. It returns an
// error wrapping ErrCorrupt when the file does not follow the layout; it
// never panics on bad input.
func OpenFile(path string) (*File, error) { return openFile(path, true) }

// OpenFileToCopy is OpenFile for a file whose rows are only found (Find,
// HasHash, HashAt, Remap), copied (WriteRows, CopyRow) or counted: the
// parent snapshot's file an edit reuses vectors from. Its residuals stay
// packed in the map instead of being unpacked into memory (14 MB, 15-20
// ms of CPU and page faults for the chunk and edge vectors of the
// generated 10,000-note vault), so the File must not be searched or
// asked for a Vector or Similarity, nor give the vectors of a Graph that
// is searched (a parent graph that Update reads is not).
func OpenFileToCopy(path string) (*File, error) { return openFile(path, false) }

func openFile(path string, unpack bool) (*File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("open vectors: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("open vectors: %w", err)
	}
	b, err := mapFile(f, fi.Size())
	if err != nil {
		return nil, fmt.Errorf("open vectors: %w", err)
	}
	// The unpacked residuals go into anonymous memory rather than onto
	// the heap, where a server's heap limit would give them headroom to
	// grow into as well (they were 14 MB at 10,000 notes).
	var fineMap []byte
	alloc := func(n int) []byte {
		if fineMap = allocAnon(n); fineMap == nil {
			return make([]byte, n)
		}
		return fineMap[:n:n]
	}
	if !unpack {
		alloc = nil
	}
	vf, packed, err := decodeFile(b, alloc)
	if err != nil {
		if fineMap != nil {
			err = errors.Join(err, unmap(fineMap))
		}
		return nil, errors.Join(fmt.Errorf("%s: %w", filepath.Base(path), err), unmap(b))
	}
	// The packed residuals were read once, to unpack them: their pages
	// need not stay in the process's resident memory (10 MB at 10,000
	// notes). The map stays whole; they would be read again from the
	// page cache if touched.
	if unpack {
		dropPages(packed)
	}
	vf.mapped, vf.fineMap = b, fineMap
	return vf, nil
}

// DecodeFile checks b against the vector file layout and returns a File
// whose rows alias b (or a copy of the scales when b is not 4-byte aligned).
func DecodeFile(b []byte) (*File, error) {
	vf, _, err := decodeFile(b, func(n int) []byte { return make([]byte, n) })
	return vf, err
}

// decodeFile is DecodeFile, which unpacks the residuals into alloc(n)
// bytes (not at all when alloc is nil: the File then only finds and
// copies rows) and also returns the part of b holding them packed (nil
// when they are used in place).
func decodeFile(b []byte, alloc func(n int) []byte) (_ *File, packed []byte, _ error) {
	if len(b) < fileHeaderSize {
		return nil, nil, fmt.Errorf("%w: %d bytes is shorter than the header", ErrCorrupt, len(b))
	}
	if string(b[:8]) != fileMagic {
		return nil, nil, fmt.Errorf("%w: bad magic", ErrCorrupt)
	}
	version := binary.LittleEndian.Uint32(b[8:])
	if version != fileVersion && version != byteFineLayout && version != fullHashLayout {
		return nil, nil, fmt.Errorf("%w: layout version %d, this build reads %d to %d", ErrCorrupt, version, byteFineLayout, fileVersion)
	}
	kl := keySize
	if version < fileVersion {
		kl = hashSize
	}
	dims := uint64(binary.LittleEndian.Uint32(b[12:]))
	count := binary.LittleEndian.Uint64(b[16:])
	if dims > MaxDims || (dims == 0 && count != 0) {
		return nil, nil, fmt.Errorf("%w: %d dimensions", ErrCorrupt, dims)
	}
	cl := uint64(codeLen(int(dims)))
	if got := uint64(binary.LittleEndian.Uint32(b[56:])); got != cl {
		return nil, nil, fmt.Errorf("%w: code length %d for %d dimensions, want %d", ErrCorrupt, got, dims, cl)
	}
	// Bound count before multiplying so that the size cannot overflow.
	if count > uint64(len(b))/uint64(kl) {
		return nil, nil, fmt.Errorf("%w: %d rows cannot fit in %d bytes", ErrCorrupt, count, len(b))
	}
	scalesOff, codesOff := fileSections(int(count), kl)
	fineLen := uint64(packedFineLen(int(cl)))
	if version == byteFineLayout {
		fineLen = cl
	}
	want := uint64(codesOff) + count*(cl+fineLen)
	if uint64(len(b)) != want {
		return nil, nil, fmt.Errorf("%w: %d bytes, the header implies %d", ErrCorrupt, len(b), want)
	}
	vf := &File{dims: int(dims), count: int(count), codeLen: int(cl), keyLen: kl}
	copy(vf.fingerprint[:], b[24:56])
	vf.hashes = b[fileHeaderSize : fileHeaderSize+int(count)*kl]
	for i := 1; i < vf.count; i++ {
		if bytes.Compare(vf.key(i-1), vf.key(i)) >= 0 {
			return nil, nil, fmt.Errorf("%w: text hashes not strictly ascending at row %d", ErrCorrupt, i)
		}
	}
	vf.indexPrefixes()
	vf.scales = asFloat32s(b[scalesOff : scalesOff+4*int(count)])
	for i, s := range vf.scales {
		if !(s >= 0 && s <= math.MaxFloat32) {
			return nil, nil, fmt.Errorf("%w: row %d has codes of scale %g", ErrCorrupt, i, s)
		}
	}
	vf.codes = b[codesOff : codesOff+int(count*cl)]
	vf.fine = b[codesOff+int(count*cl):]
	if version != byteFineLayout {
		// The kernels read a byte per residual: unpack them once.
		packed = vf.fine
		vf.packed = packed
		vf.fine = nil
		if alloc != nil {
			vf.fine = alloc(int(count * cl))
			unpackFine(vf.fine, packed)
		}
	}
	return vf, packed, nil
}

// byteFineLayout is the vector file layout before format.VectorFileLayout
// 3, whose residuals are a byte each, in 1/256 steps: the layout the File
// holds in memory, so its planes are used in place. Readers still read it.
const byteFineLayout = 2

// fullHashLayout is the vector file layout before format.VectorFileLayout
// 4, which stores each row's whole text hash (32 bytes, not 16). Readers
// still read it.
const fullHashLayout = 3

// fileSections returns the offsets of the scales and of the codes (the
// int8 plane, then the residual plane) in a file of count rows whose
// hashes take keyLen bytes each.
func fileSections(count, keyLen int) (scales, codes int) {
	scales = fileHeaderSize + roundUp(count*keyLen, 64)
	return scales, scales + roundUp(4*count, 64)
}

// Close releases the memory map. No row may be used afterwards.
func (f *File) Close() error {
	m, fm := f.mapped, f.fineMap
	f.mapped, f.fineMap, f.codes, f.fine, f.packed, f.scales, f.hashes = nil, nil, nil, nil, nil, nil, nil
	if fm == nil {
		return unmap(m)
	}
	return errors.Join(unmap(m), unmap(fm))
}

// Dims returns the dimension of every row.
func (f *File) Dims() int { return f.dims }

// Len returns the number of rows.
func (f *File) Len() int { return f.count }

// Fingerprint returns the embedder fingerprint recorded in the header.
func (f *File) Fingerprint() Hash { return f.fingerprint }

// code returns the int8 codes of row i (codeLen bytes, zero after dims),
// aliasing the file.
func (f *File) code(i int) []byte {
	b := i * f.codeLen
	return f.codes[b : b+f.codeLen : b+f.codeLen]
}

// fineCode returns the residual codes of row i.
func (f *File) fineCode(i int) []byte {
	b := i * f.codeLen
	return f.fine[b : b+f.codeLen : b+f.codeLen]
}

// queryDot is the dot product of a query's int16 codes with row i's codes
// of both planes, in units of the int8 codes.
func (f *File) queryDot(i int, q []int16) float32 {
	return float32(dotCodes(f.code(i), q)) + float32(dotCodes(f.fineCode(i), q))*fineStep
}

// Vector returns row i decoded into dst (grown to Dims when shorter):
// v_j = scale * (code_j + residual_j/256), within 1/128 of a scale step of
// the vector that was written.
func (f *File) Vector(i int, dst []float32) []float32 {
	if cap(dst) < f.dims {
		dst = make([]float32, f.dims)
	}
	dst = dst[:f.dims]
	s, c, r := f.scales[i], f.code(i), f.fineCode(i)
	for j := range dst {
		dst[j] = s * (float32(int8(c[j])) + float32(int8(r[j]))*fineStep)
	}
	return dst
}

// Similarity returns the dot product of q with row i: the cosine
// similarity of a unit q with the row's vector, within about 1e-4; 0 when
// q is not Dims long.
func (f *File) Similarity(q []float32, i int) float32 {
	if len(q) != f.dims {
		return 0
	}
	s, t := similarity(q, f.code(i), f.fineCode(i))
	return (s + t*fineStep) * f.scales[i]
}

// Prefetch asks the CPU to start loading row i's codes (both planes), so
// that a Similarity of it soon after, or of several rows prefetched
// together, waits on memory once rather than once per row. Out of range
// rows are ignored.
func (f *File) Prefetch(i int) {
	if i < 0 || i >= f.count || f.codeLen == 0 {
		return
	}
	lines := (f.codeLen + 63) / 64
	prefetchLines(&f.codes[i*f.codeLen], lines)
	prefetchLines(&f.fine[i*f.codeLen], lines)
}

// similarityGo is the portable kernel of Similarity: sum q*c and sum q*r.
func similarityGo(q []float32, c, r []byte) (float32, float32) {
	c, r = c[:len(q)], r[:len(q)]
	var s0, s1, t0, t1 float32
	j := 0
	for ; j+2 <= len(q); j += 2 {
		s0 += q[j] * float32(int8(c[j]))
		s1 += q[j+1] * float32(int8(c[j+1]))
		t0 += q[j] * float32(int8(r[j]))
		t1 += q[j+1] * float32(int8(r[j+1]))
	}
	for ; j < len(q); j++ {
		s0 += q[j] * float32(int8(c[j]))
		t0 += q[j] * float32(int8(r[j]))
	}
	return s0 + s1, t0 + t1
}

// CopyRow writes row i's codes into dst (RowLen bytes of a file of the
// same dimension) and returns its scale: a row carried into another file
// unchanged, with no decoding and coding again.
func (f *File) CopyRow(i int, dst []byte) float32 {
	copy(dst, f.code(i))
	if f.fine == nil { // OpenFileToCopy: unpack this row's residuals only
		pl := packedFineLen(f.codeLen)
		unpackFine(dst[f.codeLen:2*f.codeLen], f.packed[i*pl:(i+1)*pl])
		return f.scales[i]
	}
	copy(dst[f.codeLen:], f.fineCode(i))
	return f.scales[i]
}

// HashAt returns the key of row i: its text hash's first 16 bytes, the
// rest zero (as ParseHash returns it), in every layout.
func (f *File) HashAt(i int) Hash {
	var h Hash
	copy(h[:keySize], f.key(i))
	return h
}

// HasHash reports whether row i is the row of the text hash h.
func (f *File) HasHash(i int, h Hash) bool {
	return bytes.Equal(f.key(i)[:keySize], h[:keySize])
}

// key returns the stored bytes of row i's text hash.
func (f *File) key(i int) []byte {
	return f.hashes[i*f.keyLen : (i+1)*f.keyLen]
}

// Find returns the row of the text hash h.
func (f *File) Find(h Hash) (int, bool) {
	lo, hi := 0, f.count
	if f.firstRow != nil {
		p := prefix(h[:], f.prefixBits)
		lo, hi = int(f.firstRow[p]), int(f.firstRow[p+1])
	}
	i := lo + sort.Search(hi-lo, func(i int) bool {
		return bytes.Compare(f.key(lo + i)[:keySize], h[:keySize]) >= 0
	})
	if i < hi && f.HasHash(i, h) {
		return i, true
	}
	return -1, false
}

// indexPrefixes fills firstRow, from hashes that are strictly ascending:
// text hashes are sha256, so a prefix of as many bits as the row count
// has holds about one row.
func (f *File) indexPrefixes() {
	if f.count < 64 {
		return
	}
	f.prefixBits = min(uint(bits.Len(uint(f.count))), 24)
	f.firstRow = make([]int32, 1<<f.prefixBits+1)
	p := uint32(0)
	for i := range f.count {
		for q := prefix(f.key(i), f.prefixBits); p <= q; p++ {
			f.firstRow[p] = int32(i)
		}
	}
	for ; int(p) < len(f.firstRow); p++ {
		f.firstRow[p] = int32(f.count)
	}
}

// prefix returns the first n (at most 32) bits of h.
func prefix(h []byte, n uint) uint32 {
	return binary.BigEndian.Uint32(h) >> (32 - n)
}

// WriteFile writes a vector file at path (which must not exist) with the
// given rows: hashes strictly ascending, vec(i) the unit vector of row i,
// every one dims long, stored as its codes (codes.go). The file is not
// fsynced; publishing the snapshot does that.
func WriteFile(path string, fingerprint Hash, dims int, hashes []Hash, vec func(i int) []float32) error {
	return WriteCodes(path, fingerprint, dims, hashes, func(i int, dst []byte) (float32, error) {
		v := vec(i)
		if len(v) != dims {
			return 0, fmt.Errorf("row %d has %d dimensions, want %d", i, len(v), dims)
		}
		return Encode(dst, v), nil
	})
}

// WriteCodes is WriteFile for rows given as codes: row(i, dst) writes row
// i's codes into dst (RowLen(dims) bytes, zeroed) and returns their scale,
// with Encode for a new vector or File.CopyRow for a row of another file.
func WriteCodes(path string, fingerprint Hash, dims int, hashes []Hash, row func(i int, dst []byte) (float32, error)) error {
	return WriteRows(path, fingerprint, dims, hashes, nil, row)
}

// WriteRows is WriteCodes for a file most of whose rows are rows of other
// files (a parent snapshot's): from(i) returns the file and the row that
// row i is a copy of, or nil when row(i, dst) writes it; from may be nil.
// Runs of consecutive rows of one file are copied plane by plane as the
// file stores them, with no unpacking and packing of their residuals, and
// straight from that file's map to the new file, with no buffer holding
// the rows; a file of another dimension or of layout 2 gets its rows from
// row instead. The bytes written are those of WriteCodes with
// File.CopyRow for the same rows.
func WriteRows(path string, fingerprint Hash, dims int, hashes []Hash, from func(i int) (*File, int),
	row func(i int, dst []byte) (float32, error)) (err error) {
	if dims < 0 || dims > MaxDims || (dims == 0 && len(hashes) > 0) {
		return fmt.Errorf("write vectors: invalid dimension %d", dims)
	}
	for i := 1; i < len(hashes); i++ {
		// Ascending whole hashes of different texts also ascend in their
		// first 16 bytes, but for a collision of 128 bits of sha256.
		if bytes.Compare(hashes[i-1][:keySize], hashes[i][:keySize]) >= 0 {
			return fmt.Errorf("write vectors: hashes not strictly ascending in their first %d bytes at row %d", keySize, i)
		}
	}
	cl := codeLen(dims)
	runs, err := rowRuns(len(hashes), dims, from, row)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return fmt.Errorf("write vectors: %w", err)
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			err = errors.Join(fmt.Errorf("write vectors %s: %w", filepath.Base(path), err), os.Remove(path))
		}
	}()
	w := bufio.NewWriterSize(f, 1<<20)
	var hdr [fileHeaderSize]byte
	copy(hdr[:], fileMagic)
	binary.LittleEndian.PutUint32(hdr[8:], fileVersion)
	binary.LittleEndian.PutUint32(hdr[12:], uint32(dims))
	binary.LittleEndian.PutUint64(hdr[16:], uint64(len(hashes)))
	copy(hdr[24:56], fingerprint[:])
	binary.LittleEndian.PutUint32(hdr[56:], uint32(cl))
	w.Write(hdr[:])
	for _, h := range hashes {
		w.Write(h[:keySize])
	}
	scalesOff, codesOff := fileSections(len(hashes), keySize)
	w.Write(make([]byte, scalesOff-fileHeaderSize-len(hashes)*keySize))
	for _, r := range runs {
		writeF32s(w, r.scalesOf())
	}
	w.Write(make([]byte, codesOff-scalesOff-4*len(hashes)))
	for _, r := range runs {
		w.Write(r.codesOf(cl))
	}
	pl := packedFineLen(cl)
	for _, r := range runs {
		w.Write(r.packedOf(pl))
	}
	return w.Flush()
}

// rowRun is a run of consecutive rows of a file being written: n rows of
// file from row on, or (file nil) rows coded into their own planes.
type rowRun struct {
	file          *File
	row, n        int
	scales        []float32
	codes, packed []byte
}

func (r *rowRun) scalesOf() []float32 {
	if r.file != nil {
		return r.file.scales[r.row : r.row+r.n]
	}
	return r.scales
}

func (r *rowRun) codesOf(cl int) []byte {
	if r.file != nil {
		return r.file.codes[r.row*cl : (r.row+r.n)*cl]
	}
	return r.codes
}

func (r *rowRun) packedOf(pl int) []byte {
	if r.file != nil {
		return r.file.packed[r.row*pl : (r.row+r.n)*pl]
	}
	return r.packed
}

// rowRuns cuts n rows of dims dimensions into runs: rows from(i) names in
// a file of the same dimension that keeps its residuals packed, which are
// copied in place, and the others, which row codes and which are packed
// as they come (a row's code length is a multiple of the four residuals
// packFine packs in three bytes, so packing row by row gives the bytes of
// packing the plane at once, without holding it unpacked).
func rowRuns(n, dims int, from func(i int) (*File, int), row func(i int, dst []byte) (float32, error)) ([]rowRun, error) {
	cl := codeLen(dims)
	pl := packedFineLen(cl)
	copyable := func(i int) (*File, int) {
		if from == nil {
			return nil, 0
		}
		f, r := from(i)
		if f == nil || f.packed == nil || f.dims != dims || r < 0 || r >= f.count {
			return nil, 0
		}
		return f, r
	}
	var runs []rowRun
	var buf []byte
	for i := 0; i < n; {
		if f, r := copyable(i); f != nil {
			j := i + 1
			for j < n {
				if g, s := copyable(j); g != f || s != r+(j-i) {
					break
				}
				j++
			}
			runs = append(runs, rowRun{file: f, row: r, n: j - i})
			i = j
			continue
		}
		j := i + 1
		for j < n {
			if g, _ := copyable(j); g != nil {
				break
			}
			j++
		}
		run := rowRun{n: j - i, scales: make([]float32, j-i), codes: make([]byte, (j-i)*cl), packed: make([]byte, (j-i)*pl)}
		if buf == nil {
			buf = make([]byte, 2*cl)
		}
		for k := range run.n {
			clear(buf)
			s, err := row(i+k, buf)
			if err != nil {
				return nil, fmt.Errorf("write vectors: %w", err)
			}
			if !(s >= 0 && s <= math.MaxFloat32) {
				return nil, fmt.Errorf("write vectors: row %d has scale %g", i+k, s)
			}
			copy(run.codes[k*cl:], buf[:cl])
			packFine(run.packed[k*pl:(k+1)*pl], buf[cl:])
			run.scales[k] = s
		}
		runs = append(runs, run)
		i = j
	}
	return runs, nil
}
