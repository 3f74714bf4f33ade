package mcp

import (
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/vaultgraph/vaultgraph/serve"
	"github.com/vaultgraph/vaultgraph/serve/store"
	"github.com/vaultgraph/vaultgraph/snapshot/cypher"
	"github.com/vaultgraph/vaultgraph/snapshot/graphdb"
	"github.com/vaultgraph/vaultgraph/snapshot/search"
)

// Bounds of vector_search.
const (
	defaultSearchK = 10
	maxSearchQuery = 4096
	// maxHitText bounds the passage quoted with each hit; the whole note
	// is one read_note away.
	maxHitText = 400
)

// searchOutput is vector_search's structured content, in the Typed Graph
// sidecar's shape (target, stale, results, then, notices) plus
// vaultgraph's own fields.
type searchOutput struct {
	Snapshot string `json:"snapshot"`
	Query    string `json:"query"`
	Target   string `json:"target"`
	// Method is the rankings the results come from: fused, vectors or bm25.
	Method  string      `json:"method"`
	Stale   bool        `json:"stale"`
	Results []searchHit `json:"results"`
	// Then is the result of the then query, run with the results bound to
	// $hits.
	Then    *thenResult `json:"then,omitempty"`
	Notices []string    `json:"notices,omitempty"`
	// Exact is set when the hits come from an exact scan (a selective
	// filter) rather than the approximate index.
	Exact bool `json:"exact"`
	// Pending counts texts without a vector yet, which cannot be found.
	Pending      int    `json:"pending"`
	Embedder     string `json:"embedder"`
	EmbedderKind string `json:"embedder_kind"`
	Truncated    bool   `json:"truncated"`
	Message      string `json:"message,omitempty"`
	Notice       string `json:"notice"`
}

// thenResult is the then query's columns and rows.
type thenResult struct {
	Columns   []graphdb.Column `json:"columns"`
	Rows      [][]any          `json:"rows"`
	Truncated bool             `json:"truncated"`
}

// searchHit is a note, a passage or an edge, as the sidecar's results are:
// id (a note's path, a chunk's or an edge's id), score and citation {path,
// heading, text}, labels and title for notes, source, type, target and
// sentence for edges.
type searchHit struct {
	Rank     int         `json:"rank"`
	ID       string      `json:"id"`
	Score    float64     `json:"score"`
	Title    string      `json:"title,omitempty"`
	Labels   []string    `json:"labels,omitempty"`
	Citation hitCitation `json:"citation"`
	Source   string      `json:"source,omitempty"`
	Type     string      `json:"type,omitempty"`
	Target   string      `json:"target,omitempty"`
	Sentence string      `json:"sentence,omitempty"`
}

// hitCitation is where a hit is written: the note, heading and line, and
// the passage (a note's best one), cut at 1200 bytes when TextTruncated.
type hitCitation struct {
	Path          string `json:"path"`
	Heading       string `json:"heading,omitempty"`
	Line          int    `json:"line,omitempty"`
	ChunkID       string `json:"chunk_id,omitempty"`
	Text          string `json:"text,omitempty"`
	TextTruncated bool   `json:"text_truncated,omitempty"`
}

