package bm25

import (
	"bytes"
	"container/heap"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"slices"
	"sort"
	"sync"

	"github.com/klauspost/compress/zstd"

	"github.com/vaultgraph/vaultgraph/format"
)

// ErrCorrupt is wrapped by every error about a damaged or foreign file.
var ErrCorrupt = errors.New("corrupt bm25 index")

// Index is a decoded BM25 file. It is immutable and safe for concurrent
// use.
type Index struct {
	docs, terms     int
	total           uint64
	avgLen          float64
	k1, b           float64
	digest          [32]byte
	lengths         []uint32
	norms           []float64 // norm of each document's length
	termOff         []uint32
	postOff         []uint64
	df              []uint32
	blob            []byte
	postings        []byte
	tokenizer       uint32
	postingsEntries uint64
	// free holds score slices handed back by Recycle (*[]float32), so
	// that a server scoring every query does not allocate a slice the
	// size of the corpus each time.
	free sync.Pool
	// scored holds what Release handed back (*Scored).
	scored sync.Pool
}

// Open reads and decodes the index file at path.
func Open(path string) (*Index, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("open bm25 index: %w", err)
	}
	ix, err := Decode(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return ix, nil
}

// maxBody bounds the sections' size after decompression, so that a
// damaged header or a crafted file cannot make Decode take all memory.
const maxBody = 1 << 34

// bodyDecoder decompresses the sections after the header. Its DecodeAll
// is safe for concurrent use.
var bodyDecoder, _ = zstd.NewReader(nil, zstd.WithDecoderConcurrency(0), zstd.WithDecoderMaxMemory(maxBody))

func corrupt(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrCorrupt}, args...)...)
}

// Decode checks and decodes an index file held in data. Any inconsistency (sizes, offsets, term order,
// postings) is an error wrapping ErrCorrupt; a file of another layout or
// tokenizer version is refused too, since its terms would not match the
// queries'.
func Decode(data []byte) (*Index, error) {
	if len(data) < headerSize || string(data[:8]) != fileMagic {
		return nil, corrupt("not a bm25 index")
	}
	le := binary.LittleEndian
	if v := le.Uint32(data[8:]); v != format.BM25Version {
		return nil, corrupt("layout version %d, this build reads %d; index the vault again", v, format.BM25Version)
	}
	ix := &Index{
		tokenizer:       le.Uint32(data[12:]),
		docs:            int(le.Uint32(data[16:])),
		terms:           int(le.Uint32(data[20:])),
		postingsEntries: le.Uint64(data[24:]),
		total:           le.Uint64(data[32:]),
		k1:              float64(math.Float32frombits(le.Uint32(data[40:]))),
		b:               float64(math.Float32frombits(le.Uint32(data[44:]))),
	}
	if ix.tokenizer != TokenizerVersion {
		return nil, corrupt("tokenizer version %d, this build tokenizes with %d; index the vault again", ix.tokenizer, TokenizerVersion)
	}
	if !(ix.k1 >= 0 && ix.k1 <= 100) || !(ix.b >= 0 && ix.b <= 1) {
		return nil, corrupt("parameters k1 %g, b %g out of range", ix.k1, ix.b)
	}
	copy(ix.digest[:], data[digestStart:digestStart+32])
	termsLen := uint64(le.Uint32(data[48:]))
	bodyLen := le.Uint64(data[88:])
	if bodyLen > maxBody {
		return nil, corrupt("%d bytes of sections", bodyLen)
	}
	p, err := bodyDecoder.DecodeAll(data[headerSize:], make([]byte, 0, min(bodyLen, 8*uint64(len(data)))))
	if err != nil || uint64(len(p)) != bodyLen {
		return nil, corrupt("the sections do not decompress to the %d bytes the header says (%d: %v)", bodyLen, len(p), err)
	}
	// Section sizes in uint64, so that no count can overflow them. A term
	// takes at least 4 bytes of its section (prefix, length, a byte of its
	// own, frequency), which bounds what the counts make Decode allocate.
	if 4*uint64(ix.docs)+termsLen > bodyLen || 4*uint64(ix.terms) > termsLen {
		return nil, corrupt("%d bytes of sections, their counts need more", bodyLen)
	}
	ix.lengths = u32s(p[:4*ix.docs])
	if err := ix.decodeTerms(p[4*ix.docs : 4*uint64(ix.docs)+termsLen]); err != nil {
		return nil, err
	}
	ix.postings = p[4*uint64(ix.docs)+termsLen:]
	if err := ix.check(); err != nil {
		return nil, err
	}
	if ix.docs > 0 {
		ix.avgLen = float64(ix.total) / float64(ix.docs)
	}
	ix.norms = make([]float64, ix.docs)
	for d, n := range ix.lengths {
		ix.norms[d] = ix.norm(n)
	}
	return ix, nil
}

