package embed

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"
)

// Revision implements Revisioner with the digest Ollama lists for the
// model (GET /api/tags): it changes whenever ollama pull fetches new
// weights under the model's name. It asks once, without retrying: a
// server that is down fails the embedding call that follows anyway.
func (o *Ollama) Revision(ctx context.Context, maxAge time.Duration) (string, error) {
	if rev, ok := o.rev.get(maxAge); ok {
		return rev, nil
	}
	list, err := o.client.List(ctx)
	if err != nil {
		return "", fmt.Errorf("ollama %s at %s: list models: %w", o.model, o.host, err)
	}
	for _, m := range list.Models {
		if !sameOllamaModel(m.Name, o.model) && !sameOllamaModel(m.Model, o.model) {
			continue
		}
		if m.Digest == "" {
			return "", fmt.Errorf("ollama %s at %s: the server lists the model without a digest", o.model, o.host)
		}
		o.rev.set(m.Digest)
		return m.Digest, nil
	}
	return "", fmt.Errorf("ollama %s at %s: the server does not have the model (pull it first: ollama pull %s)", o.model, o.host, o.model)
}

// checkPinned refuses to embed once the server has another revision of
// the model than the snapshot the embedder was made for (ForSnapshot).
func (o *Ollama) checkPinned(ctx context.Context) error {
	if o.pinned == nil {
		return nil
	}
	if err := CheckRevision(ctx, o.pinned, o, o.revTTL); err != nil {
		return fmt.Errorf("%w; re-embed the vault with vaultgraph index --reembed", err)
	}
	return nil
}

var _ Revisioner = (*Ollama)(nil)

// sameOllamaModel reports whether a model name the server lists is the
// (normalised) name m, ignoring the default registry and namespace.
func sameOllamaModel(listed, m string) bool {
	short := func(s string) string {
		s = strings.TrimPrefix(normalizeOllamaModel(s), "registry.ollama.ai/")
		return strings.TrimPrefix(s, "library/")
	}
	return listed != "" && short(listed) == short(m)
}

// revisionCache is the last revision looked up and when. It is safe for
// concurrent use; concurrent lookups of a stale value may each ask the
// server, which is harmless.
type revisionCache struct {
	mu    sync.Mutex
	value string
	at    time.Time
}

// get returns the cached revision if it is younger than maxAge.
func (c *revisionCache) get(maxAge time.Duration) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.value == "" || maxAge <= 0 || time.Since(c.at) >= maxAge {
		return "", false
	}
	return c.value, true
}

func (c *revisionCache) set(v string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.value, c.at = v, time.Now()
}

// last returns the last revision looked up, however old.
func (c *revisionCache) last() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.value
}