func (s *Server) searchTool() *tool {
	def := mcp.NewTool(toolSearch,
		mcp.WithDescription(`Find notes, passages (target chunks) or typed edges by meaning and by their words, best first, each cited with path, heading, line and score. Use it to locate where something is discussed when you do not know the note. For questions needing connected facts use graphrag_retrieve; for exact filters cypher_query; to read a note read_note. The builtin embedder uses English word vectors (finds other words for the same thing, ignores word order); the lexical one matches shared words only.`),
		readOnly("Vector search"),
		mcp.WithString("query", mcp.Required(), mcp.MinLength(1), mcp.MaxLength(maxSearchQuery), mcp.Description("What to look for, in words.")),
		mcp.WithString("target", mcp.Enum("nodes", "notes", "chunks", "edges"), mcp.DefaultString("nodes"), mcp.Description("nodes (notes), chunks (passages) or edges.")),
		mcp.WithInteger("k", mcp.Min(1), mcp.Max(s.opts.MaxK), mcp.DefaultNumber(min(defaultSearchK, s.opts.MaxK)), mcp.Description("Number of hits.")),
		mcp.WithArray("types", mcp.WithStringItems(mcp.MinLength(1)), mcp.MaxItems(100),
			mcp.Description("Only notes with these labels (Person); edges: either end.")),
		mcp.WithArray("edge_types", mcp.WithStringItems(mcp.MinLength(1)), mcp.MaxItems(100),
			mcp.Description("target edges: only these types (funds).")),
		mcp.WithString("mode", mcp.Enum("best", "pooled", "mean"), mcp.DefaultString("best"), mcp.Description("nodes: score by best passage or pooled (mean).")),
		mcp.WithString("then", mcp.MaxLength(maxQueryBytes), mcp.Description("Cypher run on the results as $hits.")),
		mcp.WithObject("params", mcp.AdditionalProperties(true), mcp.Description("Other $parameters of then.")),
		mcp.WithString("backend", mcp.Enum("builtin", "ladybug"), mcp.Description("The sidecar's engine for then; both run on this graph.")),
		mcp.WithString("method", mcp.Enum("fused", "vectors", "bm25"), mcp.DefaultString("fused"),
			mcp.Description("fused: vectors and BM25 keywords; vectors or bm25 alone (bm25: not for edges).")),
		mcp.WithOutputSchema[searchOutput](),
	)
	return &tool{def: def, needs: searchNeeds, run: s.runSearch, paged: true, aliases: serve.FieldAliases[reflect.TypeFor[serve.SearchRequest]()]}
}

func searchNeeds(snap *store.Snapshot) error {
	if snap.Search != nil {
		return nil
	}
	if snap.SearchErr != nil {
		return snap.SearchErr
	}
	return errors.New("the snapshot has no vectors")
}

func (s *Server) runSearch(ctx context.Context, snap *store.Snapshot, req mcp.CallToolRequest) (*answer, error) {
	var args serve.SearchRequest
	if err := bind(req, &args); err != nil {
		return nil, err
	}
	if strings.TrimSpace(args.Query) == "" {
		return nil, agentErrorf("query is empty: say in words what to look for")
	}
	target, err := search.ParseTarget(args.Target)
	if err != nil {
		return nil, agentErrorf("%s", err)
	}
	mode, err := serve.ParseMode(args.Mode)
	if err != nil {
		return nil, agentErrorf("%s", err)
	}
	if args.Then != "" && snap.Graph == nil {
		return nil, agentErrorf("then needs the graph database, which this snapshot lacks; search without then")
	}
	if _, ok := args.Params["hits"]; ok && args.Then != "" {
		return nil, agentErrorf("params.hits is bound to the search results; use another name")
	}
	k := args.K
	if k <= 0 {
		k = min(defaultSearchK, s.opts.MaxK)
	}
	if len(args.EdgeTypes) > 0 && target != search.Edges {
		return nil, agentErrorf("edge_types filters edges: set target \"edges\", or filter notes and chunks by label with types")
	}
	if msg := snap.Manifest.Vectors.Unembedded(args.EdgeTypes); msg != "" && target == search.Edges {
		return nil, agentErrorf("edge_types: %s", msg)
	}
	method, err := search.ParseMethod(args.Method)
	if err != nil {
		return nil, agentErrorf("%s", err)
	}
	if method == search.BM25Only && target == search.Edges {
		return nil, agentErrorf("edges have no BM25 index: use method fused or vectors for target edges")
	}
	q := search.Query{Text: args.Query, Target: target, K: min(k, s.opts.MaxK), Score: mode,
		Labels: append(append([]string(nil), args.Types...), args.Labels...), EdgeTypes: args.EdgeTypes, Method: method}
	found, err := snap.Search.Search(ctx, q, snap.Embedder)
	if err != nil {
		return nil, err
	}
	out := &searchOutput{Snapshot: snap.ID, Query: args.Query, Target: targetName(found.Target), Method: string(found.Method), Results: hitsOf(found, snap.Notes),
		Exact: found.Exact, Pending: found.Pending, Notice: serve.VaultTextNotice}
	if e := snap.Manifest.Embedder; e != nil {
		out.Embedder, out.EmbedderKind = e.Provider+":"+e.Model, e.Kind
	}
	if found.VectorsSkipped != "" {
		out.Message = found.VectorsSkipped
		out.Notices = append(out.Notices, found.VectorsSkipped)
	}
	if found.Pending > 0 {
		msg := fmt.Sprintf("%d texts have no vector yet and cannot be found until the next index run embeds them", found.Pending)
		out.Message = strings.TrimPrefix(out.Message+"; "+msg, "; ")
		out.Notices = append(out.Notices, msg)
	}
	if args.Then != "" {
		if out.Then, err = s.searchThen(ctx, snap, args, out.Results); err != nil {
			return nil, err
		}
	}
	shrink := func(frac float64) bool {
		if !cutList(&out.Results, frac, 1) {
			return false
		}
		out.Truncated = true
		out.Message = fmt.Sprintf("results cut to %d to fit %d KiB; ask for a smaller k", len(out.Results), s.opts.MaxResultBytes>>10)
		return true
	}
	hits := out.Results
	pg := &page{n: len(hits), noun: "results", show: func(from, to int) { out.Results = hits[from:to] }}
	return &answer{out: out, page: pg, shrink: shrink}, nil
}

