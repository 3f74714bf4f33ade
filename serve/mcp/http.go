package mcp

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"github.com/vaultgraph/vaultgraph/serve"
)

// Path is where MCP over streamable HTTP is mounted.
const Path = "/mcp"

// headerSession is the session header of streamable HTTP.
const headerSession = "Mcp-Session-Id"

// Event streams: a ping every streamHeartbeat keeps proxies from closing
// an idle stream and finds clients that are gone; one write may take up to
// streamWriteTimeout.
const (
	streamHeartbeat    = 25 * time.Second
	streamWriteTimeout = 30 * time.Second
)

// maxBatch is the most messages one JSON-RPC batch may hold (protocol
// version 2025-03-26, the only one with batches).
const maxBatch = 100

// Mounts returns the routes of MCP over streamable HTTP, for
// serve.Options.Mounts: POST /mcp (JSON-RPC, counted as a heavy request),
// GET /mcp (the session's event stream) and DELETE /mcp (ends a session).
// They run behind the REST server's authentication, limits, logs and
// metrics, which is why mcp-go's own DNS-rebinding check (which Handle
// does not apply) is not needed: the server refuses non-loopback Host
// headers unless a token is required. Call it once; Close ends what it
// started.
func (s *Server) Mounts() []serve.Mount {
	s.http = server.NewStreamableHTTPServer(s.mcp,
		server.WithStreamableHTTPLogger(s.log),
		server.WithSessionIdManager(sessionless{s.sessions}),
		server.WithSessionIdleTTL(s.opts.SessionIdle),
		server.WithHeartbeatInterval(streamHeartbeat))
	return []serve.Mount{
		{Method: fiber.MethodPost, Path: Path, Handler: s.post, Heavy: true, Operation: postOperation},
		{Method: fiber.MethodGet, Path: Path, Handler: s.stream, Operation: getOperation},
		{Method: fiber.MethodDelete, Path: Path, Handler: s.end, Operation: deleteOperation},
	}
}

// Close ends every event stream of MCP over HTTP and the session sweeper,
// so that the HTTP server's shutdown need not wait for streams that never
// end. Call it when the server is to stop; requests in flight finish.
func (s *Server) Close() {
	s.sessions.Close()
	if s.http != nil {
		_ = s.http.Shutdown(context.Background())
	}
}

// rpcMessage is what the transport reads of a JSON-RPC message before
// mcp-go handles it.
type rpcMessage struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Params struct {
		Meta *mcp.Meta `json:"_meta"`
	} `json:"params"`
}

// modern reports whether a request is of protocol version 2026-07-28 or
// later, which has no sessions (mcp-go serves it without one).
func modern(c *fiber.Ctx, m *rpcMessage) bool {
	if mcp.IsModernProtocol(c.Get(mcp.HeaderProtocolVersion)) {
		return true
	}
	return m != nil && m.Params.Meta != nil && mcp.IsModernProtocol(m.Params.Meta.ProtocolVersion())
}

// post answers POST /mcp: a JSON-RPC message, or a batch of them where
// the session's protocol version has batches. A message naming a session
// must name a live one. A message without Mcp-Session-Id other than
// initialize is served without a session, as the Typed Graph sidecar's
// stateless POST /mcp serves every message: tools/call, tools/list,
// resources/read and the like answer as in a session, but such a client
// hears of no snapshot swap (it has no event stream), and what only a
// session can hold (resources/subscribe, logging/setLevel) is refused.
func (s *Server) post(c *fiber.Ctx) error {
	body := bytes.TrimSpace(c.Body())
	if len(body) > 0 && body[0] == '[' {
		return s.batch(c, body)
	}
	var m rpcMessage
	if json.Unmarshal(body, &m) == nil && !modern(c, &m) && m.Method != string(mcp.MethodInitialize) {
		if c.Get(headerSession) == "" {
			if sessionOnly[mcp.MCPMethod(m.Method)] {
				rpcError(c, http.StatusBadRequest, m.ID, mcp.INVALID_REQUEST,
					m.Method+" needs a session, which lasts beyond one request: send initialize, then this with the Mcp-Session-Id initialize answered with")
				return nil
			}
			s.handle(c, c.Body(), false)
			return nil
		}
		if _, ok := s.checkSession(c, m.ID); !ok {
			return nil
		}
	}
	s.handle(c, c.Body(), acceptsEventStream(c.Get(fiber.HeaderAccept)))
	return nil
}

