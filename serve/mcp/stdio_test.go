package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/vaultgraph/vaultgraph/serve/store"
	"github.com/vaultgraph/vaultgraph/snapshot"
	"github.com/vaultgraph/vaultgraph/snapshot/graphdb"
)

// gatedGraph holds every query until gate closes or its context ends; a
// query whose context ended answers as the engine does: canceled.
type gatedGraph struct {
	store.Graph
	gate <-chan struct{}
}

func (g gatedGraph) Run(ctx context.Context, req graphdb.Request) (*graphdb.Result, error) {
	select {
	case <-g.gate:
	case <-ctx.Done():
	}
	return g.Graph.Run(ctx, req)
}

// signalHandler closes seen at the first log record with message msg.
type signalHandler struct {
	slog.Handler
	msg  string
	once *sync.Once
	seen chan struct{}
}

func (h signalHandler) Handle(ctx context.Context, r slog.Record) error {
	if r.Message == h.msg {
		h.once.Do(func() { close(h.seen) })
	}
	return h.Handler.Handle(ctx, r)
}

// gatedServer serves the demo vault with queries held by gate.
func gatedServer(t *testing.T, gate <-chan struct{}) *Server {
	open := store.GraphOpenerWith(graphdb.Options{BufferPoolSize: testGraphMemory, Connections: 2})
	st, err := store.New(demoData(t), store.Options{OpenGraph: func(ctx context.Context, sn *snapshot.Snapshot) (store.Graph, error) {
		g, err := open(ctx, sn)
		if err != nil {
			return nil, err
		}
		return gatedGraph{Graph: g, gate: gate}, nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close(context.Background()) })
	return newServer(t, st, Options{})
}

// TestStdioFinishesWhatItReadAtEndOfInput is a scripted client: it writes
// initialize, initialized and a tool call, and closes stdin at once
// (printf '%s\n' INIT INITIALIZED CALL | vaultgraph serve --stdio). The
// call must be answered, not canceled. The query runs only once the
// server has seen the end of input, so it is surely still running then.
func TestStdioFinishesWhatItReadAtEndOfInput(t *testing.T) {
	var logs bytes.Buffer
	h := signalHandler{Handler: slog.NewTextHandler(&logs, nil), msg: "stdin closed: finishing the requests in flight",
		once: &sync.Once{}, seen: make(chan struct{})}
	s := gatedServer(t, h.seen)

	in := strings.Join([]string{
		// A scripted client writes everything, then closes stdin.
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"script","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"cypher_query","arguments":{"query":"MATCH (n:Person) RETURN count(n)"}}}`,
		// The last line without its newline is still read.
		`{"jsonrpc":"2.0","id":3,"method":"ping"}`,
	}, "\n")
	var out bytes.Buffer
	if err := s.serveStdio(context.Background(), strings.NewReader(in), &out, slog.New(h)); err != nil {
		t.Fatal(err)
	}
	byID := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var msg struct{ ID any }
		if err := json.Unmarshal([]byte(line), &msg); err != nil {
			t.Fatalf("stdout line %q: %v", line, err)
		}
		id, _ := json.Marshal(msg.ID)
		byID[string(id)] = line
	}
	if call := byID["2"]; !strings.Contains(call, `\"rows\":[[8]]`) || strings.Contains(call, `"isError":true`) {
		t.Errorf("the tool call read before the end of input = %q, want its rows\nstdout:\n%s\nlogs:\n%s", call, out.String(), logs.String())
	}
	if byID["1"] == "" || byID["3"] == "" {
		t.Errorf("initialize or ping unanswered:\n%s", out.String())
	}
	if !strings.Contains(logs.String(), "stdin closed: the MCP client is gone") || strings.Contains(logs.String(), "canceled") {
		t.Errorf("logs:\n%s", logs.String())
	}
}

// While it finishes the requests read at end of input, the server still
// stops when told to (SIGTERM ends ctx): the calls are canceled then.
func TestStdioStopsWhileFinishing(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var logs bytes.Buffer
	h := signalHandler{Handler: slog.NewTextHandler(&logs, nil), msg: "stdin closed: finishing the requests in flight",
		once: &sync.Once{}, seen: make(chan struct{})}
	s := gatedServer(t, make(chan struct{})) // queries never pass
	go func() { <-h.seen; cancel() }()
	in := `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"cypher_query","arguments":{"query":"MATCH (n) RETURN n"}}}` + "\n"
	var out lockedBuffer
	if err := s.serveStdio(ctx, strings.NewReader(in), &out, slog.New(h)); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(logs.String(), "shutting down: stdio requests in flight were canceled") {
		t.Errorf("logs:\n%s", logs.String())
	}
}

type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}
