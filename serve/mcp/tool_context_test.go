package mcp

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/vaultgraph/vaultgraph/indexer"
	"github.com/vaultgraph/vaultgraph/indexer/gitrepo/gitrepotest"
	"github.com/vaultgraph/vaultgraph/snapshot/codecontext"
	"github.com/vaultgraph/vaultgraph/snapshot/embed"
)

// TestRetrieveContextOverMCP: an agent connected to a vault indexed with
// a repository gets retrieve_context, and its five buckets name the files,
// tests and notes of the hand-checked question.
func TestRetrieveContextOverMCP(t *testing.T) {
	repo := t.TempDir()
	gitrepotest.Podcast(t, repo)
	vault := t.TempDir()
	for p, content := range gitrepotest.PodcastVault {
		full := filepath.Join(vault, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	data := t.TempDir()
	_, err := indexer.Run(context.Background(), indexer.Options{Vault: vault, Data: data, Repos: []indexer.Repo{{Name: "app", Path: repo}},
		Stages: []indexer.Stage{&indexer.EmbedStage{Embedder: embed.NewBuiltin()}, indexer.BM25Stage{}, indexer.GraphStage{BufferPoolSize: testGraphMemory}}})
	if err != nil {
		t.Fatal(err)
	}
	s := newServer(t, openStore(t, data), Options{})
	c, _ := connect(t, s)
	tools, err := c.ListTools(t.Context(), mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(tools.Tools, func(tl mcp.Tool) bool { return tl.Name == toolContext }) {
		t.Fatalf("tools of a snapshot with code lack %s", toolContext)
	}
	var out codecontext.Answer
	text := callOK(t, c, toolContext, map[string]any{"question": "the daily podcast is generating twice"}, &out)
	has := func(es []codecontext.Entry, id string) bool {
		return slices.ContainsFunc(es, func(e codecontext.Entry) bool { return e.ID == id })
	}
	for _, want := range []struct {
		bucket string
		es     []codecontext.Entry
		id     string
	}{
		{"must_read", out.MustRead, "code:app/api/app/cron.py"},
		{"may_change", out.MayChange, "code:app/api/app/main.py"},
		{"must_test", out.MustTest, "code:app/api/tests/test_cron.py"},
		{"knowledge", out.Knowledge, "Decisions/Cron interval.md"},
		{"danger", out.Danger, "code:app/api/app/cron.py#schedule_daily"},
	} {
		if !has(want.es, want.id) {
			t.Errorf("%s lacks %s: %+v", want.bucket, want.id, want.es)
		}
	}
	if !strings.Contains(text, `"must_read"`) || !strings.Contains(text, `"note":"Incidents/Double episode.md"`) ||
		len(text) > codecontext.DefaultMaxBytes {
		t.Errorf("text (%d bytes):\n%s", len(text), text)
	}
	callOK(t, c, toolContext, map[string]any{"anchor": "code:app/api/app/podcast.py#generate_daily_episode"}, &out)
	if out.Anchor == "" || !has(out.MayChange, "code:app/api/app/admin.py") {
		t.Errorf("impact of generate_daily_episode: %+v", out)
	}
	for _, args := range []map[string]any{{}, {"question": "x", "anchor": "code:app/api/app/cron.py"}, {"anchor": "code:app/nope.py"}} {
		if msg := callErr(t, c, toolContext, args); msg == "" {
			t.Errorf("%v: no error message", args)
		}
	}
}
