// Package vectors owns a snapshot's vector files and HNSW graphs: writing
// and memory-mapping the flat float32 vector files (layout in
// format/vectors.go), building an HNSW graph over them or updating the
// parent snapshot's graph (rows removed, rows added), encoding graphs in a
// layout that is searched in place from a memory map, and answering
// nearest-neighbour queries approximately (graph) or exactly (scan).
//
// A graph search compares the query with int8 codes of the vectors, stored
// in the graph file next to each node's links (codes.go), and ranks the
// candidates it ends with by their exact float32 vectors: it reads a
// quarter of the bytes, and the loads of a node's neighbours are started
// together (software prefetch, in assembly on amd64) so that they overlap.
//
// The graph is implemented here rather than with github.com/coder/hnsw:
// v0.6.1, the only release, finds close to none of the true neighbours
// (measured recall@10 of 0.03 on 20,000 vectors at EfSearch 400; its result
// heap evicts an arbitrary element and its search stops early, see
// coder/hnsw#17, #20, #22, fixed upstream after the release). Its export
// format also stores every vector once per level and is loaded into maps,
// where ours is used in place.
//
// Vectors are unit length and the distance is 1 - dot product; scores
// reported are the dot product (cosine similarity).
//
// A File or Graph opened from disk holds a memory map: it is safe for
// concurrent searches, and must not be closed while a search runs (the
// server's reference counting guarantees this). A Graph being built is not
// safe for concurrent use.
package vectors