// sessionOnly are the methods that keep state for later requests, which a
// message without a session has nowhere to keep.
var sessionOnly = map[mcp.MCPMethod]bool{
	mcp.MethodResourcesSubscribe:   true,
	mcp.MethodResourcesUnsubscribe: true,
	mcp.MethodSetLogLevel:          true,
}

// sessionless is the sessions as mcp-go's transport sees them: a message
// without a session id (one post lets through: neither initialize nor of
// a session) is served by a session of its own request, as mcp-go's
// stateless mode serves every message. post, stream and end check the ids
// that are sent.
type sessionless struct{ *sessions }

func (r sessionless) Validate(id string) (terminated bool, err error) {
	if id == "" {
		return false, nil
	}
	return r.sessions.Validate(id)
}

// checkSession answers a request without a session id with 400 and one
// with an id that is not live with 404, as the transport specifies, and
// reports whether the request may go on.
func (s *Server) checkSession(c *fiber.Ctx, id json.RawMessage) (string, bool) {
	sid := c.Get(headerSession)
	if sid == "" {
		rpcError(c, http.StatusBadRequest, id, mcp.INVALID_REQUEST,
			"no Mcp-Session-Id header: send the session id that initialize answered with, or send initialize to start a session")
		return "", false
	}
	if _, err := s.sessions.Validate(sid); err != nil {
		rpcError(c, http.StatusNotFound, id, codeSessionNotFound,
			"session "+quoteID(sid)+" is unknown or has ended (DELETE, "+s.opts.SessionIdle.String()+
				" idle, or a server restart): send initialize to start a new session")
		return "", false
	}
	return sid, true
}

// codeSessionNotFound is the JSON-RPC error code of an unknown session
// (the one the official TypeScript SDK's servers use).
const codeSessionNotFound = -32001

// quoteID quotes a client's session id for a message, cut short.
func quoteID(id string) string {
	if len(id) > 80 {
		id = id[:80] + "…"
	}
	b, _ := json.Marshal(id)
	return string(b)
}

// rpcError answers with a JSON-RPC error object and an HTTP status.
func rpcError(c *fiber.Ctx, status int, id json.RawMessage, code int, msg string) {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	b, _ := marshal(map[string]any{"jsonrpc": "2.0", "id": id, "error": map[string]any{"code": code, "message": msg}})
	c.Status(status)
	c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSON)
	c.Response().SetBodyRaw(b)
}

// handle runs one request through mcp-go's streamable HTTP handler and
// copies its answer to c. With events, a notification that arrives while a
// POST is handled (a snapshot swap's list_changed) turns the answer into
// an event stream that carries it before the response; mcp-go would
// otherwise take it off the session's queue and drop it, so that the GET
// stream never saw it either.
func (s *Server) handle(c *fiber.Ctx, body []byte, events bool) {
	w := s.record(c, body, events)
	for k, vs := range w.header {
		for i, v := range vs {
			if i == 0 {
				c.Response().Header.Set(k, v)
			} else {
				c.Response().Header.Add(k, v)
			}
		}
	}
	c.Status(w.status)
	c.Response().SetBodyRaw(w.body.Bytes())
}

