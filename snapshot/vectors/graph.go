package vectors

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"math/rand"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/vaultgraph/vaultgraph/format"
)

// Params shape an HNSW graph.
type Params struct {
	// M is the number of neighbours a node keeps on levels >= 1, and the
	// number chosen for a node when it is inserted.
	M int
	// M0 is the number of neighbours a node keeps on level 0 (2*M is usual).
	M0 int
	// EfConstruction is the beam width of the searches that insert a node:
	// larger builds a better graph, more slowly.
	EfConstruction int
	// EfSearch is the default beam width of queries: larger finds more of
	// the true nearest neighbours, more slowly.
	EfSearch int
}

// DefaultParams are tuned on the benchmarks of this package: at 100,000
// vectors of 384 dimensions with the low intrinsic dimension of semantic
// embeddings, recall@10 of about 0.97 at EfSearch 96, and a build that is
// three times faster than with EfConstruction 200 at the same recall.
// Lexical vectors (the builtin embedder) need a wider search; see
// LexicalEfSearch.
func DefaultParams() Params {
	return Params{M: 24, M0: 48, EfConstruction: 100, EfSearch: 96}
}

// LexicalEfSearch is the query beam width that gives recall@10 >= 0.95 on
// vectors of the builtin lexical embedder: measured 0.956 on 20,000 chunks
// of real notes queried with their first eight words, against 0.91 at 128.
// The default builtin embedder (static word vectors plus lexical features)
// needs it too: 0.956 at 256, 0.93 at 128, 0.91 at 96.
// The graph itself is easy to search (queried with whole chunks, 0.97 at
// 64); a query of a few words is not like any chunk, and is close only to
// chunks that share its rare words, which the graph's links, chosen
// between chunks, do not lead to directly.
const LexicalEfSearch = 256

// Manifest returns p as recorded in a snapshot manifest.
func (p Params) Manifest() format.HNSW {
	return format.HNSW{M: p.M, M0: p.M0, EfConstruction: p.EfConstruction, EfSearch: p.EfSearch, Distance: format.DistanceCosine}
}

// ParamsFromManifest returns the parameters a manifest records.
func ParamsFromManifest(h format.HNSW) Params {
	return Params{M: h.M, M0: h.M0, EfConstruction: h.EfConstruction, EfSearch: h.EfSearch}
}

func (p Params) check() error {
	if p.M < 2 || p.M > maxLinks || p.M0 < p.M || p.M0 > maxLinks || p.EfConstruction < 1 || p.EfSearch < 1 {
		return fmt.Errorf("invalid HNSW parameters %+v: want 2 <= M <= M0 <= %d and positive ef", p, maxLinks)
	}
	return nil
}

const (
	noNode   = math.MaxUint32
	absent   = 0xFF // level of a row not (yet) in the graph
	maxLevel = 15
	maxLinks = 256
)

// Graph is an HNSW graph over the rows of a vector File: node i is row i.
// A graph read with OpenGraph is used in place from its memory map and is
// safe for concurrent Search; a graph being built (Build, Update) is not.
type Graph struct {
	vecs     *File
	m, m0    int
	efC, efS int
	levels   []uint8  // per node; absent while a row is not inserted
	first    []uint32 // per node: first upper slot, noNode for level 0
	// level0 holds a record of stride0 words per node; its links on level
	// 0 (a count, then m0 ids) start at word off0 of the record. In a
	// graph read from a file of layout 4, records are only as long as
	// their links (a count, then that many ids) and offs0 holds the word
	// where each node's record starts.
	level0        []uint32
	stride0, off0 int
	offs0         []uint32
	upper         []uint32 // per slot: count, then m ids
	// codes holds per node, codeStride bytes apart, codeLen int8 codes of
	// its vector, and scales their scale: the vector file's (codes.go).
	// Builds and searches compare them.
	codes               []byte
	codeStride, codeLen int
	scales              []float32
	entry               uint32
	top                 int
	size                int // nodes present
	rng                 *rand.Rand
	mapped              []byte
	states              sync.Pool // *searchState
	// build is the codes' copy of a running Build (buildcodes.go), nil
	// otherwise.
	build *buildCodes
	// Only while Build runs with several workers: one lock per node, and
	// one for the entry node and top level.
	locks   []sync.Mutex
	entryMu sync.Mutex
	// closed0 is, only while Build runs (and M0 <= 64), per node a mask
	// of the links on level 0 that the heuristic kept together at the
	// node's last re-selection (addLink): bit k for the k-th link.
	closed0 []uint64
}

