package embed

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

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
}

// Manifest returns the manifest section for vectors from this embedder,
// with dims the dimension of the vectors actually stored.
func (i Info) Manifest(dims int) *format.Embedder {
	return &format.Embedder{Provider: i.Provider, Model: i.Model, Dimensions: dims,
		Fingerprint: i.Fingerprint, Kind: i.Kind, Note: i.Note}
}

// Spec returns the --embedder value selecting this embedder.
func (i Info) Spec() string {
	return (&format.Embedder{Provider: i.Provider, Model: i.Model}).Spec()
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
func Check(recorded *format.Embedder, info Info) error {
	if recorded == nil || recorded.Fingerprint == info.Fingerprint {
		return nil
	}
	what := info.Spec()
	if what == recorded.Spec() {
		what += " (same name, different prefixes, dimension or algorithm version)"
	}
	return fmt.Errorf("%w: the snapshot's vectors come from %s, this embedder is %s", ErrModelMismatch, recorded.Spec(), what)
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
