package indexer

import (
	"context"
	"log/slog"
	"os"
	"testing"

	"github.com/vaultgraph/vaultgraph/format"
	"github.com/vaultgraph/vaultgraph/snapshot"
)

// stageBenchTables reads and assembles the vault of VAULTGRAPH_BENCH_VAULT
// (a folder, read only), else the 10,000-note generated vault.
func stageBenchTables(b *testing.B) *tables {
	b.Helper()
	vault := os.Getenv("VAULTGRAPH_BENCH_VAULT")
	if vault == "" {
		vault = mustBenchVault(b)
	}
	opts := Options{Vault: vault}.withDefaults()
	ignore, err := compileIgnore(nil)
	if err != nil {
		b.Fatal(err)
	}
	files, _, err := walkVault(vault, ignore, opts.MaxNoteBytes)
	if err != nil {
		b.Fatal(err)
	}
	read, err := readAll(context.Background(), files, opts.Workers, opts.MaxNoteBytes, readEvery)
	if err != nil {
		b.Fatal(err)
	}
	t, err := assemble(context.Background(), read, nil, opts)
	if err != nil {
		b.Fatal(err)
	}
	return t
}

// benchStage runs one stage of a first build on the tables, each time in a
// new directory: the cost of that stage alone, for profiling.
//
//	VAULTGRAPH_BENCH_VAULT=/work/shared/vaults/obsidian-help go test ./indexer -run '^$' -bench 'Stage/bm25' -benchtime 5x -cpuprofile /tmp/bm25.prof
func BenchmarkStage(b *testing.B) {
	t := stageBenchTables(b)
	for _, st := range []Stage{BM25Stage{}, GraphStage{BufferPoolSize: 512 << 20}} {
		b.Run(st.Name(), func(b *testing.B) {
			for b.Loop() {
				dir := b.TempDir()
				bld := &Build{Dir: dir, Notes: t.notes, Edges: t.edges, Chunks: t.chunks,
					Manifest: &format.Manifest{}, Log: slog.New(slog.DiscardHandler)}
				if err := st.Run(context.Background(), bld); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("tables", func(b *testing.B) {
		for b.Loop() {
			w, err := snapshot.Create(b.TempDir(), "01")
			if err != nil {
				b.Fatal(err)
			}
			_, ws, err := writeTables(w, nil, t, slog.New(slog.DiscardHandler))
			if err == nil {
				_, err = ws.run()
			}
			if err != nil {
				b.Fatal(err)
			}
			w.Abort()
		}
	})
	b.Run("assemble", func(b *testing.B) {
		for b.Loop() {
			stageBenchTables(b)
		}
	})
}
