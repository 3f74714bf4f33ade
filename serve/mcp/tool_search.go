package mcp

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/mark3labs/mcp-go/mcp"

	"github.com/vaultgraph/vaultgraph/serve"
	"github.com/vaultgraph/vaultgraph/serve/store"
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

type searchArgs struct {
	Query     string   `json:"query"`
	Target    string   `json:"target"`
	K         int      `json:"k"`
	Types     []string `json:"types"`
	EdgeTypes []string `json:"edge_types"`
	Score     string   `json:"score"`
}

// searchOutput is vector_search's structured content.
type searchOutput struct {
	Snapshot string      `json:"snapshot"`
	Query    string      `json:"query"`
	Target   string      `json:"target"`
	Hits     []searchHit `json:"hits"`
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

// searchHit is a note, a passage or an edge, with its citation. Notes and
// passages have path, heading and line; edges have source, type, target
// and sentence.
type searchHit struct {
	Rank    int      `json:"rank"`
	Score   float64  `json:"score"`
	Path    string   `json:"path,omitempty"`
	Title   string   `json:"title,omitempty"`
	Labels  []string `json:"labels,omitempty"`
	Heading string   `json:"heading,omitempty"`
	Line    int      `json:"line,omitempty"`
	ChunkID string   `json:"chunk_id,omitempty"`
	// Text is the passage (a note's best one), cut at 1200 bytes when
	// TextTruncated.
	Text          string `json:"text,omitempty"`
	TextTruncated bool   `json:"text_truncated,omitempty"`
	EdgeID        string `json:"edge_id,omitempty"`
	Source        string `json:"source,omitempty"`
	Type          string `json:"type,omitempty"`
	Target        string `json:"target,omitempty"`
	Sentence      string `json:"sentence,omitempty"`
}

func (s *Server) searchTool() *tool {
	def := mcp.NewTool(toolSearch,
		mcp.WithDescription(`Find notes, passages (target chunks) or typed edges by meaning, best first, each cited with path, heading, line and score. Use it to locate where something is discussed when you do not know the note. For questions needing connected facts use graphrag_retrieve; for exact filters cypher_query; to read a note read_note. With the builtin embedder similarity is lexical.`),
		readOnly("Vector search"),
		mcp.WithString("query", mcp.Required(), mcp.MinLength(1), mcp.MaxLength(maxSearchQuery), mcp.Description("What to look for, in words.")),
		mcp.WithString("target", mcp.Enum("notes", "chunks", "edges"), mcp.DefaultString("notes"), mcp.Description("notes, chunks (passages) or edges.")),
		mcp.WithInteger("k", mcp.Min(1), mcp.Max(s.opts.MaxK), mcp.DefaultNumber(min(defaultSearchK, s.opts.MaxK)), mcp.Description("Number of hits.")),
		mcp.WithArray("types", mcp.WithStringItems(mcp.MinLength(1)), mcp.MaxItems(100),
			mcp.Description("Only notes with these labels (Person); edges: either end.")),
		mcp.WithArray("edge_types", mcp.WithStringItems(mcp.MinLength(1)), mcp.MaxItems(100),
			mcp.Description("target edges: only these types (funds).")),
		mcp.WithString("score", mcp.Enum("best", "mean"), mcp.DefaultString("best"), mcp.Description("notes: score by best or mean passage.")),
		mcp.WithOutputSchema[searchOutput](),
	)
	return &tool{def: def, needs: searchNeeds, run: s.runSearch, paged: true}
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
	var args searchArgs
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
	q := search.Query{Text: args.Query, Target: target, K: min(k, s.opts.MaxK), Score: search.Score(args.Score),
		Labels: args.Types, EdgeTypes: args.EdgeTypes}
	found, err := snap.Search.Search(ctx, q, snap.Embedder)
	if err != nil {
		return nil, err
	}
	out := &searchOutput{Snapshot: snap.ID, Query: args.Query, Target: targetName(found.Target), Hits: hitsOf(found, snap.Notes),
		Exact: found.Exact, Pending: found.Pending, Notice: serve.VaultTextNotice}
	if e := snap.Manifest.Embedder; e != nil {
		out.Embedder, out.EmbedderKind = e.Provider+":"+e.Model, e.Kind
	}
	if found.Pending > 0 {
		out.Message = fmt.Sprintf("%d texts have no vector yet and cannot be found until the next index run embeds them", found.Pending)
	}
	shrink := func(frac float64) bool {
		if !cutList(&out.Hits, frac, 1) {
			return false
		}
		out.Truncated = true
		out.Message = fmt.Sprintf("hits cut to %d to fit %d KiB; ask for a smaller k", len(out.Hits), s.opts.MaxResultBytes>>10)
		return true
	}
	hits := out.Hits
	pg := &page{n: len(hits), noun: "hits", show: func(from, to int) { out.Hits = hits[from:to] }}
	return &answer{out: out, page: pg, shrink: shrink}, nil
}

// targetName is the tool's name for a search target.
func targetName(t search.Target) string {
	if t == search.Notes {
		return "notes"
	}
	return string(t)
}

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
		h.ChunkID = chunkID
		h.Text, h.TextTruncated = snippet(text, maxHitText)
	}
	switch r.Target {
	case search.Chunks:
		for i, c := range r.Chunks {
			h := searchHit{Rank: i + 1, Score: round(c.Score), Path: c.Path, Title: c.Title, Heading: c.Heading, Line: c.Line}
			passage(&h, c.ID, c.Text)
			hits = append(hits, h)
		}
	case search.Edges:
		for i, e := range r.Edges {
			hits = append(hits, searchHit{Rank: i + 1, Score: round(e.Score), EdgeID: e.ID, Source: e.Source, Type: e.Type,
				Target: e.Target, Sentence: e.Sentence})
		}
	default:
		for i, n := range r.Notes {
			h := searchHit{Rank: i + 1, Score: round(n.Score), Path: n.Path, Title: n.Title, Labels: n.Labels,
				Heading: n.Best.Heading, Line: n.Best.Line}
			passage(&h, n.Best.ID, n.Best.Text)
			hits = append(hits, h)
		}
	}
	return hits
}

func round(f float32) float64 { return math.Round(float64(f)*1e4) / 1e4 }
