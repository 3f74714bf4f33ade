package embed

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/vaultgraph/vaultgraph/format"
)

// ErrModelMismatch is returned when vectors of one model would be compared
// with, or mixed into, vectors of another.
var ErrModelMismatch = errors.New("embedding model differs from the snapshot's")

// Task says what a text is embedded for; some models expect different
// prefixes for the two.
type Task int

const (
	// Document is a passage to be found: a chunk or an edge sentence.
	Document Task = iota
	// Query is a search query.
	Query
)

// Embedder turns texts into unit vectors. Implementations are safe for
// concurrent use.
type Embedder interface {
	// Info describes the model. For remote providers Dimensions is 0 until
	// a call has returned vectors.
	Info() Info
	// Embed returns one unit vector per text, in order, or an error and no
	// vectors. It retries what may pass on retry before giving up.
	Embed(ctx context.Context, task Task, texts []string) ([][]float32, error)
	// Batch returns how many texts one Embed call should carry and how
	// many calls may run at once.
	Batch() (size, concurrency int)
}

// Info describes an embedder as a snapshot manifest records it.
type Info struct {
	Provider    string
	Model       string
	Dimensions  int
	Kind        string // format.EmbedderLexical or format.EmbedderSemantic
	Note        string
	Fingerprint string
	// Revision is the model revision the last Revisioner lookup found
	// (format.Embedder.Revision); "" before one succeeded and for
	// providers without revisions. It can be stale: callers that must
	// know ask Revisioner.Revision.
	Revision string
}

// Manifest returns the manifest section for vectors from this embedder,
// with dims the dimension of the vectors actually stored.
func (i Info) Manifest(dims int) *format.Embedder {
	return &format.Embedder{Provider: i.Provider, Model: i.Model, Dimensions: dims,
		Fingerprint: i.Fingerprint, Kind: i.Kind, Note: i.Note, Revision: i.Revision}
}

// Revisioner is implemented by embedders whose server can change the
// weights behind a model name (Ollama: ollama pull fetches a new version
// under the same name), which the fingerprint cannot see. Implementations
// are safe for concurrent use.
type Revisioner interface {
	// Revision returns the revision of the model the server embeds with
	// now (Ollama: the model's digest). It answers from the last lookup
	// if that is younger than maxAge, and asks the server otherwise
	// (always when maxAge is 0). It fails when the server cannot be asked
	// or does not have the model.
	Revision(ctx context.Context, maxAge time.Duration) (string, error)
}

// Spec returns the --embedder value selecting this embedder.
func (i Info) Spec() string {
	return SpecOf(&format.Embedder{Provider: i.Provider, Model: i.Model})
}

// SpecOf returns the shortest --embedder value that selects the embedder a
// manifest records: "builtin" for the default static embedder, "lexical"
// for the lexical one, e.Spec() for the others.
func SpecOf(e *format.Embedder) string {
	if e.Provider == "builtin" {
		switch e.Model {
		case staticAlgorithm:
			return "builtin"
		case builtinAlgorithm:
			return "lexical"
		}
	}
	return e.Spec()
}

// fingerprint identifies every input that shapes an embedder's vectors.
func fingerprint(parts ...string) string {
	h := sha256.New()
	h.Write([]byte("vaultgraph embedder fingerprint v1"))
	for _, p := range parts {
		h.Write([]byte{0})
		h.Write([]byte(p))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Check returns an error wrapping ErrModelMismatch unless vectors of info
// can be compared with the recorded ones. recorded may be nil (nothing
// recorded yet), which never conflicts.
//
// Both the recorded section and info may carry a revision: when both do
// and they differ, the model's weights changed under its name, which is a
// mismatch too (see CheckRevision for asking the server).
func Check(recorded *format.Embedder, info Info) error {
	if recorded == nil {
		return nil
	}
	if recorded.Fingerprint == info.Fingerprint {
		return checkRevision(recorded, info.Revision)
	}
	what := info.Spec()
	if what == SpecOf(recorded) {
		what += " (same name, different prefixes, dimension or algorithm version)"
	}
	return fmt.Errorf("%w: the snapshot's vectors come from %s, this embedder is %s", ErrModelMismatch, SpecOf(recorded), what)
}

// CheckRevision asks the server behind e (at most once per maxAge, see
// Revisioner) which revision of the model it has, and returns an error
// wrapping ErrModelMismatch when the recorded vectors come from another
// one. It returns nil when nothing can be compared: no revision recorded,
// a provider without revisions, or a server that cannot be asked (the
// embedding call that follows says whether the server works).
func CheckRevision(ctx context.Context, recorded *format.Embedder, e Embedder, maxAge time.Duration) error {
	r, ok := e.(Revisioner)
	if !ok || recorded == nil || recorded.Revision == "" {
		return nil
	}
	rev, err := r.Revision(ctx, maxAge)
	if err != nil {
		return nil
	}
	return checkRevision(recorded, rev)
}

// checkRevision compares a recorded revision with the one a server reports
// (either may be "", which never conflicts).
func checkRevision(recorded *format.Embedder, rev string) error {
	if recorded.Revision == "" || rev == "" || recorded.Revision == rev {
		return nil
	}
	return fmt.Errorf("%w: the snapshot's vectors come from %s at revision %s, the server now has revision %s "+
		"(new weights under the same name, e.g. after ollama pull)", ErrModelMismatch, recorded.Spec(),
		shortRevision(recorded.Revision), shortRevision(rev))
}

// shortRevision shortens a digest the way ollama list shows it.
func shortRevision(rev string) string {
	rev = strings.TrimPrefix(rev, "sha256:")
	if len(rev) > 12 {
		return rev[:12]
	}
	return rev
}

// normalizeModel lower-cases nothing (model names are case-sensitive on
// some servers) but trims space and gives Ollama models their implicit
// :latest tag so that both spellings fingerprint alike.
func normalizeOllamaModel(m string) string {
	m = strings.TrimSpace(m)
	if m != "" && !strings.Contains(m[strings.LastIndex(m, "/")+1:], ":") {
		m += ":latest"
	}
	return m
}
