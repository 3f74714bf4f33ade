package store

import (
	"math"
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"

	"github.com/vaultgraph/vaultgraph/snapshot/graphdb"
)

// A served snapshot is a large, long-lived heap (a 10,000-note vault's
// note index, link graph and retriever hold about 130 MiB), and requests
// add short-lived garbage on top. With the Go runtime's default (GOGC=100)
// the heap grows to twice what is live before it is collected: the
// garbage of requests would take as much memory as the snapshot. A store
// with Options.TuneHeap therefore sets the runtime's soft memory limit to
// what the open snapshots keep live plus HeapHeadroom, after every swap
// and again when a retired snapshot closes. While a snapshot
// loads, collections wait until the heap has grown by LoadAllowance
// (GOGC off, the limit raised by that much), so that decoding it (which
// allocates three times what it keeps at 10,000 notes: a seventh of its
// CPU went to collections) is not slowed by them; the garbage is
// returned to the system once the load ends.
// The runtime bounds the time it spends collecting near the limit, so a
// heap that outgrows it costs memory, never a stall.
//
// Between swaps the limit follows the live heap after every collection
// (retune), up to RetuneAllowance above the limit the swap set: what a
// server keeps besides its snapshots grows after the swap (the answer
// cache fills to its 16 MiB, pools warm up), and a limit set once at the
// swap left a served 10,000-note vault under bench.sh's load about 5 MB
// of headroom instead of 64, a collection every 50 computed retrievals.
//
// Each settle and each collection also returns the graph engine's free C
// memory to the system (graphdb.ReleaseMemory).
//
// The limit is process-wide, like the heap: the stores of every vault
// share one tuner. An explicit GOMEMLIMIT in the environment wins, and the
// tuner then only returns freed memory to the system.
type heapTuner struct {
	mu      sync.Mutex
	loading int
	// percent is the GOGC setting to restore once no load is in progress.
	percent int
	// stores counts the stores that tune the heap, so that a store closed
	// last gives the runtime its default back.
	stores int
	// watching is set while a collection sentinel is armed (arm).
	watching bool
	// settled is the limit the last settle set.
	settled int64
	// retired counts the snapshots replaced by a swap and still held by
	// requests; headroom is the headroom of the last settle while none
	// was (see limit).
	retired  int
	headroom uint64
}

// RetuneAllowance is how far above the limit set at a swap the limit may
// follow the live heap between swaps: the default answer cache's budget.
// (24 MiB held 344-348 MiB resident at 10,000 notes under load, against
// 338 for 16; the full headroom above the grown heap cut collections
// further but held 378 MiB, past the 350 the server is held to.)
const RetuneAllowance = 16 << 20

// retuned receives (without blocking) after each collection that retuned
// the limit, for the tests.
var retuned = make(chan struct{}, 1)

var tuner heapTuner

// HeapHeadroom is the garbage a store with Options.TuneHeap lets the heap
// hold above what is live: a third of the live heap, at least this (while
// a replaced snapshot is still held by requests, the headroom of the last
// settle with one snapshot open: see heapTuner.limit). Half and 64 MiB
// held a 10,000-note vault's server under bench.sh's mixed load with
// swaps at 340 / 330 MiB (median), 356-361 at the 90th percentile, and at
// 352 in bench.sh's own 90 s run; a third and 48 MiB at 329 / 328 and 340,
// for 4% of the throughput of computed retrievals (1,357-1,364 against
// 1,411-1,422 req/s) and 15% of computed one-hop queries (21,100-21,400
// against 24,800-25,600), in collections. (When sorts over every edge
// held every match, a quarter and 48 MiB had cost 10-25% of the computed
// retrievals.)
const HeapHeadroom = 48 << 20

// headroomOf is the headroom for a live heap of live bytes.
func headroomOf(live uint64) uint64 { return max(live/3, HeapHeadroom) }

// LoadAllowance is how much the heap of a tuned store may grow while
// snapshots load before it is collected, per snapshot loading. A swap
// after an edit decodes a few segments and takes the rest from the served
// snapshot, so it allocates far less than a first load: at 10,000 notes
// under bench.sh's mixed load with 6 swaps, 128 MiB held the resident
// size's 90th percentile at 536-544 MiB against 589-592 for 512 (maximum
// 574-600 against 643-652, median 391-397 against 398-401), and publish
// to first response stayed within its spread (two alternating pairs).
const LoadAllowance = 128 << 20

// userLimit reports whether the environment sets the memory limit.
func userLimit() bool { return os.Getenv("GOMEMLIMIT") != "" }

func (h *heapTuner) register() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.stores++
	if !h.watching {
		h.watching = true
		h.arm()
	}
}

// arm leaves an unreachable sentinel for the next collection to find:
// its finalizer retunes the limit and arms the next one while a store
// tunes the heap.
func (h *heapTuner) arm() {
	runtime.SetFinalizer(new(gcSentinel), func(*gcSentinel) { h.retune() })
}