func newGraph(vecs *File, p Params) *Graph {
	n := vecs.Len()
	g := &Graph{
		vecs: vecs, m: p.M, m0: p.M0, efC: p.EfConstruction, efS: p.EfSearch,
		levels: make([]uint8, n), first: make([]uint32, n), level0: make([]uint32, n*(1+p.M0)),
		stride0: 1 + p.M0, entry: noNode,
		// A fixed seed makes a build reproducible from the same rows.
		rng: rand.New(rand.NewSource(1)),
	}
	g.useCodes()
	for i := range g.levels {
		g.levels[i] = absent
		g.first[i] = noNode
	}
	return g
}

// Build inserts every row of vecs into a new graph, with up to workers
// goroutines (at least one). Node levels are drawn from a fixed seed in
// row order; with one worker the whole graph is reproducible, with more
// the links depend on scheduling. It checks ctx every few hundred rows and
// calls progress (if not nil, never concurrently) with the rows done.
func Build(ctx context.Context, vecs *File, p Params, workers int, progress func(done int)) (*Graph, error) {
	if err := p.check(); err != nil {
		return nil, err
	}
	if vecs.Len() >= expanded {
		return nil, fmt.Errorf("build graph: %d rows, more than a graph holds (%d)", vecs.Len(), expanded-1)
	}
	g := newGraph(vecs, p)
	n := vecs.Len()
	levels := make([]int, n)
	for i := range levels {
		levels[i] = g.randomLevel()
		g.place(uint32(i), levels[i])
	}
	if workers > 1 && n > 1 {
		g.locks = make([]sync.Mutex, n)
	}
	if g.m0 <= 64 && closedReselection {
		g.closed0 = make([]uint64, n)
	}
	g.build = newBuildCodes(vecs)
	defer func() {
		g.build.release()
		g.build = nil
	}()
	var (
		next     atomic.Int64
		done     atomic.Int64
		progMu   sync.Mutex
		wg       sync.WaitGroup
		canceled atomic.Bool
	)
	for range max(workers, 1) {
		wg.Go(func() {
			st := g.state()
			defer g.states.Put(st)
			for {
				i := int(next.Add(1)) - 1
				if i >= n || canceled.Load() {
					return
				}
				if i%256 == 0 && ctx.Err() != nil {
					canceled.Store(true)
					return
				}
				g.link(uint32(i), levels[i], st)
				if d := done.Add(1); progress != nil && d%256 == 0 {
					progMu.Lock()
					progress(int(d))
					progMu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	g.locks, g.closed0 = nil, nil
	g.size = n
	if progress != nil {
		progress(n)
	}
	return g, nil
}

// Len returns the number of nodes.
func (g *Graph) Len() int { return g.size }

// Params returns the graph's parameters.
func (g *Graph) Params() Params {
	return Params{M: g.m, M0: g.m0, EfConstruction: g.efC, EfSearch: g.efS}
}

// Close releases the memory map of a graph read with OpenGraph.
func (g *Graph) Close() error {
	m := g.mapped
	g.mapped, g.level0, g.offs0, g.upper, g.codes, g.scales = nil, nil, nil, nil, nil, nil
	return unmap(m)
}

// useCodes points the graph at its vector file's codes.
func (g *Graph) useCodes() {
	g.codes, g.scales = g.vecs.codes, g.vecs.scales
	g.codeLen, g.codeStride = g.vecs.codeLen, g.vecs.codeLen
}

// code returns node i's codes.
func (g *Graph) code(i uint32) []byte {
	b := int(i) * g.codeStride
	return g.codes[b : b+g.codeLen : b+g.codeLen]
}

// pairDist is the distance between nodes i and j, from their int8 codes.
func (g *Graph) pairDist(i, j uint32) float32 {
	if bc := g.build; bc != nil {
		ci, _ := bc.row(i)
		cj, _ := bc.row(j)
		if bc.quarters {
			return 1 - float32(dotCodes8Fit(ci, cj))*g.scales[i]*g.scales[j]
		}
		sj, _ := bc.sums(j)
		return 1 - float32(pairCodes(ci, cj, sj))*g.scales[i]*g.scales[j]
	}
	return 1 - float32(dotCodes8(g.code(i), g.code(j)))*g.scales[i]*g.scales[j]
}

func (g *Graph) capacity(l int) int {
	if l == 0 {
		return g.m0
	}
	return g.m
}

// slot returns the count-prefixed neighbour slot of node i on level l.
func (g *Graph) slot(i uint32, l int) []uint32 {
	if l == 0 {
		if g.offs0 != nil {
			b := int(g.offs0[i])
			return g.level0[b : b+1+int(g.level0[b])]
		}
		b := int(i)*g.stride0 + g.off0
		return g.level0[b : b+1+g.m0]
	}
	b := (int(g.first[i]) + l - 1) * (1 + g.m)
	return g.upper[b : b+1+g.m]
}

func (g *Graph) links(i uint32, l int) []uint32 {
	s := g.slot(i, l)
	return s[1 : 1+s[0]]
}

func (g *Graph) setLinks(i uint32, l int, ids []uint32) {
	s := g.slot(i, l)
	s[0] = uint32(copy(s[1:], ids))
	clear(s[1+s[0]:])
	if l == 0 && g.closed0 != nil {
		g.closed0[i] = 0
	}
}

func (g *Graph) randomLevel() int {
	ml := 1 / math.Log(float64(g.m))
	l := int(-math.Log(1-g.rng.Float64()) * ml)
	return min(l, maxLevel)
}

// place gives node i level l and its upper slots.
func (g *Graph) place(i uint32, l int) {
	g.levels[i] = uint8(l)
	if l > 0 {
		g.first[i] = uint32(len(g.upper) / (1 + g.m))
		g.upper = append(g.upper, make([]uint32, l*(1+g.m))...)
	}
}

// insert adds row i at a random level, for graphs built one row at a time
// (Update).
func (g *Graph) insert(i uint32, st *searchState) {
	level := g.randomLevel()
	g.place(i, level)
	g.link(i, level, st)
	g.size++
}

// link connects node i, already placed on level, into the graph: HNSW's
// INSERT with the neighbour-selection heuristic. With g.locks set it may run
// concurrently with other calls: every node's links are read and written
// under that node's lock, the entry node under entryMu.
func (g *Graph) link(i uint32, level int, st *searchState) {
	g.entryMu.Lock()
	if g.entry == noNode {
		g.entry, g.top = i, level
		g.entryMu.Unlock()
		return
	}
	entry, top := g.entry, g.top
	g.entryMu.Unlock()
	st.setNode(g, i)
	ep := candidate{entry, g.dist(st, entry)}
	for l := top; l > level; l-- {
		ep = g.greedy(ep, l, st)
	}
	entries := append(st.entries[:0], ep)
	for l := min(top, level); l >= 0; l-- {
		// The walk compares both planes of the codes (setNode): graphs
		// built on the int8 codes alone found 0.01-0.02 fewer of the
		// true neighbours, and with only the candidates ranked on both
		// planes 0.002 fewer at efSearch 96 and 128 (BenchmarkRealTextStatic20k),
		// for a quarter less CPU. Both planes cost little more than
		// one: leaving the residuals out for the candidates a
		// Cauchy-Schwarz bound shows cannot enter the beam (two thirds
		// of all at 40,000 chunks, the same graph) saved no measurable
		// CPU (4.5-5.1 s against 4.5-4.6 s per build): what a candidate
		// costs is reaching its row, not the row's size.
		found := g.searchLayer(entries, g.efC, l, st)
		// addLink reuses st.chosen, so keep the choice in its own buffer.
		st.nb = append(st.nb[:0], g.selectNeighbors(found, g.m, &st.chosen)...)
		st.ids = st.ids[:0]
		for _, c := range st.nb {
			st.ids = append(st.ids, c.id)
		}
		g.lock(i)
		g.setLinks(i, l, st.ids)
		g.unlock(i)
		for _, c := range st.nb {
			g.addLink(c.id, i, c.dist, l, st)
		}
		entries = append(entries[:0], found...)
	}
	st.entries = entries
	if level > top {
		g.entryMu.Lock()
		if level > g.top {
			g.entry, g.top = i, level
		}
		g.entryMu.Unlock()
	}
}

func (g *Graph) lock(i uint32) {
	if g.locks != nil {
		g.locks[i].Lock()
	}
}

func (g *Graph) unlock(i uint32) {
	if g.locks != nil {
		g.locks[i].Unlock()
	}
}

// neighbours returns node i's links on level l: the slot itself, or while a
// concurrent build runs, a copy taken under the node's lock.
func (g *Graph) neighbours(i uint32, l int, st *searchState) []uint32 {
	if g.locks == nil {
		return g.links(i, l)
	}
	g.locks[i].Lock()
	st.links = append(st.links[:0], g.links(i, l)...)
	g.locks[i].Unlock()
	return st.links
}

// addLink adds node j to node i's neighbours on level l, re-selecting
// them with the heuristic when i's slot is full.
func (g *Graph) addLink(i, j uint32, d float32, l int, st *searchState) {
	g.lock(i)
	defer g.unlock(i)
	s := g.slot(i, l)
	if n := int(s[0]); n < len(s)-1 {
		s[1+n] = j
		s[0]++
		return
	}
	cands := append(st.cands[:0], candidate{j, d})
	if l == 0 && g.closed0 != nil && g.build != nil {
		// The links kept together last time are marked (expanded, which
		// sorting ignores): the heuristic need not compare them again.
		closed := g.closed0[i]
		for k, x := range s[1:] {
			if closed>>k&1 != 0 {
				x |= expanded
			}
			cands = append(cands, candidate{x, g.pairDist(i, x&^expanded)})
		}
		slices.SortFunc(cands, compareUnmarked)
		chosen := g.selectClosed(cands, len(s)-1, &st.chosen)
		st.ids = st.ids[:0]
		for _, c := range chosen {
			st.ids = append(st.ids, c.id&^expanded)
		}
		g.setLinks(i, l, st.ids)
		// Now all of them were kept together, but j, whose distance was
		// the search's (both planes) rather than pairDist's.
		closed = 0
		for k, c := range chosen {
			if c.id != j {
				closed |= 1 << k
			}
		}
		g.closed0[i] = closed
		st.cands = cands
		return
	}
	for _, x := range s[1:] {
		cands = append(cands, candidate{x, g.pairDist(i, x)})
	}
	sortCandidates(cands)
	chosen := g.selectNeighbors(cands, len(s)-1, &st.chosen)
	st.ids = st.ids[:0]
	for _, c := range chosen {
		st.ids = append(st.ids, c.id)
	}
	g.setLinks(i, l, st.ids)
	st.cands = cands
}

// selectClosed is selectNeighbors in a build, for the re-selection of a
// node's links on level 0 (addLink), where cands marked (expanded) are
// links the heuristic kept together at the node's last re-selection, with
// the same distances (pairDist, deterministic): each of them was kept
// then against every marked one closer to the node, so it is compared
// here only with the unmarked ones kept before it. The choice is the one
// selectNeighbors makes, for a fraction of the comparisons (the 10,000-note
// vault re-selects about one node per insert, keeping 45 of 49).
func (g *Graph) selectClosed(cands []candidate, m int, buf *[]candidate) []candidate {
	bc := g.build
	out := (*buf)[:0]
	for _, c := range cands {
		if len(out) >= m {
			break
		}
		good := true
		cid := c.id &^ expanded
		ci, _ := bc.row(cid)
		sc := g.scales[cid]
		for _, r := range out {
			if c.id&r.id&expanded != 0 {
				continue
			}
			rid := r.id &^ expanded
			cr, _ := bc.row(rid)
			var dot int32
			if bc.quarters {
				dot = dotCodes8Fit(ci, cr)
			} else {
				sr, _ := bc.sums(rid)
				dot = pairCodes(ci, cr, sr)
			}
			if 1-float32(dot)*sc*g.scales[rid] < c.dist {
				good = false
				break
			}
		}
		if good {
			out = append(out, c)
		}
	}
	*buf = out
	return out
}

// closedReselection lets a test build without selectClosed.
var closedReselection = true

// compareUnmarked is compareCandidates ignoring the mark expanded.
func compareUnmarked(a, b candidate) int {
	a.id &^= expanded
	b.id &^= expanded
	return compareCandidates(a, b)
}

// selectNeighbors keeps, from cands sorted closest first, up to m that are
// each closer to the base node than to any neighbour already kept (HNSW's
// heuristic): links then reach in several directions instead of
// clustering, which keeps clustered data (many similar chunks) connected.
func (g *Graph) selectNeighbors(cands []candidate, m int, buf *[]candidate) []candidate {
	out := (*buf)[:0]
	for _, c := range cands {
		if len(out) >= m {
			break
		}
		good := true
		if bc := g.build; bc != nil {
			// pairDist, with c's codes looked up once
			ci, _ := bc.row(c.id)
			sc := g.scales[c.id]
			for _, r := range out {
				cr, _ := bc.row(r.id)
				var dot int32
				if bc.quarters {
					dot = dotCodes8Fit(ci, cr)
				} else {
					sr, _ := bc.sums(r.id)
					dot = pairCodes(ci, cr, sr)
				}
				if 1-float32(dot)*sc*g.scales[r.id] < c.dist {
					good = false
					break
				}
			}
		} else {
			for _, r := range out {
				if g.pairDist(c.id, r.id) < c.dist {
					good = false
					break
				}
			}
		}
		if good {
			out = append(out, c)
		}
	}
	*buf = out
	return out
}

func sortCandidates(c []candidate) { slices.SortFunc(c, compareCandidates) }

// compareCandidates orders by distance, then by id.
func compareCandidates(a, b candidate) int {
	if a.dist != b.dist {
		if a.dist < b.dist {
			return -1
		}
		return 1
	}
	return cmp.Compare(a.id, b.id)
}
