package doctor

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/vaultgraph/vaultgraph/snapshot/embed"
)

// checkEmbedder: the embedder the newest snapshot records answers, with
// the same model, weights and dimension, and how long one query takes.
func (st *state) checkEmbedder(ctx context.Context) Check {
	c := Check{Name: "embedder"}
	if st.newest == nil || st.newest.Embedder == nil {
		c.Status, c.Summary = Info, "no vectors recorded: nothing to reach"
		return c
	}
	rec := st.newest.Embedder
	cfg := st.cfg.Embed
	// One try, a short wait: the doctor reports, the indexer retries.
	cfg.Attempts = 1
	if cfg.Timeout <= 0 || cfg.Timeout > 15*time.Second {
		cfg.Timeout = 15 * time.Second
	}
	where := endpoint(rec.Provider, cfg)
	e, err := embed.ForSnapshot(rec, cfg)
	if err != nil {
		fix := "run vaultgraph index --reembed to embed everything with this build's embedder"
		if !errors.Is(err, embed.ErrModelMismatch) {
			fix = "check --embedder's settings (host, key file) for " + rec.Spec()
		}
		return fail(c, fmt.Sprintf("%s cannot be used: %v", rec.Spec(), err), fix)
	}
	if r, ok := e.(embed.Revisioner); ok {
		rev, err := r.Revision(ctx, 0)
		if err != nil {
			return fail(c, fmt.Sprintf("%s%s does not answer: %v", rec.Spec(), where, err),
				"start the model server, or point --ollama-host / OLLAMA_HOST at it; until then new text gets no vector and queries by meaning fail")
		}
		if rec.Revision != "" && rev != "" && rev != rec.Revision {
			return fail(c, fmt.Sprintf("%s%s now has other weights (digest %s) than the snapshot's vectors (%s)", rec.Spec(), where, short(rev), short(rec.Revision)),
				"ollama pull brought new weights under the same name: run vaultgraph index --reembed, or pull the old digest back")
		}
	}
	start := time.Now()
	vecs, err := e.Embed(ctx, embed.Query, []string{"vaultgraph doctor: is the embedder there?"})
	took := time.Since(start)
	if err != nil {
		return fail(c, fmt.Sprintf("%s%s does not embed: %v", rec.Spec(), where, err),
			"start the model server or fix its address or key; until then new text gets no vector and queries by meaning fail")
	}
	if len(vecs) != 1 || len(vecs[0]) != rec.Dimensions {
		got := 0
		if len(vecs) == 1 {
			got = len(vecs[0])
		}
		return fail(c, fmt.Sprintf("%s%s answers with %d dimensions, the snapshot's vectors have %d: another model under the same name", rec.Spec(), where, got, rec.Dimensions),
			"run vaultgraph index --reembed, or serve the model the snapshot was built with")
	}
	c.Status = OK
	c.Summary = fmt.Sprintf("%s%s answers: %d dimensions, one query embedded in %s", rec.Spec(), where, rec.Dimensions, roundDuration(took))
	if rec.Revision != "" {
		c.Summary += ", digest " + short(rec.Revision) + " as recorded"
	}
	return c
}

// endpoint says where a remote provider is reached, for messages.
func endpoint(provider string, cfg embed.Config) string {
	switch provider {
	case "ollama":
		if cfg.OllamaHost != "" {
			return " at " + cfg.OllamaHost
		}
		return " at 127.0.0.1:11434"
	case "openai":
		if cfg.OpenAIBaseURL != "" {
			return " at " + cfg.OpenAIBaseURL
		}
	}
	return ""
}

func short(digest string) string {
	if len(digest) > 7 && digest[:7] == "sha256:" {
		digest = digest[7:]
	}
	if len(digest) > 12 {
		return digest[:12]
	}
	return digest
}

// roundDuration keeps two or three significant digits.
func roundDuration(d time.Duration) time.Duration {
	switch {
	case d >= time.Second:
		return d.Round(10 * time.Millisecond)
	case d >= time.Millisecond:
		return d.Round(10 * time.Microsecond)
	}
	return d.Round(time.Microsecond)
}
