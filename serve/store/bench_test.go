package store

import (
	"context"
	"os"
	"runtime"
	"testing"
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
