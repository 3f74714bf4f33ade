package indexer

import (
	"context"
	"crypto/sha256"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/vaultgraph/vaultgraph/indexer/vaultgen"
	"github.com/vaultgraph/vaultgraph/snapshot/embed"
)

// benchVault generates the 10,000-note vault the README's figures use, once
// per test binary.
var benchVault = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "vaultgraph-bench-vault-")
	if err != nil {
		return "", err
	}
	_, err = vaultgen.Generate(filepath.Join(dir, "vault"), vaultgen.Config{Notes: 10000, Seed: 1})
	return filepath.Join(dir, "vault"), err
})

func mustBenchVault(b *testing.B) string {
	b.Helper()
	v, err := benchVault()
	if err != nil {
		b.Fatal(err)
	}
	return v
}

// BenchmarkIndexFull indexes the 10,000-note vault from scratch (no
// embeddings or other stages).
func BenchmarkIndexFull(b *testing.B) {
	vault := mustBenchVault(b)
	for b.Loop() {
		if _, err := Run(context.Background(), Options{Vault: vault, Data: b.TempDir()}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkIndexNoChange re-indexes the unchanged vault: the cost to compare
// with BenchmarkReadVault, reading and hashing every file once.
func BenchmarkIndexNoChange(b *testing.B) {
	vault := mustBenchVault(b)
	data := b.TempDir()
	if _, err := Run(context.Background(), Options{Vault: vault, Data: data}); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		res, err := Run(context.Background(), Options{Vault: vault, Data: data})
		if err != nil || !res.Unchanged {
			b.Fatalf("res %+v, err %v", res, err)
		}
	}
}

// BenchmarkIndexOneEdit re-indexes after one note changed: one parse, the
// rest reused from the parent snapshot.
func BenchmarkIndexOneEdit(b *testing.B) {
	vault := mustBenchVault(b)
	// Edit a copy: the shared vault stays as generated. (A data directory
	// holds one vault's snapshots: the copy is indexed from the start.)
	work := filepath.Join(b.TempDir(), "vault")
	if err := os.CopyFS(work, os.DirFS(vault)); err != nil {
		b.Fatal(err)
	}
	data := b.TempDir()
	if _, err := Run(context.Background(), Options{Vault: work, Data: data}); err != nil {
		b.Fatal(err)
	}
	seed := int64(0)
	for b.Loop() {
		b.StopTimer()
		seed++
		if _, err := vaultgen.Edit(work, seed, 1); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		res, err := Run(context.Background(), Options{Vault: work, Data: data})
		if err != nil || res.Parsed != 1 {
			b.Fatalf("res %+v, err %v", res, err)
		}
	}
}

// BenchmarkReadVault is the floor for a no-change run: walk the vault and
// read and hash every note once.
func BenchmarkReadVault(b *testing.B) {
	vault := mustBenchVault(b)
	for b.Loop() {
		err := filepath.WalkDir(vault, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			data, err := os.ReadFile(p)
			sha256.Sum256(data)
			return err
		})
		if err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDefaultStagesFull indexes the 10,000-note vault from scratch with
// the stages vaultgraph index runs by default (the builtin embedder's static
// word vectors, BM25, the graph database), concurrently as index -q runs them: the README's full
// index figure, for profiling.
//
//	go test ./indexer -run '^$' -bench DefaultStagesFull -benchtime 2x -cpuprofile /tmp/full.prof
func BenchmarkDefaultStagesFull(b *testing.B) {
	vault := mustBenchVault(b)
	e, err := embed.NewStatic()
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		opts := Options{Vault: vault, Data: b.TempDir(),
			Stages: []Stage{&EmbedStage{Embedder: e}, BM25Stage{}, GraphStage{BufferPoolSize: 512 << 20}}}
		if _, err := Run(context.Background(), opts); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDefaultStagesOneEdit is BenchmarkIndexOneEdit with the stages
// vaultgraph index runs by default: builtin vectors, BM25 and the graph
// database.
//
//	go test ./indexer -run '^$' -bench DefaultStagesOneEdit -benchtime 5x -cpuprofile /tmp/edit.prof
func BenchmarkDefaultStagesOneEdit(b *testing.B) {
	vault := mustBenchVault(b)
	work := filepath.Join(b.TempDir(), "vault")
	if err := os.CopyFS(work, os.DirFS(vault)); err != nil {
		b.Fatal(err)
	}
	opts := Options{Vault: work, Data: b.TempDir(),
		Stages: []Stage{&EmbedStage{Embedder: embed.NewBuiltin()}, BM25Stage{}, GraphStage{BufferPoolSize: 512 << 20}}}
	if _, err := Run(context.Background(), opts); err != nil {
		b.Fatal(err)
	}
	seed := int64(200)
	for b.Loop() {
		b.StopTimer()
		seed++
		if _, err := vaultgen.Edit(work, seed, 1); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		res, err := Run(context.Background(), opts)
		if err != nil || res.Parsed != 1 {
			b.Fatalf("res %+v, err %v", res, err)
		}
	}
}

// BenchmarkResolve resolves every link of the 10,000-note vault and writes
// every edge's sentence (tables.resolve), as each index run does (on the
// vault of VAULTGRAPH_BENCH_VAULT when it is set, as BenchmarkStage).
func BenchmarkResolve(b *testing.B) {
	t := stageBenchTables(b)
	notes := t.notes[:t.parsed:t.parsed]
	for b.Loop() {
		t.notes, t.warnings = notes, nil
		t.resolve()
	}
}
