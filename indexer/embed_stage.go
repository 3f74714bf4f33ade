package indexer

import (
	"context"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync/atomic"
	"time"

	"github.com/vaultgraph/vaultgraph/format"
	"github.com/vaultgraph/vaultgraph/snapshot"
	"github.com/vaultgraph/vaultgraph/snapshot/embed"
	"github.com/vaultgraph/vaultgraph/snapshot/vectors"
)

// DefaultGraphUpdateLimit is the share of changed rows (removed plus added,
// over the new total) up to which a snapshot's graph is updated from its
// parent's instead of being rebuilt.
const DefaultGraphUpdateLimit = 0.25

// EmbedStage adds the vectors of every chunk and edge sentence and an HNSW
// graph over each (files named in format/vectors.go) to a snapshot. Plain
// links (format.UnembeddedEdgeTypes) get no vector. A snapshot with code
// gets a third target: every code chunk, embedded as
// format.CodeEmbedText (identifiers split into words), so that an
// unchanged file (same blob, same chunks) reuses its vectors.
//
// A vector is reused from the parent snapshot when the parent's embedder has
// the same fingerprint and a row for the exact text (format.TextHash of
// what is embedded): unchanged text is never embedded again, so moving a
// note re-embeds nothing and editing one paragraph re-embeds only the
// chunks whose text changed. The graphs are updated from the parent's when
// few rows changed and rebuilt otherwise.
//
// When the embedder fails (server down, errors after retries) texts without
// a vector are counted as pending in the manifest with the reason, and
// vectors of unchanged texts stay searchable. A run with other changes (the
// vault, another stage, the graph parameters) is published with them;
// Pending reports them as PendingRetry, so the next run retries them even
// if the vault is unchanged. A run that exists only for that retry and gets
// no text embedded reports Build.Stalled and publishes nothing (Run returns
// Unchanged with Result.Stalled), so a timer firing while the model server
// is down does not publish copies of the same snapshot.
//
// A parent embedded with another model is refused (wrapping
// embed.ErrModelMismatch) unless Reembed is set; a re-embedding run that
// cannot embed anything fails rather than publish a snapshot without
// vectors. For an embedder whose weights can change under the same name
// (embed.Revisioner: Ollama's model digest), a run with texts to embed
// first asks the server for the model's revision: a parent recorded with
// another one is refused the same way, since its vectors would mix with the
// new weights' (--reembed rebuilds them all). A run that cannot ask, or has
// nothing to embed, records the parent's revision: every vector it reuses
// comes from it.
type EmbedStage struct {
	Embedder embed.Embedder
	// Reembed embeds every text again, reusing nothing: the way to switch
	// models. It applies to the first run that succeeds; later runs of the
	// same stage (index --watch) reuse vectors again.
	Reembed bool
	// Params shape new graphs. When zero: vectors.DefaultParams(), with
	// EfSearch vectors.LexicalEfSearch for the builtin embedders (lexical
	// and static word vectors).
	Params vectors.Params
	// UpdateLimit overrides DefaultGraphUpdateLimit when > 0.
	UpdateLimit float64
	// Progress receives a progress line while embedding and building
	// graphs; nil (logs, CI) keeps quiet.
	Progress io.Writer

	reembedded atomic.Bool
}

// reembed reports whether this run must embed everything again.
func (s *EmbedStage) reembed() bool { return s.Reembed && !s.reembedded.Load() }

// Name implements Stage.
func (s *EmbedStage) Name() string { return "embed" }

func (s *EmbedStage) params() vectors.Params {
	if s.Params != (vectors.Params{}) {
		return s.Params
	}
	p := vectors.DefaultParams()
	// Short queries against word-feature vectors need the wide beam: the
	// static embedder's reach recall@10 0.91 at 96 and 0.96 at 256
	// (BenchmarkRealTextStatic20k), about what the lexical one's do.
	if k := s.Embedder.Info().Kind; k == format.EmbedderLexical || k == format.EmbedderStatic {
		p.EfSearch = vectors.LexicalEfSearch
	}
	return p
}

