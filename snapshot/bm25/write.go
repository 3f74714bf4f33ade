package bm25

import (
	"bufio"
	"cmp"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/klauspost/compress/zstd"

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
	termID map[string]int32
	terms  []string
	df     []uint32 // per term: how many documents hold it
	// postings holds the terms of every document with their frequencies,
	// document after document, in blocks of postingBlock; ends[d] is where
	// document d's postings end. Arrays without pointers that never move,
	// not a slice per term: encode sorts them by term.
	postings [][]termFreq
	npost    int
	ends     []int
	lengths  []uint32
	total    uint64
	digest   hash.Hash
	// count is the frequency in the current document of each term,
	// indexed by term id, and seen the ids whose count is not zero.
	count []uint32
	seen  []int32
	// merged holds the coded sections of an index made by Update, which
	// WriteFile writes instead of coding the term tables above (then
	// empty).
	merged *encoded
}

// NewBuilder returns an empty builder.
func NewBuilder() *Builder {
	return &Builder{termID: map[string]int32{}, digest: sha256.New()}
}

// Add appends the next document: id is its chunk id (hashed into the
// file's docs digest), terms its terms as Tokenize returns them.
func (b *Builder) Add(id string, terms []string) {
	if b.merged != nil {
		panic("bm25: Add on a builder made by Update, which takes no more documents")
	}
	b.digest.Write([]byte(id))
	b.digest.Write([]byte{'\n'})
	for _, id := range b.countTerms(terms) {
		b.df[id]++
		if b.npost%postingBlock == 0 {
			b.postings = append(b.postings, make([]termFreq, 0, postingBlock))
		}
		last := &b.postings[len(b.postings)-1]
		*last = append(*last, termFreq{id, b.count[id]})
		b.npost++
	}
	b.ends = append(b.ends, b.npost)
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
	e := b.merged
	if e == nil {
		e = b.encode()
	}
	if uint64(len(e.terms)) > math.MaxUint32 {
		return nil, fmt.Errorf("write bm25: %d bytes of terms is more than the format holds", len(e.terms))
	}
	w := bufio.NewWriterSize(f, 1<<20)
	var hdr [headerSize]byte
	copy(hdr[:], fileMagic)
	le := binary.LittleEndian
	le.PutUint32(hdr[8:], format.BM25Version)
	le.PutUint32(hdr[12:], TokenizerVersion)
	le.PutUint32(hdr[16:], uint32(len(b.lengths)))
	le.PutUint32(hdr[20:], uint32(e.nterms))
	le.PutUint64(hdr[24:], uint64(e.npost))
	le.PutUint64(hdr[32:], b.total)
	le.PutUint32(hdr[40:], math.Float32bits(DefaultK1))
	le.PutUint32(hdr[44:], math.Float32bits(DefaultB))
	le.PutUint32(hdr[48:], uint32(len(e.terms)))
	copy(hdr[digestStart:], b.digest.Sum(nil))
	body := make([]byte, 0, 4*len(b.lengths)+len(e.terms)+len(e.postings))
	for _, n := range b.lengths {
		body = le.AppendUint32(body, n)
	}
	body = append(append(body, e.terms...), e.postings...)
	le.PutUint64(hdr[88:], uint64(len(body)))
	w.Write(hdr[:])
	w.Write(bodyEncoder.EncodeAll(body, make([]byte, 0, len(body)/2)))
	if err := w.Flush(); err != nil {
		return nil, err
	}
	return &format.BM25{Version: format.BM25Version, Tokenizer: TokenizerVersion, File: filepath.Base(path),
		Docs: len(b.lengths), Terms: e.nterms, Postings: e.npost, K1: DefaultK1, B: DefaultB}, nil
}

// termPrefix is the first 8 bytes of t, padded with zeros, big-endian:
// the order of two prefixes that differ is the order of their terms.
func termPrefix(t string) uint64 {
	var b [8]byte
	copy(b[:], t)
	return binary.BigEndian.Uint64(b[:])
}

// postingBlock is how many postings a block of Builder.postings holds.
const postingBlock = 1 << 16

// termFreq is a term of a document and its frequency there.
type termFreq struct {
	term int32
	tf   uint32
}

