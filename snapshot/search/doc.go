// Package search answers "find notes, passages or edges by meaning" over one
// snapshot: it embeds the query with the snapshot's own embedder (refusing
// any other, embed.ErrModelMismatch), searches the snapshot's HNSW graphs
// and returns notes (scored by their best chunk, or the mean of their
// chunks), chunks with citations (path, heading, byte offsets, line) or
// edges with their sentences.
//
// Label and edge-type filters never lose results: the graph is asked for
// several times more neighbours than wanted, and when the filter is
// selective, or the graph's answer still holds too few matches, the allowed
// rows are scanned exactly.
//
// Both the server and the CLI use it; it reads snapshots and never writes.
package search
