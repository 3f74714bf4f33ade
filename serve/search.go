package serve

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/vaultgraph/vaultgraph/serve/store"
	"github.com/vaultgraph/vaultgraph/snapshot/embed"
	"github.com/vaultgraph/vaultgraph/snapshot/graphdb"
	"github.com/vaultgraph/vaultgraph/snapshot/search"
)

// searchRequest is POST /search.
type searchRequest struct {
	Query string `json:"query"`
	// Target is nodes (default), chunks or edges.
	Target string `json:"target"`
	// Types filters hits: note labels for nodes and chunks, edge types
	// for edges. Labels filters edges by the labels of their ends.
	Types  []string `json:"types"`
	Labels []string `json:"labels"`
	K      int      `json:"k"`
	// Score is best (default) or mean, for nodes.
	Score string `json:"score"`
	// Then is a Cypher query run after the search on the same snapshot,
	// with the hits bound to $hits (see searchResponse.HitIDs) and Params
	// bound as usual.
	Then      string         `json:"then"`
	Params    map[string]any `json:"params"`
	TimeoutMS int            `json:"timeout_ms"`
	MaxRows   int            `json:"max_rows"`
}

// searchResponse is the answer to POST /search.
type searchResponse struct {
	Snapshot string `json:"snapshot"`
	Target   string `json:"target"`
	// Hits are search.NoteHit, search.ChunkHit or search.EdgeHit, best
	// first.
	Hits any `json:"hits"`
	// HitIDs is what $hits holds in Then: note ids for nodes and chunks
	// (the notes of the chunks, first occurrence first), edge ids for
	// edges.
	HitIDs []string `json:"hit_ids"`
	Exact  bool     `json:"exact"`
	// Pending counts items without a vector yet, which cannot be found.
	Pending int          `json:"pending"`
	Then    *queryResult `json:"then,omitempty"`
	Notice  string       `json:"notice"`
}

func (s *Server) search(c *fiber.Ctx, snap *store.Snapshot) error {
	var req searchRequest
	if err := decodeBody(c, &req); err != nil {
		return err
	}
	q, err := s.searchQuery(req)
	if err != nil {
		return err
	}
	if snap.Search == nil {
		reason := "this server cannot run vector searches"
		if snap.SearchErr != nil {
			reason = snap.SearchErr.Error()
		}
		return newError(http.StatusNotImplemented, KindNotImplemented, "%s", reason)
	}
	if req.Then != "" && snap.Graph == nil {
		return graphUnavailable(snap)
	}
	limits, err := s.queryLimits(req.TimeoutMS, req.MaxRows)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), limits.Timeout)
	defer cancel()
	found, err := snap.Search.Search(ctx, q, snap.Embedder)
	if err != nil {
		return searchError(ctx, snap, err)
	}
	res := searchResponse{Snapshot: snap.ID, Target: string(found.Target), Exact: found.Exact, Pending: found.Pending, Notice: VaultTextNotice}
	res.Hits, res.HitIDs = hitsOf(found, snap.Notes)
	if req.Then != "" {
		params := make(map[string]any, len(req.Params)+1)
		for k, v := range req.Params {
			params[k] = v
		}
		params["hits"] = res.HitIDs
		deadline, _ := ctx.Deadline()
		res.Then, err = s.runCypher(ctx, snap, graphdb.Request{Query: req.Then, Params: params, Timeout: time.Until(deadline), MaxRows: limits.MaxRows})
		if err != nil {
			return err
		}
	}
	return c.JSON(res)
}

func (s *Server) searchQuery(req searchRequest) (search.Query, error) {
	if err := checkQueryText("query", req.Query); err != nil {
		return search.Query{}, err
	}
	if req.Then != "" {
		if err := checkQueryText("then", req.Then); err != nil {
			return search.Query{}, err
		}
		if _, ok := req.Params["hits"]; ok {
			return search.Query{}, badRequest("params.hits is bound by the server to the search hits; use another name")
		}
	}
	target, err := search.ParseTarget(req.Target)
	if err != nil {
		return search.Query{}, badRequest("%s", err.Error())
	}
	if req.K < 0 || req.K > s.opts.MaxK {
		return search.Query{}, badRequest("k must be between 1 and %d", s.opts.MaxK)
	}
	score := search.Score(req.Score)
	if score != "" && score != search.Best && score != search.Mean {
		return search.Query{}, badRequest("score must be best or mean")
	}
	q := search.Query{Text: req.Query, Target: target, K: req.K, Labels: req.Labels, Score: score}
	if target == search.Edges {
		q.EdgeTypes = req.Types
	} else {
		q.Labels = append(append([]string(nil), req.Labels...), req.Types...)
	}
	if q.K == 0 {
		q.K = min(10, s.opts.MaxK)
	}
	return q, nil
}

// searchError maps a failed search: a timeout is a 504; an embedding model
// server that failed is a 503 worth retrying.
func searchError(ctx context.Context, snap *store.Snapshot, err error) error {
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return newError(http.StatusGatewayTimeout, KindTimeout, "the search ran past its timeout")
	case errors.Is(err, embed.ErrModelMismatch):
		return newError(http.StatusNotImplemented, KindNotImplemented, "%s", err.Error())
	case snap.Embedder != nil && snap.Embedder.Info().Provider != "builtin":
		e := newError(http.StatusServiceUnavailable, KindUnavailable, "embedding the query failed: %s", err.Error())
		e.RetryAfter = 5
		return e
	}
	return err
}

// hitsOf returns the hits of the search's target, with the text of chunk
// citations filled in from the note index, and the ids $hits binds.
func hitsOf(r *search.Result, notes *store.Notes) (any, []string) {
	ids := []string{}
	seen := map[string]bool{}
	add := func(id string) {
		if !seen[id] {
			seen[id] = true
			ids = append(ids, id)
		}
	}
	withText := func(h *search.ChunkHit) {
		if c, ok := notes.Chunk(h.ID); ok {
			h.Text = c.Text
		}
	}
	switch r.Target {
	case search.Chunks:
		hits := nonNilHits(r.Chunks)
		for i := range hits {
			withText(&hits[i])
			add(hits[i].Note)
		}
		return hits, ids
	case search.Edges:
		hits := nonNilHits(r.Edges)
		for _, h := range hits {
			add(h.ID)
		}
		return hits, ids
	}
	hits := nonNilHits(r.Notes)
	for i := range hits {
		withText(&hits[i].Best)
		add(hits[i].ID)
	}
	return hits, ids
}

func nonNilHits[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