// encode codes the builder's terms and postings sections.
func (b *Builder) encode() *encoded {
	// The postings by term, each term's in ascending order of documents:
	// term t's are docs[start[t]:start[t+1]], with their frequencies in
	// freqs.
	start := make([]int, len(b.terms)+1)
	for t, n := range b.df {
		start[t+1] = start[t] + int(n)
	}
	next := slices.Clone(start[:len(b.terms)])
	docs := make([]uint32, b.npost)
	freqs := make([]uint32, b.npost)
	k := 0
	for d, end := range b.ends {
		for ; k < end; k++ {
			p := b.postings[k/postingBlock][k%postingBlock]
			docs[next[p.term]], freqs[next[p.term]] = uint32(d), p.tf
			next[p.term]++
		}
	}
	// Sorted as (term, id) pairs: comparing strings held in the slice
	// sorted, not looked up through an index, is most of the sort.
	// The first 8 bytes of each term, as a big-endian number, order most
	// pairs without reading the strings.
	type termOrder struct {
		prefix uint64
		term   string
		id     int32
	}
	sorted := make([]termOrder, len(b.terms))
	for i, t := range b.terms {
		sorted[i] = termOrder{termPrefix(t), t, int32(i)}
	}
	slices.SortFunc(sorted, func(x, y termOrder) int {
		if c := cmp.Compare(x.prefix, y.prefix); c != 0 {
			return c
		}
		return strings.Compare(x.term, y.term)
	})
	order := make([]int32, len(sorted))
	for i, t := range sorted {
		order[i] = t.id
	}
	// Terms: front-coded, each with its document frequency. Postings:
	// see appendPosting.
	var terms, postings []byte
	prevTerm := ""
	npost := 0
	for _, id := range order {
		term := b.terms[id]
		shared := commonPrefix(prevTerm, term)
		terms = binary.AppendUvarint(terms, uint64(shared))
		terms = binary.AppendUvarint(terms, uint64(len(term)-shared))
		terms = append(terms, term[shared:]...)
		terms = binary.AppendUvarint(terms, uint64(b.df[id]))
		prevTerm = term
		prev := uint32(0)
		for k := start[id]; k < start[id+1]; k++ {
			postings = appendPosting(postings, docs[k]-prev, freqs[k])
			prev = docs[k]
		}
		npost += int(b.df[id])
	}
	return &encoded{terms: terms, postings: postings, nterms: len(order), npost: npost}
}

// bodyEncoder compresses the sections after the header, at zstd's
// fastest level: 30-50 ms for the 3.4 MB of the generated 10,000-note
// vault's sections on a busy 2-core machine, about a fifth less than the
// default level for the same 1.86 MB (0.1 MB more of the help vault's 6.2
// MB than the default's 3.42). Its EncodeAll is safe for concurrent use.
var bodyEncoder, _ = zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest), zstd.WithEncoderConcurrency(1))

// appendPosting appends one posting: uvarint(gap<<1 | 1 if tf > 1),
// then uvarint(tf-2) when tf > 1. Most frequencies are 1 (83% of the
// postings of the generated 10,000-note vault, 74% of Obsidian's help
// vault's), so most postings of frequent terms take one byte.
func appendPosting(b []byte, gap, tf uint32) []byte {
	if tf <= 1 {
		return binary.AppendUvarint(b, uint64(gap)<<1)
	}
	b = binary.AppendUvarint(b, uint64(gap)<<1|1)
	return binary.AppendUvarint(b, uint64(tf-2))
}

// nextPosting decodes the posting at the start of p and returns its
// document gap, its frequency and its length in bytes (<= 0 when p does
// not start with a posting).
func nextPosting(p []byte) (gap, tf uint64, n int) {
	v, n := binary.Uvarint(p)
	if n <= 0 {
		return 0, 0, n
	}
	if v&1 == 0 {
		return v >> 1, 1, n
	}
	f, k := binary.Uvarint(p[n:])
	if k <= 0 || f > math.MaxUint32-2 {
		return 0, 0, -1
	}
	return v >> 1, f + 2, n + k
}

func commonPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// countTerms sets b.count to how often each of terms occurs, giving terms
// seen for the first time an id (and no documents), and returns the ids
// of the terms that occur (b.seen, valid until the next call).
func (b *Builder) countTerms(terms []string) []int32 {
	for _, id := range b.seen {
		b.count[id] = 0
	}
	b.seen = b.seen[:0]
	for _, t := range terms {
		id, ok := b.termID[t]
		if !ok {
			id = int32(len(b.terms))
			b.termID[t] = id
			b.terms = append(b.terms, t)
			b.df = append(b.df, 0)
		}
		for int(id) >= len(b.count) {
			b.count = append(b.count, 0)
		}
		if b.count[id] == 0 {
			b.seen = append(b.seen, id)
		}
		b.count[id]++
	}
	return b.seen
}
