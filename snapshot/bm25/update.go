package bm25

import (
	"fmt"
)

// Update returns a builder holding the documents of a new index built from
// parent, the index of a parent snapshot: document i of the new index has
// chunk id ids[i], and is parent's document from[i] when from[i] >= 0 (the
// same terms, which Update does not tokenize again) or terms(i) otherwise.
// The documents taken from parent must keep their order (from ascending
// where it is >= 0). WriteFile then writes the same bytes as a Builder
// given every document with Add.
//
// One edited note of 10,000 costs tokenizing its chunks and decoding the
// parent's postings instead of tokenizing every chunk again.
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
	// The parent's postings of the documents kept, renumbered: still
	// ascending, since the kept documents keep their order.
	// Each term's postings get room for all of the parent's documents of
	// the term in two arrays shared by every term (an edit keeps nearly all
	// of them): growing a slice per term was half of an update's time. A
	// term's slice is capped at its room, so that appending to it later
	// copies rather than overwrites the next term's.
	allDocs, allFreqs := make([]uint32, parent.postingsEntries), make([]uint32, parent.postingsEntries)
	room := uint64(0)
	for t := range parent.terms {
		p := parent.postings[parent.postOff[t]:parent.postOff[t+1]]
		df := uint64(parent.df[t])
		docs, freqs := allDocs[room:room:room+df], allFreqs[room:room:room+df]
		room += df
		doc := uint64(0)
		for len(p) > 0 {
			gap, tf, k := nextPosting(p)
			p = p[k:]
			doc += gap
			if nd := old2new[doc]; nd >= 0 {
				docs = append(docs, uint32(nd))
				freqs = append(freqs, uint32(tf))
			}
		}
		if len(docs) == 0 {
			continue
		}
		term := string(parent.term(t))
		b.termID[term] = int32(len(b.terms))
		b.terms = append(b.terms, term)
		b.docs = append(b.docs, docs)
		b.freqs = append(b.freqs, freqs)
	}
	// The new documents' postings, ascending too, merged in per term.
	kept := len(b.terms)
	var extraDocs, extraFreqs [][]uint32
	for i, j := range from {
		if j >= 0 {
			continue
		}
		ts := terms(i)
		seen := b.countTerms(ts)
		for len(extraDocs) < len(b.terms) {
			extraDocs, extraFreqs = append(extraDocs, nil), append(extraFreqs, nil)
		}
		for _, id := range seen {
			n := b.count[id]
			if int(id) >= kept {
				b.docs[id] = append(b.docs[id], uint32(i))
				b.freqs[id] = append(b.freqs[id], n)
				continue
			}
			extraDocs[id] = append(extraDocs[id], uint32(i))
			extraFreqs[id] = append(extraFreqs[id], n)
		}
		b.lengths[i] = uint32(len(ts))
	}
	for id := range min(kept, len(extraDocs)) {
		if len(extraDocs[id]) > 0 {
			b.docs[id], b.freqs[id] = mergePostings(b.docs[id], b.freqs[id], extraDocs[id], extraFreqs[id])
		}
	}
	for _, n := range b.lengths {
		b.total += uint64(n)
	}
	return b, nil
}

// mergePostings merges two ascending posting lists with no document in
// both.
func mergePostings(ad, af, bd, bf []uint32) ([]uint32, []uint32) {
	docs := make([]uint32, 0, len(ad)+len(bd))
	freqs := make([]uint32, 0, len(ad)+len(bd))
	i, j := 0, 0
	for i < len(ad) || j < len(bd) {
		if j == len(bd) || (i < len(ad) && ad[i] < bd[j]) {
			docs, freqs = append(docs, ad[i]), append(freqs, af[i])
			i++
		} else {
			docs, freqs = append(docs, bd[j]), append(freqs, bf[j])
			j++
		}
	}
	return docs, freqs
}
