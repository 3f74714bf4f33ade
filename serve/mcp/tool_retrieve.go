package mcp

import (
	"context"
	"errors"
	"fmt"
	"reflect"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/vaultgraph/vaultgraph/serve"
	"github.com/vaultgraph/vaultgraph/serve/store"
	"github.com/vaultgraph/vaultgraph/snapshot/retrieve"
)

// retrieveOutput is graphrag_retrieve's structured content: retrieve.Result
// with edge properties as an object.
type retrieveOutput struct {
	Snapshot string           `json:"snapshot"`
	Question string           `json:"question"`
	Notice   string           `json:"notice"`
	Chunks   []retrieve.Chunk `json:"chunks"`
	Edges    []retrieveEdge   `json:"edges"`
	Notes    []retrieve.Note  `json:"notes"`
	// Truncated is set when more chunks or edges qualified than the
	// bounds (chunk_cap, the result size cap) let through.
	Truncated    bool     `json:"truncated"`
	Rank         string   `json:"rank"`
	Depth        int      `json:"depth"`
	Embedder     string   `json:"embedder"`
	EmbedderKind string   `json:"embedder_kind"`
	Warnings     []string `json:"warnings,omitempty"`
	ElapsedMS    float64  `json:"elapsed_ms"`
	Message      string   `json:"message,omitempty"`
}

// retrieveEdge is retrieve.Edge with its properties as a JSON object.
type retrieveEdge struct {
	ID         string         `json:"id"`
	Source     string         `json:"source"`
	Target     string         `json:"target"`
	Type       string         `json:"type"`
	Sign       int            `json:"sign"`
	Properties map[string]any `json:"properties"`
	Sentence   string         `json:"sentence"`
	// Role is hit (found by the question) or connecting (between notes of
	// the result).
	Role  string  `json:"role"`
	Score float64 `json:"score,omitempty"`
}

func (s *Server) retrieveTool() *tool {
	def := mcp.NewTool(toolRetrieve,
		mcp.WithDescription(`Answer a question in words with GraphRAG: passages found by meaning and words, plus the typed edges around them (who leads, depends on, funds ...) and the notes involved; cite passages by path and line. Use it first for natural-language questions. Passages and edges page together (next.cursor); each page lists the notes it names first.`),
		readOnly("GraphRAG retrieval"),
		mcp.WithString("question", mcp.Required(), mcp.MinLength(1), mcp.MaxLength(4096), mcp.Description("The question, in words.")),
		mcp.WithInteger("k", mcp.Min(1), mcp.Max(min(retrieve.MaxK, s.opts.MaxK)), mcp.DefaultNumber(retrieve.DefaultK),
			mcp.Description("Seed notes and seed edges taken from the search.")),
		mcp.WithInteger("depth", mcp.Min(0), mcp.Max(retrieve.MaxDepth), mcp.DefaultNumber(retrieve.DefaultDepth),
			mcp.Description("Hops along typed edges (0: seeds only).")),
		mcp.WithArray("types", mcp.WithStringItems(mcp.MinLength(1)), mcp.MaxItems(100),
			mcp.Description("Edge types to walk (default every typed one).")),
		mcp.WithInteger("chunk_cap", mcp.Min(1), mcp.Max(retrieve.MaxChunks), mcp.DefaultNumber(retrieve.DefaultMaxChunks),
			mcp.Description("Most passages returned (max_chunks accepted).")),
		mcp.WithInteger("neighbor_cap", mcp.Min(1), mcp.Max(retrieve.MaxPerNodeCap), mcp.DefaultNumber(retrieve.DefaultPerNodeCap),
			mcp.Description("Most neighbours per note per hop (per_node_cap accepted).")),
		mcp.WithString("rank", mcp.Enum(retrieve.RankDistance, retrieve.RankPPR), mcp.DefaultString(retrieve.RankDistance),
			mcp.Description("Neighbours by hops or by personalised PageRank (ppr).")),
		mcp.WithOutputSchema[retrieveOutput](),
	)
	return &tool{def: def, needs: func(snap *store.Snapshot) error {
		if snap.Retriever != nil {
			return nil
		}
		if snap.RetrieveErr != nil {
			return snap.RetrieveErr
		}
		return errors.New("the snapshot has no retriever")
	}, run: s.runRetrieve, paged: true, aliases: serve.FieldAliases[reflect.TypeFor[retrieve.Request]()]}
}

