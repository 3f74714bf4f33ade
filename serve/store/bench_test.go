package store

import (
	"context"
	"os"
	"runtime"
	"testing"

	"github.com/vaultgraph/vaultgraph/snapshot"
)

// BenchmarkOpenSnapshot opens the newest snapshot of
// $VAULTGRAPH_BENCH_DATA (e.g. a 10,000-note vault from vaultgraph gen,
// indexed) and reports the time to open it and the Go heap it keeps
// live. Memory-mapped vectors and the graph database's buffer pool are
// not Go heap: see the server's resident memory for those.
func BenchmarkOpenSnapshot(b *testing.B) {
	data := os.Getenv("VAULTGRAPH_BENCH_DATA")
	if data == "" {
		b.Skip("set VAULTGRAPH_BENCH_DATA to a data directory")
	}
	var live uint64
	for b.Loop() {
		st, err := New(data, Options{})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := st.Refresh(context.Background()); err != nil || st.Current() == "" {
			b.Fatalf("no snapshot opened: %v", err)
		}
		b.StopTimer()
		live = max(live, liveHeap())
		if err := st.Close(context.Background()); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
	b.ReportMetric(float64(live)/(1<<20), "live-heap-MiB")
}

func liveHeap() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// BenchmarkSwapSnapshot opens the newest snapshot of
// $VAULTGRAPH_BENCH_DATA while the one before it is served, as a swap
// does after an index run: e.g. after one note's edit, the rows of every
// segment file the two share are taken from the served one. It reports
// the Go heap the new snapshot adds while the old one is still held
// (swap-heap-MiB), what a swap under requests holds twice.
func BenchmarkSwapSnapshot(b *testing.B) {
	data := os.Getenv("VAULTGRAPH_BENCH_DATA")
	if data == "" {
		b.Skip("set VAULTGRAPH_BENCH_DATA to a data directory")
	}
	entries, err := snapshot.List(data)
	if err != nil || len(entries) < 2 {
		b.Skipf("want two snapshots in %s: %v", data, err)
	}
	st, err := New(data, Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close(context.Background())
	parent, err := st.load(context.Background(), entries[len(entries)-2])
	if err != nil {
		b.Fatal(err)
	}
	st.publish(parent, "")
	served := liveHeap()
	var extra uint64
	for b.Loop() {
		s, err := st.load(context.Background(), entries[len(entries)-1])
		if err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		if live := liveHeap(); live > served {
			extra = max(extra, live-served)
		}
		if s.Notes.Reused == 0 {
			b.Fatal("the swap took no segment from the served snapshot")
		}
		if err := s.closeComponents(); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
	b.ReportMetric(float64(extra)/(1<<20), "swap-heap-MiB")
}