// record runs one request with body through mcp-go's handler into a
// buffer: fiber buffers responses, so an answer is sent whole, a single
// JSON body or, with events, possibly a short event stream of
// notifications and the response. No tool asks the client anything
// (sampling, elicitation), which would need a live stream.
func (s *Server) record(c *fiber.Ctx, body []byte, events bool) *recorder {
	header := http.Header{}
	c.Request().Header.VisitAll(func(k, v []byte) { header.Add(string(k), string(v)) })
	w := &recorder{header: http.Header{}, events: events}
	s.http.Handle(w, &server.HTTPRequest{
		Method: c.Method(), URL: &url.URL{Path: c.Path()}, Header: header,
		// fasthttp reuses the body's buffer once the handler returns.
		Body:    bytes.Clone(body),
		Context: c.UserContext(),
	})
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w
}

// recorder is a server.HTTPResponseWriter into memory. It reports that
// it can stream when the client accepts an event stream, so that mcp-go
// writes notifications into the answer instead of dropping them.
type recorder struct {
	header http.Header
	status int
	body   bytes.Buffer
	events bool
}

func (w *recorder) Header() http.Header { return w.header }

func (w *recorder) WriteHeader(status int) {
	if w.status == 0 {
		w.status = status
	}
}

func (w *recorder) Write(p []byte) (int, error) {
	w.WriteHeader(http.StatusOK)
	return w.body.Write(p)
}

func (w *recorder) Flush()          {}
func (w *recorder) CanStream() bool { return w.events }

// batch answers a JSON-RPC batch. Batches are part of protocol version
// 2025-03-26 only (2025-06-18 removed them): for a session of that
// version each message is handled in turn and the responses come back as
// one array (202 when the batch held no request); for any later version
// the batch is refused with 400 and a JSON-RPC error saying to send one
// message per request. initialize must not be batched.
func (s *Server) batch(c *fiber.Ctx, body []byte) error {
	var msgs []json.RawMessage
	if err := json.Unmarshal(body, &msgs); err != nil {
		rpcError(c, http.StatusBadRequest, nil, mcp.PARSE_ERROR, "the request body is not valid JSON: "+err.Error())
		return nil
	}
	for _, raw := range msgs {
		var m rpcMessage
		if json.Unmarshal(raw, &m) == nil && m.Method == string(mcp.MethodInitialize) {
			rpcError(c, http.StatusBadRequest, m.ID, mcp.INVALID_REQUEST, "initialize must not be part of a JSON-RPC batch: send it alone")
			return nil
		}
	}
	version := c.Get(mcp.HeaderProtocolVersion)
	if !mcp.IsModernProtocol(version) {
		sid, ok := s.checkSession(c, nil)
		if !ok {
			return nil
		}
		if version == "" {
			version, _ = s.sessions.version(sid)
		}
	}
	if version == "" {
		// The transport's rule for a client that names no version.
		version = mcp.ProtocolVersion20250326
	}
	switch {
	case version >= mcp.ProtocolVersion20250618:
		rpcError(c, http.StatusBadRequest, nil, mcp.INVALID_REQUEST,
			"JSON-RPC batches are not part of MCP protocol version "+version+
				" (version 2025-06-18 removed them): send each message in a POST of its own")
		return nil
	case len(msgs) == 0:
		rpcError(c, http.StatusBadRequest, nil, mcp.INVALID_REQUEST, "the JSON-RPC batch is empty")
		return nil
	case len(msgs) > maxBatch:
		rpcError(c, http.StatusBadRequest, nil, mcp.INVALID_REQUEST,
			"the JSON-RPC batch holds more than 100 messages: send fewer at a time")
		return nil
	}
	var out [][]byte
	for _, raw := range msgs {
		w := s.record(c, raw, false)
		switch {
		case w.status == http.StatusAccepted:
		case isJSON(w.header.Get(fiber.HeaderContentType)):
			out = append(out, bytes.TrimSpace(w.body.Bytes()))
		default:
			var m rpcMessage
			_ = json.Unmarshal(raw, &m)
			id := m.ID
			if len(id) == 0 {
				id = json.RawMessage("null")
			}
			b, _ := marshal(map[string]any{"jsonrpc": "2.0", "id": id,
				"error": map[string]any{"code": mcp.INVALID_REQUEST, "message": strings.TrimSpace(w.body.String())}})
			out = append(out, b)
		}
	}
	if len(out) == 0 {
		c.Status(http.StatusAccepted)
		return nil
	}
	c.Status(http.StatusOK)
	c.Set(fiber.HeaderContentType, fiber.MIMEApplicationJSON)
	c.Response().SetBodyRaw(append(append([]byte("["), bytes.Join(out, []byte(","))...), ']'))
	return nil
}

