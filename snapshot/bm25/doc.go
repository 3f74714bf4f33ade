// Package bm25 owns the lexical index of a snapshot (format.BM25File): the
// tokenizer that both the indexer and queries use, the writer the index
// stage calls, and the reader that scores chunks for a query with Okapi
// BM25. Lexical scoring finds what an embedding may miss: names, rare words,
// numbers and identifiers ("BM25", "p95", "Initech").
//
// The layout is documented in format/bm25.go. Decode checks every offset,
// count and posting of a file before it is used, so a damaged file is an
// error (wrapping ErrCorrupt), never a panic or a wrong answer. An Index is
// immutable and safe for concurrent use; it holds the decoded file in
// memory and no open file.
package bm25
