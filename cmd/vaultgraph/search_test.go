package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/vaultgraph/vaultgraph/snapshot/embed/embedtest"
	"github.com/vaultgraph/vaultgraph/snapshot/search"
)

func TestSearchCommand(t *testing.T) {
	vault := copyDemoVault(t)
	data := t.TempDir()
	vgOK(t, "index", "--vault", vault, "--data", data)

	// The JSON is POST /search's: the notes are its hits.
	var res struct {
		Target string           `json:"target"`
		Notes  []search.NoteHit `json:"results"`
	}
	out := vgOK(t, "search", "--data", data, "--format", "json", "Acme", "funds")
	if err := json.Unmarshal([]byte(out.stdout), &res); err != nil {
		t.Fatalf("search --format json: %v\n%s", err, out.stdout)
	}
	if res.Target != "nodes" || len(res.Notes) == 0 || res.Notes[0].Path != "Companies/Acme.md" || res.Notes[0].Best.Line == 0 {
		t.Fatalf("notes for 'Acme funds': %+v", res)
	}

	people := vgOK(t, "search", "--data", data, "--format", "json", "--types", "Person,Company", "--k", "50", "search project")
	res.Notes = nil
	json.Unmarshal([]byte(people.stdout), &res)
	if len(res.Notes) == 0 {
		t.Errorf("--types Person,Company found nothing: %s", people.stdout)
	}
	for _, n := range res.Notes {
		if !slices.Contains(n.Labels, "Person") && !slices.Contains(n.Labels, "Company") {
			t.Errorf("--types Person,Company returned %s %v", n.Path, n.Labels)
		}
	}

	chunks := vgOK(t, "search", "--data", data, "--target", "chunks", "--k", "2", "who funds the search project")
	if !strings.Contains(chunks.stdout, " 1. ") || !strings.Contains(chunks.stdout, "[bytes ") || !strings.Contains(chunks.stdout, "static English word vectors") {
		t.Errorf("chunk search output:\n%s", chunks.stdout)
	}
	// Each ranking alone, and BM25 without an embedder: a snapshot whose
	// model server is down can still be searched by its words.
	for _, m := range []string{"fused", "vectors", "bm25"} {
		out := vgOK(t, "search", "--data", data, "--format", "json", "--method", m, "--embedder", "", "Initech")
		var got struct {
			Method string           `json:"method"`
			Notes  []search.NoteHit `json:"results"`
		}
		if err := json.Unmarshal([]byte(out.stdout), &got); err != nil || got.Method != m ||
			len(got.Notes) == 0 || got.Notes[0].Path != "Companies/Initech.md" {
			t.Errorf("--method %s: %v %+v", m, err, got)
		}
	}
	edges := vgOK(t, "search", "--data", data, "--target", "edges", "--edge-types", "funds", "money")
	if !strings.Contains(edges.stdout, "-[funds]->") || strings.Contains(edges.stdout, "-[links_to]->") {
		t.Errorf("edge search output:\n%s", edges.stdout)
	}

	for _, args := range [][]string{
		{"search", "--data", data},
		{"search", "--data", data, "--target", "pages", "x"},
		{"search", "--data", data, "--format", "xml", "x"},
		{"search", "--data", data, "--method", "magic", "x"},
	} {
		if r := vg(t, args...); r.code != 2 {
			t.Errorf("%v: exit %d, want 2 (usage)", args, r.code)
		}
	}
	// A query embedder other than the snapshot's is refused.
	r := vg(t, "search", "--data", data, "--embedder", "ollama", "--ollama-host", "127.0.0.1:9", "x")
	if r.code != 1 || !strings.Contains(r.stderr, "differs from the snapshot") {
		t.Errorf("search with another embedder: exit %d, stderr %q", r.code, r.stderr)
	}
}