func isJSON(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && mt == fiber.MIMEApplicationJSON
}

// end answers DELETE /mcp: the session and its event stream end, and any
// later request naming it gets 404.
func (s *Server) end(c *fiber.Ctx) error {
	if mcp.IsModernProtocol(c.Get(mcp.HeaderProtocolVersion)) {
		s.handle(c, nil, false)
		return nil
	}
	if _, ok := s.checkSession(c, nil); !ok {
		return nil
	}
	s.handle(c, nil, false)
	return nil
}

// stream answers GET /mcp with the session's event stream: the server's
// notifications (tools/list_changed and resources/list_changed when a
// snapshot swap changes the lists, resources/updated for subscribed notes
// the swap changed) and pings, as server-sent events, until the client
// goes, the session ends, a newer stream of the session opens, or the
// server stops.
func (s *Server) stream(c *fiber.Ctx) error {
	version := c.Get(mcp.HeaderProtocolVersion)
	if mcp.IsModernProtocol(version) || (version != "" && !mcp.IsValidProtocolVersion(version)) {
		// mcp-go's answers: 2026-07-28 has no GET stream; an unknown
		// version is refused.
		s.handle(c, nil, false)
		return nil
	}
	if !acceptsEventStream(c.Get(fiber.HeaderAccept)) {
		rpcError(c, http.StatusNotAcceptable, nil, mcp.INVALID_REQUEST,
			`GET /mcp is the session's event stream: send "Accept: text/event-stream"`)
		return nil
	}
	sid, ok := s.checkSession(c, nil)
	if !ok {
		return nil
	}
	ctx, done, err := s.sessions.openStream(sid)
	if err != nil {
		rpcError(c, http.StatusServiceUnavailable, nil, mcp.INTERNAL_ERROR, "the server is stopping")
		return nil
	}
	header := http.Header{}
	c.Request().Header.VisitAll(func(k, v []byte) { header.Add(string(k), string(v)) })
	conn := c.Context().Conn()
	c.Set(fiber.HeaderContentType, "text/event-stream")
	c.Set(fiber.HeaderCacheControl, "no-cache")
	c.Set("X-Accel-Buffering", "no")
	c.Status(http.StatusOK)
	// Clients wait for the headers before they count the stream open.
	c.Response().ImmediateHeaderFlush = true
	// fasthttp runs the stream writer in a goroutine of its own, which
	// writes into a pipe that the response drains once the handler and the
	// middleware have returned; it must not touch c.
	s.metrics.streams.Inc()
	c.Context().SetBodyStreamWriter(func(bw *bufio.Writer) {
		defer s.metrics.streams.Dec()
		defer done()
		w := &streamWriter{bw: bw, conn: conn, cancel: done, header: http.Header{}}
		s.http.Handle(w, &server.HTTPRequest{Method: http.MethodGet, URL: &url.URL{Path: Path}, Header: header, Context: ctx})
	})
	return nil
}

func acceptsEventStream(accept string) bool {
	for _, part := range strings.Split(accept, ",") {
		mt, _, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err == nil && (mt == "text/event-stream" || mt == "text/*" || mt == "*/*") {
			return true
		}
	}
	return false
}

