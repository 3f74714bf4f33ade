package indexer

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vaultgraph/vaultgraph/snapshot"
	"github.com/vaultgraph/vaultgraph/snapshot/embed"
	"github.com/vaultgraph/vaultgraph/snapshot/embed/embedtest"
	"github.com/vaultgraph/vaultgraph/snapshot/search"
)

// TestEmbedStageModelRevision: ollama pull fetching new weights under the
// same name never mixes vectors of the two versions.
func TestEmbedStageModelRevision(t *testing.T) {
	const model = "nomic-embed-text:latest"
	vault := writeVault(t, embedVault)
	data := t.TempDir()
	srv := embedtest.NewOllama(t)
	st := stageFor(t, "ollama", srv, false)
	v1 := srv.ModelDigest(model)

	first := mustRunStage(t, vault, data, st)
	if got := first.Manifest.Embedder.Revision; got != v1 {
		t.Fatalf("first run recorded revision %q, want the server's digest %q", got, v1)
	}

	// Same digest: vectors are reused, the digest carried on.
	editNote(t, vault, "People/Bob.md", "long walks in the hills", "sailing on the lake")
	same := mustRunStage(t, vault, data, st)
	if v := same.Manifest.Vectors; same.Manifest.Embedder.Revision != v1 || v.Chunks.Reused == 0 || v.Chunks.Embedded == 0 {
		t.Fatalf("same digest: revision %q, chunks %+v", same.Manifest.Embedder.Revision, v.Chunks)
	}

	// ollama pull: new weights under the name. Indexing new text is refused.
	v2 := embedtest.Digest("v2")
	srv.SetDigest(model, v2)
	srv.Reset()
	editNote(t, vault, "Companies/Acme.md", "research into search engines", "robotics startups")
	_, err := runStage(t, vault, data, st)
	if !errors.Is(err, embed.ErrModelMismatch) || !strings.Contains(err.Error(), "vaultgraph index --reembed") {
		t.Fatalf("digest changed: err = %v, want ErrModelMismatch with the --reembed hint", err)
	}
	if entries, _ := snapshot.List(data); len(entries) != 2 || len(srv.Texts()) != 0 {
		t.Fatalf("a refused run published %d snapshots or embedded %d texts", len(entries)-2, len(srv.Texts()))
	}
	// Queries against the old snapshot are refused too.
	s := openSnap(t, same.Dir)
	ix, err := search.Open(s, search.Options{})
	must(t, err)
	defer ix.Close()
	q, err := embed.ForSnapshot(s.Manifest.Embedder, embed.Config{OllamaHost: srv.URL(), Getenv: func(string) string { return "" }})
	must(t, err)
	_, err = ix.Search(context.Background(), search.Query{Text: "climbing", Target: search.Chunks}, q)
	if !errors.Is(err, embed.ErrModelMismatch) || !strings.Contains(err.Error(), "vaultgraph index --reembed") {
		t.Fatalf("query after the pull: err = %v, want ErrModelMismatch with the --reembed hint", err)
	}

	// --reembed rebuilds every vector with the new weights and records them.
	reembedded := mustRunStage(t, vault, data, stageFor(t, "ollama", srv, true))
	m := reembedded.Manifest
	if m.Embedder.Revision != v2 || m.Vectors.Chunks.Reused+m.Vectors.Edges.Reused != 0 || pendingOf(m) != 0 {
		t.Fatalf("reembed: revision %q, vectors %+v", m.Embedder.Revision, m.Vectors)
	}
	assertSearchable(t, openSnap(t, reembedded.Dir), srv, "robotics startups", "Companies/Acme.md")

	// Server down: the run cannot learn the digest and keeps the parent's.
	srv.Fail(embedtest.Drop, -1)
	editNote(t, vault, "Recipes/Pancakes.md", "fry in butter", "bake in the oven")
	down := mustRunStage(t, vault, data, st)
	if down.Unchanged || pendingOf(down.Manifest) == 0 || down.Manifest.Embedder.Revision != v2 {
		t.Fatalf("server down: revision %q, pending %d; want the parent's revision", down.Manifest.Embedder.Revision, pendingOf(down.Manifest))
	}
	// Back up with the same weights: the pending texts are filled in.
	srv.Fail(embedtest.OK, 0)
	up := mustRunStage(t, vault, data, st)
	if up.Unchanged || pendingOf(up.Manifest) != 0 || up.Manifest.Embedder.Revision != v2 {
		t.Fatalf("back up: %+v %+v", up.Manifest.Embedder, up.Manifest.Vectors)
	}
}

// TestEmbedStageRevisionWhileNothingToEmbed: a run that embeds nothing
// does not ask the server, and records the parent's revision.
func TestEmbedStageRevisionWhileNothingToEmbed(t *testing.T) {
	vault := writeVault(t, embedVault)
	data := t.TempDir()
	srv := embedtest.NewOllama(t)
	st := stageFor(t, "ollama", srv, false)
	first := mustRunStage(t, vault, data, st)
	lookups := srv.Lookups()
	// Moving a note changes no embedded text.
	must(t, os.MkdirAll(filepath.Join(vault, "Archive"), 0o755))
	must(t, os.Rename(filepath.Join(vault, "Recipes/Pancakes.md"), filepath.Join(vault, "Archive/Pancakes.md")))
	srv.SetDigest("nomic-embed-text:latest", embedtest.Digest("v2"))
	moved := mustRunStage(t, vault, data, st)
	if moved.Unchanged || srv.Lookups() != lookups || moved.Manifest.Embedder.Revision != first.Manifest.Embedder.Revision {
		t.Fatalf("move: %d lookups, revision %q, want none and the parent's %q",
			srv.Lookups()-lookups, moved.Manifest.Embedder.Revision, first.Manifest.Embedder.Revision)
	}
}
