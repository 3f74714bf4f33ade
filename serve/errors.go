package serve

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"

	"github.com/gofiber/fiber/v2"

	"github.com/vaultgraph/vaultgraph/snapshot/cypher"
	"github.com/vaultgraph/vaultgraph/snapshot/graphdb"
)

// Kinds of API errors, the "kind" of an error response. The Cypher kinds
// (syntax, unsupported, readonly, parameter, timeout, canceled, runtime)
// come from package cypher unchanged, and out_of_memory from package
// graphdb.
const (
	KindBadRequest     = "bad_request"
	KindUnauthorized   = "unauthorized"
	KindForbidden      = "forbidden"
	KindNotFound       = "not_found"
	KindMethod         = "method_not_allowed"
	KindTooLarge       = "too_large"
	KindUnsupportedMT  = "unsupported_media_type"
	KindTooMany        = "too_many_requests"
	KindInternal       = "internal"
	KindNotImplemented = "not_implemented"
	// KindNotReady: no snapshot is served yet (or none is left after the
	// served one was deleted). It is the Typed Graph sidecar's kind for
	// "still building, retry", which its plugin retries on; vaultgraph
	// called it no_snapshot before.
	KindNotReady    = "not_ready"
	KindUnavailable = "unavailable"
	KindTimeout     = string(cypher.KindTimeout)
)

// apiError is an error response: {"error": {...}, "snapshot": ...}. Line
// and Column locate a problem in the query (or the JSON body) when known.
type apiError struct {
	Status  int    `json:"-"`
	Kind    string `json:"kind"`
	Message string `json:"message"`
	Line    int    `json:"line,omitempty"`
	Column  int    `json:"column,omitempty"`
	// RetryAfter, in seconds, is sent as the Retry-After header when > 0.
	RetryAfter int `json:"-"`
}

func (e *apiError) Error() string { return e.Kind + ": " + e.Message }

func newError(status int, kind, format string, args ...any) *apiError {
	return &apiError{Status: status, Kind: kind, Message: fmt.Sprintf(format, args...)}
}

func badRequest(format string, args ...any) *apiError {
	return newError(http.StatusBadRequest, KindBadRequest, format, args...)
}

// outOfMemoryRetry is the Retry-After, in seconds, of a query the graph
// engine ran out of memory for: the queries sharing its buffer pool are
// bounded by the query timeout, and most end far sooner.
const outOfMemoryRetry = 2

// cypherStatus maps the kinds of query errors to HTTP statuses: problems
// with the query are the client's (400), a query past its time limit is a
// 504, and a query canceled because the server is stopping, or one the
// graph engine had no memory for, is a 503.
func cypherStatus(k cypher.Kind) int {
	switch k {
	case cypher.KindTimeout:
		return http.StatusGatewayTimeout
	case cypher.KindCanceled, graphdb.KindOutOfMemory:
		return http.StatusServiceUnavailable
	default:
		return http.StatusBadRequest
	}
}

// fromCypher converts a query error; ok is false for other errors. A query
// the graph engine ran out of memory for is worth retrying, and the
// message names the server's setting that gives the engine more memory.
func fromCypher(err error) (*apiError, bool) {
	var ce *cypher.Error
	if !errors.As(err, &ce) {
		return nil, false
	}
	e := &apiError{Status: cypherStatus(ce.Kind), Kind: string(ce.Kind), Message: ce.Message, Line: ce.Line, Column: ce.Column}
	if ce.Kind == graphdb.KindOutOfMemory {
		e.RetryAfter = outOfMemoryRetry
		e.Message += " This server's engine memory is set with vaultgraph serve --graph-memory (MiB)."
	}
	return e, true
}

// fromFiber converts the errors fiber and fasthttp raise before a handler
// runs (unknown route, wrong method, body too large, read timeout);
// bodyLimit is the server's limit on request bodies.
func fromFiber(fe *fiber.Error, bodyLimit int) *apiError {
	switch fe.Code {
	case fiber.StatusNotFound:
		return newError(fe.Code, KindNotFound, "no such route; GET /openapi.json lists them")
	case fiber.StatusMethodNotAllowed:
		return newError(fe.Code, KindMethod, "method not allowed on this route; GET /openapi.json lists the methods")
	case fiber.StatusRequestEntityTooLarge:
		return newError(fe.Code, KindTooLarge, "request body too large: over this server's limit of %d bytes (vaultgraph serve --body-limit raises it)", bodyLimit)
	case fiber.StatusRequestHeaderFieldsTooLarge:
		return newError(fe.Code, KindTooLarge, "request headers too large")
	case fiber.StatusRequestTimeout:
		return newError(fe.Code, KindTimeout, "request not received in time")
	}
	kind := KindBadRequest
	if fe.Code >= 500 {
		kind = KindInternal
	}
	return newError(fe.Code, kind, "%s", http.StatusText(fe.Code))
}

// errorBody is the JSON of an error response.
type errorBody struct {
	Error    *apiError `json:"error"`
	Snapshot *string   `json:"snapshot"`
}

// writeError sends e as the response. snapshot is the id that answered,
// "" when none did.
func writeError(c *fiber.Ctx, e *apiError, snapshot string) error {
	if e.RetryAfter > 0 {
		c.Set(fiber.HeaderRetryAfter, strconv.Itoa(e.RetryAfter))
	}
	if e.Status == http.StatusUnauthorized {
		c.Set(fiber.HeaderWWWAuthenticate, `Bearer realm="vaultgraph"`)
	}
	body := errorBody{Error: e}
	if snapshot != "" {
		body.Snapshot = &snapshot
	}
	return c.Status(e.Status).JSON(body)
}
