package retrieve

import (
	"runtime"
	"sync"
)

// scratch is the state of one question that is indexed by chunk or by
// note: what maps held before, as arrays that a later question reuses
// without clearing them. An entry counts only when its stamp is the
// question's generation (candidates has a generation of its own, one per
// note expanded).
type scratch struct {
	gen uint32
	// fit is the memo of chunkFit, by chunk.
	fitAt []uint32
	fit   []float64
	// best is the memo of bestChunk, by note (-1: the note has no chunk).
	bestAt []uint32
	best   []int32
	// member is the index in question.members of a note reached.
	memberAt []uint32
	member   []int32
	// cand is the index in candidates' list of a neighbour, per call.
	candGen uint32
	candAt  []uint32
	cand    []int32
	// cands is candidates' list, reused by each call: its callers are
	// done with one list before they ask for the next.
	cands []candidate
}

func newScratch(chunks, notes int) *scratch {
	return &scratch{
		fitAt: make([]uint32, chunks), fit: make([]float64, chunks),
		bestAt: make([]uint32, notes), best: make([]int32, notes),
		memberAt: make([]uint32, notes), member: make([]int32, notes),
		candAt: make([]uint32, notes), cand: make([]int32, notes),
	}
}

// next starts a question: every entry left by earlier ones stops counting.
func (s *scratch) next() {
	s.gen++
	if s.gen == 0 {
		clear(s.fitAt)
		clear(s.bestAt)
		clear(s.memberAt)
		s.gen = 1
	}
}

// nextCandidates starts a call of candidates.
func (s *scratch) nextCandidates() {
	s.candGen++
	if s.candGen == 0 {
		clear(s.candAt)
		s.candGen = 1
	}
}

// scratchPool keeps the scratch of finished questions for later ones, as
// many as questions usually run at once; it is not emptied by garbage
// collections, so a server under load does not allocate the arrays again
// after each one.
type scratchPool struct {
	mu   sync.Mutex
	free []*scratch
}

func (p *scratchPool) get(chunks, notes int) *scratch {
	p.mu.Lock()
	defer p.mu.Unlock()
	if n := len(p.free); n > 0 {
		s := p.free[n-1]
		p.free = p.free[:n-1]
		return s
	}
	return newScratch(chunks, notes)
}

func (p *scratchPool) put(s *scratch) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.free) < 2*runtime.GOMAXPROCS(0) {
		p.free = append(p.free, s)
	}
}