// decodeTerms reads the front-coded terms and their document
// frequencies into blob, termOff and df.
func (ix *Index) decodeTerms(p []byte) error {
	ix.termOff = make([]uint32, ix.terms+1)
	ix.df = make([]uint32, ix.terms)
	ix.blob = make([]byte, 0, len(p))
	prev := 0 // where the previous term starts in blob
	for t := range ix.terms {
		shared, k := binary.Uvarint(p)
		if k <= 0 {
			return corrupt("term %d: bad prefix length", t)
		}
		p = p[k:]
		own, k := binary.Uvarint(p)
		if k <= 0 || own == 0 || own > uint64(len(p)-k) {
			return corrupt("term %d: bad length", t)
		}
		p = p[k:]
		if shared > uint64(len(ix.blob)-prev) || shared+own > maxTermBytes {
			return corrupt("term %d: %d bytes shared with the previous term, %d of its own", t, shared, own)
		}
		start := len(ix.blob)
		ix.blob = append(ix.blob, ix.blob[prev:prev+int(shared)]...)
		ix.blob = append(ix.blob, p[:own]...)
		p = p[own:]
		df, k := binary.Uvarint(p)
		if k <= 0 || df == 0 || df > uint64(ix.docs) {
			return corrupt("term %d: bad document frequency", t)
		}
		p = p[k:]
		ix.termOff[t], ix.df[t] = uint32(start), uint32(df)
		prev = start
	}
	if len(p) != 0 {
		return corrupt("%d bytes after the last term", len(p))
	}
	ix.termOff[ix.terms] = uint32(len(ix.blob))
	return nil
}

func u32s(b []byte) []uint32 {
	out := make([]uint32, len(b)/4)
	for i := range out {
		out[i] = binary.LittleEndian.Uint32(b[4*i:])
	}
	return out
}

// check validates everything a query relies on, once, so that queries
// need no checks, and finds where each term's postings start.
func (ix *Index) check() error {
	var total uint64
	for _, n := range ix.lengths {
		total += uint64(n)
	}
	if total != ix.total {
		return corrupt("document lengths add up to %d, header says %d", total, ix.total)
	}
	ix.postOff = make([]uint64, ix.terms+1)
	var entries, at uint64
	for t := range ix.terms {
		if t > 0 && bytes.Compare(ix.term(t-1), ix.term(t)) >= 0 {
			return corrupt("terms not in strictly ascending order at %d", t)
		}
		ix.postOff[t] = at
		n, err := ix.checkPostings(t, ix.postings[at:])
		if err != nil {
			return err
		}
		at += n
		entries += uint64(ix.df[t])
	}
	ix.postOff[ix.terms] = at
	if at != uint64(len(ix.postings)) {
		return corrupt("%d bytes after the last term's postings", uint64(len(ix.postings))-at)
	}
	if entries != ix.postingsEntries {
		return corrupt("%d postings, header says %d", entries, ix.postingsEntries)
	}
	return nil
}

