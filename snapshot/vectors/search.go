package vectors

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"unsafe"
)

// ErrDims is returned for a query vector whose dimension is not the
// file's.
var ErrDims = errors.New("query vector dimension differs from the snapshot's vectors")

// Hit is one search result: a row and its cosine similarity to the query.
type Hit struct {
	Row   int
	Score float32
}

// candidate is a node and its distance to the vector being searched for.
type candidate struct {
	id   uint32
	dist float32
}

// searchState is the scratch space of one search, pooled per graph.
type searchState struct {
	visited []uint32 // generation stamp per node
	gen     uint32
	out     []candidate
	entries []candidate
	chosen  []candidate
	nb      []candidate
	batch   []candidate
	links   []uint32
	cands   []candidate
	merged  []candidate // searchLayer's candidates of a batch that entered its list
	ids     []uint32
	// The codes and scale of the vector searched for: a query's int16
	// codes, or while a graph is built the inserted node's own codes.
	qcodes []int16
	qscale float32
	vec    []float32 // scratch: a node's vector
	fine   bool      // compare both planes of the nodes' codes: a build
	bq     buildQuery
	sums   []int32 // scratch of buildDotsBatch
	// computed counts the distances computed by searchLayer, for the
	// benchmarks.
	computed int
}

func (g *Graph) state() *searchState {
	if st, ok := g.states.Get().(*searchState); ok && len(st.visited) == len(g.levels) {
		return st
	}
	return &searchState{visited: make([]uint32, len(g.levels))}
}

func (st *searchState) nextGen() {
	st.gen++
	if st.gen == 0 {
		clear(st.visited)
		st.gen = 1
	}
}

// setQuery makes q the vector searched for.
func (st *searchState) setQuery(g *Graph, q []float32) {
	st.grow(g.codeLen)
	st.fine = false
	st.qscale = encodeQuery(st.qcodes, q)
}

// setNode makes node i's vector the vector searched for, while a graph is
// built: both planes of its codes, compared with both planes of the other
// nodes' codes (buildcodes.go).
func (st *searchState) setNode(g *Graph, i uint32) {
	if bc := g.build; bc != nil {
		c, r := bc.row(i)
		st.bq.set(c, r, bc.cl, useVNNI)
		st.bq.c8, st.bq.ca = st.bq.c8[:0], st.bq.ca[:0]
		if bc.quarters {
			st.bq.setSigned(c, r, bc.cl)
		}
	} else {
		st.bq.set(g.vecs.code(int(i)), g.vecs.fineCode(int(i)), g.codeLen, false)
	}
	st.qscale = g.scales[i]
	st.fine = true
}

func (st *searchState) grow(n int) {
	if cap(st.qcodes) < n {
		st.qcodes = make([]int16, n)
	}
	st.qcodes = st.qcodes[:n]
}

// dist returns the distance of node i from the vector searched for.
func (g *Graph) dist(st *searchState, i uint32) float32 {
	if st.fine {
		var cc, cross int32
		if bc := g.build; bc != nil {
			c, r := bc.row(i)
			sc, sr := bc.sums(i)
			cc, cross = buildDots(&st.bq, c, r, sc, sr)
			if bc.quarters {
				cross *= fineUnit
			}
		} else {
			cc, cross = buildDots(&st.bq, g.vecs.code(int(i)), g.vecs.fineCode(int(i)), 0, 0)
		}
		return 1 - (float32(cc)+float32(cross)*fineStep)*st.qscale*g.scales[i]
	}
	return 1 - float32(dotCodes(g.code(i), st.qcodes))*st.qscale*g.scales[i]
}

