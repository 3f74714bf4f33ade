package embed

import (
	"fmt"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/vaultgraph/vaultgraph/format"
)

// Default models of the remote providers.
const (
	DefaultOllamaModel = "nomic-embed-text"
	DefaultOpenAIModel = "text-embedding-3-small"
)

// DefaultRevisionTTL is Config.RevisionTTL's default.
const DefaultRevisionTTL = time.Minute

// Config holds the settings of the remote providers. The zero value works:
// every field has a default.
type Config struct {
	// OllamaHost is the Ollama server ("127.0.0.1:11434",
	// "http://gpu-box:11434"); OLLAMA_HOST when empty.
	OllamaHost string
	// OpenAIBaseURL is the OpenAI-compatible server; requests go to
	// {base}/v1/embeddings (or {base}/embeddings when base ends in /v1).
	// Default https://api.openai.com.
	OpenAIBaseURL string
	// OpenAIKeyFile names a file holding the API key. Without it the key
	// comes from VAULTGRAPH_OPENAI_KEY or OPENAI_API_KEY. A key is never
	// taken from a flag.
	OpenAIKeyFile string
	// BatchSize is the number of texts per request (default 32).
	BatchSize int
	// Concurrency bounds the requests in flight (default 2).
	Concurrency int
	// Timeout bounds one request (default 2 minutes: a model loading on a
	// cold server takes a while).
	Timeout time.Duration
	// Attempts is the number of tries per request (default 4).
	Attempts int
	// RetryBase is the first backoff (default 500ms); backoff doubles up
	// to 30 times that.
	RetryBase time.Duration
	// RevisionTTL is how long an embedder from ForSnapshot trusts its last
	// lookup of the server's model revision before asking again (default
	// DefaultRevisionTTL), so that a query does not cost a second round
	// trip.
	RevisionTTL time.Duration
	// Getenv reads the environment (os.Getenv when nil).
	Getenv func(string) string
	// Transport carries the requests (http.DefaultTransport when nil).
	Transport http.RoundTripper
}

func (c Config) withDefaults() Config {
	if c.BatchSize <= 0 {
		c.BatchSize = 32
	}
	if c.Concurrency <= 0 {
		c.Concurrency = 2
	}
	if c.Timeout <= 0 {
		c.Timeout = 2 * time.Minute
	}
	if c.Attempts <= 0 {
		c.Attempts = 4
	}
	if c.RetryBase <= 0 {
		c.RetryBase = 500 * time.Millisecond
	}
	if c.RevisionTTL <= 0 {
		c.RevisionTTL = DefaultRevisionTTL
	}
	if c.Getenv == nil {
		c.Getenv = os.Getenv
	}
	return c
}

func (c Config) retry() retryPolicy {
	return retryPolicy{attempts: c.Attempts, base: c.RetryBase, max: 30 * c.RetryBase}
}

func (c Config) httpClient() *http.Client {
	return &http.Client{Timeout: c.Timeout, Transport: c.Transport}
}

// New returns the embedder a spec names: "builtin" (also "", the static
// word vectors plus lexical features, NewStatic), "lexical" (the lexical
// embedder alone, NewBuiltin), "builtin:<model>" with either's model name
// (what manifests record), "ollama[:<model>]" or "openai[:<model>]".
func New(spec string, cfg Config) (Embedder, error) {
	cfg = cfg.withDefaults()
	provider, model, _ := strings.Cut(strings.TrimSpace(spec), ":")
	switch strings.ToLower(provider) {
	case "", "builtin":
		switch model {
		case "", staticAlgorithm:
			return NewStatic()
		case builtinAlgorithm:
			return NewBuiltin(), nil
		}
		return nil, fmt.Errorf("builtin embedder %q: this build has %s (the default) and %s (--embedder lexical)",
			model, staticAlgorithm, builtinAlgorithm)
	case "lexical":
		if model != "" && model != builtinAlgorithm {
			return nil, fmt.Errorf("lexical embedder %q: this build has only %s", model, builtinAlgorithm)
		}
		return NewBuiltin(), nil
	case "ollama":
		if model == "" {
			model = DefaultOllamaModel
		}
		return newOllama(model, cfg)
	case "openai":
		if model == "" {
			model = DefaultOpenAIModel
		}
		return newOpenAI(model, cfg)
	}
	return nil, fmt.Errorf("unknown embedder %q: use builtin, lexical, ollama:<model> or openai:<model>", spec)
}

// ForSnapshot returns the embedder that computed a snapshot's vectors, for
// embedding queries against them. It fails with ErrModelMismatch when this
// build's version of that embedder would compute different vectors (the
// builtin algorithm changed, or the model's prefixes did).
//
// When the snapshot records the model's revision (Ollama's digest), the
// embedder is bound to it: before embedding it checks the server's
// revision (asking at most once per cfg.RevisionTTL) and refuses, wrapping
// ErrModelMismatch, once the server has other weights under the name. It
// does not ask the server here: a server that is down now may be up for
// the first query.
func ForSnapshot(recorded *format.Embedder, cfg Config) (Embedder, error) {
	if recorded == nil {
		return nil, fmt.Errorf("snapshot has no vectors: index it with this version of vaultgraph first")
	}
	e, err := New(recorded.Spec(), cfg)
	if err != nil {
		return nil, err
	}
	if err := Check(recorded, e.Info()); err != nil {
		return nil, fmt.Errorf("%w; re-embed the vault with vaultgraph index --reembed", err)
	}
	if o, ok := e.(*Ollama); ok && recorded.Revision != "" {
		o.pinned = recorded
	}
	return e, nil
}
