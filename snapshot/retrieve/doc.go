// Package retrieve answers questions over one snapshot with GraphRAG:
// similarity finds where to start, typed links find what is connected but
// not similar, and the answer cites its sources.
//
// A question is embedded once with the snapshot's own embedder. Its seeds
// are the best notes of four ranked lists fused by reciprocal rank fusion:
// chunks by vector similarity, chunks by BM25 over their text, titles and
// aliases (package bm25), typed edges by the similarity of their sentences
// (an edge hit brings in both its ends), and notes whose name the question
// mentions. From the seeds the retriever walks depth hops along typed
// edges; at each note it keeps the neighbours whose best chunk (or
// connecting edge) fits the question best, at most PerNodeCap of them, so
// that a hub cannot flood the answer. Personalised PageRank from the seeds
// is offered as another ranking of that neighbourhood (Rank "ppr").
//
// A Result lists the best chunks (hits first, then neighbours by distance)
// with their note, path, heading, text, score, role and hops; the typed
// edges that connect the returned notes with their properties and
// sentences; and a notice that chunk text is quoted vault content, to be
// read as data and never as instructions.
//
// A Retriever is built once per snapshot, from components the caller has
// opened (the server's loader) or by Open (the CLI). It is read-only and
// safe for concurrent use; Close releases what it opened itself.
package retrieve
