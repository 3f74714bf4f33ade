package vectors

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"unsafe"

	"github.com/vaultgraph/vaultgraph/format"
)

// Layout constants of the vector file; see format/vectors.go.
const (
	fileMagic      = "VGVEC\x00\x00\x01"
	fileVersion    = format.VectorFileLayout
	fileHeaderSize = 64
	hashSize       = 32
	// MaxDims bounds the dimension a vector file may declare.
	MaxDims = 1 << 16
)

// ErrCorrupt is wrapped by every error about a vector or graph file whose
// bytes do not follow the layout.
var ErrCorrupt = errors.New("corrupt vector file")

// Hash is the raw sha256 of an embedded text: the key of a vector row.
type Hash [hashSize]byte

// ParseHash decodes a hex sha256 as written in format.Chunk.TextSHA256.
func ParseHash(s string) (Hash, bool) {
	var h Hash
	if len(s) != 2*hashSize {
		return h, false
	}
	if _, err := hex.Decode(h[:], []byte(s)); err != nil {
		return h, false
	}
	return h, true
}

// String returns the hash in hex.
func (h Hash) String() string { return hex.EncodeToString(h[:]) }

// File is a vector file opened for reading: rows of float32 vectors keyed
// by sorted text hashes. Rows returned by Row alias the file's memory and
// must not be modified or used after Close.
type File struct {
	dims        int
	count       int
	fingerprint Hash
	hashes      []byte    // count*32
	data        []float32 // count*dims
	mapped      []byte    // the memory map to release, nil when not mapped
}

// OpenFile memory-maps and checks the vector file at path. It returns an
// error wrapping ErrCorrupt when the file does not follow the layout; it
// never panics on bad input.
func OpenFile(path string) (*File, error) {
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
	vf, err := DecodeFile(b)
	if err != nil {
		return nil, errors.Join(fmt.Errorf("%s: %w", filepath.Base(path), err), unmap(b))
	}
	vf.mapped = b
	return vf, nil
}

// DecodeFile checks b against the vector file layout and returns a File
// whose rows alias b (or a copy of it when b is not 4-byte aligned).
func DecodeFile(b []byte) (*File, error) {
	if len(b) < fileHeaderSize {
		return nil, fmt.Errorf("%w: %d bytes is shorter than the header", ErrCorrupt, len(b))
	}
	if string(b[:8]) != fileMagic {
		return nil, fmt.Errorf("%w: bad magic", ErrCorrupt)
	}
	if v := binary.LittleEndian.Uint32(b[8:]); v != fileVersion {
		return nil, fmt.Errorf("%w: layout version %d, this build reads %d", ErrCorrupt, v, fileVersion)
	}
	dims := uint64(binary.LittleEndian.Uint32(b[12:]))
	count := binary.LittleEndian.Uint64(b[16:])
	if dims > MaxDims || (dims == 0 && count != 0) {
		return nil, fmt.Errorf("%w: %d dimensions", ErrCorrupt, dims)
	}
	// Bound count before multiplying so that the size cannot overflow.
	if count > uint64(len(b))/hashSize {
		return nil, fmt.Errorf("%w: %d rows cannot fit in %d bytes", ErrCorrupt, count, len(b))
	}
	vecOff := vectorsOffset(int(count))
	want := uint64(vecOff) + count*dims*4
	if uint64(len(b)) != want {
		return nil, fmt.Errorf("%w: %d bytes, the header implies %d", ErrCorrupt, len(b), want)
	}
	vf := &File{dims: int(dims), count: int(count)}
	copy(vf.fingerprint[:], b[24:56])
	vf.hashes = b[fileHeaderSize : fileHeaderSize+int(count)*hashSize]
	for i := 1; i < vf.count; i++ {
		if bytes.Compare(vf.hashes[(i-1)*hashSize:i*hashSize], vf.hashes[i*hashSize:(i+1)*hashSize]) >= 0 {
			return nil, fmt.Errorf("%w: text hashes not strictly ascending at row %d", ErrCorrupt, i)
		}
	}
	vf.data = asFloat32s(b[vecOff:])
	return vf, nil
}

func vectorsOffset(count int) int {
	return fileHeaderSize + (count*hashSize+63)/64*64
}

// Close releases the memory map. No row may be used afterwards.
func (f *File) Close() error {
	m := f.mapped
	f.mapped, f.data, f.hashes = nil, nil, nil
	return unmap(m)
}

// Dims returns the dimension of every row.
func (f *File) Dims() int { return f.dims }

// Len returns the number of rows.
func (f *File) Len() int { return f.count }

// Fingerprint returns the embedder fingerprint recorded in the header.
func (f *File) Fingerprint() Hash { return f.fingerprint }

// Row returns the vector of row i, aliasing the file.
func (f *File) Row(i int) []float32 {
	return f.data[i*f.dims : (i+1)*f.dims : (i+1)*f.dims]
}

// prefetchRow starts loading row i into the CPU's cache.
func prefetchRow(f *File, i uint32) {
	if f.dims > 0 {
		prefetchLines((*byte)(unsafe.Pointer(&f.data[int(i)*f.dims])), (f.dims*4+63)/64)
	}
}

// HashAt returns the text hash of row i.
func (f *File) HashAt(i int) Hash {
	var h Hash
	copy(h[:], f.hashes[i*hashSize:])
	return h
}

// Find returns the row of the text hash h.
func (f *File) Find(h Hash) (int, bool) {
	i := sort.Search(f.count, func(i int) bool {
		return bytes.Compare(f.hashes[i*hashSize:(i+1)*hashSize], h[:]) >= 0
	})
	if i < f.count && bytes.Equal(f.hashes[i*hashSize:(i+1)*hashSize], h[:]) {
		return i, true
	}
	return -1, false
}

// WriteFile writes a vector file at path (which must not exist) with the
// given rows: hashes strictly ascending, vec(i) the unit vector of row i,
// every one dims long. The file is not fsynced; publishing the snapshot
// does that.
func WriteFile(path string, fingerprint Hash, dims int, hashes []Hash, vec func(i int) []float32) (err error) {
	if dims < 0 || dims > MaxDims || (dims == 0 && len(hashes) > 0) {
		return fmt.Errorf("write vectors: invalid dimension %d", dims)
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
	w.Write(hdr[:])
	for i, h := range hashes {
		if i > 0 && bytes.Compare(hashes[i-1][:], h[:]) >= 0 {
			return fmt.Errorf("hashes not strictly ascending at row %d", i)
		}
		w.Write(h[:])
	}
	pad := vectorsOffset(len(hashes)) - fileHeaderSize - len(hashes)*hashSize
	w.Write(make([]byte, pad))
	buf := make([]byte, 4*dims)
	for i := range hashes {
		v := vec(i)
		if len(v) != dims {
			return fmt.Errorf("row %d has %d dimensions, want %d", i, len(v), dims)
		}
		for j, x := range v {
			binary.LittleEndian.PutUint32(buf[4*j:], math.Float32bits(x))
		}
		if _, err := w.Write(buf); err != nil {
			return err
		}
	}
	return w.Flush()
}
