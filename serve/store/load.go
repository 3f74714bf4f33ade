package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/vaultgraph/vaultgraph/format"
	"github.com/vaultgraph/vaultgraph/snapshot"
	"github.com/vaultgraph/vaultgraph/snapshot/codecontext"
	"github.com/vaultgraph/vaultgraph/snapshot/embed"
	"github.com/vaultgraph/vaultgraph/snapshot/linkgraph"
	"github.com/vaultgraph/vaultgraph/snapshot/retrieve"
	"github.com/vaultgraph/vaultgraph/snapshot/search"
)

// ErrUnavailable is wrapped by Snapshot.SearchErr and Snapshot.GraphErr
// when a capability cannot be offered for a snapshot (built without the
// stage, or this build of vaultgraph cannot open it). The snapshot is still
// served; only that capability answers with the reason.
var ErrUnavailable = errors.New("not available")

// A component is one part of an opened snapshot. open registers what it
// opened with s.addCloser; an error rejects the whole snapshot (whatever
// the components opened is closed again). Components that depend on
// server configuration rather than on the snapshot's bytes record their
// unavailability on s instead of failing, so that a server set up without,
// say, an embedding model still serves notes and queries.
//
// Adding a component means a field on Snapshot and a line here; nothing on
// the request path changes.
type component struct {
	name string
	open func(ctx context.Context, st *Store, sn *snapshot.Snapshot, s *Snapshot) error
}

// The note index is read first, from tables verified before anything
// else, while the rest of the snapshot is verified: nothing is decoded,
// mapped or handed to the graph engine before its bytes are checked.
var (
	noteTables = []string{format.NotesTable, format.EdgesTable, format.ChunksTable}
	notesFirst = component{"notes", openNotes}
)

// components open once every file is verified, concurrently with the
// dependents.
var components = []component{
	{"graph", openGraph},
}

// dependents build on the note index: each chain opens in order on a
// goroutine of its own, beside the components and the other chains (the
// vector index and the link graph share the note index's rows rather than
// read the tables again, and the code context searches notes through the
// vector index); the last ones open once all of them have.
var (
	dependents = [][]component{
		{{"vectors", openVectors}, {"code", openCode}},
		{{"links", openLinks}},
	}
	last = []component{
		{"retrieval", openRetriever}, // over the vector index and the link graph
	}
)

// load opens every component of the snapshot e, holding a lease on it from
// before its manifest is read until it is closed. It runs outside any lock
// that requests take. On error nothing stays open.
func (st *Store) load(ctx context.Context, e snapshot.Entry) (*Snapshot, error) {
	start := time.Now()
	if st.opts.TuneHeap {
		tuner.loadStarted()
		defer tuner.loadEnded()
	}
	releaseLease, err := snapshot.AcquireLease(st.dataDir, e.ID)
	if err != nil {
		return nil, err
	}
	s := newSnapshot(e.ID, e.Dir)
	s.addCloser("lease", releaseLease)
	if err := st.openComponents(ctx, e, s); err != nil {
		return nil, errors.Join(err, s.closeComponents())
	}
	s.Loaded = time.Now()
	s.LoadTime = s.Loaded.Sub(start)
	return s, nil
}

