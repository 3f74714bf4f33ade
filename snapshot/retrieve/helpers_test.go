package retrieve_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/vaultgraph/vaultgraph/indexer"
	"github.com/vaultgraph/vaultgraph/snapshot"
	"github.com/vaultgraph/vaultgraph/snapshot/embed"
	"github.com/vaultgraph/vaultgraph/snapshot/retrieve"
)

var tempDirs []string

func TestMain(m *testing.M) {
	code := m.Run()
	for _, d := range tempDirs {
		os.RemoveAll(d)
	}
	os.Exit(code)
}

// indexVault indexes vault into a new data directory with the stages
// retrieval reads (builtin embeddings and BM25) and opens the snapshot.
func indexVault(vault string, stages ...indexer.Stage) (*snapshot.Snapshot, error) {
	data, err := os.MkdirTemp("", "vaultgraph-retrieve-")
	if err != nil {
		return nil, err
	}
	tempDirs = append(tempDirs, data)
	if stages == nil {
		stages = []indexer.Stage{&indexer.EmbedStage{Embedder: embed.NewBuiltin()}, indexer.BM25Stage{}}
	}
	res, err := indexer.Run(context.Background(), indexer.Options{Vault: vault, Data: data, Stages: stages})
	if err != nil {
		return nil, fmt.Errorf("index %s: %w", vault, err)
	}
	return snapshot.Open(res.Dir, snapshot.OpenOptions{})
}

// demo is the demo vault's snapshot and a retriever over it, built once.
var demo = sync.OnceValues(func() (*retrieve.Retriever, error) {
	s, err := indexVault(filepath.Join("..", "..", "testdata", "demo-vault"))
	if err != nil {
		return nil, err
	}
	return retrieve.Open(s, embed.Config{})
})

func demoRetriever(t testing.TB) *retrieve.Retriever {
	t.Helper()
	r, err := demo()
	if err != nil {
		t.Fatal(err)
	}
	return r
}
