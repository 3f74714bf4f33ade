package mcp

import (
	"bytes"
	"net/http"
	"net/url"

	"github.com/gofiber/fiber/v2"
	"github.com/mark3labs/mcp-go/server"

	"github.com/vaultgraph/vaultgraph/serve"
)

// Path is where MCP over streamable HTTP is mounted.
const Path = "/mcp"

// Mounts returns the routes of MCP over streamable HTTP, for
// serve.Options.Mounts: POST /mcp (JSON-RPC, counted as a heavy request),
// GET /mcp (405: no server-to-client stream is offered) and DELETE /mcp
// (ends a session). They run behind the REST server's authentication,
// limits, logs and metrics, which is why mcp-go's own DNS-rebinding check
// (which Handle does not apply) is not needed: the server refuses
// non-loopback Host headers unless a token is required.
func (s *Server) Mounts() []serve.Mount {
	h := server.NewStreamableHTTPServer(s.mcp, server.WithStreamableHTTPLogger(s.log))
	handle := func(c *fiber.Ctx) error {
		serveFiber(h, c)
		return nil
	}
	return []serve.Mount{
		{Method: fiber.MethodPost, Path: Path, Handler: handle, Heavy: true, Operation: postOperation},
		{Method: fiber.MethodGet, Path: Path, Handler: s.noStream, Operation: getOperation},
		{Method: fiber.MethodDelete, Path: Path, Handler: handle, Operation: deleteOperation},
	}
}

// serveFiber runs one request through mcp-go's transport-agnostic
// streamable HTTP handler. The response is buffered by fiber, so the
// writer reports that it cannot stream: POST answers are single JSON
// bodies and GET is refused.
func serveFiber(h *server.StreamableHTTPServer, c *fiber.Ctx) {
	header := http.Header{}
	c.Request().Header.VisitAll(func(k, v []byte) { header.Add(string(k), string(v)) })
	w := &fiberWriter{c: c, header: http.Header{}}
	h.Handle(w, &server.HTTPRequest{
		Method: c.Method(), URL: &url.URL{Path: c.Path()}, Header: header,
		// fasthttp reuses the body's buffer once the handler returns.
		Body:    bytes.Clone(c.Body()),
		Context: c.UserContext(),
	})
	if !w.wrote {
		w.WriteHeader(http.StatusOK)
	}
}

// fiberWriter adapts a fiber response to server.HTTPResponseWriter.
type fiberWriter struct {
	c      *fiber.Ctx
	header http.Header
	wrote  bool
}

func (w *fiberWriter) Header() http.Header { return w.header }

func (w *fiberWriter) WriteHeader(status int) {
	if w.wrote {
		return
	}
	w.wrote = true
	for k, vs := range w.header {
		for i, v := range vs {
			if i == 0 {
				w.c.Response().Header.Set(k, v)
			} else {
				w.c.Response().Header.Add(k, v)
			}
		}
	}
	w.c.Status(status)
}

func (w *fiberWriter) Write(p []byte) (int, error) {
	if !w.wrote {
		w.WriteHeader(http.StatusOK)
	}
	w.c.Response().AppendBody(p)
	return len(p), nil
}

func (w *fiberWriter) Flush()          {}
func (w *fiberWriter) CanStream() bool { return false }

// noStream answers GET /mcp: the streamable HTTP transport lets a server
// that offers no server-to-client event stream answer 405.
func (s *Server) noStream(c *fiber.Ctx) error {
	c.Set(fiber.HeaderAllow, "POST, DELETE")
	var snapshot *string
	if id := s.st.Current(); id != "" {
		snapshot = &id
	}
	return c.Status(fiber.StatusMethodNotAllowed).JSON(map[string]any{
		"error": map[string]any{"kind": serve.KindMethod,
			"message": "this server offers no server-to-client event stream on GET /mcp; send JSON-RPC requests with POST /mcp"},
		"snapshot": snapshot,
	})
}

// OpenAPI operations of the mounts (serve's OpenAPI test requires one per
// route).
var (
	postOperation = []byte(`{
  "operationId": "mcp",
  "summary": "Model Context Protocol over streamable HTTP: one JSON-RPC message per request, answered with a single JSON body (tools, resources; see the MCP specification 2025-11-25)",
  "parameters": [{"name": "Mcp-Session-Id", "in": "header", "required": false, "schema": {"type": "string"}, "description": "The session id handed out on initialize"}],
  "requestBody": {"required": true, "content": {"application/json": {"schema": {"type": "object", "description": "A JSON-RPC 2.0 request, notification or response", "properties": {"jsonrpc": {"type": "string"}, "id": {}, "method": {"type": "string"}, "params": {"type": "object"}}}}}},
  "responses": {
    "200": {"description": "The JSON-RPC response", "content": {"application/json": {"schema": {"type": "object"}}}},
    "202": {"description": "A notification or response was accepted"},
    "400": {"description": "Not JSON, not JSON-RPC, or an unsupported protocol version"},
    "401": {"$ref": "#/components/responses/Error"},
    "404": {"description": "A session id that is not valid"},
    "413": {"$ref": "#/components/responses/Error"},
    "429": {"$ref": "#/components/responses/Busy"}
  }
}`)
	getOperation = []byte(`{
  "operationId": "mcpStream",
  "summary": "The optional server-to-client event stream of streamable HTTP, which this server does not offer",
  "responses": {
    "401": {"$ref": "#/components/responses/Error"},
    "405": {"description": "No event stream; use POST /mcp", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ErrorResponse"}}}}
  }
}`)
	deleteOperation = []byte(`{
  "operationId": "mcpEndSession",
  "summary": "End an MCP session (the server keeps no per-session state, so this only acknowledges)",
  "parameters": [{"name": "Mcp-Session-Id", "in": "header", "required": true, "schema": {"type": "string"}}],
  "responses": {
    "200": {"description": "The session is ended"},
    "400": {"description": "No session id"},
    "401": {"$ref": "#/components/responses/Error"}
  }
}`)
)