func (s *Server) runRetrieve(ctx context.Context, snap *store.Snapshot, req mcp.CallToolRequest) (*answer, error) {
	var args retrieve.Request
	if err := bind(req, &args); err != nil {
		return nil, err
	}
	args.K = min(args.K, s.opts.MaxK)
	res, err := snap.Retriever.Retrieve(ctx, args)
	if err != nil {
		return nil, err
	}
	out := &retrieveOutput{Snapshot: snap.ID, Question: res.Question, Notice: res.Notice, Chunks: res.Chunks,
		Edges: make([]retrieveEdge, 0, len(res.Edges)), Notes: res.Notes, Truncated: res.Truncated, Rank: res.Rank,
		Depth: res.Depth, Embedder: res.Embedder, EmbedderKind: res.EmbedderKind, Warnings: res.Warnings, ElapsedMS: res.ElapsedMS}
	if out.Chunks == nil {
		out.Chunks = []retrieve.Chunk{}
	}
	if out.Notes == nil {
		out.Notes = []retrieve.Note{}
	}
	for _, e := range res.Edges {
		out.Edges = append(out.Edges, retrieveEdge{ID: e.ID, Source: e.Source, Target: e.Target, Type: e.Type, Sign: e.Sign,
			Properties: propertyMap(e.Properties), Sentence: e.Sentence, Role: e.Role, Score: e.Score})
	}
	if res.Truncated {
		out.Message = "more passages or edges qualified; raise chunk_cap for more"
	}
	shrink := func(frac float64) bool {
		cut := cutList(&out.Chunks, frac, 1)
		cut = cutList(&out.Edges, frac, 0) || cut
		if cut {
			out.Truncated = true
			out.Message = fmt.Sprintf("passages cut to %d and edges to %d to fit %d KiB; lower chunk_cap or ask a narrower question",
				len(out.Chunks), len(out.Edges), s.opts.MaxResultBytes>>10)
		}
		return cut
	}
	// Passages and edges page together, taken in turn (a passage, an
	// edge, ...) so that every page has both, then the notes that no
	// passage or edge names. Each note comes once, on the page of the
	// first passage or edge that names it, so that a page is not the
	// whole notes list and one passage.
	chunks, edges, notes := out.Chunks, out.Edges, out.Notes
	type item struct{ chunk, edge, note int }
	var items []item
	for i := 0; i < max(len(chunks), len(edges)); i++ {
		if i < len(chunks) {
			items = append(items, item{i, -1, -1})
		}
		if i < len(edges) {
			items = append(items, item{-1, i, -1})
		}
	}
	// first is the item a note comes with: the first passage or edge
	// that names it, or an item of its own.
	first := make([]int, len(notes))
	note := make(map[string]int, len(notes))
	for i, n := range notes {
		note[n.Path], first[i] = i, -1
	}
	names := func(i int, path string) {
		if j, ok := note[path]; ok && first[j] < 0 {
			first[j] = i
		}
	}
	for i, it := range items {
		if it.chunk >= 0 {
			names(i, chunks[it.chunk].Path)
		} else {
			names(i, edges[it.edge].Source)
			names(i, edges[it.edge].Target)
		}
	}
	noun := "passages and edges"
	for j := range notes {
		if first[j] < 0 {
			first[j] = len(items)
			items = append(items, item{-1, -1, j})
			noun = "passages, edges and notes"
		}
	}
	pg := &page{n: len(items), noun: noun, show: func(from, to int) {
		out.Chunks, out.Edges, out.Notes = []retrieve.Chunk{}, []retrieveEdge{}, []retrieve.Note{}
		for _, it := range items[from:to] {
			switch {
			case it.chunk >= 0:
				out.Chunks = append(out.Chunks, chunks[it.chunk])
			case it.edge >= 0:
				out.Edges = append(out.Edges, edges[it.edge])
			}
		}
		for j, n := range notes {
			if first[j] >= from && first[j] < to {
				out.Notes = append(out.Notes, n)
			}
		}
	}}
	return &answer{out: out, page: pg, shrink: shrink}, nil
}
