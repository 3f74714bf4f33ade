package embed

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/vaultgraph/vaultgraph/format"
)

// Ollama embeds through an Ollama server's /api/embed endpoint and looks up
// the model's digest through /api/tags (Revision).
type Ollama struct {
	client      *api.Client
	host        string
	model       string
	prefixes    prefixes
	batch, conc int
	retry       retryPolicy
	fp          string
	dims        atomic.Int64
	rev         revisionCache
	revTTL      time.Duration
	// pinned is the manifest section of the snapshot this embedder
	// embeds queries for (ForSnapshot), nil otherwise; set before the
	// embedder is shared.
	pinned *format.Embedder
}

func newOllama(model string, cfg Config) (*Ollama, error) {
	host := cfg.OllamaHost
	if host == "" {
		host = cfg.Getenv("OLLAMA_HOST")
	}
	base, err := ollamaURL(host)
	if err != nil {
		return nil, err
	}
	model = normalizeOllamaModel(model)
	p := prefixesFor(model)
	return &Ollama{
		client: api.NewClient(base, cfg.httpClient()), host: base.String(), model: model, prefixes: p,
		batch: cfg.BatchSize, conc: cfg.Concurrency, retry: cfg.retry(), revTTL: cfg.RevisionTTL,
		fp: fingerprint("ollama", model, p.document, p.query),
	}, nil
}

// ollamaURL reads OLLAMA_HOST's syntax: [scheme://]host[:port][/path],
// default http://127.0.0.1:11434.
func ollamaURL(s string) (*url.URL, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		s = "127.0.0.1:11434"
	}
	if !strings.Contains(s, "://") {
		s = "http://" + s
	}
	u, err := url.Parse(s)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("ollama host %q: want host[:port] or http://host:port", s)
	}
	if u.Port() == "" && u.Scheme == "http" && !strings.HasSuffix(u.Host, ":") {
		u.Host = net.JoinHostPort(u.Hostname(), "11434")
	}
	return u, nil
}

// Info describes the model; Dimensions is known after the first call,
// Revision after the first successful Revision.
func (o *Ollama) Info() Info {
	return Info{Provider: "ollama", Model: o.model, Dimensions: int(o.dims.Load()), Kind: format.EmbedderSemantic,
		Note: "semantic: vectors from the Ollama model " + o.model, Fingerprint: o.fp, Revision: o.rev.last()}
}

// Batch returns the configured batch size and concurrency.
func (o *Ollama) Batch() (size, concurrency int) { return o.batch, o.conc }

// Embed sends one /api/embed request (retried on failures that may pass)
// and checks and normalises the vectors it returns. An embedder made for a
// snapshot (ForSnapshot) first checks that the server still has the
// model's recorded revision.
func (o *Ollama) Embed(ctx context.Context, task Task, texts []string) ([][]float32, error) {
	if len(texts) == 0 {
		return nil, nil
	}
	if err := o.checkPinned(ctx); err != nil {
		return nil, err
	}
	truncate := true
	req := &api.EmbedRequest{Model: o.model, Input: o.prefixes.apply(task, texts), Truncate: &truncate}
	var resp *api.EmbedResponse
	err := o.retry.forTask(task).do(ctx, func(ctx context.Context) error {
		r, err := o.client.Embed(ctx, req)
		if err != nil {
			return o.classify(err)
		}
		resp = r
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("ollama %s at %s: %w", o.model, o.host, err)
	}
	vecs, err := checkVectors(resp.Embeddings, len(texts), &o.dims)
	if err != nil {
		return nil, fmt.Errorf("ollama %s at %s: %w", o.model, o.host, err)
	}
	return vecs, nil
}

// classify marks the errors retrying cannot fix.
func (o *Ollama) classify(err error) error {
	var se api.StatusError
	if errors.As(err, &se) {
		err = fmt.Errorf("HTTP %d: %w", se.StatusCode, err)
		switch {
		case se.StatusCode == 404:
			return permanent(fmt.Errorf("%w (pull it first: ollama pull %s)", err, o.model))
		case !retryableStatus(se.StatusCode):
			return permanent(err)
		}
		return err
	}
	var ae api.AuthorizationError
	if errors.As(err, &ae) {
		return permanent(err)
	}
	return err
}

// checkVectors checks that a response holds n vectors of one dimension
// (the one seen before, if any), records that dimension and normalises the
// vectors in place.
func checkVectors(vecs [][]float32, n int, dims *atomic.Int64) ([][]float32, error) {
	if len(vecs) != n {
		return nil, fmt.Errorf("server returned %d vectors for %d texts", len(vecs), n)
	}
	d := len(vecs[0])
	if d == 0 {
		return nil, errors.New("server returned an empty vector")
	}
	for i, v := range vecs {
		if len(v) != d {
			return nil, fmt.Errorf("server returned vectors of %d and %d dimensions", d, len(v))
		}
		if !normalize(v) {
			return nil, fmt.Errorf("server returned a zero or non-finite vector for text %d", i)
		}
	}
	if !dims.CompareAndSwap(0, int64(d)) && dims.Load() != int64(d) {
		return nil, fmt.Errorf("server returned %d dimensions, earlier %d: the model changed during the run", d, dims.Load())
	}
	return vecs, nil
}