// distances sets the distance of every candidate in batch. The loads of
// all their codes are started first, so that they overlap.
func (g *Graph) distances(st *searchState, batch []candidate) {
	lines := (g.codeLen + 63) / 64
	if bc := g.build; bc != nil && st.fine {
		if cap(st.sums) < 2*len(batch) {
			st.sums = make([]int32, 2*cap(batch))
		}
		if buildDotsBatch(&st.bq, bc, batch, st.sums) {
			for k := range batch {
				cc, cross := st.sums[2*k], st.sums[2*k+1]
				batch[k].dist = 1 - (float32(cc)+float32(cross)*fineStep)*st.qscale*g.scales[batch[k].id]
			}
			st.computed += len(batch)
			return
		}
		for _, b := range batch {
			prefetchLines(&bc.rows[int(b.id)*2*bc.cl], 2*bc.cl/64)
		}
		lines = 0
	}
	if !st.fine {
		if cap(st.sums) < len(batch) {
			st.sums = make([]int32, cap(batch))
		}
		if dotCodesBatch(st.qcodes, g.codes, g.codeStride, batch, st.sums) {
			for k := range batch {
				batch[k].dist = 1 - float32(st.sums[k])*st.qscale*g.scales[batch[k].id]
			}
			st.computed += len(batch)
			return
		}
	}
	for _, b := range batch {
		if lines == 0 {
			break
		}
		prefetchLines(&g.codes[int(b.id)*g.codeStride], lines)
		if st.fine {
			prefetchLines(&g.vecs.fine[int(b.id)*g.codeLen], lines)
		}
	}
	for i := range batch {
		batch[i].dist = g.dist(st, batch[i].id)
	}
	st.computed += len(batch)
}

// greedy walks level l from ep to the closest node it can reach.
func (g *Graph) greedy(ep candidate, l int, st *searchState) candidate {
	for changed := true; changed; {
		changed = false
		for _, n := range g.neighbours(ep.id, l, st) {
			if d := g.dist(st, n); d < ep.dist {
				ep, changed = candidate{n, d}, true
			}
		}
	}
	return ep
}

// searchLayer is HNSW's SEARCH-LAYER: a beam search of width ef on level l
// from the entry candidates, for the vector of st. It returns up to ef
// candidates, closest first, in st.out.
//
// The beam is one list of the ef closest candidates seen, sorted, each
// marked once expanded, rather than the paper's two heaps: expanding the
// closest candidate not yet expanded until every one is, it visits the
// same nodes in the same order (a candidate pushed out of the ef closest
// would only stop the heaps' search), at a fraction of the heaps' cost.
func (g *Graph) searchLayer(entries []candidate, ef, l int, st *searchState) []candidate {
	st.nextGen()
	list := st.out[:0]
	if cap(list) < ef+1+g.m0 { // room for a batch to merge (mergeBatch)
		list = make([]candidate, 0, ef+1+g.m0)
	}
	for _, e := range entries {
		if st.visited[e.id] == st.gen {
			continue
		}
		st.visited[e.id] = st.gen
		list, _ = offer(list, e, ef)
	}
	for i := 0; i < len(list); {
		c := list[i].id
		list[i].id |= expanded
		// Distances first, list updates after: independent loads of the
		// neighbours' codes overlap instead of waiting on each other.
		batch := st.batch[:0]
		for _, n := range g.neighbours(c, l, st) {
			if st.visited[n] != st.gen {
				st.visited[n] = st.gen
				batch = append(batch, candidate{id: n})
			}
		}
		g.distances(st, batch)
		st.batch = batch
		next := i + 1
		var at int
		if list, at = mergeBatch(list, batch, ef, st); at < next {
			next = at
		}
		if l == 0 && g.build != nil {
			// The new entries may be expanded soon: start loading their
			// first links (nodes keep about a third of M0).
			for _, b := range st.merged {
				prefetchLines((*byte)(unsafe.Pointer(&g.level0[int(b.id)*g.stride0+g.off0])), 2)
			}
		}
		for i = next; i < len(list) && list[i].id&expanded != 0; i++ {
		}
	}
	for i := range list {
		list[i].id &^= expanded
	}
	st.out = list
	return list
}