// Pending implements Pender. An unchanged vault still gets a new snapshot
// (PendingRebuild) when the parent has no vectors, was built with other
// graph parameters, embedded other edge types or with another embedder (which Run then refuses, or
// re-embeds with Reembed). Texts the parent has no vector for are a retry
// (PendingRetry): the run publishes only if it embeds some of them.
func (s *EmbedStage) Pending(parent *snapshot.Snapshot) Pending {
	m := parent.Manifest
	switch {
	case s.reembed(), m.Embedder == nil, m.Vectors == nil,
		m.Embedder.Fingerprint != s.Embedder.Info().Fingerprint,
		m.Vectors.HNSW != s.params().Manifest(),
		!slices.Equal(m.Vectors.EdgesWithoutVectors, format.UnembeddedEdgeTypes):
		return PendingRebuild
	case len(m.Repos) > 0 && m.Vectors.Code == nil:
		return PendingRebuild
	case m.Vectors.Chunks.Pending > 0 || m.Vectors.Edges.Pending > 0 || (m.Vectors.Code != nil && m.Vectors.Code.Pending > 0):
		return PendingRetry
	}
	return PendingNone
}

// embedTarget is the rows of one target (chunks or edges) being built.
type embedTarget struct {
	name, vectorsFile, graphFile string
	hashes                       []vectors.Hash // per item
	// text returns item i's text; only the texts to embed are asked
	// for (building every chunk's was a tenth of an edit's embedding).
	text        func(i int) string
	parent      *vectors.File // nil without reuse; opened to copy (vectors.OpenFileToCopy)
	parentGraph string        // path, "" without reuse
	stats       format.VectorIndex
}

// Run implements Stage.
func (s *EmbedStage) Run(ctx context.Context, b *Build) error {
	start := time.Now()
	info := s.Embedder.Info()
	// The revision Info remembers may be stale (index --watch runs one
	// embedder for hours); this run asks the server, or keeps the parent's.
	info.Revision = ""
	fp, err := hex.DecodeString(info.Fingerprint)
	if err != nil || len(fp) != len(vectors.Hash{}) {
		return fmt.Errorf("embedder %s has a malformed fingerprint", info.Spec())
	}
	var prev *format.Manifest
	if b.Parent != nil {
		prev = b.Parent.Manifest
	}
	reembed := s.reembed()
	if prev != nil && prev.Embedder != nil && !reembed {
		if err := embed.Check(prev.Embedder, info); err != nil {
			return fmt.Errorf("%w. Vectors of two models are never mixed: to switch, re-embed the whole vault with "+
				"vaultgraph index --reembed --embedder %s (or keep the current model with --embedder %s)",
				err, info.Spec(), embed.SpecOf(prev.Embedder))
		}
	}
	targets, err := s.targets(b)
	if err != nil {
		return err
	}
	reuse := prev != nil && prev.Embedder != nil && prev.Vectors != nil && !reembed
	if reuse {
		s.openParent(b, targets)
	}
	defer func() {
		for _, t := range targets {
			if t.parent != nil {
				t.parent.Close()
			}
		}
	}()
	var recorded *format.Embedder // the embedder of the vectors reused
	if reuse {
		recorded = prev.Embedder
	}
	hashes, texts := missingTexts(targets)
	if err := b.unreadNeeded(); err != nil {
		return err
	}
	if info.Revision, err = s.revision(ctx, b, info, recorded, len(texts) > 0); err != nil {
		return err
	}
	fresh, reason, err := s.embed(ctx, hashes, texts)
	if err != nil {
		return err
	}
	if reembed && reason != "" && len(fresh) == 0 {
		// Publishing would replace every searchable vector with nothing.
		return fmt.Errorf("re-embedding with %s failed, nothing published (the newest snapshot keeps its vectors): %s", info.Spec(), reason)
	}
	dims, err := vectorDims(fresh, targets, info, prev)
	if err != nil {
		return err
	}
	var h vectors.Hash
	copy(h[:], fp)
	for _, t := range targets {
		if err := s.writeTarget(ctx, b, t, targets, h, dims, fresh); err != nil {
			return err
		}
	}
	b.Manifest.Embedder = info.Manifest(dims)
	b.Manifest.Vectors = &format.Vectors{HNSW: s.params().Manifest(), Chunks: targets[0].stats, Edges: targets[1].stats,
		EdgesWithoutVectors: slices.Clone(format.UnembeddedEdgeTypes)}
	attrs := []any{"embedder", info.Spec(), "kind", info.Kind, "chunks", targets[0].stats.Items, "edges", targets[1].stats.Items}
	hnsw := targets[0].stats.HNSWBuild + "/" + targets[1].stats.HNSWBuild
	if len(targets) > 2 {
		code := targets[2].stats
		b.Manifest.Vectors.Code = &code
		attrs = append(attrs, "code_chunks", code.Items)
		hnsw += "/" + code.HNSWBuild
	}
	embedded, reused := 0, 0
	for _, t := range targets {
		embedded, reused = embedded+t.stats.Embedded, reused+t.stats.Reused
	}
	pending := s.reportPending(ctx, b, targets, len(fresh) > 0, reason)
	b.Log.Info("embedded", append(attrs, "embedded", embedded, "reused", reused, "pending", pending,
		"hnsw", hnsw, "elapsed", time.Since(start).Round(time.Millisecond))...)
	if reembed {
		s.reembedded.Store(true)
	}
	return nil
}

