package bm25

import (
	"bufio"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"math"
	"os"
	"path/filepath"
	"slices"

	"github.com/vaultgraph/vaultgraph/format"
)

// Default BM25 parameters recorded in every index.
const (
	DefaultK1 = 1.2
	DefaultB  = 0.75
)

const (
	fileMagic   = "VGBM25\x00\x01"
	headerSize  = 96
	maxDocs     = math.MaxUint32
	digestStart = 56
)

// Builder collects documents in order and writes their index. It is not
// safe for concurrent use.
type Builder struct {
	termID  map[string]int32
	terms   []string
	docs    [][]uint32 // per term: documents, ascending
	freqs   [][]uint32 // per term: frequency in each of docs
	lengths []uint32
	total   uint64
	digest  hash.Hash
	count   map[int32]uint32
}

// NewBuilder returns an empty builder.
func NewBuilder() *Builder {
	return &Builder{termID: map[string]int32{}, digest: sha256.New(), count: map[int32]uint32{}}
}

// Add appends the next document: id is its chunk id (hashed into the
// file's docs digest), terms its terms as Tokenize returns them.
func (b *Builder) Add(id string, terms []string) {
	b.digest.Write([]byte(id))
	b.digest.Write([]byte{'\n'})
	doc := uint32(len(b.lengths))
	b.countTerms(terms)
	for id, n := range b.count {
		b.docs[id] = append(b.docs[id], doc)
		b.freqs[id] = append(b.freqs[id], n)
	}
	b.lengths = append(b.lengths, uint32(len(terms)))
	b.total += uint64(len(terms))
}

// Len returns the number of documents added.
func (b *Builder) Len() int { return len(b.lengths) }

// DocsDigest returns the sha256 of ids, each followed by '\n': what an
// index of documents with these ids records.
func DocsDigest(ids []string) [32]byte {
	h := sha256.New()
	for _, id := range ids {
		h.Write([]byte(id))
		h.Write([]byte{'\n'})
	}
	var d [32]byte
	h.Sum(d[:0])
	return d
}

// WriteFile writes the index at path, which must not exist, and returns
// the manifest section describing it. The file is not fsynced; publishing
// the snapshot does that.
func (b *Builder) WriteFile(path string) (_ *format.BM25, err error) {
	if len(b.lengths) > maxDocs {
		return nil, fmt.Errorf("write bm25: %d documents is more than the format holds", len(b.lengths))
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return nil, fmt.Errorf("write bm25: %w", err)
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			err = errors.Join(fmt.Errorf("write bm25 %s: %w", filepath.Base(path), err), os.Remove(path))
		}
	}()
	order := make([]int32, len(b.terms))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortFunc(order, func(x, y int32) int {
		switch {
		case b.terms[x] < b.terms[y]:
			return -1
		case b.terms[x] > b.terms[y]:
			return 1
		}
		return 0
	})
	var blob []byte
	termOff := make([]uint32, 0, len(order)+1)
	postOff := make([]uint64, 0, len(order)+1)
	var postings []byte
	npost := 0
	for _, id := range order {
		termOff = append(termOff, uint32(len(blob)))
		postOff = append(postOff, uint64(len(postings)))
		blob = append(blob, b.terms[id]...)
		prev := uint32(0)
		for k, d := range b.docs[id] {
			postings = binary.AppendUvarint(postings, uint64(d-prev))
			postings = binary.AppendUvarint(postings, uint64(b.freqs[id][k]))
			prev = d
		}
		npost += len(b.docs[id])
	}
	if uint64(len(blob)) > math.MaxUint32 {
		return nil, fmt.Errorf("write bm25: %d bytes of terms is more than the format holds", len(blob))
	}
	termOff = append(termOff, uint32(len(blob)))
	postOff = append(postOff, uint64(len(postings)))

	w := bufio.NewWriterSize(f, 1<<20)
	var hdr [headerSize]byte
	copy(hdr[:], fileMagic)
	le := binary.LittleEndian
	le.PutUint32(hdr[8:], format.BM25Version)
	le.PutUint32(hdr[12:], TokenizerVersion)
	le.PutUint32(hdr[16:], uint32(len(b.lengths)))
	le.PutUint32(hdr[20:], uint32(len(order)))
	le.PutUint64(hdr[24:], uint64(npost))
	le.PutUint64(hdr[32:], b.total)
	le.PutUint32(hdr[40:], math.Float32bits(DefaultK1))
	le.PutUint32(hdr[44:], math.Float32bits(DefaultB))
	le.PutUint32(hdr[48:], uint32(len(blob)))
	copy(hdr[digestStart:], b.digest.Sum(nil))
	w.Write(hdr[:])
	var buf [8]byte
	for _, n := range b.lengths {
		le.PutUint32(buf[:], n)
		w.Write(buf[:4])
	}
	for _, o := range termOff {
		le.PutUint32(buf[:], o)
		w.Write(buf[:4])
	}
	for _, o := range postOff {
		le.PutUint64(buf[:], o)
		w.Write(buf[:8])
	}
	for _, id := range order {
		le.PutUint32(buf[:], uint32(len(b.docs[id])))
		w.Write(buf[:4])
	}
	w.Write(blob)
	w.Write(postings)
	if err := w.Flush(); err != nil {
		return nil, err
	}
	return &format.BM25{Version: format.BM25Version, Tokenizer: TokenizerVersion, File: filepath.Base(path),
		Docs: len(b.lengths), Terms: len(order), Postings: npost, K1: DefaultK1, B: DefaultB}, nil
}

// countTerms sets b.count to how often each of terms occurs, giving terms
// seen for the first time an id (and empty postings).
func (b *Builder) countTerms(terms []string) {
	clear(b.count)
	for _, t := range terms {
		id, ok := b.termID[t]
		if !ok {
			id = int32(len(b.terms))
			b.termID[t] = id
			b.terms = append(b.terms, t)
			b.docs = append(b.docs, nil)
			b.freqs = append(b.freqs, nil)
		}
		b.count[id]++
	}
}
