package codecontext

import "math"

// lexicon is an in-memory BM25 index over code chunks.
type lexicon struct {
	postings map[string][]posting
	lengths  []int
	avg      float64
}

type posting struct {
	doc int32
	tf  int32
}

const bm25K1, bm25B = 1.2, 0.75

func newLexicon(docs [][]string) *lexicon {
	lx := &lexicon{postings: map[string][]posting{}, lengths: make([]int, len(docs))}
	total := 0
	for d, terms := range docs {
		lx.lengths[d] = len(terms)
		total += len(terms)
		tf := map[string]int32{}
		for _, t := range terms {
			tf[t]++
		}
		for t, n := range tf {
			lx.postings[t] = append(lx.postings[t], posting{int32(d), n})
		}
	}
	if len(docs) > 0 {
		lx.avg = float64(total) / float64(len(docs))
	}
	return lx
}

// scores returns BM25 scores by document for terms (duplicates once).
func (lx *lexicon) scores(terms []string) map[int32]float64 {
	out := map[int32]float64{}
	seen := map[string]bool{}
	n := float64(len(lx.lengths))
	for _, t := range terms {
		if seen[t] {
			continue
		}
		seen[t] = true
		ps := lx.postings[t]
		if len(ps) == 0 {
			continue
		}
		idf := math.Log(1 + (n-float64(len(ps))+0.5)/(float64(len(ps))+0.5))
		for _, p := range ps {
			f := float64(p.tf)
			norm := bm25K1 * (1 - bm25B + bm25B*float64(lx.lengths[p.doc])/math.Max(lx.avg, 1))
			out[p.doc] += idf * f * (bm25K1 + 1) / (f + norm)
		}
	}
	return out
}
