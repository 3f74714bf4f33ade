package indexer

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime/debug"
	"testing"

	"github.com/vaultgraph/vaultgraph/snapshot/embed"
)

// BenchmarkEditExisting appends a sentence to one note of the vault in
// $VAULTGRAPH_BENCH_VAULT (a copy: it writes to it) and indexes it into
// $VAULTGRAPH_BENCH_DATA, which holds a snapshot of it, with the default
// stages and the heap setting of a one-shot incremental run: the edit
// figure of the README, for profiling.
//
//	VAULTGRAPH_BENCH_VAULT=V VAULTGRAPH_BENCH_DATA=D go test ./indexer -run '^$' -bench EditExisting -benchtime 4x -cpuprofile /tmp/edit.prof
func BenchmarkEditExisting(b *testing.B) {
	vault, data := os.Getenv("VAULTGRAPH_BENCH_VAULT"), os.Getenv("VAULTGRAPH_BENCH_DATA")
	if vault == "" || data == "" {
		b.Skip("VAULTGRAPH_BENCH_VAULT and VAULTGRAPH_BENCH_DATA name a vault copy and its data directory")
	}
	defer debug.SetGCPercent(debug.SetGCPercent(400))
	e, err := embed.NewStatic()
	if err != nil {
		b.Fatal(err)
	}
	opts := Options{Vault: vault, Data: data,
		Stages: []Stage{&EmbedStage{Embedder: e}, BM25Stage{}, GraphStage{BufferPoolSize: 512 << 20}}}
	note := filepath.Join(vault, "Ideas/Partner/Edge/Juxtapose Different Pattern.md")
	n := 0
	for b.Loop() {
		b.StopTimer()
		n++
		f, err := os.OpenFile(note, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			b.Fatal(err)
		}
		fmt.Fprintf(f, "A benchmark sentence number %d.\n", n)
		f.Close()
		b.StartTimer()
		res, err := Run(context.Background(), opts)
		if err != nil || res.Parsed != 1 {
			b.Fatalf("res %+v, err %v", res, err)
		}
	}
}