// checkPostings checks the df[t] postings of term t at the start of p and
// returns their length in bytes.
func (ix *Index) checkPostings(t int, p []byte) (uint64, error) {
	doc, at := uint64(0), 0
	for i := range ix.df[t] {
		gap, tf, k := nextPosting(p[at:])
		if k <= 0 {
			return 0, corrupt("term %d: bad posting", t)
		}
		at += k
		if i > 0 && gap == 0 {
			return 0, corrupt("term %d: documents not ascending", t)
		}
		doc += gap
		if doc >= uint64(ix.docs) || gap > uint64(ix.docs) {
			return 0, corrupt("term %d: document %d out of range", t, doc)
		}
		if tf > uint64(ix.lengths[doc]) {
			return 0, corrupt("term %d: frequency %d in a document of %d terms", t, tf, ix.lengths[doc])
		}
	}
	return uint64(at), nil
}

func (ix *Index) term(t int) []byte { return ix.blob[ix.termOff[t]:ix.termOff[t+1]] }

// Docs returns the number of documents.
func (ix *Index) Docs() int { return ix.docs }

// Terms returns the number of distinct terms.
func (ix *Index) Terms() int { return ix.terms }

// DocsDigest returns the digest of the chunk ids the index was built for;
// compare it with DocsDigest of the snapshot's chunk ids.
func (ix *Index) DocsDigest() [32]byte { return ix.digest }

// lookup returns the term's number, or -1.
func (ix *Index) lookup(term string) int {
	t := sort.Search(ix.terms, func(i int) bool { return string(ix.term(i)) >= term })
	if t < ix.terms && string(ix.term(t)) == term {
		return t
	}
	return -1
}

// idf is the BM25 inverse document frequency, never negative.
func (ix *Index) idf(t int) float64 {
	n := float64(ix.df[t])
	return math.Log(1 + (float64(ix.docs)-n+0.5)/(n+0.5))
}

// norm is the length normalisation of a document of n terms in BM25's
// denominator.
func (ix *Index) norm(n uint32) float64 {
	return ix.k1 * (1 - ix.b + ix.b*float64(n)/ix.avgLen)
}

// Scores returns the BM25 score of every document for the query terms
// (Tokenize's output; duplicates count once), indexed by document. Terms
// the index does not know add nothing. The slice is the caller's; a caller
// done with it may hand it to Recycle for a later Scores to reuse.
func (ix *Index) Scores(terms []string) []float32 {
	var scores []float32
	if p, ok := ix.free.Get().(*[]float32); ok && len(*p) == ix.docs {
		scores = *p
		clear(scores)
	} else {
		scores = make([]float32, ix.docs)
	}
	ix.accumulate(terms, scores, nil)
	return scores
}

// accumulate adds the BM25 scores of the query terms (duplicates count
// once) to scores, indexed by document, and appends to docs (when not
// nil) each document it scores first: a term's score is positive (idf > 0,
// as no term is in more documents than there are), so a 0 is a document
// not yet seen.
func (ix *Index) accumulate(terms []string, scores []float32, docs *[]int32) {
	seen := make([]string, 0, 8)
	for _, term := range terms {
		if slices.Contains(seen, term) {
			continue
		}
		seen = append(seen, term)
		t := ix.lookup(term)
		if t < 0 {
			continue
		}
		idf := ix.idf(t)
		p := ix.postings[ix.postOff[t]:ix.postOff[t+1]]
		doc := uint64(0)
		for len(p) > 0 {
			v, k := binary.Uvarint(p)
			p = p[k:]
			tf := uint64(1)
			if v&1 != 0 {
				tf, k = binary.Uvarint(p)
				p = p[k:]
				tf += 2
			}
			doc += v >> 1
			f := float64(tf)
			if docs != nil && scores[doc] == 0 {
				*docs = append(*docs, int32(doc))
			}
			scores[doc] += float32(idf * f * (ix.k1 + 1) / (f + ix.norms[doc]))
		}
	}
}

// Scored is the BM25 scores of one query with the documents they are
// positive for: what Top and the query's best score need, without a pass
// over every document of the corpus. It is read-only for the caller;
// (*Index).Release hands it back.
type Scored struct {
	// Scores holds every document's score, indexed by document (0 for a
	// document no term is in).
	Scores []float32
	// Docs lists the documents whose score is positive, each once, in no
	// particular order.
	Docs []int32
	// Max is the best score, 0 when no document matches.
	Max float32
}