// targets collects the text and hash of every chunk and of every edge of
// a type that is embedded (format.UnembeddedEdgeTypes are not).
func (s *EmbedStage) targets(b *Build) ([]*embedTarget, error) {
	chunks := &embedTarget{name: "chunks", vectorsFile: format.ChunkVectorsFile, graphFile: format.ChunkHNSWFile,
		hashes: make([]vectors.Hash, len(b.Chunks)),
		text: func(i int) string {
			b.needText(b.Chunks[i].Note)
			return format.EmbedText(b.ChunkContext(i), b.Chunks[i].Text)
		}}
	for i, c := range b.Chunks {
		h, ok := vectors.ParseHash(c.TextSHA256)
		if !ok {
			return nil, fmt.Errorf("chunk %s has a malformed text_sha256 %q", c.ID, c.TextSHA256)
		}
		chunks.hashes[i] = h
	}
	var sentences []string
	edges := &embedTarget{name: "edges", vectorsFile: format.EdgeVectorsFile, graphFile: format.EdgeHNSWFile,
		text: func(i int) string { return sentences[i] }}
	without := &format.Vectors{EdgesWithoutVectors: format.UnembeddedEdgeTypes}
	for _, e := range b.Edges {
		if !without.EdgeEmbedded(e.Type) {
			continue
		}
		h, _ := vectors.ParseHash(format.TextHash(e.Sentence))
		edges.hashes = append(edges.hashes, h)
		sentences = append(sentences, e.Sentence)
	}
	out := []*embedTarget{chunks, edges}
	if len(b.Manifest.Repos) > 0 || len(b.CodeChunks) > 0 {
		var texts []string
		code := &embedTarget{name: "code", vectorsFile: format.CodeVectorsFile, graphFile: format.CodeHNSWFile,
			text: func(i int) string { return texts[i] }}
		for _, c := range b.CodeChunks {
			text := format.CodeEmbedText(c)
			h, _ := vectors.ParseHash(format.TextHash(text))
			code.hashes = append(code.hashes, h)
			texts = append(texts, text)
		}
		out = append(out, code)
	}
	return out, nil
}

