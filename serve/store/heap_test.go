package store

import (
	"context"
	"math"
	"runtime"
	"runtime/debug"
	"sync"
	"testing"
)

// TestTuneHeap: a store that tunes the heap sets the runtime's memory
// limit to the live heap plus its headroom once a snapshot is served,
// lowers it again after a swap, leaves a GOMEMLIMIT from the environment
// alone, and gives the default back when it closes.
func TestTuneHeap(t *testing.T) {
	current := func() int64 { return debug.SetMemoryLimit(-1) }
	defer debug.SetMemoryLimit(current())
	debug.SetMemoryLimit(math.MaxInt64)

	t.Run("tuned", func(t *testing.T) {
		t.Setenv("GOMEMLIMIT", "")
		f := newFixture(t)
		f.publish()
		st, err := New(f.data, Options{TuneHeap: true})
		if err != nil {
			t.Fatal(err)
		}
		refresh(t, st)
		limit, live := current(), liveHeapBytes()
		if limit == math.MaxInt64 || uint64(limit) < live+HeapHeadroom || uint64(limit) > 2*live+4*HeapHeadroom {
			t.Errorf("memory limit %d after the first snapshot; live heap %d, headroom %d", limit, live, HeapHeadroom)
		}
		gcPercent := func() int { p := debug.SetGCPercent(-1); debug.SetGCPercent(p); return p }
		before := gcPercent()
		tuner.loadStarted()
		loading := current()
		if got := gcPercent(); got != -1 || loading < limit+LoadAllowance/2 {
			t.Errorf("while loading: GOGC %d, memory limit %d; want collections off up to %d more", got, current(), LoadAllowance)
		}
		tuner.loadEnded()
		if got := gcPercent(); got != before {
			t.Errorf("after loading: GOGC %d, want %d back", got, before)
		}
		f.publish()
		refresh(t, st)
		if got := current(); got >= loading {
			t.Errorf("memory limit %d after a swap, not lowered from %d while loading", got, loading)
		}
		if err := st.Close(context.Background()); err != nil {
			t.Fatal(err)
		}
		if got := current(); got != math.MaxInt64 {
			t.Errorf("memory limit %d after the store closed, want the default", got)
		}
	})
	t.Run("follows the live heap", func(t *testing.T) {
		t.Setenv("GOMEMLIMIT", "")
		f := newFixture(t)
		f.publish()
		st, err := New(f.data, Options{TuneHeap: true})
		if err != nil {
			t.Fatal(err)
		}
		refresh(t, st)
		settled := current()
		// What the server keeps besides its snapshot grows (an answer
		// cache filling): the limit grows with it after a collection, up
		// to RetuneAllowance more.
		held := make([]byte, 2*RetuneAllowance)
		for i := 0; i < len(held); i += 4096 {
			held[i] = 1
		}
		for current() != settled+RetuneAllowance {
			if got := current(); got > settled+RetuneAllowance {
				t.Fatalf("memory limit %d, more than %d above the %d set at the swap", got, RetuneAllowance, settled)
			}
			runtime.GC()
			<-retuned
		}
		runtime.KeepAlive(held)
		held = nil
		for current() >= settled+RetuneAllowance/2 {
			runtime.GC()
			<-retuned
		}
		if err := st.Close(context.Background()); err != nil {
			t.Fatal(err)
		}
		runtime.GC()
		if got := current(); got != math.MaxInt64 {
			t.Errorf("memory limit %d after the store closed and a collection, want the default", got)
		}
	})
	t.Run("GOMEMLIMIT set", func(t *testing.T) {
		t.Setenv("GOMEMLIMIT", "1GiB")
		const mine = 3 << 30
		debug.SetMemoryLimit(mine)
		f := newFixture(t)
		f.publish()
		st, err := New(f.data, Options{TuneHeap: true})
		if err != nil {
			t.Fatal(err)
		}
		refresh(t, st)
		if got := current(); got != mine {
			t.Errorf("memory limit %d with GOMEMLIMIT set, want it left at %d", got, mine)
		}
		if err := st.Close(context.Background()); err != nil {
			t.Fatal(err)
		}
		if got := current(); got != mine {
			t.Errorf("memory limit %d after close with GOMEMLIMIT set, want %d", got, mine)
		}
	})
}

// pooled is a buffer pool like the table reader's, which a load fills.
var pooled sync.Pool

// TestSettleIgnoresPooledBuffers: the limit a settled heap gets follows
// what is live, not the buffers a load left in sync.Pools (which survive
// one collection in the pools' victim caches).
func TestSettleIgnoresPooledBuffers(t *testing.T) {
	t.Setenv("GOMEMLIMIT", "")
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	const size = 256 << 20
	put := func() {
		buf := make([]byte, size)
		pooled.Put(&buf)
	}
	put()
	tuner.settle()
	limit := debug.SetMemoryLimit(-1)
	if want := liveHeapBytes() + 2*HeapHeadroom; uint64(limit) >= size || uint64(limit) > want+64<<20 {
		t.Errorf("memory limit %d MiB after settling with a pooled %d MiB buffer; live heap %d MiB", limit>>20, size>>20, liveHeapBytes()>>20)
	}
}

// TestLimitFallsWhenARetiredSnapshotCloses: a swap under load measures
// the live heap while requests still hold the snapshot it replaced, so
// the limit it sets counts both (with the headroom of one); once the last
// of those requests releases the old snapshot, the limit is set again
// from what is left.
func TestLimitFallsWhenARetiredSnapshotCloses(t *testing.T) {
	t.Setenv("GOMEMLIMIT", "")
	current := func() int64 { return debug.SetMemoryLimit(-1) }
	defer debug.SetMemoryLimit(current())
	f := newFixture(t)
	f.publish()
	st := f.store(Options{TuneHeap: true})
	refresh(t, st)
	held, release := st.Acquire()
	// Stands in for the components of a large snapshot (a 10,000-note
	// vault's hold 120 MiB of heap): reachable from the snapshot only.
	const size = 256 << 20
	held.addCloser("ballast", ballast(size))
	f.publish()
	refresh(t, st)
	during := current()
	if during < size {
		t.Fatalf("memory limit %d MiB after a swap while the old snapshot holds %d MiB", during>>20, size>>20)
	}
	// The retired snapshot's heap makes no garbage: the headroom stays
	// what one small snapshot had (HeapHeadroom), not half of both.
	if above := uint64(during) - liveHeapBytes(); above > 3*HeapHeadroom/2 {
		t.Errorf("memory limit %d MiB above the live heap while a retired snapshot holds %d MiB; want the headroom of one snapshot, %d MiB", above>>20, size>>20, HeapHeadroom>>20)
	}
	release()
	eventually(t, "the retired snapshot closes", func() bool { return st.Stats().Open == 1 })
	if after := current(); after > during-size/2 || after >= size {
		t.Errorf("memory limit %d MiB once the retired snapshot closed, %d MiB while it held %d MiB", after>>20, during>>20, size>>20)
	}
}

// ballast returns a closer that keeps n bytes reachable until it is
// dropped.
func ballast(n int) func() error {
	b := make([]byte, n)
	return func() error { _ = b[len(b)-1]; return nil }
}