func TestIndexEmbedderSwitching(t *testing.T) {
	vault := copyDemoVault(t)
	data := t.TempDir()
	srv := embedtest.NewOllama(t)
	host := []string{"--ollama-host", srv.URL()}

	vgOK(t, append([]string{"index", "--vault", vault, "--data", data, "--embedder", "ollama:nomic-embed-text"}, host...)...)
	embedded := len(srv.Texts())
	if embedded == 0 {
		t.Fatal("indexing with ollama embedded nothing")
	}
	// Without --embedder a run keeps the snapshot's model: after an edit it
	// embeds only the new text, with the same model.
	note := filepath.Join(vault, "People/Bob.md")
	b, err := os.ReadFile(note)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(note, append(b, []byte("\n\nBob also maintains the snapshot verifier.\n")...), 0o644)
	srv.Reset()
	vgOK(t, append([]string{"index", "--vault", vault, "--data", data}, host...)...)
	if n := len(srv.Texts()); n == 0 || n > 3 {
		t.Errorf("an edit of one paragraph embedded %d texts", n)
	}
	found := vgOK(t, append(append([]string{"search", "--data", data, "--target", "chunks", "--k", "1"}, host...), "snapshot verifier")...)
	if !strings.Contains(found.stdout, "People/Bob.md") {
		t.Errorf("search with the recorded ollama model:\n%s", found.stdout)
	}

	r := vg(t, "index", "--vault", vault, "--data", data, "--embedder", "builtin")
	if r.code != 1 || !strings.Contains(r.stderr, "vaultgraph index --reembed --embedder builtin") {
		t.Fatalf("switching to builtin: exit %d, stderr %q", r.code, r.stderr)
	}
	vgOK(t, "index", "--vault", vault, "--data", data, "--embedder", "builtin", "--reembed")
	show := vgOK(t, "snapshot", "show", "--data", data, "--json")
	var m struct {
		Embedder struct{ Provider string }
		Vectors  struct {
			Chunks struct{ Reused, Embedded, Vectors int }
		}
	}
	json.Unmarshal([]byte(show.stdout), &m)
	if m.Embedder.Provider != "builtin" || m.Vectors.Chunks.Reused != 0 || m.Vectors.Chunks.Embedded != m.Vectors.Chunks.Vectors {
		t.Errorf("after --reembed: %+v", m)
	}
}

// TestDefaultEmbedderKeepsRecordedOnes checks the default for a new data
// directory (the static word vectors) and that a directory indexed with
// the lexical embedder keeps it until --reembed.
func TestDefaultEmbedderKeepsRecordedOnes(t *testing.T) {
	vault := copyDemoVault(t)
	type manifest struct {
		Embedder struct{ Provider, Model, Kind string }
		Vectors  struct {
			Chunks struct{ Reused, Embedded, Vectors int }
		}
	}
	show := func(data string) manifest {
		var m manifest
		out := vgOK(t, "snapshot", "show", "--data", data, "--json")
		if err := json.Unmarshal([]byte(out.stdout), &m); err != nil {
			t.Fatal(err)
		}
		return m
	}
	fresh := t.TempDir()
	vgOK(t, "index", "--vault", vault, "--data", fresh, "--graph=false")
	if m := show(fresh); m.Embedder.Kind != "static-word-vectors+lexical" || m.Embedder.Model != "glove100-sif+hashed-ngrams-v1" {
		t.Errorf("a new data directory gets %+v", m.Embedder)
	}

	old := t.TempDir()
	vgOK(t, "index", "--vault", vault, "--data", old, "--embedder", "lexical", "--graph=false")
	if m := show(old); m.Embedder.Kind != "lexical" || m.Embedder.Model != "hashed-ngrams-v1" {
		t.Fatalf("--embedder lexical gives %+v", m.Embedder)
	}
	note := filepath.Join(vault, "People/Bob.md")
	b, err := os.ReadFile(note)
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(note, append(b, []byte("\n\nBob also maintains the snapshot verifier.\n")...), 0o644)
	vgOK(t, "index", "--vault", vault, "--data", old, "--graph=false")
	if m := show(old); m.Embedder.Kind != "lexical" || m.Vectors.Chunks.Reused == 0 {
		t.Errorf("a plain run on a lexical data directory: %+v", m)
	}
	r := vg(t, "index", "--vault", vault, "--data", old, "--embedder", "builtin", "--graph=false")
	if r.code != 1 || !strings.Contains(r.stderr, "--reembed --embedder builtin") || !strings.Contains(r.stderr, "--embedder lexical") {
		t.Fatalf("switching to the default without --reembed: exit %d, stderr %q", r.code, r.stderr)
	}
	vgOK(t, "index", "--vault", vault, "--data", old, "--embedder", "builtin", "--reembed", "--graph=false")
	if m := show(old); m.Embedder.Kind != "static-word-vectors+lexical" || m.Vectors.Chunks.Reused != 0 {
		t.Errorf("after --reembed: %+v", m)
	}
}
