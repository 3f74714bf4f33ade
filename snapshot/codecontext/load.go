package codecontext

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"golang.org/x/sync/errgroup"

	"github.com/vaultgraph/vaultgraph/format"
	"github.com/vaultgraph/vaultgraph/snapshot"
	"github.com/vaultgraph/vaultgraph/snapshot/bm25"
	"github.com/vaultgraph/vaultgraph/snapshot/embed"
	"github.com/vaultgraph/vaultgraph/snapshot/search"
)

// ErrNoCode is returned by Load for a snapshot that indexed no repository.
var ErrNoCode = errors.New("the snapshot holds no code: index with --repo NAME=PATH")

// Node kinds.
const (
	KindNote   = "note"
	KindFile   = "file"
	KindSymbol = "symbol"
	KindStub   = "stub"
)

type node struct {
	id, path, title, kind, repo string
	labels                      []string
	file                        int32 // a symbol's file, -1 otherwise
	test                        bool
	line, endLine               int32 // a symbol's first and last line
}

type arc struct {
	to   int32
	edge int32 // index in Index.edges
	out  bool  // the edge leaves this node
}

// Index is one snapshot's graph of notes and code with its lexical
// indexes.
type Index struct {
	snapshot string
	nodes    []node
	byID     map[string]int32
	edges    []format.Edge
	adj      [][]arc
	symbols  map[int32][]int32 // file -> symbols

	noteLex *bm25.Index // nil without the BM25 stage
	// linkTerms are the terms every code link of a note puts into its
	// text ("code", the repositories' names): not words of the note, so
	// not matched against the question (a question naming the library
	// would match every note that links to it).
	linkTerms map[string]bool
	// repos are the names of the snapshot's repositories.
	repos []string
	// catalog resolves code ids as notes write them, and says why one
	// names nothing.
	catalog   *format.CodeCatalog
	noteChunk []int32 // bm25 document -> note node
	codeLex   *lexicon
	codeChunk []int32 // code lexicon document -> file or symbol node

	// Vector seeds (Open): nil after Load.
	embedder embed.Embedder
	notesVec *search.Index
	codeVec  *codeVectors
}

type noteRow struct {
	ID     string   `parquet:"id"`
	Path   string   `parquet:"path"`
	Title  string   `parquet:"title"`
	Labels []string `parquet:"labels,list"`
	Stub   bool     `parquet:"stub"`
}

type chunkRow struct {
	Note string `parquet:"note"`
}

// Load builds the index of a snapshot, seeded by BM25 alone (Open adds
// the vectors). It fails with ErrNoCode when the snapshot indexed no
// repository.
func Load(s *snapshot.Snapshot) (*Index, error) {
	ix, _, err := load(s)
	return ix, err
}

