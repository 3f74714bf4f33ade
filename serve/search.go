package serve

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/vaultgraph/vaultgraph/serve/store"
	"github.com/vaultgraph/vaultgraph/snapshot/embed"
	"github.com/vaultgraph/vaultgraph/snapshot/graphdb"
	"github.com/vaultgraph/vaultgraph/snapshot/search"
)

// searchResponse is the answer to POST /search.
//
// Its names are the Typed Graph sidecar's (results, citation, stale,
// notices); hit_ids, exact, pending and chunks are vaultgraph's own.
type searchResponse struct {
	Snapshot string `json:"snapshot"`
	Target   string `json:"target"`
	// Results are search.NoteHit, search.ChunkHit or search.EdgeHit, best
	// first.
	Results any `json:"results"`
	// Stale is the sidecar's flag for hits from vectors of another model;
	// a snapshot's vectors and the model searching them always agree (a
	// mismatch is refused), so it is false.
	Stale bool `json:"stale"`
	// Notices say what may be missing: texts without a vector yet, or the
	// vector ranking when the query could not be embedded (method is then
	// bm25).
	Notices []string `json:"notices,omitempty"`
	// HitIDs is what $hits holds in Then: note ids for notes and chunks
	// (the notes of the chunks, first occurrence first), edge ids for
	// edges.
	HitIDs []string `json:"hit_ids"`
	// Method is the rankings the hits come from (search.Result.Method).
	Method string `json:"method"`
	Exact  bool   `json:"exact"`
	// Pending counts items without a vector yet, which cannot be found.
	Pending int          `json:"pending"`
	Then    *queryResult `json:"then,omitempty"`
	Notice  string       `json:"notice"`
}

func (s *Server) search(c *fiber.Ctx, snap *store.Snapshot) error {
	var req SearchRequest
	body, err := decodeBody(c, &req)
	if err != nil {
		return err
	}
	q, err := s.searchQuery(req, body, snap)
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
	limits, err := s.queryLimits(body, req.TimeoutMS, req.MaxRows)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), limits.Timeout)
	defer cancel()
	found, err := snap.Search.Search(ctx, q, snap.Embedder)
	if err != nil {
		return searchError(ctx, snap, err)
	}
	res := searchResponse{Snapshot: snap.ID, Target: targetName(found.Target), Method: string(found.Method), Exact: found.Exact, Pending: found.Pending, Notice: VaultTextNotice}
	res.Results, res.HitIDs = hitsOf(found, snap.Notes)
	if found.VectorsSkipped != "" {
		res.Notices = append(res.Notices, found.VectorsSkipped)
	}
	if found.Pending > 0 {
		res.Notices = append(res.Notices, fmt.Sprintf("%d texts have no vector yet and cannot be found until the next index run embeds them; results may be incomplete", found.Pending))
	}
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

func (s *Server) searchQuery(req SearchRequest, body bodyFields, snap *store.Snapshot) (search.Query, error) {
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
	target, err := parseTarget(req.Target)
	if err != nil {
		return search.Query{}, err
	}
	if body.has("k") && (req.K < 1 || req.K > s.opts.MaxK) {
		return search.Query{}, badRequest("k must be between 1 and %d, not %d; leave it out for %d", s.opts.MaxK, req.K, defaultK(s.opts.MaxK))
	}
	score, err := ParseMode(req.Mode)
	if err != nil {
		return search.Query{}, badRequest("%s", err.Error())
	}
	if err := checkBackend(req.Backend); err != nil {
		return search.Query{}, err
	}
	method, err := search.ParseMethod(req.Method)
	if err != nil {
		return search.Query{}, badRequest("method must be fused, vectors or bm25, not %q", req.Method)
	}
	if method == search.BM25Only && target == search.Edges {
		return search.Query{}, badRequest(`edges have no BM25 index: send "method": "vectors" or "fused" (or leave it out) with "target": "edges"`)
	}
	labels := append(append([]string(nil), req.Types...), req.Labels...)
	if err := checkLabels(labels, snap); err != nil {
		return search.Query{}, err
	}
	if len(req.EdgeTypes) > 0 && target != search.Edges {
		return search.Query{}, badRequest(`edge_types filters edges: send it with "target": "edges" (types filters notes and chunks by label)`)
	}
	if msg := snap.Manifest.Vectors.Unembedded(req.EdgeTypes); msg != "" && target == search.Edges {
		return search.Query{}, badRequest("edge_types: %s", msg)
	}
	q := search.Query{Text: req.Query, Target: target, K: req.K, Labels: labels, EdgeTypes: req.EdgeTypes, Score: score, Method: method}
	if !body.has("k") {
		q.K = defaultK(s.opts.MaxK)
	}
	return q, nil
}

// defaultK is the hits of a search that names no k.
func defaultK(maxK int) int { return min(10, maxK) }

// parseTarget reads the target of a search: nodes (the default, as the
// Typed Graph sidecar and vaultgraph search name it; notes is accepted for
// it), chunks or edges.
func parseTarget(s string) (search.Target, error) {
	t, err := search.ParseTarget(s)
	if err != nil {
		return "", badRequest("target must be nodes, chunks or edges (notes is accepted for nodes), not %q", s)
	}
	return t, nil
}

// targetName is the API's name of a search target: nodes, chunks or
// edges.
func targetName(t search.Target) string { return string(t) }

// ParseMode reads how a search scores notes from their passages: best
// (the default) or pooled, the Typed Graph sidecar's names; mean, the
// older name of pooled, is accepted.
func ParseMode(mode string) (search.Score, error) {
	switch strings.ToLower(strings.TrimSpace(mode)) {
	case "", "best":
		return search.Best, nil
	case "pooled", "mean":
		return search.Mean, nil
	}
	return "", fmt.Errorf("mode must be best or pooled (mean is accepted for pooled), not %q", mode)
}

// checkLabels refuses a label filter that names an edge type and no note
// label of the snapshot: types once meant edge types for edges, and a
// client still sending them there would otherwise get no hits and no
// reason. Snapshots without a graph list neither, and are not checked.
func checkLabels(labels []string, snap *store.Snapshot) error {
	g := snap.Manifest.Graph
	if g == nil {
		return nil
	}
	for _, l := range labels {
		isLabel, isEdgeType := false, false
		for _, gl := range g.Labels {
			isLabel = isLabel || strings.EqualFold(gl.Name, l)
		}
		for _, et := range g.EdgeTypes {
			isEdgeType = isEdgeType || strings.EqualFold(et.Name, l)
		}
		if isEdgeType && !isLabel {
			return badRequest(`types (and labels) are note labels, and %q is an edge type: to keep edges of a type, send "target": "edges", "edge_types": [%q]`, l, l)
		}
	}
	return nil
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
		if hits[i].Labels == nil {
			hits[i].Labels = []string{}
		}
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
