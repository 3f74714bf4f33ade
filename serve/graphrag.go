package serve

import (
	"context"
	"errors"
	"net/http"

	"github.com/gofiber/fiber/v2"

	"github.com/vaultgraph/vaultgraph/snapshot/embed"
	"github.com/vaultgraph/vaultgraph/snapshot/linkgraph"
	"github.com/vaultgraph/vaultgraph/snapshot/retrieve"
)

// POST /graph and POST /retrieve answer from two per-snapshot components
// that the snapshot's loader builds once (package serve/store): the link
// graph (linkgraph.Load) and the retriever (retrieve.New over the link
// graph, the vector index, the query embedder and the chunks the note
// index holds). Neither handler builds anything; each is given the
// component of the snapshot the request holds, or the reason the snapshot
// has none. They are not routed yet: register wires them once the store
// carries the components, e.g.
//
//	s.route(fiber.MethodPost, "/graph", s.heavyRoute(s.withSnapshot(func(c *fiber.Ctx, snap *store.Snapshot) error {
//		return s.linkGraph(c, snap.Links, snap.LinksErr)
//	})))

// linkGraph answers POST /graph: a linkgraph.Request in the
// obsidian-mcp-plugin's parameter names (action, sourcePath, targetPath,
// maxDepth, maxNodes, followBacklinks, followForwardLinks, followTags,
// fileFilter, folderFilter, plus edgeTypes, includeUnresolved, all,
// maxPaths, maxEdges, timeoutMs), answered with a linkgraph.Response.
func (s *Server) linkGraph(c *fiber.Ctx, g *linkgraph.Graph, unavailable error) error {
	if g == nil {
		return componentUnavailable("graph navigation", unavailable)
	}
	var req GraphRequest
	body, err := decodeBody(c, &req)
	if err != nil {
		return err
	}
	for _, f := range []struct {
		name  string
		value int
	}{{"maxDepth", req.MaxDepth}, {"maxNodes", req.MaxNodes}, {"maxEdges", req.MaxEdges}, {"maxPaths", req.MaxPaths}, {"timeoutMs", req.TimeoutMS}} {
		if err := body.atLeast(f.name, f.value, 1); err != nil {
			return err
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), s.opts.QueryTimeout)
	defer cancel()
	res, err := g.Do(ctx, req.Request)
	if err != nil {
		return graphError(ctx, err)
	}
	return c.JSON(res)
}

// graphError maps the link graph's errors: a bad request or an ambiguous
// name is the client's (400, the message lists the candidates), an unknown
// note a 404.
func graphError(ctx context.Context, err error) error {
	switch {
	case errors.Is(err, linkgraph.ErrInvalidRequest), errors.Is(err, linkgraph.ErrAmbiguous):
		return badRequest("%s", err.Error())
	case errors.Is(err, linkgraph.ErrNotFound):
		return newError(http.StatusNotFound, KindNotFound, "%s", err.Error())
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return newError(http.StatusGatewayTimeout, KindTimeout, "the graph request ran past its timeout")
	}
	return err
}

// retrieval answers POST /retrieve: a retrieve.Request ({"question", "k",
// "depth", "types", "chunk_cap", "neighbor_cap", "rank"}; max_chunks and
// per_node_cap are accepted for the caps, see FieldAliases), answered with a
// retrieve.Result whose notice says that chunk text is quoted vault content.
func (s *Server) retrieval(c *fiber.Ctx, r *retrieve.Retriever, embedder embed.Embedder, unavailable error) error {
	if r == nil {
		return componentUnavailable("retrieval", unavailable)
	}
	var req retrieve.Request
	body, err := decodeBody(c, &req)
	if err != nil {
		return err
	}
	if maxK := min(retrieve.MaxK, s.opts.MaxK); body.has("k") && (req.K < 1 || req.K > maxK) {
		return badRequest("k must be between 1 and %d, not %d; leave it out for %d", maxK, req.K, retrieve.DefaultK)
	}
	if req.Depth != nil && (*req.Depth < 0 || *req.Depth > retrieve.MaxDepth) {
		return badRequest("depth must be between 0 (the seeds only) and %d, not %d", retrieve.MaxDepth, *req.Depth)
	}
	if err := body.atLeast("chunk_cap", req.MaxChunks, 1); err != nil {
		return err
	}
	if err := body.atLeast("neighbor_cap", req.PerNodeCap, 1); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), s.opts.QueryTimeout)
	defer cancel()
	res, err := r.Retrieve(ctx, req)
	switch {
	case err == nil:
		// The hand-written encoder writes what c.JSON would (its test
		// compares them), at a fraction of the reflection's cost.
		b, jerr := res.AppendJSON(nil)
		if jerr != nil {
			return c.JSON(res)
		}
		c.Response().SetBodyRaw(b)
		c.Response().Header.SetContentType(fiber.MIMEApplicationJSON)
		return nil
	case errors.Is(err, retrieve.ErrInvalidRequest):
		return badRequest("%s", err.Error())
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return newError(http.StatusGatewayTimeout, KindTimeout, "the retrieval ran past its timeout")
	case errors.Is(err, embed.ErrModelMismatch):
		return newError(http.StatusNotImplemented, KindNotImplemented, "%s", err.Error())
	case embedder != nil && embedder.Info().Provider != "builtin":
		e := newError(http.StatusServiceUnavailable, KindUnavailable, "embedding the question failed: %s", err.Error())
		e.RetryAfter = 5
		return e
	}
	return err
}

// componentUnavailable is the 501 of a snapshot served without a
// component, with the reason the loader recorded.
func componentUnavailable(what string, reason error) error {
	msg := what + " is not available for this snapshot"
	if reason != nil {
		msg = reason.Error()
	}
	return newError(http.StatusNotImplemented, KindNotImplemented, "%s", msg)
}