// expanded marks a candidate of searchLayer's list whose neighbours were
// visited (node ids are below 2^31: a file holds fewer rows).
const expanded = 1 << 31

// mergeBatch puts the candidates of batch that are among the ef closest
// into list (sorted closest first, at most ef long), and returns the list
// and the first position a candidate of batch went to (len(list) when
// none did). The list is the one offering them one after the other would
// leave: the ef first by distance, ties keeping the earlier candidate (the
// list's before batch's, batch's in order) first. Candidates that cannot
// enter are dropped by one comparison, and the ones left are sorted and
// merged in one pass from the back instead of each shifting the list's
// tail. st.merged holds the candidates that entered, for the caller.
func mergeBatch(list, batch []candidate, ef int, st *searchState) ([]candidate, int) {
	acc := st.merged[:0]
	n := len(list)
	for _, c := range batch {
		if n >= ef && c.dist >= list[n-1].dist {
			continue
		}
		// Insertion sort, stable: few candidates of a batch enter.
		k := len(acc)
		acc = append(acc, c)
		for k > 0 && acc[k-1].dist > c.dist {
			acc[k] = acc[k-1]
			k--
		}
		acc[k] = c
	}
	st.merged = acc
	if len(acc) == 0 {
		return list, n
	}
	total := n + len(acc)
	if cap(list) < total {
		grown := make([]candidate, n, max(total, ef+1+cap(batch)))
		copy(grown, list)
		list = grown
	}
	list = list[:total]
	kept := min(total, ef) // the list's length after the merge
	entered := len(acc)    // how many of acc stay in it
	w, i, j := total-1, n-1, len(acc)-1
	for j >= 0 {
		if i >= 0 && list[i].dist > acc[j].dist {
			list[w] = list[i]
			i--
		} else {
			list[w] = acc[j]
			if w >= kept {
				entered = j
			}
			j--
		}
		w--
	}
	first := w + 1 // where acc[0] went
	list = list[:kept]
	st.merged = acc[:entered]
	if entered == 0 {
		return list, kept
	}
	return list, first
}