// Score is Scores, keeping track of the documents scored: the same
// scores, computed in the same order, plus Docs and Max. Hand the result
// to Release when done with it.
func (ix *Index) Score(terms []string) *Scored {
	s, ok := ix.scored.Get().(*Scored)
	if !ok || len(s.Scores) != ix.docs {
		s = &Scored{Scores: make([]float32, ix.docs)}
	}
	ix.accumulate(terms, s.Scores, &s.Docs)
	for _, d := range s.Docs {
		if v := s.Scores[d]; v > s.Max {
			s.Max = v
		}
	}
	return s
}

// Top returns the k highest positive scores, best first, ties to the
// lower document: the same hits as Top(s.Scores, k).
func (s *Scored) Top(k int) []Hit {
	if k <= 0 {
		return nil
	}
	h := make(hitHeap, 0, k)
	for _, d := range s.Docs {
		hit := Hit{int(d), s.Scores[d]}
		if hit.Score <= 0 {
			continue
		}
		if len(h) < k {
			heap.Push(&h, hit)
		} else if worse(h[0], hit) {
			h[0] = hit
			heap.Fix(&h, 0)
		}
	}
	out := make([]Hit, len(h))
	for i := len(out) - 1; i >= 0; i-- {
		out[i] = heap.Pop(&h).(Hit)
	}
	return out
}

// worse reports whether a ranks below b: a lower score, or the same score
// and a higher document.
func worse(a, b Hit) bool {
	if a.Score != b.Score {
		return a.Score < b.Score
	}
	return a.Doc > b.Doc
}

// Release hands back what Score returned; the caller must not use it
// afterwards. It clears only the documents scored. It is safe for
// concurrent use and does nothing on a nil Index or Scored.
func (ix *Index) Release(s *Scored) {
	if ix == nil || s == nil || len(s.Scores) != ix.docs {
		return
	}
	if len(s.Docs) > ix.docs/8 {
		clear(s.Scores)
	} else {
		for _, d := range s.Docs {
			s.Scores[d] = 0
		}
	}
	s.Docs, s.Max = s.Docs[:0], 0
	ix.scored.Put(s)
}

// Knows reports whether some document holds term (a Tokenize term).
func (ix *Index) Knows(term string) bool { return ix != nil && ix.lookup(term) >= 0 }

// Recycle hands back a slice Scores returned, which the caller must not
// use afterwards. It is safe for concurrent use, and does nothing on a nil
// Index.
func (ix *Index) Recycle(scores []float32) {
	if ix != nil && len(scores) == ix.docs && ix.docs > 0 {
		ix.free.Put(&scores)
	}
}

// Hit is a document and its score.
type Hit struct {
	Doc   int
	Score float32
}

// Search returns the k best documents for the query terms, best first;
// documents scoring 0 are left out. Ties go to the lower document number.
func (ix *Index) Search(terms []string, k int) []Hit {
	return Top(ix.Scores(terms), k)
}

// Top returns the k highest positive scores, best first.
func Top(scores []float32, k int) []Hit {
	if k <= 0 {
		return nil
	}
	h := make(hitHeap, 0, k)
	for d, s := range scores {
		if s <= 0 {
			continue
		}
		if len(h) < k {
			heap.Push(&h, Hit{d, s})
		} else if s > h[0].Score {
			h[0] = Hit{d, s}
			heap.Fix(&h, 0)
		}
	}
	out := make([]Hit, len(h))
	for i := len(out) - 1; i >= 0; i-- {
		out[i] = heap.Pop(&h).(Hit)
	}
	return out
}

// hitHeap is a min-heap on score (then a higher document number is worse).
type hitHeap []Hit

func (h hitHeap) Len() int { return len(h) }
func (h hitHeap) Less(i, j int) bool {
	if h[i].Score != h[j].Score {
		return h[i].Score < h[j].Score
	}
	return h[i].Doc > h[j].Doc
}
func (h hitHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *hitHeap) Push(x any)   { *h = append(*h, x.(Hit)) }
func (h *hitHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
