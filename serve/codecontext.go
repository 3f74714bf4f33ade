package serve

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/gofiber/fiber/v2"

	"github.com/vaultgraph/vaultgraph/snapshot/codecontext"
)

// ContextRequest is the body of POST /retrieve_context: a question, or an
// anchor (a code file or symbol id) for impact_of.
type ContextRequest struct {
	Question string `json:"question"`
	Anchor   string `json:"anchor"`
	K        int    `json:"k"`
	MaxBytes int    `json:"max_bytes"`
	// Repo keeps a question's code to one repository (its --repo name).
	Repo string `json:"repo"`
	// Weights override the walk's weights by edge type.
	Weights map[string]float64 `json:"weights"`
}

// Bounds of ContextRequest.
const (
	MaxContextK     = codecontext.MaxK
	MaxContextBytes = 256 << 10
	minContextBytes = 1 << 10
)

// Answer asks ix: the impact of the anchor, or the question's context.
func (r ContextRequest) Answer(ctx context.Context, ix *codecontext.Index) (*codecontext.Answer, error) {
	if r.Anchor != "" {
		return ix.Impact(ctx, codecontext.ImpactRequest{ID: r.Anchor, K: r.K, MaxBytes: r.MaxBytes, Weights: r.Weights})
	}
	return ix.Retrieve(ctx, codecontext.Request{Question: r.Question, K: r.K, MaxBytes: r.MaxBytes, Weights: r.Weights, Repo: r.Repo})
}

// retrieveContext answers POST /retrieve_context with a codecontext.Answer.
func (s *Server) retrieveContext(c *fiber.Ctx, ix *codecontext.Index, unavailable error) error {
	if ix == nil {
		return componentUnavailable("retrieve_context (index with --repo NAME=PATH)", unavailable)
	}
	var req ContextRequest
	body, err := decodeBody(c, &req)
	if err != nil {
		return err
	}
	if (req.Question == "") == (req.Anchor == "") {
		return badRequest("give a question, or an anchor (a code id such as code:REPO/path or code:REPO/path#Symbol) for the impact of changing it, not both")
	}
	if body.has("k") && (req.K < 1 || req.K > MaxContextK) {
		return badRequest("k must be between 1 and %d, not %d; leave it out for %d", MaxContextK, req.K, codecontext.DefaultK)
	}
	if body.has("max_bytes") && (req.MaxBytes < minContextBytes || req.MaxBytes > MaxContextBytes) {
		return badRequest("max_bytes must be between %d and %d, not %d; leave it out for %d", minContextBytes, MaxContextBytes, req.MaxBytes, codecontext.DefaultMaxBytes)
	}
	for t, w := range req.Weights {
		if w < 0 || w > 100 {
			return badRequest("weights[%q] must be between 0 and 100, not %g", t, w)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), s.opts.QueryTimeout)
	defer cancel()
	a, err := req.Answer(ctx, ix)
	switch {
	case err == nil:
		if a.Truncated {
			a.LeftOut += fmt.Sprintf("; or a larger max_bytes (up to %d)", MaxContextBytes)
		}
		return c.JSON(a)
	case errors.Is(err, codecontext.ErrUnknownCode), errors.Is(err, codecontext.ErrUnknownRepo):
		return newError(http.StatusNotFound, KindNotFound, "%s", err.Error())
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return newError(http.StatusGatewayTimeout, KindTimeout, "retrieve_context ran past its timeout")
	}
	return badRequest("%s", err.Error())
}

// divergence answers GET /divergence: the notes whose code links name
// files or symbols that do not exist.
func (s *Server) divergence(c *fiber.Ctx, ix *codecontext.Index, unavailable error) error {
	if ix == nil {
		return componentUnavailable("divergence (index with --repo NAME=PATH)", unavailable)
	}
	d := ix.Divergence()
	if d == nil {
		d = []codecontext.Divergence{}
	}
	return c.JSON(fiber.Map{"snapshot": ix.Snapshot(), "divergence": d})
}