// openComponents opens the components, as much at once as their
// dependencies allow, since a swap should take as little time as the
// slowest path: the note tables are verified and read while the other
// files are verified, then the graph database opens beside the
// components built on the note index.
func (st *Store) openComponents(ctx context.Context, e snapshot.Entry, s *Snapshot) error {
	// The per-note signatures are the indexer's, never served.
	sn, err := snapshot.Open(e.Dir, snapshot.OpenOptions{WithoutNoteSignatures: true})
	if err != nil {
		return err
	}
	s.Manifest = sn.Manifest
	verify := snapshot.OpenOptions{VerifyChecksums: st.opts.Verify, VerifyFast: true}
	var tables, rest []string
	for name := range sn.Manifest.Files {
		if slices.ContainsFunc(noteTables, func(table string) bool { return format.IsSegmentFile(table, name) }) {
			tables = append(tables, name)
		} else {
			rest = append(rest, name)
		}
	}
	if err := sn.CheckFiles(verify, tables...); err != nil {
		return err
	}
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error { return sn.CheckFiles(verify, rest...) })
	g.Go(func() error { return st.openComponent(gctx, notesFirst, sn, s) })
	if err := g.Wait(); err != nil {
		return err
	}
	g, gctx = errgroup.WithContext(ctx)
	for _, c := range components {
		g.Go(func() error { return st.openComponent(gctx, c, sn, s) })
	}
	for _, chain := range dependents {
		g.Go(func() error {
			for _, c := range chain {
				if err := st.openComponent(gctx, c, sn, s); err != nil {
					return err
				}
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	for _, c := range last {
		if err := st.openComponent(ctx, c, sn, s); err != nil {
			return err
		}
	}
	return nil
}

func (st *Store) openComponent(ctx context.Context, c component, sn *snapshot.Snapshot, s *Snapshot) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := c.open(ctx, st, sn, s); err != nil {
		return fmt.Errorf("open %s of snapshot %s: %w", c.name, sn.ID, err)
	}
	return nil
}

// openNotes reads the note index, reusing the rows of the segment files
// it shares with the snapshot being served (held while they are taken).
func openNotes(_ context.Context, st *Store, sn *snapshot.Snapshot, s *Snapshot) error {
	var prev *Notes
	cur, release := st.Acquire()
	defer release()
	if cur != nil {
		prev = cur.Notes
	}
	n, err := loadNotes(sn, prev)
	if err != nil {
		return err
	}
	s.Notes = n
	return nil
}

// openVectors maps the vector files and graphs over the note index's
// rows and builds the query embedder. Damaged vector files reject the snapshot; a snapshot without
// vectors, or an embedder this server cannot build (a remote model without
// its key, a builtin algorithm of another version), leaves search
// unavailable with the reason.
func openVectors(_ context.Context, st *Store, sn *snapshot.Snapshot, s *Snapshot) error {
	m := sn.Manifest
	if m.Vectors == nil || m.Embedder == nil {
		s.SearchErr = fmt.Errorf("vector search is %w: snapshot %s was built without the embedding stage; index the vault with an embedder", ErrUnavailable, sn.ID)
		return nil
	}
	e, err := embed.ForSnapshot(m.Embedder, st.opts.Embed)
	if err != nil {
		s.SearchErr = fmt.Errorf("vector search is %w: %w", ErrUnavailable, err)
		return nil
	}
	opts := st.opts.Search
	// Chunk text is served from the note index, and its rows are the
	// snapshot's tables: do not hold either twice.
	opts.Text = false
	opts.Tables = &search.Tables{Notes: s.Notes.notes, Chunks: s.Notes.formatChunks(), Edges: s.Notes.edges}
	ix, err := search.Open(sn, opts)
	if err != nil {
		return err
	}
	s.addCloser("vectors", ix.Close)
	s.Search, s.Embedder = ix, e
	return nil
}

// openCode builds the code context (retrieve_context) of a snapshot that
// indexed repositories, seeded by the code and note vectors too when
// vector search is available; a snapshot without code is served without
// it.
func openCode(_ context.Context, _ *Store, sn *snapshot.Snapshot, s *Snapshot) error {
	src := codecontext.Sources{Embedder: s.Embedder, Notes: s.Search}
	if s.Search == nil {
		src = codecontext.Sources{}
	}
	ix, err := codecontext.Open(sn, src)
	if errors.Is(err, codecontext.ErrNoCode) {
		s.CodeErr = fmt.Errorf("%w: %w", ErrUnavailable, err)
		return nil
	}
	if err != nil {
		return err
	}
	s.addCloser("code", ix.Close)
	s.Code = ix
	return nil
}

// openGraph opens the graph database through Options.OpenGraph.
func openGraph(ctx context.Context, st *Store, sn *snapshot.Snapshot, s *Snapshot) error {
	open := st.opts.OpenGraph
	if open == nil {
		open = GraphOpenerWith(st.opts.GraphDB)
	}
	g, err := open(ctx, sn)
	if errors.Is(err, ErrUnavailable) {
		s.GraphErr = err
		return nil
	}
	if err != nil {
		return err
	}
	s.addCloser("graph", g.Close)
	s.Graph = g
	return nil
}

// openLinks builds the link graph (graph navigation, POST /graph) from the
// notes and edges the note index already holds; it shares their strings.
// When they make the graph of the snapshot being served (an edit of a
// note's text changes no name, tag or link), it shares that graph's
// indexes instead (held while they are compared).
func openLinks(_ context.Context, st *Store, sn *snapshot.Snapshot, s *Snapshot) error {
	var prev *linkgraph.Graph
	cur, release := st.Acquire()
	defer release()
	if cur != nil {
		prev = cur.Links
	}
	g, reused, err := linkgraph.Reuse(prev, sn.ID, s.Notes.notes, s.Notes.edges)
	if err != nil {
		return err
	}
	s.Links, s.LinksReused = g, reused
	return nil
}

// openRetriever builds the GraphRAG retriever (POST /retrieve) over the
// link graph, the vector index, the query embedder and the chunks of the
// note index. Without vector search there is no retrieval, for the same
// reason; a retriever that cannot be built over the snapshot's own files
// (a BM25 index of other chunks) rejects the snapshot.
func openRetriever(_ context.Context, _ *Store, sn *snapshot.Snapshot, s *Snapshot) error {
	if s.Search == nil {
		s.RetrieveErr = s.SearchErr
		return nil
	}
	r, err := retrieve.New(retrieve.Sources{Snapshot: sn, Graph: s.Links, Search: s.Search, Embedder: s.Embedder,
		Chunks: s.Notes.formatChunks()})
	if err != nil {
		return err
	}
	s.addCloser("retrieval", r.Close)
	s.Retriever = r
	return nil
}