// openParent opens the parent's vector files for reuse. A parent file that
// cannot be read, or whose xxh64 differs from its manifest's (its values
// would be copied into a file that verifies), costs re-embedding, not the
// run; a damaged graph file costs building the graph afresh.
func (s *EmbedStage) openParent(b *Build, targets []*embedTarget) {
	for _, t := range targets {
		if t.vectorsFile == format.CodeVectorsFile && b.Parent.Manifest.Vectors.Code == nil {
			continue // the parent has no code vectors: nothing to reuse, nothing wrong
		}
		check := snapshot.OpenOptions{VerifyFast: true}
		if err := b.Parent.CheckFiles(check, t.vectorsFile); err != nil {
			b.Log.Warn("the parent snapshot's vectors are damaged; embedding those texts again", "target", t.name, "err", err)
			continue
		}
		// Its rows are found and copied, never searched: their residuals
		// need not be unpacked.
		f, err := vectors.OpenFileToCopy(filepath.Join(b.Parent.Dir, t.vectorsFile))
		if err != nil {
			b.Log.Warn("cannot reuse the parent snapshot's vectors; embedding those texts again", "target", t.name, "err", err)
			continue
		}
		t.parent = f
		if b.Parent.Manifest.Vectors.HNSW == s.params().Manifest() {
			if _, listed := b.Parent.Manifest.Files[t.graphFile]; listed {
				if err := b.Parent.CheckFiles(check, t.graphFile); err != nil {
					b.Log.Warn("the parent snapshot's vector graph is damaged; building it afresh", "target", t.name, "err", err)
					continue
				}
			}
			t.parentGraph = filepath.Join(b.Parent.Dir, t.graphFile)
		}
	}
}

// parentRow is a row of a parent vector file.
type parentRow struct {
	file *vectors.File
	row  int
}

// lookupParent finds a parent vector for h in any target's parent file: a
// chunk text and an edge sentence that are equal have equal vectors.
func lookupParent(targets []*embedTarget, h vectors.Hash) (parentRow, bool) {
	for _, t := range targets {
		if t.parent == nil {
			continue
		}
		if r, ok := t.parent.Find(h); ok {
			return parentRow{t.parent, r}, true
		}
	}
	return parentRow{}, false
}

// reportPending records the texts left without a vector, if any, and
// returns how many there are. A run that embedded nothing reports a stall:
// when it exists only to retry them, it publishes nothing.
func (s *EmbedStage) reportPending(ctx context.Context, b *Build, targets []*embedTarget, progress bool, reason string) int {
	pending := 0
	for _, t := range targets {
		pending += t.stats.Pending
	}
	if pending == 0 {
		return 0
	}
	b.Manifest.Vectors.PendingReason = reason
	level := slog.LevelWarn
	if !progress {
		b.Stalled(Stall{Stage: s.Name(), Pending: pending, Reason: reason})
		if b.Retrying(s.Name()) {
			level = slog.LevelInfo // nothing will be published, and Run says so
		}
	}
	attrs := []any{"pending_chunks", targets[0].stats.Pending, "pending_edges", targets[1].stats.Pending}
	if len(targets) > 2 {
		attrs = append(attrs, "pending_code", targets[2].stats.Pending)
	}
	b.Log.Log(ctx, level, "some texts have no vector yet: the snapshot goes without them and the next index run embeds them",
		append(attrs, "reason", reason)...)
	return pending
}

// missingTexts returns every distinct text the parent has no vector for,
// with its hash.
func missingTexts(targets []*embedTarget) ([]vectors.Hash, []string) {
	var hashes []vectors.Hash
	var texts []string
	seen := map[vectors.Hash]bool{}
	for _, t := range targets {
		for i, h := range t.hashes {
			if seen[h] {
				continue
			}
			seen[h] = true
			if _, ok := lookupParent(targets, h); !ok {
				hashes = append(hashes, h)
				texts = append(texts, t.text(i))
			}
		}
	}
	return hashes, texts
}

// revision returns the model revision to record. When ask is set (there
// are texts to embed) and the embedder is an embed.Revisioner, it asks the
// server, before anything is embedded, and refuses when recorded (the
// embedder of the parent's vectors this run reuses, nil when it reuses
// none) names another revision. Otherwise, or when the server cannot be
// asked, it keeps recorded's: the vectors reused come from it, and the
// embedding that follows says whether the server works.
func (s *EmbedStage) revision(ctx context.Context, b *Build, info embed.Info, recorded *format.Embedder, ask bool) (string, error) {
	kept := ""
	if recorded != nil {
		kept = recorded.Revision
	}
	r, ok := s.Embedder.(embed.Revisioner)
	if !ask || !ok {
		return kept, nil
	}
	rev, err := r.Revision(ctx, 0)
	if err != nil {
		if cerr := ctx.Err(); cerr != nil {
			return "", cerr
		}
		b.Log.Info("cannot ask the model server for the model's revision; keeping the parent snapshot's record", "err", err)
		return kept, nil
	}
	info.Revision = rev
	if err := embed.Check(recorded, info); err != nil {
		return "", fmt.Errorf("%w. Vectors of two versions of a model are never mixed: re-embed the whole vault with "+
			"vaultgraph index --reembed --embedder %s", err, info.Spec())
	}
	return rev, nil
}