// gcSentinel is large enough not to be batched with other small objects.
type gcSentinel [64]byte

// retune sets the limit to the live heap plus its headroom after a
// collection, unless a load is in progress or GOMEMLIMIT is set, and
// returns the graph engine's free C memory to the system (outside the
// tuner's lock: it takes the C allocator's). Collections come every
// second or so under load, and a trim with little to return costs about a
// millisecond; between swaps under a mixed load with sorts over every
// edge, the arenas kept 24-54 MiB without it and 16-26 with it.
func (h *heapTuner) retune() {
	if !h.retuneLocked() {
		return
	}
	graphdb.ReleaseMemory()
	select {
	case retuned <- struct{}{}:
	default:
	}
}

// retuneLocked arms the next sentinel and sets the limit; it reports
// whether the store still tunes and no load is in progress.
func (h *heapTuner) retuneLocked() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.stores == 0 {
		h.watching = false
		return false
	}
	h.arm()
	if h.loading > 0 {
		return false
	}
	if !userLimit() {
		debug.SetMemoryLimit(min(h.limit(liveHeapBytes()), h.settled+RetuneAllowance))
	}
	return true
}

func (h *heapTuner) unregister() {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.stores--; h.stores == 0 && !userLimit() {
		debug.SetMemoryLimit(math.MaxInt64)
	}
}

// loadStarted lets the heap grow by LoadAllowance more before the next
// collection, for a snapshot being opened.
func (h *heapTuner) loadStarted() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.loading++
	if userLimit() {
		return
	}
	if h.loading == 1 {
		h.percent = debug.SetGCPercent(-1)
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	debug.SetMemoryLimit(int64(ms.Sys-ms.HeapReleased) + int64(h.loading)*LoadAllowance)
}

// loadEnded gives collections back once no load is in progress; the
// store settles the heap (settle) once the snapshot it loaded is served,
// so that the swap does not wait for a full collection.
func (h *heapTuner) loadEnded() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.loading--
	if h.loading == 0 && !userLimit() {
		debug.SetGCPercent(h.percent)
	}
}

// settle collects, returns freed memory to the system and, unless a load
// is in progress, sets the limit to the live heap plus its headroom.
func (h *heapTuner) settle() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.settleLocked()
}

func (h *heapTuner) settleLocked() {
	// One collection does not free everything a load leaves: what
	// sync.Pools hold (the table reader's buffers) moves to their victim
	// caches, which only the next collection frees, and what is allocated
	// while it marks (the work that follows a swap) counts as live until
	// the next one. Collect before FreeOSMemory's collection, so that the
	// limit follows the snapshots' live heap: at 10,000 notes the one
	// collection measured 199 MB live where there were 141, and the limit
	// came out 87 MB higher than it should.
	// Under load the second collection overcounts in its turn: what
	// requests allocate while it marks counts as live (a swap under a
	// mixed load measured 145 MB live, then 170), and the limit follows the
	// smaller of the two. Each is what the collection could not free, so
	// neither is below what is live.
	runtime.GC()
	first := liveHeapBytes()
	releaseMemory()
	if h.loading > 0 || userLimit() {
		return
	}
	live := min(first, liveHeapBytes())
	if h.retired == 0 {
		h.headroom = headroomOf(live)
	}
	h.settled = h.limit(live)
	debug.SetMemoryLimit(h.settled)
}

// retiring counts a snapshot replaced by a swap until it closes
// (retiredClosed).
func (h *heapTuner) retiring() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.retired++
}

func (h *heapTuner) retiredClosed() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.retired--
}

// limit is the memory limit for the live heap now, with a third of it as
// headroom (headroomOf), except while a replaced snapshot is still held by requests:
// its heap is live too but makes no garbage, so the heap keeps the
// headroom the last settle gave it with one snapshot open rather than a
// share of both. Under a mixed load at 10,000 notes, with swaps every few
// seconds and requests that take seconds, two snapshots were open for most
// of the load and half of both gave them 70 MB more headroom.
func (h *heapTuner) limit(live uint64) int64 {
	if h.retired > 0 && h.headroom > 0 {
		return heapLimit(live, h.headroom)
	}
	return heapLimit(live, headroomOf(live))
}

// releaseMemory collects and returns freed memory to the system: the Go
// heap's and the graph engine's C allocator's (a closed database frees
// tens of MiB that glibc would otherwise keep).
func releaseMemory() {
	debug.FreeOSMemory()
	graphdb.ReleaseMemory()
}

// heapLimit is the memory limit for a live heap of live bytes with
// headroom bytes of garbage above it: the heap, its headroom, and what the
// runtime holds besides the heap (stacks, metadata), which the limit
// counts too.
func heapLimit(live, headroom uint64) int64 {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	other := ms.Sys - ms.HeapSys
	return int64(live + headroom + other)
}

// liveHeapBytes is the heap marked live by the last collection.
func liveHeapBytes() uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	return s[0].Value.Uint64()
}
