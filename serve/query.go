package serve

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"

	"github.com/vaultgraph/vaultgraph/serve/store"
	"github.com/vaultgraph/vaultgraph/snapshot/graphdb"
)

// maxQueryBytes bounds the text of a query or search.
const maxQueryBytes = 64 << 10

// checkBackend accepts the Typed Graph sidecar's backend names. Its
// builtin engine and its LadybugDB mirror differ in what they read;
// vaultgraph's one engine reads the union (UNWIND and CASE, which only
// the mirror runs, and startNode(), keys() and properties(), which only
// the built-in engine runs), in the vault's names. Queries written
// against the mirror's storage layout (MATCH (n:Node), p_role_s) are not
// translated.
func checkBackend(backend string) error {
	switch backend {
	case "", "builtin", "ladybug":
		return nil
	}
	return badRequest(`backend must be "builtin" or "ladybug" (both run on the snapshot's graph), not %q`, backend)
}

// queryResult is the answer to a Cypher query, in /query and in the "then"
// part of /search: typed columns and rows, nodes, relationships and paths
// as _type-tagged objects.
type queryResult struct {
	Columns []graphdb.Column  `json:"columns"`
	Rows    []json.RawMessage `json:"rows"`
	// Truncated is set when rows were cut: past MaxRows, or past the
	// server's result size limit (TruncatedBy says which).
	Truncated   bool    `json:"truncated"`
	TruncatedBy string  `json:"truncated_by,omitempty"`
	MaxRows     int     `json:"max_rows"`
	ElapsedMS   float64 `json:"elapsed_ms"`
	// Notices name the labels and relationship types the query wrote that
	// the snapshot lacks, which match nothing, with the name probably
	// meant: an empty answer or a count of 0 may be only that.
	Notices []string `json:"notices,omitempty"`
}

type queryResponse struct {
	Snapshot string `json:"snapshot"`
	*queryResult
}

func (s *Server) query(c *fiber.Ctx, snap *store.Snapshot) error {
	var req QueryRequest
	body, err := decodeBody(c, &req)
	if err != nil {
		return err
	}
	if err := checkQueryText("query", req.Query); err != nil {
		return err
	}
	if err := checkBackend(req.Backend); err != nil {
		return err
	}
	if snap.Graph == nil {
		return graphUnavailable(snap)
	}
	limits, err := s.queryLimits(body, req.TimeoutMS, req.MaxRows)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), limits.Timeout)
	defer cancel()
	res, err := s.runCypher(ctx, snap, graphdb.Request{Query: req.Query, Params: req.Params, Timeout: limits.Timeout, MaxRows: limits.MaxRows})
	if err != nil {
		return err
	}
	return c.JSON(queryResponse{Snapshot: snap.ID, queryResult: res})
}

func checkQueryText(field, q string) error {
	if strings.TrimSpace(q) == "" {
		return badRequest("%s is required", field)
	}
	if len(q) > maxQueryBytes {
		return newError(http.StatusRequestEntityTooLarge, KindTooLarge, "%s is longer than %d bytes", field, maxQueryBytes)
	}
	return nil
}

func graphUnavailable(snap *store.Snapshot) error {
	reason := "this server cannot run Cypher queries"
	if snap.GraphErr != nil {
		reason = snap.GraphErr.Error()
	}
	return newError(http.StatusNotImplemented, KindNotImplemented, "%s", reason)
}

// queryLimits applies a request's own limits, which may only be lower than
// the server's: larger ones are lowered to the server's, zero or negative
// ones refused (leaving a limit out takes the server's).
func (s *Server) queryLimits(body bodyFields, timeoutMS, maxRows int) (graphdb.Request, error) {
	l := graphdb.Request{Timeout: s.opts.QueryTimeout, MaxRows: s.opts.MaxRows}
	if err := body.atLeast("timeout_ms", timeoutMS, 1); err != nil {
		return l, err
	}
	if err := body.atLeast("max_rows", maxRows, 1); err != nil {
		return l, err
	}
	if timeoutMS > 0 && int64(timeoutMS) < l.Timeout.Milliseconds() {
		l.Timeout = time.Duration(timeoutMS) * time.Millisecond
	}
	if maxRows > 0 && maxRows < l.MaxRows {
		l.MaxRows = maxRows
	}
	return l, nil
}

// runCypher runs a query on the snapshot's graph and encodes its rows,
// cutting them at the server's result size limit.
func (s *Server) runCypher(ctx context.Context, snap *store.Snapshot, req graphdb.Request) (*queryResult, error) {
	res, err := snap.Graph.Run(ctx, req)
	if err != nil {
		return nil, err
	}
	out := &queryResult{Columns: res.Columns, Rows: make([]json.RawMessage, 0, len(res.Rows)),
		Truncated: res.Truncated, MaxRows: res.MaxRows, ElapsedMS: res.ElapsedMS, Notices: res.Notices}
	if out.Columns == nil {
		out.Columns = []graphdb.Column{}
	}
	if res.Truncated {
		out.TruncatedBy = "rows"
	}
	size := 0
	for _, row := range res.Rows {
		b, err := encodeJSON(row)
		if err != nil {
			return nil, fmt.Errorf("encode result row: %w", err)
		}
		if size += len(b); size > s.opts.MaxResultBytes {
			out.Truncated, out.TruncatedBy = true, "bytes"
			break
		}
		out.Rows = append(out.Rows, b)
	}
	return out, nil
}