// embed embeds texts. It returns the new vectors by hash and, when some
// could not be computed, the reason; only a cancelled run is an error.
func (s *EmbedStage) embed(ctx context.Context, hashes []vectors.Hash, texts []string) (map[vectors.Hash][]float32, string, error) {
	fresh := make(map[vectors.Hash][]float32, len(texts))
	if len(texts) == 0 {
		return fresh, "", nil
	}
	meter := embed.NewMeter(s.Progress, "embedding", "texts", len(texts))
	vecs, err := embed.EmbedDocuments(ctx, s.Embedder, texts, meter.Update)
	meter.Done()
	if cerr := ctx.Err(); cerr != nil {
		return nil, "", cerr
	}
	for i, v := range vecs {
		if v != nil {
			fresh[hashes[i]] = v
		}
	}
	if err != nil {
		return fresh, err.Error(), nil
	}
	return fresh, "", nil
}

// vectorDims returns the dimension of the snapshot's vectors and refuses a
// model that changed dimension under the same name.
func vectorDims(fresh map[vectors.Hash][]float32, targets []*embedTarget, info embed.Info, prev *format.Manifest) (int, error) {
	dims := 0
	for _, v := range fresh {
		dims = len(v)
		break
	}
	for _, t := range targets {
		if t.parent == nil || t.parent.Len() == 0 {
			continue
		}
		if dims != 0 && t.parent.Dims() != dims {
			return 0, fmt.Errorf("%w: %s now returns %d dimensions, the parent snapshot's vectors have %d (the model behind the name changed); "+
				"re-embed with vaultgraph index --reembed", embed.ErrModelMismatch, info.Spec(), dims, t.parent.Dims())
		}
		dims = t.parent.Dims()
	}
	if dims == 0 {
		dims = info.Dimensions
	}
	if dims == 0 && prev != nil && prev.Embedder != nil && prev.Embedder.Fingerprint == info.Fingerprint {
		dims = prev.Embedder.Dimensions
	}
	return dims, nil
}

