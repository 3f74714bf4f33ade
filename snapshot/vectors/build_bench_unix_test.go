//go:build unix

package vectors

import (
	"context"
	"flag"
	"runtime"
	"syscall"
	"testing"
	"time"
)

var benchBuildFile = flag.String("vectors.build", "",
	"vector file of a snapshot for BenchmarkBuildFile, e.g. DATA/snapshots/ID/vectors-chunks.f32")

var benchBuildGraph = flag.String("vectors.graph", "", "BenchmarkBuildFile writes the graph it built to this file (to compare two builds byte for byte)")

var benchBuildWorkers = flag.Int("vectors.workers", 0, "workers of BenchmarkBuildFile's builds (default GOMAXPROCS)")

// BenchmarkBuildFile builds the graph over a snapshot's vector file, as the
// indexer does, and reports the build's wall and CPU seconds and the
// recall@10 at efSearch 64 of 300 of its own rows queried against an exact
// scan. The full index's HNSW figures in the README come from the
// 10,000-note vault's chunk and edge files:
//
//	vaultgraph gen --notes 10000 --seed 1 V && vaultgraph index -q --vault V --data D
//	go test ./snapshot/vectors -run '^$' -bench BuildFile -benchtime 3x -vectors.build D/snapshots/*/vectors-chunks.f32
func BenchmarkBuildFile(b *testing.B) {
	if *benchBuildFile == "" {
		b.Skip("give -vectors.build a snapshot's vector file")
	}
	f, err := OpenFile(*benchBuildFile)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	workers := *benchBuildWorkers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	for b.Loop() {
		var ru0, ru1 syscall.Rusage
		syscall.Getrusage(syscall.RUSAGE_SELF, &ru0)
		start := time.Now()
		g, err := Build(context.Background(), f, benchParams(), workers, nil)
		if err != nil {
			b.Fatal(err)
		}
		wall := time.Since(start)
		syscall.Getrusage(syscall.RUSAGE_SELF, &ru1)
		cpu := time.Duration(ru1.Utime.Nano() + ru1.Stime.Nano() - ru0.Utime.Nano() - ru0.Stime.Nano())
		b.ReportMetric(wall.Seconds(), "build-s")
		b.ReportMetric(cpu.Seconds(), "build-cpu-s")
		if *benchBuildGraph != "" {
			if err := g.WriteFile(*benchBuildGraph); err != nil {
				b.Fatal(err)
			}
		}
		found, total := 0, 0
		var v []float32
		for i := 0; i < f.Len(); i += max(1, f.Len()/300) {
			v = f.Vector(i, v)
			exact, _ := f.Search(v, 10, nil)
			approx, _ := g.Search(v, 10, 64)
			want := map[int]bool{}
			for _, h := range exact {
				want[h.Row] = true
			}
			for _, h := range approx {
				if want[h.Row] {
					found++
				}
			}
			total += len(exact)
		}
		b.ReportMetric(float64(found)/float64(total), "self-recall@10")
	}
}
