package serve_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/vaultgraph/vaultgraph/indexer"
	"github.com/vaultgraph/vaultgraph/serve"
	"github.com/vaultgraph/vaultgraph/serve/store"
	"github.com/vaultgraph/vaultgraph/snapshot"
	"github.com/vaultgraph/vaultgraph/snapshot/embed"
	"github.com/vaultgraph/vaultgraph/snapshot/graphdb"
)

// testGraphMemory keeps the graph databases small: tests open several.
const testGraphMemory = 64 << 20

var (
	demoOnce sync.Once
	demoDir  string // data directory with the demo vault indexed once
	demoRes  *indexer.Result
	demoErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if demoDir != "" {
		os.RemoveAll(demoDir)
	}
	os.Exit(code)
}

// demoData returns a data directory holding one snapshot of the demo
// vault with vectors and a graph, shared by the tests that only read it.
func demoData(t *testing.T) (string, *indexer.Result) {
	t.Helper()
	demoOnce.Do(func() {
		demoDir, demoErr = os.MkdirTemp("", "vaultgraph-serve-test-")
		if demoErr == nil {
			demoRes, demoErr = index(filepath.Join("..", "testdata", "demo-vault"), demoDir)
		}
	})
	if demoErr != nil {
		t.Fatal(demoErr)
	}
	return demoDir, demoRes
}

// index runs the indexer with the stages vaultgraph index runs.
func index(vault, data string) (*indexer.Result, error) {
	return indexer.Run(context.Background(), indexer.Options{
		Vault: vault, Data: data,
		Stages: []indexer.Stage{
			&indexer.EmbedStage{Embedder: embed.NewBuiltin()},
			indexer.BM25Stage{},
			indexer.GraphStage{BufferPoolSize: testGraphMemory},
		},
	})
}

// copyDemoVault copies the demo vault for tests that change it.
func copyDemoVault(t *testing.T) string {
	t.Helper()
	src := filepath.Join("..", "testdata", "demo-vault")
	dst := t.TempDir()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	return dst
}

// syncBuffer collects logs written from the server's goroutines.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

type testServer struct {
	t      *testing.T
	url    string
	host   string
	st     *store.Store
	srv    *serve.Server
	client *http.Client
	logs   *syncBuffer
	token  string
}

type serverConfig struct {
	opts  serve.Options
	store store.Options
	// noRefresh starts the server without opening a snapshot first.
	noRefresh bool
}

// startServer serves data on a real listener on 127.0.0.1.
func startServer(t *testing.T, data string, cfg serverConfig) *testServer {
	t.Helper()
	if cfg.store.GraphDB.BufferPoolSize == 0 {
		cfg.store.GraphDB.BufferPoolSize = testGraphMemory
	}
	logs := &syncBuffer{}
	log := slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	cfg.store.Log = log
	cfg.opts.Log = log
	st, err := store.New(data, cfg.store)
	if err != nil {
		t.Fatal(err)
	}
	if !cfg.noRefresh {
		if _, err := st.Refresh(context.Background()); err != nil {
			t.Fatal(err)
		}
	}
	srv, err := serve.New(st, cfg.opts)
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	ts := &testServer{t: t, url: "http://" + ln.Addr().String(), host: ln.Addr().String(), st: st, srv: srv,
		client: &http.Client{Timeout: 60 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 16}},
		logs:   logs, token: cfg.opts.Token}
	t.Cleanup(func() {
		ts.client.CloseIdleConnections()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := srv.Shutdown(ctx); err != nil {
			t.Errorf("Shutdown: %v", err)
		}
		if err := <-served; err != nil {
			t.Errorf("Serve: %v", err)
		}
		if err := st.Close(ctx); err != nil {
			t.Errorf("store Close: %v", err)
		}
	})
	return ts
}

type response struct {
	status int
	header http.Header
	body   []byte
}

