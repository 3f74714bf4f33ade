package bm25

import (
	"encoding/binary"
	"fmt"
	"slices"
	"strings"
)

// Update returns a builder holding the documents of a new index built from
// parent, the index of a parent snapshot: document i of the new index has
// chunk id ids[i], and is parent's document from[i] when from[i] >= 0 (the
// same terms, which Update does not tokenize again) or terms(i) otherwise.
// The documents taken from parent must keep their order (from ascending
// where it is >= 0). WriteFile then writes the same bytes as a Builder
// given every document with Add; the builder takes no more documents.
//
// One edited note of 10,000 costs tokenizing its chunks and walking the
// parent's postings, not decoding and coding them again: the parent's
// documents before the first one that changed keep their numbers, and
// those after the last one that changed are all shifted by the same
// count, so that a term's postings on either side keep their bytes but
// for the first gap after the change. Only the postings of the documents
// between are decoded, renumbered and merged with the new documents'.
func Update(parent *Index, ids []string, from []int, terms func(i int) []string) (*Builder, error) {
	if len(from) != len(ids) {
		return nil, fmt.Errorf("bm25 update: %d ids, %d sources", len(ids), len(from))
	}
	old2new := make([]int32, parent.docs)
	for j := range old2new {
		old2new[j] = -1
	}
	b := NewBuilder()
	b.lengths = make([]uint32, len(ids))
	last := -1
	for i, j := range from {
		b.digest.Write([]byte(ids[i]))
		b.digest.Write([]byte{'\n'})
		if j < 0 {
			continue
		}
		if j <= last || j >= parent.docs {
			return nil, fmt.Errorf("bm25 update: parent document %d out of order or range", j)
		}
		last = j
		old2new[j] = int32(i)
		b.lengths[i] = parent.lengths[j]
	}
	m := &merge{parent: parent, old2new: old2new, shift: int64(len(ids)) - int64(parent.docs)}
	// lo: the first parent document not kept with its number; hi: the
	// first of those after it that are all kept, shifted by the same
	// count. New documents can only lie between: the others' numbers are
	// taken.
	for m.lo < parent.docs && old2new[m.lo] == int32(m.lo) {
		m.lo++
	}
	m.hi = parent.docs
	for m.hi > m.lo && old2new[m.hi-1] >= 0 && int64(old2new[m.hi-1]) == int64(m.hi-1)+m.shift {
		m.hi--
	}
	// The new documents' postings, by term: in ascending order of
	// documents, since they are counted in that order.
	extra := map[string][]posting{}
	for i, j := range from {
		if j >= 0 {
			continue
		}
		if int64(i) < int64(m.lo) || int64(i) >= int64(m.hi)+m.shift {
			return nil, fmt.Errorf("bm25 update: new document %d outside the changed documents %d-%d", i, m.lo, int64(m.hi)+m.shift)
		}
		ts := terms(i)
		for _, id := range b.countTerms(ts) {
			term := b.terms[id]
			extra[term] = append(extra[term], posting{uint32(i), b.count[id]})
		}
		b.lengths[i] = uint32(len(ts))
	}
	// countTerms filled the builder's term tables; the merge writes its
	// own.
	b.termID, b.terms, b.df, b.count, b.seen = nil, nil, nil, nil, nil
	for _, n := range b.lengths {
		b.total += uint64(n)
	}
	enc, err := m.encode(extra)
	if err != nil {
		return nil, err
	}
	b.merged = enc
	return b, nil
}

// posting is one document of a term's postings.
type posting struct{ doc, tf uint32 }

// merge writes the terms and postings sections of an index updated from
// parent (Update).
type merge struct {
	parent  *Index
	old2new []int32
	// Parent documents below lo keep their numbers, those from hi on are
	// shifted by shift; those between are renumbered by old2new.
	lo, hi int
	shift  int64
}

// encoded is the terms and postings sections of an index, coded.
type encoded struct {
	terms, postings []byte
	nterms, npost   int
}

