package mcp

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vaultgraph/vaultgraph/indexer"
	"github.com/vaultgraph/vaultgraph/serve/store"
	"github.com/vaultgraph/vaultgraph/snapshot/embed"
	"github.com/vaultgraph/vaultgraph/snapshot/embed/embedtest"
	"github.com/vaultgraph/vaultgraph/snapshot/graphdb"
)

// TestSearchToolFallsBackToBM25WhenTheEmbedderIsDown: with the Ollama
// server down, the search tool answers from BM25 and its text says the
// vectors were not used and why.
func TestSearchToolFallsBackToBM25WhenTheEmbedderIsDown(t *testing.T) {
	vault := t.TempDir()
	for name, text := range map[string]string{
		"Apples.md":  "# Apples\nApples are a red fruit that grows on trees in orchards.\n",
		"Bananas.md": "# Bananas\nBananas are a yellow fruit that grows in bunches.\n",
	} {
		if err := os.WriteFile(filepath.Join(vault, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	srv := embedtest.NewOllama(t)
	cfg := embed.Config{Attempts: 1, Timeout: 5 * time.Second, Getenv: func(string) string { return "" }, OllamaHost: srv.URL()}
	e, err := embed.New("ollama:nomic-embed-text", cfg)
	if err != nil {
		t.Fatal(err)
	}
	data := t.TempDir()
	if _, err := indexer.Run(context.Background(), indexer.Options{Vault: vault, Data: data,
		Stages: []indexer.Stage{&indexer.EmbedStage{Embedder: e}, indexer.BM25Stage{}}}); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cfg.OllamaHost = "http://" + ln.Addr().String()
	ln.Close() // connection refused from now on

	st, err := store.New(data, store.Options{Embed: cfg, GraphDB: graphdb.Options{BufferPoolSize: testGraphMemory, Connections: 2}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close(context.Background()) })
	c, _ := connect(t, newServer(t, st, Options{}))
	var out searchOutput
	text := callOK(t, c, toolSearch, map[string]any{"query": "yellow fruit"}, &out)
	if out.Method != "bm25" || len(out.Results) == 0 || out.Results[0].ID != "Bananas.md" {
		t.Errorf("method %s, results %+v: want bm25 hits with Bananas.md first", out.Method, out.Results)
	}
	if !strings.Contains(text, "vectors were not used") || !strings.Contains(text, "connection refused") {
		t.Errorf("the text does not say the vectors were not used and why:\n%s", text)
	}
	if len(out.Notices) != 1 || out.Message != out.Notices[0] {
		t.Errorf("notices %q, message %q: want the one notice, also as the message", out.Notices, out.Message)
	}
}