// writeTarget writes one target's vector file and its graph, updated from
// the parent's graph when that is cheaper than a rebuild.
func (s *EmbedStage) writeTarget(ctx context.Context, b *Build, t *embedTarget, all []*embedTarget, fp vectors.Hash, dims int,
	fresh map[vectors.Hash][]float32) error {
	rows := slices.Clone(t.hashes)
	slices.SortFunc(rows, func(a, b vectors.Hash) int { return slices.Compare(a[:], b[:]) })
	rows = slices.Compact(rows)
	st := &t.stats
	st.VectorsFile, st.HNSWFile, st.Items = t.vectorsFile, t.graphFile, len(t.hashes)
	// Each kept row is a new vector (coded when written) or a parent's
	// row, whose codes are copied as they are.
	vecs := make([][]float32, 0, len(rows))
	reused := make([]parentRow, 0, len(rows))
	kept := rows[:0]
	for _, h := range rows {
		if v, ok := fresh[h]; ok {
			st.Embedded++
			kept, vecs, reused = append(kept, h), append(vecs, v), append(reused, parentRow{})
		} else if pr, ok := lookupParent(all, h); ok {
			st.Reused++
			kept, vecs, reused = append(kept, h), append(vecs, nil), append(reused, pr)
		}
	}
	st.Vectors = len(kept)
	// rows holds every hash once: when all are kept, none is pending.
	if len(kept) < len(rows) {
		for _, h := range t.hashes {
			if _, ok := slices.BinarySearchFunc(kept, h, func(a, b vectors.Hash) int { return slices.Compare(a[:], b[:]) }); !ok {
				st.Pending++
			}
		}
	}
	if shared, err := share(b, t, kept, fp, dims); err != nil || shared {
		if shared {
			st.HNSWBuild = format.HNSWShared
		}
		return err
	}
	path := filepath.Join(b.Dir, t.vectorsFile)
	// Runs of the parent's rows are copied as the parent stores them
	// (vectors.WriteRows); the rest are coded here.
	from := func(i int) (*vectors.File, int) { return reused[i].file, reused[i].row }
	err := vectors.WriteRows(path, fp, dims, kept, from, func(i int, dst []byte) (float32, error) {
		if pr := reused[i]; pr.file != nil {
			return pr.file.CopyRow(pr.row, dst), nil
		}
		if len(vecs[i]) != dims {
			return 0, fmt.Errorf("a vector of %d dimensions, want %d", len(vecs[i]), dims)
		}
		return vectors.Encode(dst, vecs[i]), nil
	})
	if err != nil {
		return err
	}
	// Complete: it is hashed and fsynced while the graph is built and the
	// other stages run, not after them.
	b.SealEarly(t.vectorsFile)
	vf, err := vectors.OpenFile(path)
	if err != nil {
		return err
	}
	defer vf.Close()
	g, mode, err := s.graph(ctx, b, t, vf)
	if err != nil {
		return err
	}
	st.HNSWBuild = mode
	if err := g.WriteFile(filepath.Join(b.Dir, t.graphFile)); err != nil {
		return err
	}
	b.SealEarly(t.graphFile)
	return nil
}

// share hard-links the parent's vector and graph files into the snapshot
// when this target's files would hold the same rows: the same texts, model
// and dimensions, graph parameters (t.parentGraph is set only then) and a
// graph of the current layout. An edit that changes no edge sentence, the
// usual case, then costs nothing for the edges: no write, no hashing, and
// no disk space beyond the parent's.
func share(b *Build, t *embedTarget, rows []vectors.Hash, fp vectors.Hash, dims int) (bool, error) {
	p := t.parent
	if p == nil || t.parentGraph == "" || p.Fingerprint() != fp || p.Dims() != dims || p.Len() != len(rows) {
		return false, nil
	}
	for i, h := range rows {
		if !p.HasHash(i, h) {
			return false, nil
		}
	}
	if layout, err := vectors.GraphLayout(t.parentGraph); err != nil || layout != format.HNSWLayout {
		return false, nil
	}
	if ok, err := b.LinkParent(t.vectorsFile); !ok || err != nil {
		return false, err
	}
	ok, err := b.LinkParent(t.graphFile)
	if err == nil && !ok {
		// The caller writes both files: take the link back first.
		err = os.Remove(filepath.Join(b.Dir, t.vectorsFile))
	}
	return ok, err
}

// graph updates the parent's graph over vf or builds a new one.
func (s *EmbedStage) graph(ctx context.Context, b *Build, t *embedTarget, vf *vectors.File) (*vectors.Graph, string, error) {
	limit := s.UpdateLimit
	if limit <= 0 {
		limit = DefaultGraphUpdateLimit
	}
	if t.parent != nil && t.parentGraph != "" && t.parent.Len() > 0 {
		pg, err := vectors.OpenGraph(t.parentGraph, t.parent)
		if err != nil {
			b.Log.Warn("cannot update the parent snapshot's graph; rebuilding it", "target", t.name, "err", err)
		} else {
			defer pg.Close()
			remap := vectors.Remap(t.parent, vf)
			if vectors.UpdateCost(remap, vf) <= limit {
				g, err := vectors.Update(ctx, pg, remap, vf, nil)
				return g, format.HNSWUpdated, err
			}
		}
	}
	meter := embed.NewMeter(s.Progress, "indexing "+t.name, "vectors", vf.Len())
	defer meter.Done()
	g, err := vectors.Build(ctx, vf, s.params(), runtime.GOMAXPROCS(0), meter.Update)
	return g, format.HNSWBuilt, err
}

var _ interface {
	Stage
	Pender
} = (*EmbedStage)(nil)
