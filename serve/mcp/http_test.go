package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vaultgraph/vaultgraph/indexer"
	"github.com/vaultgraph/vaultgraph/serve"
	"github.com/vaultgraph/vaultgraph/snapshot/embed"
)

const httpToken = "0123456789abcdef0123"

// httpServer is MCP over streamable HTTP on a loopback port, behind the
// REST server's middleware.
type httpServer struct {
	url, metrics string
}

func startHTTP(t *testing.T, s *Server, opts serve.Options) httpServer {
	t.Helper()
	opts.Token = httpToken
	opts.Mounts = s.Mounts()
	opts.Collectors = s.Collectors()
	rest, err := serve.NewVaults(s.vaults, opts)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go rest.Serve(ln)
	t.Cleanup(func() {
		s.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		if err := rest.Shutdown(ctx); err != nil {
			t.Errorf("shutdown with event streams open: %v", err)
		}
	})
	base := "http://" + ln.Addr().String()
	return httpServer{url: base + Path, metrics: base + "/metrics"}
}

// send makes one request; headers are name, value pairs. The token is sent
// unless headers name Authorization.
func (h httpServer) send(t *testing.T, method, body string, headers ...string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(method, h.url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer "+httpToken)
	for i := 0; i+1 < len(headers); i += 2 {
		if headers[i+1] == "" {
			req.Header.Del(headers[i])
		} else {
			req.Header.Set(headers[i], headers[i+1])
		}
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

func initializeBody(version string) string {
	return `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"` + version + `","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`
}

// session initializes a session of protocol version and returns its id.
func (h httpServer) session(t *testing.T, version string) string {
	t.Helper()
	resp, body := h.send(t, "POST", initializeBody(version))
	sid := resp.Header.Get("Mcp-Session-Id")
	if resp.StatusCode != http.StatusOK || sid == "" || !strings.Contains(body, `"protocolVersion":"`+version+`"`) {
		t.Fatalf("initialize %s: %d %q %s", version, resp.StatusCode, sid, body)
	}
	if resp, body := h.send(t, "POST", `{"jsonrpc":"2.0","method":"notifications/initialized"}`, "Mcp-Session-Id", sid); resp.StatusCode != http.StatusAccepted {
		t.Fatalf("initialized: %d %s", resp.StatusCode, body)
	}
	return sid
}

// rpcErr decodes a JSON-RPC error answer.
func rpcErr(t *testing.T, body string) (int, string) {
	t.Helper()
	var e struct {
		Error struct {
			Code    int
			Message string
		}
	}
	if err := json.Unmarshal([]byte(body), &e); err != nil || e.Error.Code == 0 {
		t.Fatalf("not a JSON-RPC error: %v %s", err, body)
	}
	return e.Error.Code, e.Error.Message
}

// TestHTTPSessions: a message that names a session names a live one (404
// for one that is unknown or ended), what needs a session is refused
// without one (400); DELETE ends it.
func TestHTTPSessions(t *testing.T) {
	st := openStore(t, demoData(t))
	h := startHTTP(t, newServer(t, st, Options{}), serve.Options{BodyLimit: 64 << 10})
	list := `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`

	if resp, _ := h.send(t, "POST", initializeBody("2025-11-25"), "Authorization", "Bearer wrong-token-000000"); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("a wrong token: %d", resp.StatusCode)
	}
	sid := h.session(t, "2025-11-25")
	resp, body := h.send(t, "POST", `{"jsonrpc":"2.0","id":2,"method":"resources/subscribe","params":{"uri":"vault://People%2FAlice.md"}}`)
	if code, msg := rpcErr(t, body); resp.StatusCode != http.StatusBadRequest || code != -32600 || !strings.Contains(msg, "initialize") {
		t.Errorf("subscribe without a session: %d %s", resp.StatusCode, body)
	}
	resp, body = h.send(t, "POST", list, "Mcp-Session-Id", "0123456789abcdef0123456789abcdef")
	if code, msg := rpcErr(t, body); resp.StatusCode != http.StatusNotFound || code != -32001 || !strings.Contains(msg, "initialize") {
		t.Errorf("an unknown session: %d %s", resp.StatusCode, body)
	}
	resp, body = h.send(t, "POST", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"vault_status","arguments":{}}}`, "Mcp-Session-Id", sid)
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, `"snapshot":"`+st.Current()+`"`) {
		t.Errorf("tools/call: %d %s", resp.StatusCode, body)
	}
	if _, body = h.send(t, "POST", `{"jsonrpc":"2.0","id":3,"method":`, "Mcp-Session-Id", sid); !strings.Contains(body, "-32700") {
		t.Errorf("malformed JSON: %s", body)
	}
	for _, tc := range []struct {
		name    string
		headers []string
		status  int
	}{
		{"GET without a session", []string{"Accept", "text/event-stream"}, http.StatusBadRequest},
		{"GET of an unknown session", []string{"Accept", "text/event-stream", "Mcp-Session-Id", "nope"}, http.StatusNotFound},
		{"GET that takes no event stream", []string{"Accept", "application/json", "Mcp-Session-Id", sid}, http.StatusNotAcceptable},
		{"DELETE without a session", nil, http.StatusBadRequest},
		{"DELETE of an unknown session", []string{"Mcp-Session-Id", "nope"}, http.StatusNotFound},
	} {
		method, _, _ := strings.Cut(tc.name, " ")
		if resp, body := h.send(t, method, "", tc.headers...); resp.StatusCode != tc.status {
			t.Errorf("%s: %d, want %d: %s", tc.name, resp.StatusCode, tc.status, body)
		}
	}
	if resp, body := h.send(t, "DELETE", "", "Mcp-Session-Id", sid); resp.StatusCode != http.StatusOK {
		t.Fatalf("DELETE: %d %s", resp.StatusCode, body)
	}
	for _, method := range []string{"POST", "DELETE"} {
		if resp, body := h.send(t, method, list, "Mcp-Session-Id", sid); resp.StatusCode != http.StatusNotFound {
			t.Errorf("%s after DELETE: %d %s", method, resp.StatusCode, body)
		}
	}

	// Refused requests count under the route; tool calls per tool.
	h.send(t, "POST", `{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"`+strings.Repeat("x", 70<<10)+`"}}`)
	metrics := h.get(t, h.metrics)
	for _, want := range []string{
		`vaultgraph_http_requests_total{method="POST",route="/mcp",status="401"} 1`,
		`vaultgraph_http_requests_total{method="POST",route="/mcp",status="413"} 1`,
		`vaultgraph_http_requests_total{method="POST",route="/mcp",status="400"} 2`,
		`vaultgraph_http_requests_total{method="POST",route="/mcp",status="404"} 2`,
		`vaultgraph_mcp_tool_calls_total{outcome="ok",tool="vault_status"} 1`,
		`vaultgraph_mcp_tool_calls_total{outcome="error",tool="read_note"} 0`,
		`vaultgraph_mcp_tool_call_duration_seconds_count{tool="vault_status"} 1`,
		`vaultgraph_mcp_sessions 0`,
	} {
		if !strings.Contains(metrics, want) {
			t.Errorf("metrics lack %q:\n%s", want, grep(metrics, "mcp"))
		}
	}
}

// TestHTTPWithoutSession: a client written for the Typed Graph sidecar,
// whose POST /mcp is stateless, sends tools/call without initialize or
// Mcp-Session-Id; it is answered as in a session, with plain JSON, no
// session is handed out or left behind, and what needs a session says so.
func TestHTTPWithoutSession(t *testing.T) {
	st := openStore(t, demoData(t))
	h := startHTTP(t, newServer(t, st, Options{}), serve.Options{})

	// The review's request (review4 F12), as curl sends it.
	resp, body := h.send(t, "POST", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"cypher_query","arguments":{"query":"MATCH (n) RETURN count(n)"}}}`)
	var call struct {
		ID     int `json:"id"`
		Result struct {
			IsError           bool           `json:"isError"`
			StructuredContent map[string]any `json:"structuredContent"`
		} `json:"result"`
	}
	if resp.StatusCode != http.StatusOK || !isJSON(resp.Header.Get("Content-Type")) || json.Unmarshal([]byte(body), &call) != nil ||
		call.ID != 1 || call.Result.IsError || call.Result.StructuredContent["rows"] == nil {
		t.Fatalf("tools/call without a session: %d %s %s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
	if sid := resp.Header.Get("Mcp-Session-Id"); sid != "" {
		t.Errorf("a session-less call was handed session %q", sid)
	}
	for _, tc := range []struct{ body, want string }{
		{`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`, `"name":"cypher_query"`},
		{`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"vault_status","arguments":{}}}`, `"snapshot":"` + st.Current() + `"`},
		{`{"jsonrpc":"2.0","id":4,"method":"resources/read","params":{"uri":"vault://People%2FAlice.md"}}`, `"uri":"vault://People%2FAlice.md"`},
		{`{"jsonrpc":"2.0","id":5,"method":"ping"}`, `"result":{}`},
	} {
		if resp, body := h.send(t, "POST", tc.body, "Accept", "application/json"); resp.StatusCode != http.StatusOK || !strings.Contains(body, tc.want) {
			t.Errorf("%s without a session: %d %s", tc.body, resp.StatusCode, body)
		}
	}
	resp, body = h.send(t, "POST", `{"jsonrpc":"2.0","id":6,"method":"logging/setLevel","params":{"level":"info"}}`)
	if code, msg := rpcErr(t, body); resp.StatusCode != http.StatusBadRequest || code != -32600 || !strings.Contains(msg, "needs a session") {
		t.Errorf("logging/setLevel without a session: %d %s", resp.StatusCode, body)
	}
	// A session still works beside them, and none was left behind.
	sid := h.session(t, "2025-11-25")
	if resp, body := h.send(t, "POST", `{"jsonrpc":"2.0","id":7,"method":"tools/list"}`, "Mcp-Session-Id", sid); resp.StatusCode != http.StatusOK ||
		!strings.Contains(body, "cypher_query") {
		t.Errorf("tools/list in a session: %d %s", resp.StatusCode, body)
	}
	metrics := h.get(t, h.metrics)
	for _, want := range []string{`vaultgraph_mcp_sessions 1`, `vaultgraph_mcp_tool_calls_total{outcome="ok",tool="cypher_query"} 1`} {
		if !strings.Contains(metrics, want) {
			t.Errorf("metrics lack %q:\n%s", want, grep(metrics, "mcp"))
		}
	}
}

func (h httpServer) get(t *testing.T, url string) string {
	t.Helper()
	req, _ := http.NewRequest("GET", url, nil)
	req.Header.Set("Authorization", "Bearer "+httpToken)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

func grep(text, word string) string {
	var out []string
	for _, l := range strings.Split(text, "\n") {
		if strings.Contains(l, word) && !strings.HasPrefix(l, "#") {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// TestHTTPBatches: a JSON-RPC batch is answered message by message for a
// session of protocol version 2025-03-26, and refused for later versions,
// which have no batches.
func TestHTTPBatches(t *testing.T) {
	st := openStore(t, demoData(t))
	h := startHTTP(t, newServer(t, st, Options{}), serve.Options{})
	batch := `[{"jsonrpc":"2.0","id":2,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":99}},` +
		`{"jsonrpc":"2.0","id":"three","method":"tools/call","params":{"name":"vault_status","arguments":{}}},{"jsonrpc":"2.0","id":4,"method":"no/such"}]`

	old := h.session(t, "2025-03-26")
	resp, body := h.send(t, "POST", batch, "Mcp-Session-Id", old)
	var answers []struct {
		ID     any
		Result json.RawMessage
		Error  *struct{ Code int }
	}
	if err := json.Unmarshal([]byte(body), &answers); resp.StatusCode != http.StatusOK || err != nil || len(answers) != 3 {
		t.Fatalf("a 2025-03-26 batch: %d %v %s", resp.StatusCode, err, body)
	}
	if answers[0].ID != 2.0 || answers[1].ID != "three" || !strings.Contains(string(answers[1].Result), st.Current()) ||
		answers[2].ID != 4.0 || answers[2].Error == nil || answers[2].Error.Code != -32601 {
		t.Errorf("batch answers: %s", body)
	}
	if resp, body := h.send(t, "POST", `[{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":1}}]`, "Mcp-Session-Id", old); resp.StatusCode != http.StatusAccepted {
		t.Errorf("a batch of notifications: %d %s", resp.StatusCode, body)
	}
	for name, b := range map[string]string{
		"empty":      `[]`,
		"initialize": "[" + initializeBody("2025-03-26") + "]",
	} {
		resp, body := h.send(t, "POST", b, "Mcp-Session-Id", old)
		if code, _ := rpcErr(t, body); resp.StatusCode != http.StatusBadRequest || code != -32600 {
			t.Errorf("%s batch: %d %s", name, resp.StatusCode, body)
		}
	}

	for _, version := range []string{"2025-06-18", "2025-11-25"} {
		sid := h.session(t, version)
		resp, body := h.send(t, "POST", batch, "Mcp-Session-Id", sid, "MCP-Protocol-Version", version)
		code, msg := rpcErr(t, body)
		if resp.StatusCode != http.StatusBadRequest || code != -32600 || !strings.Contains(msg, "version "+version) || !strings.Contains(msg, "POST of its own") {
			t.Errorf("a %s batch: %d %s", version, resp.StatusCode, body)
		}
	}
}

// TestHTTPEventStream: GET /mcp is the session's event stream; a swap
// that changes the tools and a subscribed note sends tools/list_changed,
// resources/list_changed and resources/updated on it; DELETE ends it.
func TestHTTPEventStream(t *testing.T) {
	vault := t.TempDir()
	if err := copyDir(demoVault, vault); err != nil {
		t.Fatal(err)
	}
	data := t.TempDir()
	if err := index(vault, data, false); err != nil {
		t.Fatal(err)
	}
	st := openStore(t, data)
	s := newServer(t, st, Options{})
	h := startHTTP(t, s, serve.Options{})
	sid := h.session(t, "2025-11-25")
	bob := noteURI("", "People/Bob.md")
	if resp, body := h.send(t, "POST", `{"jsonrpc":"2.0","id":2,"method":"resources/subscribe","params":{"uri":"`+bob+`"}}`, "Mcp-Session-Id", sid); resp.StatusCode != http.StatusOK || strings.Contains(body, "error") {
		t.Fatalf("subscribe: %d %s", resp.StatusCode, body)
	}

	req, _ := http.NewRequest("GET", h.url, nil)
	req.Header.Set("Authorization", "Bearer "+httpToken)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Session-Id", sid)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("GET: %d %v", resp.StatusCode, resp.Header)
	}
	events := make(chan string)
	go func() {
		defer close(events)
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			if data, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				events <- data
			}
		}
	}()
	if !strings.Contains(h.get(t, h.metrics), "vaultgraph_mcp_event_streams 1") {
		t.Error("the open stream is not counted")
	}

	// A snapshot with vectors (vector_search appears) and Bob changed.
	if err := appendFile(filepath.Join(vault, "People/Bob.md"), "\nBob reads the event stream.\n"); err != nil {
		t.Fatal(err)
	}
	if _, err := indexer.Run(t.Context(), indexer.Options{Vault: vault, Data: data,
		Stages: []indexer.Stage{&indexer.EmbedStage{Embedder: embed.NewBuiltin()}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := st.Refresh(t.Context()); err != nil {
		t.Fatal(err)
	}
	s.Sync()
	want := map[string]bool{"notifications/tools/list_changed": false, "notifications/resources/list_changed": false, "notifications/resources/updated": false}
	timeout := time.After(30 * time.Second)
	for missing := 3; missing > 0; {
		select {
		case data, ok := <-events:
			if !ok {
				t.Fatalf("the stream ended before every notification came: %v", want)
			}
			var m struct {
				Method string
				Params struct{ URI string }
			}
			if err := json.Unmarshal([]byte(data), &m); err != nil {
				t.Fatalf("event %s: %v", data, err)
			}
			if seen, ok := want[m.Method]; ok && !seen {
				if m.Method == "notifications/resources/updated" && m.Params.URI != bob {
					t.Errorf("resources/updated for %s, want %s", m.Params.URI, bob)
				}
				want[m.Method] = true
				missing--
			}
		case <-timeout:
			t.Fatalf("notifications seen after the swap: %v", want)
		}
	}

	if resp, body := h.send(t, "DELETE", "", "Mcp-Session-Id", sid); resp.StatusCode != http.StatusOK {
		t.Fatalf("DELETE: %d %s", resp.StatusCode, body)
	}
	for range events {
	}
	if !strings.Contains(h.get(t, h.metrics), "vaultgraph_mcp_event_streams 0") {
		t.Error("the ended stream is still counted")
	}
}

// TestHTTPShutdownEndsStreams: Close ends open event streams, so that the
// HTTP server's shutdown does not wait for them (startHTTP's cleanup
// fails the test when it times out).
func TestHTTPShutdownEndsStreams(t *testing.T) {
	st := openStore(t, demoData(t))
	s := newServer(t, st, Options{})
	h := startHTTP(t, s, serve.Options{})
	sid := h.session(t, "2025-11-25")
	req, _ := http.NewRequest("GET", h.url, nil)
	req.Header.Set("Authorization", "Bearer "+httpToken)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Session-Id", sid)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	s.Close()
	if _, err := io.ReadAll(resp.Body); err != nil {
		t.Errorf("the stream did not end cleanly: %v", err)
	}
	// The server is stopping: its sessions are ended.
	if resp, _ := h.send(t, "GET", "", "Accept", "text/event-stream", "Mcp-Session-Id", sid); resp.StatusCode != http.StatusNotFound {
		t.Errorf("a stream opened after Close: %d", resp.StatusCode)
	}
}
