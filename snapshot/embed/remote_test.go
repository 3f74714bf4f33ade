package embed_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/vaultgraph/vaultgraph/snapshot/embed"
	"github.com/vaultgraph/vaultgraph/snapshot/embed/embedtest"
)

// fastRetries keeps retry tests quick: 3 tries, millisecond backoff.
func fastRetries(cfg embed.Config) embed.Config {
	cfg.Attempts = 3
	cfg.RetryBase = time.Millisecond
	if cfg.Timeout == 0 {
		cfg.Timeout = 5 * time.Second
	}
	cfg.Getenv = func(string) string { return "" }
	return cfg
}

func TestOllamaSpeaksTheWireFormat(t *testing.T) {
	srv := embedtest.NewOllama(t)
	e, err := embed.New("ollama", fastRetries(embed.Config{OllamaHost: srv.URL()}))
	if err != nil {
		t.Fatal(err)
	}
	info := e.Info()
	if info.Model != "nomic-embed-text:latest" || info.Dimensions != 0 || info.Kind != "semantic" {
		t.Errorf("info before a call = %+v", info)
	}
	ctx := context.Background()
	docs, err := e.Embed(ctx, embed.Document, []string{"Acme funds Search", "Bob likes climbing"})
	if err != nil {
		t.Fatal(err)
	}
	q, err := e.Embed(ctx, embed.Query, []string{"who funds search"})
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) != 2 || len(q) != 1 || e.Info().Dimensions != len(docs[0]) {
		t.Fatalf("got %d+%d vectors, info %+v", len(docs), len(q), e.Info())
	}
	want := []string{"search_document: Acme funds Search", "search_document: Bob likes climbing", "search_query: who funds search"}
	if got := srv.Texts(); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("server received %q, want %q", got, want)
	}
	if dot(q[0], docs[0]) <= dot(q[0], docs[1]) {
		t.Error("query is not closer to the matching document")
	}
	// The same model spelled with its tag is the same embedder.
	e2, err := embed.New("ollama:nomic-embed-text:latest", fastRetries(embed.Config{OllamaHost: srv.URL()}))
	if err != nil || e2.Info().Fingerprint != info.Fingerprint {
		t.Errorf("ollama:nomic-embed-text:latest fingerprints differently: %v", err)
	}
}

func TestOllamaHostFromEnvironment(t *testing.T) {
	srv := embedtest.NewOllama(t, "all-minilm:latest")
	cfg := fastRetries(embed.Config{})
	host := strings.TrimPrefix(srv.URL(), "http://")
	cfg.Getenv = func(k string) string {
		if k == "OLLAMA_HOST" {
			return host
		}
		return ""
	}
	e, err := embed.New("ollama:all-minilm", cfg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.Embed(context.Background(), embed.Document, []string{"plain"}); err != nil {
		t.Fatal(err)
	}
	// all-minilm takes no prefixes.
	if got := srv.Texts(); len(got) != 1 || got[0] != "plain" {
		t.Errorf("texts = %q", got)
	}
}

func TestOllamaMissingModelIsNotRetried(t *testing.T) {
	srv := embedtest.NewOllama(t)
	e, err := embed.New("ollama:mxbai-embed-large", fastRetries(embed.Config{OllamaHost: srv.URL()}))
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.Embed(context.Background(), embed.Document, []string{"x"})
	if err == nil || !strings.Contains(err.Error(), "ollama pull mxbai-embed-large:latest") {
		t.Fatalf("err = %v, want a hint to pull the model", err)
	}
	if srv.Hits() != 1 {
		t.Errorf("a missing model was requested %d times, want 1", srv.Hits())
	}
}

// remote builds a fake server and an embedder for it.
type remote struct {
	name   string
	server interface {
		URL() string
		Fail(embedtest.Failure, int)
		Hits() int
		Requests() int
	}
	embedder embed.Embedder
}

func remotes(t *testing.T, cfg embed.Config) []remote {
	t.Helper()
	o := embedtest.NewOllama(t)
	cfgO := cfg
	cfgO.OllamaHost = o.URL()
	eo, err := embed.New("ollama", fastRetries(cfgO))
	if err != nil {
		t.Fatal(err)
	}
	a := embedtest.NewOpenAI(t, "sk-test")
	cfgA := fastRetries(cfg)
	cfgA.OpenAIBaseURL = a.URL()
	cfgA.Getenv = func(k string) string {
		if k == "OPENAI_API_KEY" {
			return "sk-test"
		}
		return ""
	}
	ea, err := embed.New("openai:text-embedding-3-small", cfgA)
	if err != nil {
		t.Fatal(err)
	}
	return []remote{{"ollama", o, eo}, {"openai", a, ea}}
}

func TestRetries(t *testing.T) {
	tests := []struct {
		name     string
		failure  embedtest.Failure
		failures int // then success; -1: never
		wantErr  bool
		hits     int
	}{
		{"500 then ok", embedtest.Status500, 2, false, 3},
		{"429 then ok", embedtest.Status429, 1, false, 2},
		{"dropped connection then ok", embedtest.Drop, 1, false, 2},
		{"timeout then ok", embedtest.Hang, 1, false, 2},
		{"500 forever", embedtest.Status500, -1, true, 3},
		{"down forever", embedtest.Drop, -1, true, 3},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, r := range remotes(t, embed.Config{Timeout: 300 * time.Millisecond}) {
				r.server.Fail(tc.failure, tc.failures)
				vecs, err := r.embedder.Embed(context.Background(), embed.Document, []string{"a", "b"})
				if (err != nil) != tc.wantErr {
					t.Errorf("%s: err = %v, want error %v", r.name, err, tc.wantErr)
				}
				if !tc.wantErr && len(vecs) != 2 {
					t.Errorf("%s: %d vectors", r.name, len(vecs))
				}
				if r.server.Hits() != tc.hits {
					t.Errorf("%s: %d requests, want %d", r.name, r.server.Hits(), tc.hits)
				}
			}
		})
	}
}