// load is Load, also returning the code chunks.
func load(s *snapshot.Snapshot) (*Index, []format.CodeChunk, error) {
	if len(s.Manifest.Repos) == 0 {
		return nil, nil, ErrNoCode
	}
	linkTerms := map[string]bool{}
	var repos []string
	for _, r := range s.Manifest.Repos {
		repos = append(repos, r.Name)
	}
	for _, r := range append([]format.Repo{{Name: "code"}}, s.Manifest.Repos...) {
		for _, t := range Terms(r.Name) {
			linkTerms[t] = true
		}
	}
	var (
		notes      []noteRow
		noteEdges  []format.Edge
		code       snapshot.CodeGraph
		codeChunks []format.CodeChunk
		chunks     []chunkRow
		lex        *bm25.Index
		g          errgroup.Group
	)
	read := func(dst func(string) error, name string) {
		g.Go(func() error { return dst(filepath.Join(s.Dir, name)) })
	}
	g.Go(func() (err error) { notes, err = snapshot.ReadSegments[noteRow](s, format.NotesTable); return err })
	g.Go(func() (err error) {
		noteEdges, err = snapshot.ReadSegments[format.Edge](s, format.EdgesTable)
		return err
	})
	g.Go(func() (err error) { code, err = s.CodeGraph(); return err })
	read(func(p string) (err error) { codeChunks, err = snapshot.ReadTable[format.CodeChunk](p); return err }, format.CodeChunksFile)
	read(func(p string) (err error) {
		if _, err := os.Stat(p); errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if lex, err = bm25.Open(p); err != nil {
			return err
		}
		chunks, err = snapshot.ReadSegments[chunkRow](s, format.ChunksTable)
		return err
	}, format.BM25File)
	if err := g.Wait(); err != nil {
		return nil, nil, fmt.Errorf("load code context of %s: %w", s.ID, err)
	}
	ix := &Index{snapshot: s.ID, linkTerms: linkTerms, repos: repos, byID: map[string]int32{}, symbols: map[int32][]int32{},
		catalog: format.NewCodeCatalog(s.Manifest.Repos, code.Files, code.Symbols)}
	for _, n := range notes {
		kind := KindNote
		if n.Stub {
			kind = KindStub
		}
		ix.add(node{id: n.ID, path: n.Path, title: n.Title, kind: kind, labels: n.Labels, file: -1})
	}
	for _, f := range code.Files {
		ix.add(node{id: f.ID, path: f.Path, title: filepath.Base(f.Path), kind: KindFile, repo: f.Repo, file: -1, test: f.Test, line: 1})
	}
	for _, sy := range code.Symbols {
		fi, ok := ix.byID[sy.File]
		if !ok {
			continue
		}
		f := ix.nodes[fi]
		i := ix.add(node{id: sy.ID, path: f.path, title: sy.Name, kind: KindSymbol, repo: f.repo, file: fi, test: f.test, line: sy.Line, endLine: sy.EndLine})
		ix.symbols[fi] = append(ix.symbols[fi], i)
	}
	ix.adj = make([][]arc, len(ix.nodes))
	for _, e := range append(noteEdges, code.Edges...) {
		src, ok1 := ix.byID[e.Source]
		dst, ok2 := ix.byID[e.Target]
		if !ok2 && e.Unresolved {
			dst, ok2 = ix.add(node{id: e.Target, title: e.Target, kind: KindStub, file: -1}), true
			ix.adj = append(ix.adj, nil)
		}
		if !ok1 || !ok2 || src == dst {
			continue
		}
		ei := int32(len(ix.edges))
		ix.edges = append(ix.edges, e)
		ix.adj[src] = append(ix.adj[src], arc{to: dst, edge: ei, out: true})
		ix.adj[dst] = append(ix.adj[dst], arc{to: src, edge: ei})
	}
	if lex != nil && lex.Docs() == len(chunks) {
		ix.noteLex = lex
		ix.noteChunk = make([]int32, len(chunks))
		for i, c := range chunks {
			if n, ok := ix.byID[c.Note]; ok {
				ix.noteChunk[i] = n
			} else {
				ix.noteChunk[i] = -1
			}
		}
	}
	docs := make([][]string, 0, len(codeChunks))
	for _, c := range codeChunks {
		n, ok := ix.byID[c.ID]
		if !ok {
			continue
		}
		ix.codeChunk = append(ix.codeChunk, n)
		terms := codeTerms(strings.ReplaceAll(c.Text, "/", " "))
		// A symbol's own name and a file's path say what it is: they count
		// three times.
		name := codeTerms(strings.ReplaceAll(ix.nodes[n].title+" "+ix.nodes[n].path, "/", " "))
		if ix.nodes[n].kind == KindSymbol {
			name = codeTerms(ix.nodes[n].title)
		}
		for range 3 {
			terms = append(terms, name...)
		}
		docs = append(docs, terms)
	}
	ix.codeLex = newLexicon(docs)
	return ix, codeChunks, nil
}

func (ix *Index) add(n node) int32 {
	i := int32(len(ix.nodes))
	ix.nodes = append(ix.nodes, n)
	ix.byID[n.id] = i
	return i
}

// Snapshot is the id of the snapshot the index was loaded from.
func (ix *Index) Snapshot() string { return ix.snapshot }