// request is one test request; raw sends path as the request target
// exactly, without the client cleaning it. A POST is sent with
// Content-Type: application/json unless header sets another, or sets it
// to "" to send none.
type request struct {
	method, path, body string
	header             map[string]string
	raw                bool
	noToken            bool
}

func (ts *testServer) send(r request) *response {
	ts.t.Helper()
	res, err := ts.try(r)
	if err != nil {
		ts.t.Fatalf("%s %s: %v", r.method, r.path, err)
	}
	return res
}

func (ts *testServer) try(r request) (*response, error) {
	if r.method == "" {
		r.method = http.MethodGet
	}
	var body io.Reader
	if r.body != "" {
		body = strings.NewReader(r.body)
	}
	target := ts.url + r.path
	if r.raw {
		target = ts.url + "/"
	}
	req, err := http.NewRequest(r.method, target, body)
	if err != nil {
		return nil, err
	}
	if r.raw {
		req.URL = &url.URL{Scheme: "http", Host: ts.host, Opaque: r.path}
	}
	if ts.token != "" && !r.noToken {
		req.Header.Set("Authorization", "Bearer "+ts.token)
	}
	if r.method == http.MethodPost {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range r.header {
		switch {
		case strings.EqualFold(k, "Host"):
			req.Host = v
		case v == "":
			req.Header.Del(k)
		default:
			req.Header.Set(k, v)
		}
	}
	resp, err := ts.client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	return &response{status: resp.StatusCode, header: resp.Header, body: b}, nil
}

func (ts *testServer) get(path string) *response {
	ts.t.Helper()
	return ts.send(request{path: path})
}

func (ts *testServer) post(path, body string) *response {
	ts.t.Helper()
	return ts.send(request{method: http.MethodPost, path: path, body: body})
}

// object decodes a JSON object response.
func (r *response) object(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.body, &m); err != nil {
		t.Fatalf("response is not a JSON object: %v\n%s", err, r.body)
	}
	return m
}

// errorKind returns the kind of an error response, "" for other bodies.
func (r *response) errorKind() string {
	var e struct {
		Error struct{ Kind string } `json:"error"`
	}
	_ = json.Unmarshal(r.body, &e)
	return e.Error.Kind
}

// errorMessage returns the message of an error response, "" for other
// bodies.
func (r *response) errorMessage() string {
	var e struct {
		Error struct{ Message string } `json:"error"`
	}
	_ = json.Unmarshal(r.body, &e)
	return e.Error.Message
}

// fakeGraph stands in for the graph database where a test needs control
// over how a query runs.
type fakeGraph struct {
	run func(ctx context.Context, req graphdb.Request) (*graphdb.Result, error)
}

func (f fakeGraph) Run(ctx context.Context, req graphdb.Request) (*graphdb.Result, error) {
	return f.run(ctx, req)
}

func (fakeGraph) Close() error { return nil }

func withFakeGraph(run func(ctx context.Context, req graphdb.Request) (*graphdb.Result, error)) store.GraphOpener {
	return func(context.Context, *snapshot.Snapshot) (store.Graph, error) { return fakeGraph{run}, nil }
}

// eventually fails the test when cond does not hold within a generous
// cutoff; it checks liveness, it is not a timing assertion.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting: %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func listenLoopback() (net.Listener, error) { return net.Listen("tcp", "127.0.0.1:0") }

// listenAny binds every interface, which Serve must refuse without a token.
func listenAny() (net.Listener, error) { return net.Listen("tcp", "0.0.0.0:0") }

// indexerRunTablesOnly indexes without the embedding and graph stages.
func indexerRunTablesOnly(vault, data string) (*indexer.Result, error) {
	return indexer.Run(context.Background(), indexer.Options{Vault: vault, Data: data})
}

func grepLines(b []byte, sub string) string {
	var out []string
	for _, l := range strings.Split(string(b), "\n") {
		if strings.Contains(l, sub) {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}