func TestOpenAISpeaksTheWireFormat(t *testing.T) {
	srv := embedtest.NewOpenAI(t, "sk-file")
	keyFile := filepath.Join(t.TempDir(), "key")
	os.WriteFile(keyFile, []byte("sk-file\n"), 0o600)
	// A base URL ending in /v1 (as OPENAI_BASE_URL usually does) works too.
	for _, base := range []string{srv.URL(), srv.URL() + "/v1/"} {
		e, err := embed.New("openai:nomic-embed-text-v1.5", fastRetries(embed.Config{OpenAIBaseURL: base, OpenAIKeyFile: keyFile}))
		if err != nil {
			t.Fatal(err)
		}
		texts := []string{"one", "two", "three"}
		vecs, err := e.Embed(context.Background(), embed.Document, texts)
		if err != nil {
			t.Fatal(err)
		}
		// The server answers in reverse order; the client must use index.
		for i, text := range texts {
			want := embedOne(t, embed.NewBuiltin(), embed.Document, "search_document: "+text)
			if dot(vecs[i], want) < 0.999 {
				t.Errorf("base %s: vector %d is not the vector of %q", base, i, text)
			}
		}
	}
}

func TestOpenAIKeyNeverLeaks(t *testing.T) {
	const key = "sk-secret-123"
	// A hostile server echoes the Authorization header in its error.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprintf(w, `{"error":{"message":"bad header %s"}}`, r.Header.Get("Authorization"))
	}))
	defer srv.Close()
	cfg := fastRetries(embed.Config{OpenAIBaseURL: srv.URL})
	cfg.Getenv = func(k string) string {
		if k == "VAULTGRAPH_OPENAI_KEY" {
			return key
		}
		return ""
	}
	e, err := embed.New("openai", cfg)
	if err != nil {
		t.Fatal(err)
	}
	_, err = e.Embed(context.Background(), embed.Document, []string{"x"})
	if err == nil {
		t.Fatal("no error")
	}
	for _, s := range []string{err.Error(), fmt.Sprintf("%+v", e), fmt.Sprintf("%#v", e)} {
		if strings.Contains(s, key) {
			t.Errorf("key leaked: %s", s)
		}
	}
}

func TestOpenAIRefusesMissingKey(t *testing.T) {
	_, err := embed.New("openai", fastRetries(embed.Config{}))
	if err == nil || !strings.Contains(err.Error(), "OPENAI_API_KEY") {
		t.Fatalf("err = %v, want a hint naming the environment variable", err)
	}
	// A local OpenAI-compatible server needs no key.
	if _, err := embed.New("openai", fastRetries(embed.Config{OpenAIBaseURL: "http://127.0.0.1:8080"})); err != nil {
		t.Errorf("local server without key: %v", err)
	}
	if _, err := embed.New("openai", fastRetries(embed.Config{OpenAIKeyFile: filepath.Join(t.TempDir(), "missing")})); err == nil {
		t.Error("missing key file accepted")
	}
}

func TestEmbedDocumentsBatchesAndStopsOnFailure(t *testing.T) {
	srv := embedtest.NewOllama(t)
	cfg := fastRetries(embed.Config{OllamaHost: srv.URL(), BatchSize: 3, Concurrency: 2})
	e, err := embed.New("ollama", cfg)
	if err != nil {
		t.Fatal(err)
	}
	texts := make([]string, 10)
	for i := range texts {
		texts[i] = fmt.Sprint("text ", i)
	}
	var seen []int
	vecs, err := embed.EmbedDocuments(context.Background(), e, texts, func(done int) { seen = append(seen, done) })
	if err != nil {
		t.Fatal(err)
	}
	if srv.Requests() != 4 || len(seen) != 4 || seen[3] != 10 {
		t.Errorf("requests %d, progress %v; want 4 batches ending at 10", srv.Requests(), seen)
	}
	for i, v := range vecs {
		want := embedOne(t, embed.NewBuiltin(), embed.Document, "search_document: "+texts[i])
		if dot(v, want) < 0.999 {
			t.Errorf("vector %d is out of order", i)
		}
	}

	// A server that fails every request: one batch's retries per worker,
	// then it gives up and says why.
	srv.Fail(embedtest.Status500, -1)
	before := srv.Hits()
	vecs, err = embed.EmbedDocuments(context.Background(), e, texts, nil)
	if err == nil || !strings.Contains(err.Error(), "500") {
		t.Fatalf("err = %v", err)
	}
	for i, v := range vecs {
		if v != nil {
			t.Errorf("text %d has a vector from a failing server", i)
		}
	}
	if hits := srv.Hits() - before; hits > cfg.Attempts*cfg.Concurrency {
		t.Errorf("%d requests to a failing server, want at most %d", hits, cfg.Attempts*cfg.Concurrency)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := embed.EmbedDocuments(ctx, e, texts, nil); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: err = %v", err)
	}
}

