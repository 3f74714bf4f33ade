package serve_test

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vaultgraph/vaultgraph/indexer"
	"github.com/vaultgraph/vaultgraph/snapshot/embed"
	"github.com/vaultgraph/vaultgraph/snapshot/embed/embedtest"
)

// ollamaData indexes a small vault with vectors from a fake Ollama server
// that is gone when it returns, and returns the data directory and an
// embedder configuration whose Ollama host refuses connections.
func ollamaData(t *testing.T) (string, embed.Config) {
	t.Helper()
	vault := t.TempDir()
	for name, text := range map[string]string{
		"Apples.md":  "# Apples\nApples are a red fruit that grows on trees in orchards.\n",
		"Bananas.md": "# Bananas\nBananas are a yellow fruit that grows in bunches.\n",
		"Engines.md": "# Engines\nAn engine turns fuel into motion.\n",
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
	_, err = indexer.Run(context.Background(), indexer.Options{Vault: vault, Data: data,
		Stages: []indexer.Stage{&indexer.EmbedStage{Embedder: e}, indexer.BM25Stage{}}})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cfg.OllamaHost = "http://" + ln.Addr().String()
	ln.Close() // nothing listens there now: connection refused
	return data, cfg
}

// TestSearchFallsBackToBM25WhenTheEmbedderIsDown: with the Ollama server
// down, a search answers from BM25 and says in its notices that the
// vectors were not used and why; one that asked for vectors alone is a
// 503 to retry.
func TestSearchFallsBackToBM25WhenTheEmbedderIsDown(t *testing.T) {
	data, cfg := ollamaData(t)
	var sc serverConfig
	sc.store.Embed = cfg
	ts := startServer(t, data, sc)

	for _, target := range []string{"nodes", "chunks"} {
		r := ts.post("/search", `{"query": "yellow fruit", "target": "`+target+`"}`)
		if r.status != 200 {
			t.Fatalf("%s: status %d: %s", target, r.status, r.body)
		}
		obj := r.object(t)
		if obj["method"] != "bm25" {
			t.Errorf("%s: method %v, want bm25", target, obj["method"])
		}
		hits, _ := obj["hit_ids"].([]any)
		if len(hits) == 0 || hits[0] != "Bananas.md" {
			t.Errorf("%s: hit_ids %v, want Bananas.md first", target, hits)
		}
		notices, _ := obj["notices"].([]any)
		if len(notices) != 1 || !strings.Contains(notices[0].(string), "vectors were not used") ||
			!strings.Contains(notices[0].(string), "connection refused") {
			t.Errorf("%s: notices %v, want one saying the vectors were not used because of the refused connection", target, notices)
		}
	}
	r := ts.post("/search", `{"query": "yellow fruit", "method": "vectors"}`)
	if r.status != 503 || r.errorKind() != "unavailable" || r.header.Get("Retry-After") == "" {
		t.Errorf("method vectors: status %d kind %q, want a 503 unavailable to retry: %s", r.status, r.errorKind(), r.body)
	}
}

// TestRetrieveFallsBackToBM25WhenTheEmbedderIsDown: with the Ollama server
// down, POST /retrieve seeds from BM25
// and the names the question mentions, and say in a warning that the
// vectors were not used and why, instead of a 503.
func TestRetrieveFallsBackToBM25WhenTheEmbedderIsDown(t *testing.T) {
	data, cfg := ollamaData(t)
	var sc serverConfig
	sc.store.Embed = cfg
	ts := startServer(t, data, sc)

	for _, route := range []string{"/retrieve"} {
		r := ts.post(route, `{"question": "which fruit is yellow"}`)
		if r.status != 200 {
			t.Fatalf("%s: status %d: %s", route, r.status, r.body)
		}
		obj := r.object(t)
		chunks, _ := obj["chunks"].([]any)
		if len(chunks) == 0 || chunks[0].(map[string]any)["node"] != "Bananas.md" {
			t.Errorf("%s: chunks %v, want Bananas.md's first", route, chunks)
		}
		warnings, _ := obj["warnings"].([]any)
		found := false
		for _, w := range warnings {
			s, _ := w.(string)
			found = found || strings.Contains(s, "vectors were not used") && strings.Contains(s, "connection refused")
		}
		if !found {
			t.Errorf("%s: warnings %v, want one saying the vectors were not used because of the refused connection", route, warnings)
		}
	}
}