// streamWriter is a server.HTTPResponseWriter over fasthttp's stream
// writer. The status and headers were sent by the handler; every write
// gets a deadline of its own (fasthttp's write timeout covers the whole
// response, which a stream outlives), and a failed write ends the stream.
type streamWriter struct {
	bw     *bufio.Writer
	conn   net.Conn
	cancel func()
	header http.Header
}

func (w *streamWriter) Header() http.Header { return w.header }
func (w *streamWriter) WriteHeader(int)     {}
func (w *streamWriter) CanStream() bool     { return true }

func (w *streamWriter) Write(p []byte) (int, error) {
	_ = w.conn.SetWriteDeadline(time.Now().Add(streamWriteTimeout))
	n, err := w.bw.Write(p)
	if err != nil {
		w.cancel()
	}
	return n, err
}

func (w *streamWriter) Flush() {
	_ = w.conn.SetWriteDeadline(time.Now().Add(streamWriteTimeout))
	if err := w.bw.Flush(); err != nil {
		w.cancel()
	}
}

// OpenAPI operations of the mounts (serve's OpenAPI test requires one per
// route).
var (
	postOperation = []byte(`{
  "operationId": "mcp",
  "summary": "Model Context Protocol over streamable HTTP (specification 2025-11-25): one JSON-RPC message per request, answered with a single JSON body; batches only for sessions of protocol version 2025-03-26",
  "parameters": [{"name": "Mcp-Session-Id", "in": "header", "required": false, "schema": {"type": "string"}, "description": "The session id handed out on initialize. A message without one (but initialize) is served without a session, as by a stateless server: it gets no notifications, and resources/subscribe and logging/setLevel are refused"}],
  "requestBody": {"required": true, "content": {"application/json": {"schema": {"description": "A JSON-RPC 2.0 request, notification or response (or, for protocol version 2025-03-26, an array of them)", "oneOf": [{"type": "object"}, {"type": "array", "items": {"type": "object"}}]}}}},
  "responses": {
    "200": {"description": "The JSON-RPC response (an array for a batch); initialize's carries the Mcp-Session-Id header", "content": {"application/json": {"schema": {}}}},
    "202": {"description": "A notification or response was accepted"},
    "400": {"description": "Not JSON-RPC, a method that needs a session sent without Mcp-Session-Id, a batch without a session or of a protocol version without batches, or an unsupported protocol version"},
    "401": {"$ref": "#/components/responses/Error"},
    "404": {"description": "A session that is unknown or has ended: initialize a new one"},
    "413": {"$ref": "#/components/responses/Error"},
    "429": {"$ref": "#/components/responses/Busy"}
  }
}`)
	getOperation = []byte(`{
  "operationId": "mcpStream",
  "summary": "The session's server-to-client event stream: tools/list_changed and resources/list_changed when a new snapshot changes the lists, resources/updated for subscribed notes, pings",
  "parameters": [{"name": "Mcp-Session-Id", "in": "header", "required": true, "schema": {"type": "string"}}],
  "responses": {
    "200": {"description": "Server-sent events, one JSON-RPC message each, until the session ends", "content": {"text/event-stream": {"schema": {"type": "string"}}}},
    "400": {"description": "No Mcp-Session-Id"},
    "401": {"$ref": "#/components/responses/Error"},
    "404": {"description": "A session that is unknown or has ended"},
    "406": {"description": "The request does not accept text/event-stream"}
  }
}`)
	deleteOperation = []byte(`{
  "operationId": "mcpEndSession",
  "summary": "End an MCP session: its event stream closes and later requests naming it get 404",
  "parameters": [{"name": "Mcp-Session-Id", "in": "header", "required": true, "schema": {"type": "string"}}],
  "responses": {
    "200": {"description": "The session is ended"},
    "400": {"description": "No Mcp-Session-Id"},
    "401": {"$ref": "#/components/responses/Error"},
    "404": {"description": "A session that is unknown or has ended already"}
  }
}`)
)
