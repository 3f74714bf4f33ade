package wordvec

import (
	"crypto/sha256"
	_ "embed"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math"
	"sync"
	"unsafe"
)

//go:embed glove-100k.bin
var raw string

// Name identifies the table's content in embedder fingerprints; the
// header's checksum (Table.Sum) identifies its bytes.
const Name = "glove-6b-100d-wink-1.1.0-100k"

const magic = "VGWORDV1"

// Table is the parsed word-vector table. Its slices point into the
// binary's read-only data and must not be modified.
type Table struct {
	// Dims is the dimension of every vector (100).
	Dims int
	// Vocabulary is the size of the vocabulary the ranks come from
	// (the npm package's 341,479 words).
	Vocabulary int
	// Common is the unit vector of the direction every text vector
	// shares, computed once from the table (see gen).
	Common []float32
	// Sum is the hex sha256 of the table's body, as its header records.
	Sum string

	index  *index
	ranks  []uint32
	scales []float32
	q      []int8
}

var load = sync.OnceValues(func() (*Table, error) { return parse(raw) })

// Load returns the table compiled into the binary, parsing it on the first
// call (some tens of milliseconds). It fails only if the embedded table is
// damaged, which its checksum test catches at build time.
func Load() (*Table, error) { return load() }

func parse(b string) (*Table, error) {
	le := binary.LittleEndian
	const head = len(magic) + 12 + sha256.Size
	if len(b) < head || b[:len(magic)] != magic {
		return nil, fmt.Errorf("word-vector table: not a %s table", magic)
	}
	n := int(le.Uint32([]byte(b[8:12])))
	d := int(le.Uint32([]byte(b[12:16])))
	t := &Table{Dims: d, Vocabulary: int(le.Uint32([]byte(b[16:20]))), Sum: hex.EncodeToString([]byte(b[20:head]))}
	body := b[head:]
	need := 4*d + 8*n + n*d
	if d <= 0 || n <= 0 || len(body) < need {
		return nil, fmt.Errorf("word-vector table: truncated (%d words of %d dimensions need %d bytes, have %d)", n, d, need, len(body))
	}
	floats := func(s string) []float32 {
		out := make([]float32, len(s)/4)
		for i := range out {
			out[i] = math.Float32frombits(le.Uint32([]byte(s[4*i:])))
		}
		return out
	}
	t.Common = floats(body[:4*d])
	off := 4 * d
	t.ranks = make([]uint32, n)
	for i := range t.ranks {
		t.ranks[i] = le.Uint32([]byte(body[off+4*i:]))
	}
	off += 4 * n
	t.scales = floats(body[off : off+4*n])
	off += 4 * n
	// The int8 values are used in place: the string is the binary's
	// read-only data and lives as long as the program.
	t.q = unsafe.Slice((*int8)(unsafe.Pointer(unsafe.StringData(body[off:]))), n*d)
	off += n * d
	words := body[off:]
	t.index = newIndex(words, n)
	off = 0
	for i := range n {
		if off >= len(words) || off+1+int(words[off]) > len(words) {
			return nil, fmt.Errorf("word-vector table: word list truncated at word %d", i)
		}
		if err := t.index.add(off, i); err != nil {
			return nil, err
		}
		off += 1 + int(words[off])
	}
	return t, nil
}

// Len is the number of words.
func (t *Table) Len() int { return len(t.ranks) }

// Lookup returns the row of a lower-case word, or -1.
func (t *Table) Lookup(word string) int32 { return find(t.index, word) }

// LookupBytes is Lookup of a word held in bytes, without allocating.
func (t *Table) LookupBytes(word []byte) int32 { return find(t.index, word) }

// Rank is row i's position in the vocabulary sorted by corpus frequency
// (0 for "the").
func (t *Table) Rank(i int32) int { return int(t.ranks[i]) }

// Scale is the value of one int8 step of row i.
func (t *Table) Scale(i int32) float32 { return t.scales[i] }

// Row returns row i's int8 values; multiply by Scale(i) for the vector.
func (t *Table) Row(i int32) []int8 {
	return t.q[int(i)*t.Dims : (int(i)+1)*t.Dims : (int(i)+1)*t.Dims]
}

// Probability estimates p(w) of the word at a frequency rank by Zipf's law
// over the vocabulary: 1/((rank+1) H), H the harmonic number.
func (t *Table) Probability(rank int) float64 {
	h := math.Log(float64(t.Vocabulary)) + 0.5772156649
	return 1 / (float64(rank+1) * h)
}

// verify recomputes the body's checksum (tests only: 11 MB of hashing).
func (t *Table) verify() error {
	const head = len(magic) + 12 + sha256.Size
	sum := sha256.Sum256([]byte(raw[head:]))
	if hex.EncodeToString(sum[:]) != t.Sum {
		return fmt.Errorf("word-vector table: checksum mismatch")
	}
	return nil
}
