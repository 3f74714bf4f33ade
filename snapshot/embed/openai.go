package embed

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/vaultgraph/vaultgraph/format"
)

// DefaultOpenAIBaseURL is where openai:<model> sends requests unless told
// otherwise.
const DefaultOpenAIBaseURL = "https://api.openai.com"

// OpenAI embeds through an OpenAI-compatible POST /v1/embeddings endpoint
// (OpenAI, Azure-style proxies, vLLM, llama.cpp, LM Studio, Ollama's own
// /v1 endpoint).
type OpenAI struct {
	http        *http.Client
	endpoint    string
	key         apiKey
	model       string
	prefixes    prefixes
	batch, conc int
	retry       retryPolicy
	fp          string
	dims        atomic.Int64
}

// apiKey never prints itself, so it cannot leak into an error or a log.
type apiKey string

func (apiKey) String() string   { return "[redacted]" }
func (apiKey) GoString() string { return "[redacted]" }

// String and GoString describe the embedder without its key: fmt does not
// call the key's own String when printing the struct's fields.
func (o *OpenAI) String() string   { return "openai:" + o.model + " at " + o.endpoint }
func (o *OpenAI) GoString() string { return o.String() }

func newOpenAI(model string, cfg Config) (*OpenAI, error) {
	base := strings.TrimRight(strings.TrimSpace(cfg.OpenAIBaseURL), "/")
	if base == "" {
		base = DefaultOpenAIBaseURL
	}
	u, err := url.Parse(base)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return nil, fmt.Errorf("openai base URL %q: want http(s)://host[:port][/path]", base)
	}
	endpoint := base + "/v1/embeddings"
	if strings.HasSuffix(base, "/v1") {
		endpoint = base + "/embeddings"
	}
	key, err := openAIKey(cfg)
	if err != nil {
		return nil, err
	}
	if key == "" && u.Host == "api.openai.com" {
		return nil, errors.New("openai embedder needs an API key: set VAULTGRAPH_OPENAI_KEY or OPENAI_API_KEY, " +
			"or put it in a file and pass --openai-key-file")
	}
	p := prefixesFor(model)
	return &OpenAI{
		http: cfg.httpClient(), endpoint: endpoint, key: key, model: model, prefixes: p,
		batch: cfg.BatchSize, conc: cfg.Concurrency, retry: cfg.retry(),
		fp: fingerprint("openai", model, p.document, p.query),
	}, nil
}

// openAIKey reads the key from the key file, else the environment.
func openAIKey(cfg Config) (apiKey, error) {
	file := cfg.OpenAIKeyFile
	if file == "" {
		file = cfg.Getenv("VAULTGRAPH_OPENAI_KEY_FILE")
	}
	if file != "" {
		b, err := os.ReadFile(file)
		if err != nil {
			return "", fmt.Errorf("read OpenAI key file: %w", err)
		}
		k := strings.TrimSpace(string(b))
		if k == "" {
			return "", fmt.Errorf("OpenAI key file %s is empty", file)
		}
		return apiKey(k), nil
	}
	for _, name := range []string{"VAULTGRAPH_OPENAI_KEY", "OPENAI_API_KEY"} {
		if k := strings.TrimSpace(cfg.Getenv(name)); k != "" {
			return apiKey(k), nil
		}
	}
	return "", nil
}

// Info describes the model; Dimensions is known after the first call.
func (o *OpenAI) Info() Info {
	return Info{Provider: "openai", Model: o.model, Dimensions: int(o.dims.Load()), Kind: format.EmbedderSemantic,
		Note: "semantic: vectors from the OpenAI-compatible model " + o.model, Fingerprint: o.fp}
}

// Batch returns the configured batch size and concurrency.
func (o *OpenAI) Batch() (size, concurrency int) { return o.batch, o.conc }

type openAIRequest struct {
	Model          string   `json:"model"`
	Input          []string `json:"input"`
	EncodingFormat string   `json:"encoding_format"`
}

type openAIResponse struct {
	Data []struct {
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	} `json:"data"`
}

type openAIError struct {
	Error struct {
		Message string `json:"message"`
		Type    string `json:"type"`
	} `json:"error"`
}

// Embed sends one request (retried on failures that may pass) and returns
// the vectors in input order.
func (o *OpenAI) Embed(ctx context.Context, task Task, texts []string) ([][]float32, error) {
	if len(texts) == 0 {
		return nil, nil
	}
	body, err := json.Marshal(openAIRequest{Model: o.model, Input: o.prefixes.apply(task, texts), EncodingFormat: "float"})
	if err != nil {
		return nil, fmt.Errorf("openai: encode request: %w", err)
	}
	var resp openAIResponse
	err = o.retry.forTask(task).do(ctx, func(ctx context.Context) error { return o.post(ctx, body, &resp) })
	if err != nil {
		return nil, fmt.Errorf("openai %s at %s: %w", o.model, o.endpoint, err)
	}
	vecs := make([][]float32, len(texts))
	for _, d := range resp.Data {
		if d.Index < 0 || d.Index >= len(texts) || vecs[d.Index] != nil {
			return nil, fmt.Errorf("openai %s at %s: response has a bad or repeated index %d", o.model, o.endpoint, d.Index)
		}
		vecs[d.Index] = d.Embedding
	}
	for i, v := range vecs {
		if v == nil {
			return nil, fmt.Errorf("openai %s at %s: response lacks the vector of text %d", o.model, o.endpoint, i)
		}
	}
	if vecs, err = checkVectors(vecs, len(texts), &o.dims); err != nil {
		return nil, fmt.Errorf("openai %s at %s: %w", o.model, o.endpoint, err)
	}
	return vecs, nil
}

// post sends one request and decodes the answer, classifying failures.
func (o *OpenAI) post(ctx context.Context, body []byte, out *openAIResponse) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, o.endpoint, bytes.NewReader(body))
	if err != nil {
		return permanent(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if o.key != "" {
		req.Header.Set("Authorization", "Bearer "+string(o.key))
	}
	resp, err := o.http.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 256<<20))
	if err != nil {
		return err
	}
	if resp.StatusCode/100 != 2 {
		return statusError(resp, data, o.key)
	}
	*out = openAIResponse{}
	if err := json.Unmarshal(data, out); err != nil {
		return fmt.Errorf("decode response: %w", err)
	}
	return nil
}

// statusError turns a non-2xx answer into an error carrying the server's
// message, with the key scrubbed should a server echo it.
func statusError(resp *http.Response, body []byte, key apiKey) error {
	msg := strings.TrimSpace(string(body))
	var e openAIError
	if json.Unmarshal(body, &e) == nil && e.Error.Message != "" {
		msg = e.Error.Message
	}
	if key != "" {
		msg = strings.ReplaceAll(msg, string(key), "[redacted]")
	}
	if len(msg) > 300 {
		msg = msg[:300] + "..."
	}
	err := fmt.Errorf("%s: %s", resp.Status, msg)
	switch {
	case resp.StatusCode == 401 || resp.StatusCode == 403:
		return permanent(fmt.Errorf("%w (check the API key)", err))
	case !retryableStatus(resp.StatusCode):
		return permanent(err)
	}
	if s, perr := strconv.Atoi(resp.Header.Get("Retry-After")); perr == nil && s > 0 {
		return retryAfterError{err, time.Duration(s) * time.Second}
	}
	return err
}
