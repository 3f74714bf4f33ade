// Package vectors owns a snapshot's vector files and HNSW graphs: writing
// and memory-mapping the flat vector files (layout in format/vectors.go),
// building an HNSW graph over them or updating the parent snapshot's graph
// (rows removed, rows added), encoding graphs in a layout that is searched
// in place from a memory map, and answering nearest-neighbour queries
// approximately (graph) or exactly (scan).
//
// A vector is stored once, as codes with a scale of its own (codes.go):
// int8 codes, and beside them six-bit residual codes in 1/64 steps, so
// that the two planes hold the vector to within about 1e-4 of similarity
// in 0.44 of the bytes of float32 (the residuals are unpacked to a byte
// each when a file opens; the int8 plane is used in place). A graph search walks comparing the query with the
// int8 plane alone (a quarter of the bytes of float32; the loads of a
// node's neighbours are started together, software prefetch in assembly
// on amd64, so that they overlap) and ranks the candidates it ends with on
// both planes. Builds walk on both planes, so a graph is as good as one
// built on the float32 vectors, on a copy of the codes laid out for them
// (buildcodes.go): each node's two planes side by side in huge pages,
// compared in exact integer arithmetic by AVX-512 VNNI, AVX2 or portable
// kernels, which all give the same graph.
//
// The graph is implemented here rather than with github.com/coder/hnsw,
// the HNSW library chosen for the project: v0.6.1, the only release the
// module proxy serves, finds close to none of the true neighbours (its
// result heap evicts an arbitrary element and its search stops at the first
// step that does not improve the best distance; coder/hnsw#17, #20, #22,
// fixed upstream after the release). BenchmarkCoderHNSW20k measures both on
// the same 20,000 vectors: recall@10 0.06 for coder/hnsw at ef 64 and 256
// (0.14 asking it for 256 results and keeping the best 10), against 0.98
// and 0.999 here. Its export format also stores every vector once per
// level and is loaded into maps, where ours is searched in place. Run the
// benchmark again when a new coder/hnsw release is available.
//
// Vectors are unit length and the distance is 1 - dot product; scores
// reported are the dot product (cosine similarity).
//
// A File or Graph opened from disk holds a memory map: it is safe for
// concurrent searches, and must not be closed while a search runs (the
// server's reference counting guarantees this). A Graph being built is not
// safe for concurrent use.
package vectors
