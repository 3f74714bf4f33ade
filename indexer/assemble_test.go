package indexer

import (
	"context"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/vaultgraph/vaultgraph/format"
)

// TestReuseRowsCoverTheFormat fails when a column is added to format.Note or
// format.Chunk without being added to the rows the indexer reuses, which
// would silently drop it from every reused note.
func TestReuseRowsCoverTheFormat(t *testing.T) {
	check := func(full, meta any, rebuilt ...string) {
		skip := map[string]bool{}
		for _, f := range rebuilt {
			skip[f] = true
		}
		mt := reflect.TypeOf(meta)
		ft := reflect.TypeOf(full)
		for i := range ft.NumField() {
			f := ft.Field(i)
			if skip[f.Name] {
				continue
			}
			m, ok := mt.FieldByName(f.Name)
			if !ok {
				t.Errorf("%s.%s is not read back by %s", ft.Name(), f.Name, mt.Name())
				continue
			}
			if m.Tag.Get("parquet") != f.Tag.Get("parquet") {
				t.Errorf("%s.%s: tag %q, format has %q", mt.Name(), f.Name, m.Tag.Get("parquet"), f.Tag.Get("parquet"))
			}
		}
	}
	// Size and Modified come from the file as read now, Content and Text
	// from its bytes, Context from the note's row and the chunk's heading.
	check(format.Note{}, noteMeta{}, "Content", "Size", "Modified")
	check(format.Chunk{}, chunkMeta{}, "Text", "Context")
}

// TestReusedChunksKeepTheirContext: the tables hold no chunk context, so a
// reused note's chunks get theirs from its row and their headings
// (Build.ChunkContext); it must be the context the parser writes (what
// their text keys hold and what BM25 and a new embedder read), for every
// chunk of the demo vault.
func TestReusedChunksKeepTheirContext(t *testing.T) {
	vault := filepath.Join("..", "testdata", "demo-vault")
	res := run(t, vault, t.TempDir())
	parent := openSnap(t, res.Dir)
	opts := Options{Vault: vault}.withDefaults()
	r := reusable(context.Background(), parent, opts)
	if r == nil {
		t.Fatal("the parent's rows are not reusable")
	}
	chunks := 0
	for path := range parent.Manifest.Notes {
		f := readOne(vaultFile{Path: path, Abs: filepath.Join(vault, filepath.FromSlash(path))}, opts.MaxNoteBytes)
		got, ok := r.rows(f)
		if !ok {
			t.Fatalf("%s: rows not reused", path)
		}
		want := parseNote(f, opts).chunks
		if len(got.chunks) != len(want) {
			t.Fatalf("%s: %d chunks reused, %d parsed", path, len(got.chunks), len(want))
		}
		b := &Build{Notes: []format.Note{got.note}, Chunks: got.chunks}
		for i, c := range got.chunks {
			if ctx := b.ChunkContext(i); ctx != want[i].Context || c.TextSHA256 != want[i].TextSHA256 {
				t.Errorf("%s chunk %d: context %q reused, %q parsed", path, i, ctx, want[i].Context)
			}
			if b.ChunkContext(i) == c.Context {
				t.Errorf("%s chunk %d: a reused chunk holds its context (%q): the stages should compute it", path, i, c.Context)
			}
			chunks++
		}
	}
	if chunks == 0 {
		t.Fatal("no chunks")
	}
}