// offer inserts c into list, sorted closest first and at most ef long,
// when it is among the ef closest, and returns the list and where c went
// (len(list) when it did not). Ties keep the earlier candidate first.
func offer(list []candidate, c candidate, ef int) ([]candidate, int) {
	n := len(list)
	if n >= ef && c.dist >= list[n-1].dist {
		return list, n
	}
	lo, hi := 0, n
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if list[m].dist <= c.dist {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if n < ef {
		list = list[:n+1]
	}
	copy(list[lo+1:], list[lo:len(list)-1])
	list[lo] = c
	return list, lo
}

// Search returns up to k rows approximately nearest to q, best first,
// exploring a beam of ef (the graph's EfSearch when ef <= 0; never less
// than k). q must be a unit vector of the graph's dimension. The walk
// compares q with the nodes' int8 codes; the best candidates it ends with
// are ranked on both planes of their codes, the similarity Hit.Score
// reports and an exact scan of the file (File.Search) computes. Search is
// safe for concurrent use on a graph read with OpenGraph.
func (g *Graph) Search(q []float32, k, ef int) ([]Hit, error) {
	hits, _, err := g.search(q, k, ef)
	return hits, err
}

// search is Search, and also returns the number of nodes whose distance
// to q it computed on level 0.
func (g *Graph) search(q []float32, k, ef int) ([]Hit, int, error) {
	if len(q) != g.vecs.Dims() && g.vecs.Len() > 0 {
		return nil, 0, fmt.Errorf("%w: %d, want %d", ErrDims, len(q), g.vecs.Dims())
	}
	if g.size == 0 || k <= 0 {
		return nil, 0, nil
	}
	if ef <= 0 {
		ef = g.efS
	}
	ef = max(ef, k)
	st := g.state()
	defer g.states.Put(st)
	st.setQuery(g, q)
	ep := candidate{g.entry, g.dist(st, g.entry)}
	for l := g.top; l > 0; l-- {
		ep = g.greedy(ep, l, st)
	}
	st.computed = 0
	found := g.searchLayer(append(st.entries[:0], ep), ef, 0, st)
	found = g.rerank(st, found[:min(len(found), rerankCount(k))])
	if len(found) > k {
		found = found[:k]
	}
	out := make([]Hit, len(found))
	for i, c := range found {
		out[i] = Hit{Row: int(c.id), Score: 1 - c.dist}
	}
	return out, st.computed, nil
}

// rerankCount is how many of the candidates a walk found, best first by
// their int8 codes, are scored again on both planes of their codes to
// return k. The int8 codes' error (a few thousandths of similarity) is
// small against the differences that matter, so the true k best are among
// the first few more than k: on the benchmarks' three data sets,
// re-ranking every candidate finds no more at any beam width.
func rerankCount(k int) int { return 2*k + 20 }

// rerank sets the distance of every candidate from both planes of its
// codes and sorts them by it.
func (g *Graph) rerank(st *searchState, found []candidate) []candidate {
	lines := (g.codeLen + 63) / 64
	for _, c := range found {
		prefetchLines(&g.vecs.fine[int(c.id)*g.codeLen], lines)
	}
	for i, c := range found {
		found[i].dist = 1 - g.vecs.queryDot(int(c.id), st.qcodes)*st.qscale*g.scales[c.id]
	}
	slices.SortFunc(found, compareCandidates)
	return found
}

// Search scans the file exactly, comparing q with every row's codes (both
// planes: within about 1e-5 of the float32 similarity), and
// returns the k rows most similar to q, best first. With rows non-nil only
// those rows are scanned; they must be distinct, and rows out of range are
// skipped. Ties are broken by row so results are deterministic.
func (f *File) Search(q []float32, k int, rows []int) ([]Hit, error) {
	if len(q) != f.dims && f.count > 0 {
		return nil, fmt.Errorf("%w: %d, want %d", ErrDims, len(q), f.dims)
	}
	if k <= 0 {
		return nil, nil
	}
	qc := make([]int16, f.codeLen)
	qs := encodeQuery(qc, q)
	score := func(i int) float32 { return f.queryDot(i, qc) * qs * f.scales[i] }
	top := make(topK, 0, k+1)
	if rows == nil {
		for i := range f.count {
			top.offer(k, i, score(i))
		}
	} else {
		for _, i := range rows {
			if i >= 0 && i < f.count {
				top.offer(k, i, score(i))
			}
		}
	}
	return top.sorted(), nil
}

// topK keeps the k best hits seen, worst on top of a min-heap by score.
type topK []Hit

func (t *topK) offer(k, row int, score float32) {
	s := *t
	if len(s) == k && !better(Hit{row, score}, s[0]) {
		return
	}
	if len(s) == k {
		s[0] = Hit{row, score}
	} else {
		s = append(s, Hit{row, score})
		// sift up
		i := len(s) - 1
		for i > 0 {
			p := (i - 1) / 2
			if !better(s[p], s[i]) {
				break
			}
			s[p], s[i] = s[i], s[p]
			i = p
		}
		*t = s
		return
	}
	// sift down from the root
	i, n := 0, len(s)
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		c := l
		if r := l + 1; r < n && better(s[l], s[r]) {
			c = r
		}
		if !better(s[i], s[c]) {
			break
		}
		s[i], s[c] = s[c], s[i]
		i = c
	}
}

func better(a, b Hit) bool {
	if a.Score != b.Score {
		return a.Score > b.Score
	}
	return a.Row < b.Row
}

func (t topK) sorted() []Hit {
	out := append([]Hit(nil), t...)
	sort.Slice(out, func(i, j int) bool { return better(out[i], out[j]) })
	return out
}
