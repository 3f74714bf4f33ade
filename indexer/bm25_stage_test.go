package indexer

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vaultgraph/vaultgraph/format"
	"github.com/vaultgraph/vaultgraph/snapshot"
	"github.com/vaultgraph/vaultgraph/snapshot/bm25"
)

func TestBM25Stage(t *testing.T) {
	vault := filepath.Join("..", "testdata", "demo-vault")
	data := t.TempDir()
	res, err := Run(context.Background(), Options{Vault: vault, Data: data, Stages: []Stage{BM25Stage{}}})
	if err != nil {
		t.Fatal(err)
	}
	s, err := snapshot.Open(res.Dir, snapshot.OpenOptions{VerifyChecksums: true})
	if err != nil {
		t.Fatal(err)
	}
	sec := s.Manifest.BM25
	if sec == nil || sec.Docs != s.Manifest.Counts.Chunks || sec.File != format.BM25File || sec.Tokenizer != bm25.TokenizerVersion {
		t.Fatalf("manifest section %+v, chunks %d", sec, s.Manifest.Counts.Chunks)
	}
	if _, ok := s.Manifest.Files[format.BM25File]; !ok {
		t.Fatal("bm25 file not covered by the manifest's checksums")
	}
	ix, err := bm25.Open(filepath.Join(s.Dir, format.BM25File))
	if err != nil {
		t.Fatal(err)
	}
	chunks, err := s.Chunks()
	if err != nil {
		t.Fatal(err)
	}
	ids := make([]string, len(chunks))
	for i, c := range chunks {
		ids[i] = c.ID
	}
	if ix.DocsDigest() != bm25.DocsDigest(ids) {
		t.Fatal("docs digest does not match the chunks table")
	}
	// The trash is not indexed: its only word appears nowhere.
	if hits := ix.Search(bm25.Tokenize("zeppelin"), 5); len(hits) != 0 {
		t.Errorf("zeppelin found in %s", chunks[hits[0].Doc].ID)
	}
	// A note's aliases find its chunks although the text never says them.
	hits := ix.Search(bm25.Tokenize("Acme Corporation"), 3)
	if len(hits) == 0 || chunks[hits[0].Doc].Note != "Companies/Acme.md" {
		t.Errorf("alias search: %+v", hits)
	}
	hits = ix.Search(bm25.Tokenize("recrawl interval 36 hours"), 3)
	if len(hits) == 0 {
		t.Fatal("no hit for the recrawl interval")
	}
	if n := chunks[hits[0].Doc].Note; n != "Papers/Crawling the Long Tail.md" && n != "Projects/Crawler.md" && n != "Topics/Web Crawling.md" {
		t.Errorf("recrawl interval: best hit in %s", n)
	}

	// An unchanged vault publishes nothing; a parent without the index is
	// pending.
	if (BM25Stage{}).Pending(&snapshot.Snapshot{Manifest: &format.Manifest{}}) != PendingRebuild || (BM25Stage{}).Pending(s) != PendingNone {
		t.Error("Pending is wrong")
	}
	again, err := Run(context.Background(), Options{Vault: vault, Data: data, Stages: []Stage{BM25Stage{}}})
	if err != nil || !again.Unchanged {
		t.Fatalf("second run: %+v, %v", again, err)
	}
}

// TestBM25StageUpdate edits, adds and removes notes and checks that the
// index updated from the parent's is the file a build from scratch writes.
func TestBM25StageUpdate(t *testing.T) {
	vault := filepath.Join(t.TempDir(), "vault")
	must(t, os.CopyFS(vault, os.DirFS(filepath.Join("..", "testdata", "demo-vault"))))
	data := t.TempDir()
	opts := Options{Vault: vault, Data: data, Stages: []Stage{BM25Stage{}}}
	if _, err := Run(context.Background(), opts); err != nil {
		t.Fatal(err)
	}
	edit := func(rel, text string) {
		t.Helper()
		p := filepath.Join(vault, filepath.FromSlash(rel))
		old, err := os.ReadFile(p)
		must(t, err)
		must(t, os.WriteFile(p, append(old, text...), 0o644))
	}
	steps := []func(){
		func() { edit("Projects/Search.md", "\n\nA new paragraph about zeppelins and quasars.\n") },
		func() {
			must(t, os.WriteFile(filepath.Join(vault, "Aardvark.md"), []byte("# Aardvark\n\nFirst in order, new words: xylophone.\n"), 0o644))
			must(t, os.Remove(filepath.Join(vault, "Companies", "Acme.md")))
		},
		func() { edit("Projects/Search.md", "\n## Another heading\n\nMore text, more chunks.\n") },
	}
	for i, step := range steps {
		step()
		var logs bytes.Buffer
		opts.Log = slog.New(slog.NewTextHandler(&logs, nil))
		res, err := Run(context.Background(), opts)
		if err != nil || res.Unchanged {
			t.Fatalf("step %d: %+v %v", i, res, err)
		}
		if !strings.Contains(logs.String(), "reused=") || strings.Contains(logs.String(), "reused=0 ") {
			t.Errorf("step %d: the index was not updated from the parent's:\n%s", i, logs.String())
		}
		if !sameBM25AsFresh(t, vault, res.Dir) {
			t.Fatalf("step %d: the updated index differs from a fresh build", i)
		}
	}
}

// TestBM25BuiltOnReusedRows: a parent without a BM25 index gets one built
// from its reused rows, whose chunks hold no context (Build.ChunkContext
// computes it): the file a build from scratch writes.
func TestBM25BuiltOnReusedRows(t *testing.T) {
	vault := filepath.Join("..", "testdata", "demo-vault")
	data := t.TempDir()
	if _, err := Run(context.Background(), Options{Vault: vault, Data: data, Stages: []Stage{}}); err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), Options{Vault: vault, Data: data, Stages: []Stage{BM25Stage{}}})
	if err != nil || res.Unchanged || res.Parsed != 0 || res.Reused == 0 {
		t.Fatalf("run on a parent without BM25: %+v, %v", res, err)
	}
	if !sameBM25AsFresh(t, vault, res.Dir) {
		t.Fatal("the index built on reused rows differs from a fresh build")
	}
}

// sameBM25AsFresh reports whether the BM25 file of the snapshot in dir is
// the one a build of vault from scratch writes.
func sameBM25AsFresh(t *testing.T, vault, dir string) bool {
	t.Helper()
	fresh, err := Run(context.Background(), Options{Vault: vault, Data: t.TempDir(), Stages: []Stage{BM25Stage{}}})
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(dir, format.BM25File))
	must(t, err)
	want, err := os.ReadFile(filepath.Join(fresh.Dir, format.BM25File))
	must(t, err)
	return bytes.Equal(got, want)
}