// searchThen runs then with $hits bound to the results' notes (for notes
// and chunks) or edges.
func (s *Server) searchThen(ctx context.Context, snap *store.Snapshot, args serve.SearchRequest, hits []searchHit) (*thenResult, error) {
	ids := []string{}
	seen := map[string]bool{}
	for _, h := range hits {
		id := h.ID
		if h.Sentence == "" {
			id = h.Citation.Path
		}
		if !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	params := map[string]any{}
	for k, v := range args.Params {
		params[k] = v
	}
	params["hits"] = ids // runSearch refused a hits of the caller's
	res, err := snap.Graph.Run(ctx, graphdb.Request{Query: args.Then, Params: params, MaxRows: min(defaultCypherRows, s.opts.MaxRows), Timeout: s.opts.QueryTimeout})
	var ce *cypher.Error
	if errors.As(err, &ce) {
		return nil, &agentError{msg: "then: " + s.cypherMessage(snap, args.Then, ce)}
	}
	if err != nil {
		return nil, err
	}
	return &thenResult{Columns: res.Columns, Rows: res.Rows, Truncated: res.Truncated}, nil
}

// targetName is the tool's name for a search target: nodes, chunks or
// edges, as the sidecar names them.
func targetName(t search.Target) string { return string(t) }

// hitsOf converts a search result into hits with citations, the passages
// taken from the note index.
func hitsOf(r *search.Result, notes *store.Notes) []searchHit {
	hits := []searchHit{}
	passage := func(h *searchHit, chunkID, text string) {
		if text == "" {
			if c, ok := notes.Chunk(chunkID); ok {
				text = c.Text
			}
		}
		h.Citation.ChunkID = chunkID
		h.Citation.Text, h.Citation.TextTruncated = snippet(text, maxHitText)
	}
	switch r.Target {
	case search.Chunks:
		for i, c := range r.Chunks {
			h := searchHit{Rank: i + 1, ID: c.ID, Score: round(c.Score), Title: c.Title,
				Citation: hitCitation{Path: c.Path, Heading: c.Heading, Line: c.Line}}
			passage(&h, c.ID, c.Text)
			hits = append(hits, h)
		}
	case search.Edges:
		for i, e := range r.Edges {
			hits = append(hits, searchHit{Rank: i + 1, ID: e.ID, Score: round(e.Score), Source: e.Source, Type: e.Type,
				Target: e.Target, Sentence: e.Sentence, Citation: hitCitation{Path: e.Citation.Path, Heading: e.Citation.Heading, Line: e.Citation.Line}})
		}
	default:
		for i, n := range r.Notes {
			h := searchHit{Rank: i + 1, ID: n.ID, Score: round(n.Score), Title: n.Title, Labels: n.Labels,
				Citation: hitCitation{Path: n.Path, Heading: n.Best.Heading, Line: n.Best.Line}}
			passage(&h, n.Best.ID, n.Best.Text)
			hits = append(hits, h)
		}
	}
	return hits
}

func round(f float32) float64 { return math.Round(float64(f)*1e4) / 1e4 }