func TestSpecs(t *testing.T) {
	cfg := fastRetries(embed.Config{OpenAIBaseURL: "http://localhost:1"})
	tests := []struct {
		spec, provider, model string
		err                   bool
	}{
		{"", "builtin", embed.StaticModel, false},
		{"builtin", "builtin", embed.StaticModel, false},
		{"builtin:" + embed.StaticModel, "builtin", embed.StaticModel, false},
		{"lexical", "builtin", "hashed-ngrams-v1", false},
		// What manifests of the lexical embedder record.
		{"builtin:hashed-ngrams-v1", "builtin", "hashed-ngrams-v1", false},
		{"lexical:other", "", "", true},
		{"ollama", "ollama", "nomic-embed-text:latest", false},
		{"ollama:bge-m3", "ollama", "bge-m3:latest", false},
		{"ollama:library/qwen3-embedding:0.6b", "ollama", "library/qwen3-embedding:0.6b", false},
		{"openai", "openai", "text-embedding-3-small", false},
		{"openai:text-embedding-3-large", "openai", "text-embedding-3-large", false},
		{"builtin:other", "", "", true},
		{"cohere:embed", "", "", true},
	}
	for _, tc := range tests {
		e, err := embed.New(tc.spec, cfg)
		if (err != nil) != tc.err {
			t.Errorf("New(%q) err = %v", tc.spec, err)
			continue
		}
		if err == nil && (e.Info().Provider != tc.provider || e.Info().Model != tc.model) {
			t.Errorf("New(%q) = %s %s", tc.spec, e.Info().Provider, e.Info().Model)
		}
	}
}

func TestCheckRefusesOtherModels(t *testing.T) {
	b := embed.NewBuiltin().Info()
	if err := embed.Check(b.Manifest(384), b); err != nil {
		t.Errorf("same model refused: %v", err)
	}
	if err := embed.Check(nil, b); err != nil {
		t.Errorf("nothing recorded refused: %v", err)
	}
	o, _ := embed.New("ollama", embed.Config{})
	if err := embed.Check(b.Manifest(384), o.Info()); !errors.Is(err, embed.ErrModelMismatch) {
		t.Errorf("err = %v, want ErrModelMismatch", err)
	}
	other := embed.NewBuiltinDims(512).Info()
	if err := embed.Check(b.Manifest(384), other); !errors.Is(err, embed.ErrModelMismatch) || !strings.Contains(err.Error(), "same name") {
		t.Errorf("err = %v, want ErrModelMismatch explaining the same name", err)
	}
	if _, err := embed.ForSnapshot(other.Manifest(512), embed.Config{}); !errors.Is(err, embed.ErrModelMismatch) {
		t.Errorf("ForSnapshot of another builtin: err = %v", err)
	}
}

// countingTransport counts the requests it carries over the default
// transport.
type countingTransport struct{ n atomic.Int32 }

func (c *countingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	c.n.Add(1)
	return http.DefaultTransport.RoundTrip(r)
}

// TestRefusedQueryIsNotRetried: with nothing listening at the model
// server's address, a query (a reader waits, and search answers from BM25
// without it) fails at the first refused connection, while embedding
// documents for an index run keeps its tries.
func TestRefusedQueryIsNotRetried(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + ln.Addr().String()
	ln.Close() // nothing listens there now
	for _, spec := range []string{"ollama:nomic-embed-text", "openai:text-embedding-3-small"} {
		var tr countingTransport
		cfg := fastRetries(embed.Config{OllamaHost: url, OpenAIBaseURL: url, Transport: &tr})
		cfg.Getenv = func(k string) string {
			if k == "OPENAI_API_KEY" {
				return "sk-test"
			}
			return ""
		}
		e, err := embed.New(spec, cfg)
		if err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			task embed.Task
			want int32
		}{{embed.Query, 1}, {embed.Document, 3}} {
			tr.n.Store(0)
			_, err := e.Embed(context.Background(), tc.task, []string{"a"})
			if err == nil || !errors.Is(err, syscall.ECONNREFUSED) {
				t.Errorf("%s task %d: err = %v, want a refused connection", spec, tc.task, err)
			}
			if got := tr.n.Load(); got != tc.want {
				t.Errorf("%s task %d: %d requests, want %d", spec, tc.task, got, tc.want)
			}
		}
	}
}
