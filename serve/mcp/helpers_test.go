package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/vaultgraph/vaultgraph/indexer"
	"github.com/vaultgraph/vaultgraph/serve/store"
	"github.com/vaultgraph/vaultgraph/snapshot/embed"
	"github.com/vaultgraph/vaultgraph/snapshot/graphdb"
)

// testGraphMemory keeps the graph databases small: tests open several.
const testGraphMemory = 64 << 20

var demoVault = filepath.Join("..", "..", "testdata", "demo-vault")

var (
	demoOnce sync.Once
	demoDir  string
	demoErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if demoDir != "" {
		os.RemoveAll(demoDir)
	}
	os.Exit(code)
}

// demoData returns a data directory with one snapshot of the demo vault,
// with vectors, BM25 and the graph database, shared by tests that only
// read it.
func demoData(t *testing.T) string {
	t.Helper()
	demoOnce.Do(func() {
		demoDir, demoErr = os.MkdirTemp("", "vaultgraph-mcp-test-")
		if demoErr == nil {
			demoErr = index(demoVault, demoDir, true)
		}
	})
	if demoErr != nil {
		t.Fatal(demoErr)
	}
	return demoDir
}

// index publishes a snapshot of vault into data: with every stage, or
// with none (notes, links and chunks only: no vectors, no graph database).
func index(vault, data string, full bool) error {
	opts := indexer.Options{Vault: vault, Data: data}
	if full {
		opts.Stages = []indexer.Stage{
			&indexer.EmbedStage{Embedder: embed.NewBuiltin()},
			indexer.BM25Stage{},
			indexer.GraphStage{BufferPoolSize: testGraphMemory},
		}
	}
	_, err := indexer.Run(context.Background(), opts)
	return err
}

// openStore opens data's newest snapshot.
func openStore(t *testing.T, data string) *store.Store {
	t.Helper()
	st, err := store.New(data, store.Options{GraphDB: graphdb.Options{BufferPoolSize: testGraphMemory, Connections: 2}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Refresh(context.Background()); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := st.Close(context.Background()); err != nil {
			t.Error(err)
		}
	})
	return st
}

// newServer is an MCP server over st that checks every result against its
// tool's output schema.
func newServer(t *testing.T, st *store.Store, opts Options) *Server {
	t.Helper()
	opts.validateOutput = true
	s, err := New(st, opts)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// connect returns an initialised in-process client of s; notes receives
// the notifications it gets.
func connect(t *testing.T, s *Server) (*client.Client, *notifications) {
	t.Helper()
	c, err := client.NewInProcessClient(s.MCP())
	if err != nil {
		t.Fatal(err)
	}
	n := &notifications{}
	c.OnNotification(n.add)
	ctx := context.Background()
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "vaultgraph-test", Version: "1"}
	if _, err := c.Initialize(ctx, init); err != nil {
		t.Fatal(err)
	}
	return c, n
}

type notifications struct {
	mu      sync.Mutex
	methods []string
}

func (n *notifications) add(m mcp.JSONRPCNotification) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.methods = append(n.methods, m.Method)
}

func (n *notifications) reset() {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.methods = nil
}

func (n *notifications) has(method string) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, m := range n.methods {
		if m == method {
			return true
		}
	}
	return false
}

// call calls a tool and fails the test on a protocol error.
func call(t *testing.T, c *client.Client, name string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	req := mcp.CallToolRequest{}
	req.Params.Name = name
	req.Params.Arguments = args
	res, err := c.CallTool(context.Background(), req)
	if err != nil {
		t.Fatalf("%s %v: %v", name, args, err)
	}
	return res
}

// callHandler calls a tool's handler directly, as the server would even
// when the tool is not listed (a call that raced a swap).
func callHandler(t *testing.T, s *Server, name string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	for _, tl := range s.tools {
		if tl.def.Name == name {
			req := mcp.CallToolRequest{}
			req.Params.Name = name
			req.Params.Arguments = args
			res, err := s.handler(tl)(t.Context(), req)
			if err != nil {
				t.Fatal(err)
			}
			return res
		}
	}
	t.Fatalf("no tool %s", name)
	return nil
}

// callOK calls a tool, fails the test on a tool error, and decodes its
// structured content into out.
func callOK(t *testing.T, c *client.Client, name string, args map[string]any, out any) string {
	t.Helper()
	res := call(t, c, name, args)
	text := resultText(res)
	if res.IsError {
		t.Fatalf("%s %v: tool error: %s", name, args, text)
	}
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, out); err != nil {
		t.Fatalf("%s: structured content: %v\n%s", name, err, b)
	}
	return text
}

// callErr calls a tool and returns its tool error's text, failing the test
// when the call succeeds.
func callErr(t *testing.T, c *client.Client, name string, args map[string]any) string {
	t.Helper()
	res := call(t, c, name, args)
	if !res.IsError {
		t.Fatalf("%s %v: succeeded, want a tool error:\n%s", name, args, resultText(res))
	}
	return resultText(res)
}

func resultText(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

func toolNamesOf(t *testing.T, c *client.Client) []string {
	t.Helper()
	res, err := c.ListTools(context.Background(), mcp.ListToolsRequest{})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
	}
	return names
}

// copyDir copies the vault at src to dst.
func copyDir(src, dst string) error {
	return os.CopyFS(dst, os.DirFS(src))
}

func appendFile(p, text string) error {
	f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	_, err = f.WriteString(text)
	return errors.Join(err, f.Close())
}

// instructionsOf initialises a new client of s and returns the
// instructions the server sent it.
func instructionsOf(t *testing.T, s *Server) string {
	t.Helper()
	c, err := client.NewInProcessClient(s.MCP())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if err := c.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	init := mcp.InitializeRequest{}
	init.Params.ProtocolVersion = mcp.LATEST_PROTOCOL_VERSION
	init.Params.ClientInfo = mcp.Implementation{Name: "vaultgraph-test", Version: "1"}
	res, err := c.Initialize(context.Background(), init)
	if err != nil {
		t.Fatal(err)
	}
	return res.Instructions
}