// encode merges the parent's terms, in their order, with the new ones,
// sorted, and codes every term that keeps a document.
func (m *merge) encode(extra map[string][]posting) (*encoded, error) {
	ix := m.parent
	var fresh []string // terms the parent does not have
	byParent := make(map[int][]posting, len(extra))
	for term, ps := range extra {
		if t := ix.lookup(term); t >= 0 {
			byParent[t] = ps
		} else {
			fresh = append(fresh, term)
		}
	}
	slices.Sort(fresh)
	e := &encoded{postings: make([]byte, 0, len(ix.postings)+len(ix.postings)/64+64)}
	var prev []byte
	addTerm := func(term []byte, df int) {
		shared := commonPrefix(string(prev), string(term))
		e.terms = binary.AppendUvarint(e.terms, uint64(shared))
		e.terms = binary.AppendUvarint(e.terms, uint64(len(term)-shared))
		e.terms = append(e.terms, term[shared:]...)
		e.terms = binary.AppendUvarint(e.terms, uint64(df))
		prev = term
		e.nterms++
		e.npost += df
	}
	f := 0
	for t := range ix.terms {
		term := ix.term(t)
		for f < len(fresh) && strings.Compare(fresh[f], string(term)) < 0 {
			addTerm([]byte(fresh[f]), m.appendExtra(e, extra[fresh[f]]))
			f++
		}
		df, err := m.appendTerm(e, t, byParent[t])
		if err != nil {
			return nil, err
		}
		if df > 0 {
			addTerm(term, df)
		}
	}
	for ; f < len(fresh); f++ {
		addTerm([]byte(fresh[f]), m.appendExtra(e, extra[fresh[f]]))
	}
	return e, nil
}

// appendExtra codes the postings of a term only new documents have.
func (m *merge) appendExtra(e *encoded, ps []posting) int {
	prev := uint32(0)
	for _, p := range ps {
		e.postings = appendPosting(e.postings, p.doc-prev, p.tf)
		prev = p.doc
	}
	return len(ps)
}

// appendTerm codes parent term t's postings renumbered, merged with the
// new documents' (extra), and returns how many there are. The postings of
// documents below lo are copied as they are; those between lo and hi are
// decoded and renumbered; of those from hi on, the first gets its gap
// from the posting before it and the others are copied.
func (m *merge) appendTerm(e *encoded, t int, extra []posting) (int, error) {
	ix := m.parent
	p := ix.postings[ix.postOff[t]:ix.postOff[t+1]]
	df := int(ix.df[t])
	read, at := 0, 0 // parent postings read, and their bytes
	doc := uint64(0) // the parent document of the last posting read
	next := func() (d, tf uint64, k int, err error) {
		gap, tf, k := nextPosting(p[at:])
		if k <= 0 || read == df {
			return 0, 0, 0, corrupt("term %d: bad posting", t)
		}
		return doc + gap, tf, k, nil
	}
	for read < df {
		d, _, k, err := next()
		if err != nil {
			return 0, err
		}
		if d >= uint64(m.lo) {
			break
		}
		doc, at, read = d, at+k, read+1
	}
	e.postings = append(e.postings, p[:at]...)
	n := read
	prev, started := doc, read > 0
	emit := func(d, tf uint64) {
		gap := d
		if started {
			gap = d - prev
		}
		e.postings = appendPosting(e.postings, uint32(gap), uint32(tf))
		prev, started = d, true
		n++
	}
	x := 0
	for read < df {
		d, tf, k, err := next()
		if err != nil {
			return 0, err
		}
		if d >= uint64(m.hi) {
			break
		}
		doc, at, read = d, at+k, read+1
		nd := m.old2new[d]
		if nd < 0 {
			continue
		}
		for ; x < len(extra) && extra[x].doc < uint32(nd); x++ {
			emit(uint64(extra[x].doc), uint64(extra[x].tf))
		}
		emit(uint64(nd), tf)
	}
	for ; x < len(extra); x++ {
		emit(uint64(extra[x].doc), uint64(extra[x].tf))
	}
	if read < df {
		d, tf, k, err := next()
		if err != nil {
			return 0, err
		}
		emit(uint64(int64(d)+m.shift), tf)
		at += k
		e.postings = append(e.postings, p[at:]...)
		n += df - read - 1
	}
	return n, nil
}
