// Package embed turns text into vectors for indexing and for queries. It
// owns the Embedder interface and its providers, chosen by a spec string
// (--embedder, VAULTGRAPH_EMBEDDER):
//
//   - "builtin" (the default): static English word vectors (GloVe 6B 100d,
//     package wordvec, compiled in) averaged with SIF weights, joined with
//     the lexical features below; offline and deterministic; recorded as
//     kind static-word-vectors+lexical (Static, static.go).
//   - "lexical": hashed word and character n-grams alone, offline and
//     fast; recorded as lexical, not semantic (Builtin, builtin.go).
//   - "ollama:<model>": an Ollama server's /api/embed through
//     github.com/ollama/ollama/api (host from OLLAMA_HOST).
//   - "openai:<model>": any OpenAI-compatible POST /v1/embeddings.
//
// Remote providers batch requests, run a bounded number concurrently, retry
// failures that may pass (network errors, timeouts, 429 and 5xx) with
// exponential backoff, and add the task prefixes their model was trained
// with (prefixes.go). API keys are read only from the environment or a key
// file and never appear in errors or logs.
//
// Every embedder has a fingerprint that changes whenever its vectors would:
// snapshots record it, and vectors of two fingerprints are never compared
// (ErrModelMismatch). An Ollama model can also get new weights under the
// same name (ollama pull); its digest, asked from the server (Revisioner,
// revision.go) and never needed to build an embedder, is recorded as the
// revision: the indexer refuses to add vectors of another revision, and a
// query embedder from ForSnapshot refuses a server that now has another.
// Both the indexer and the server import this package;
// it imports nothing of vaultgraph but format.
package embed
