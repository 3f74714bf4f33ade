package format

import "strings"

// Vector files of a snapshot. They are additive within format version 1:
// readers that do not know them ignore them, and the manifest sections that
// describe them are optional. Each binary file carries its own layout
// version in its header.
//
// # Vector file (vectors-chunks.f32, vectors-edges.f32)
//
// One row per distinct embedded text, all from the model the manifest's
// Embedder section names, stored as codes with a scale per row, in two
// byte planes (the file keeps its name from the float32 layout 1).
// Little-endian:
//
//	offset  size              field
//	0       8                 magic "VGVEC\x00\x00\x01"
//	8       4                 layout version (uint32, VectorFileLayout)
//	12      4                 dims (uint32; 0 only when count is 0)
//	16      8                 count (uint64): number of rows
//	24      32                embedder fingerprint (raw sha256)
//	56      4                 code length C (uint32): dims rounded up to 32
//	60      4                 reserved, zero
//	64      count*16          text hashes: the first 16 bytes of the raw
//	                          sha256 of the embedded text (see TextHash),
//	                          strictly ascending
//	...     pad to 64         zero bytes
//	S       count*4           scale s of each row (float32, finite, >= 0):
//	                          max|v_i| / 127 of the row's unit vector v, 0
//	                          for a zero vector
//	...     pad to 64         zero bytes
//	K       count*C           int8 codes, row i belongs to hash i:
//	                          c_i = round(v_i / s) for i < dims; zero
//	                          after dims
//	R       count*C*3/4       residual codes, six bits each, row i belongs
//	                          to hash i: r_i = round(64 * (v_i/s - c_i)),
//	                          clamped to -32..31, zero after dims; every
//	                          four of a row, r_4k .. r_4k+3, are the 24 bits
//	                          of three bytes (little-endian), r_4k in the
//	                          lowest six, each in two's complement
//
// so that v_i ~ s * (c_i + r_i/64). S = 64 + roundup(count*16, 64),
// K = S + roundup(count*4, 64), R = K + count*C, and the file is exactly
// R + count*C*3/4 bytes long. Every component is within s/128 of the unit
// vector the embedder returned, and a similarity computed on both planes
// within about 1e-4 of the float32 one (six bits rather than eight keep
// the retrieval evaluation and recall@10 where they were, measured; four
// and five moved figures of the evaluation); on the int8 plane alone (what
// a graph walk reads, a quarter of float32's bytes) within a few
// thousandths.
//
// Why a flat file and not Parquet: the server memory-maps it and reads row i
// in place, with no decoding, no copy onto the Go heap and no load time;
// exact scans (filtered search) stream it at memory speed; the indexer
// reuses a parent's row for a text by binary search on the sorted hashes.
// Other tools read it with numpy.memmap: scales at offset S (float32,
// count), codes at K (int8, count x C) and residuals at R (uint8, count x
// 3C/4: u = b0 | b1<<8 | b2<<16 per three bytes, r = ((u >> 6k) & 63) with
// 64 subtracted from values above 31); vectors = (codes + residuals/64)[:,
// :dims] * scales[:, None]. The server unpacks the residuals once, onto its
// heap, when it opens the file.
//
// A chunk's vector is the row whose hash is the chunk's TextSHA256; an edge's
// is the row whose hash is TextHash(edge.Sentence) (in both, the row whose
// 16 bytes are the hash's first 16: 128 bits of sha256 do not collide
// among a vault's texts, and a writer refuses two rows that share them). Several chunks with the
// same text share a row. A chunk or edge without a row is pending: its text
// has not been embedded yet (the manifest counts them and says why). Edges
// of the types the manifest's Vectors.EdgesWithoutVectors lists (plain links,
// links_to, in snapshots written since it exists) are never embedded: they
// have no row and are not pending.
//
// # HNSW file (hnsw-chunks, hnsw-edges)
//
// A hierarchical navigable small world graph over the rows of the vector
// file of the same target: node i is row i. Little-endian, every section
// 4-byte aligned so it can be used in place from a memory map (layout
// version HNSWLayout; changelog there):
//
//	offset  size                   field
//	0       8                      magic "VGHNSW\x00\x01"
//	8       4                      layout version (uint32, 4)
//	12      4                      count (uint32): nodes, equal to the vector file's count
//	16      4                      dims (uint32), equal to the vector file's
//	20      4                      M: neighbour slots per node on levels >= 1
//	24      4                      M0: neighbour slots per node on level 0
//	28      4                      entry node (uint32; 0xFFFFFFFF when count is 0)
//	32      4                      top level (uint32): the entry node's level
//	36      4                      upper slot count U (uint32)
//	40      4                      efConstruction the graph was built with
//	44      4                      efSearch: default beam width of queries
//	48      8                      level-0 words W (uint64): count plus
//	                               the sum of the nodes' level-0 counts
//	56      8                      reserved, zero
//	64      count                  level of each node (uint8)
//	...     pad to 4               zero bytes
//	        count*4                first upper slot of each node (uint32;
//	                               0xFFFFFFFF for level-0 nodes); a node of
//	                               level L owns slots first .. first+L-1 for
//	                               levels 1..L, slots allotted in node order
//	        W*4                    level 0: per node, in node order, a
//	                               neighbour count k (at most M0), then k
//	                               ids (uint32)
//	        U*(1+M)*4              upper slots: a count, then M ids (unused
//	                               ones zero)
//
// Level-0 records are as long as their links because a node keeps far
// fewer than M0 (16 to 18 of 48 on average in the chunk graphs of the
// generated 10,000-note vault and Obsidian's help vault): readers find
// where each starts by walking the counts once when they open the file.
//
// The graph holds links only: searches walk it comparing the query with
// the vector file's int8 codes and rank the candidates they end with on
// both planes, so the scores they return are those an exact scan of the
// vector file computes. Builds compare both planes.
//
// Distance is 1 - dot product of the (unit) vectors; the manifest's HNSW
// section records it with M, M0, efConstruction and efSearch.
const (
	ChunkVectorsFile = "vectors-chunks.f32"
	EdgeVectorsFile  = "vectors-edges.f32"
	ChunkHNSWFile    = "hnsw-chunks"
	EdgeHNSWFile     = "hnsw-edges"
	// CodeVectorsFile and CodeHNSWFile hold the vectors of code chunks
	// (code.go), in snapshots that indexed repositories: one row per
	// distinct CodeEmbedText, same layouts as the chunks'.
	CodeVectorsFile = "vectors-code.f32"
	CodeHNSWFile    = "hnsw-code"
)

// Layout versions of the vector and HNSW files, written in their headers.
// Readers refuse a layout they do not know.
//
// VectorFileLayout changelog:
//
//	1: header, sorted text hashes, float32 rows.
//	2: codes with a scale per row, int8 and residual planes, instead of
//	   float32 rows: the one representation of the vectors (format
//	   version 4), half the bytes of layout 1, and the graph files no
//	   longer hold a second copy. Layout 1 files are refused (they are only
//	   in snapshots of format version 3 and older, which are refused).
//	3: residuals of six bits in 1/64 steps instead of a byte in 1/256
//	   steps: 548 -> 484 bytes per row of 256 dimensions. Layout 2 is
//	   still read.
//	4: each row's text hash keeps its first 16 bytes instead of 32: 484 ->
//	   468 bytes per row of 256 dimensions (help vault's chunk vectors
//	   26.4 -> 25.5 MB). Layouts 2 and 3 are still read; a parent of
//	   layout 3 is matched on the 16 bytes both store.
//
// HNSWLayout changelog:
//
//	1: levels, first upper slots, level-0 links, upper slots.
//	2: int8 codes of every vector, stored with the node's level-0 links in
//	   64-byte aligned records, and a section of code scales: searches
//	   read a quarter of the bytes, from one place per node. The header
//	   records the record and code sizes.
//	3: layout 1's sections again, links only: the codes and scales moved
//	   to the vector file (layout 2). Layouts 1 and 2 are refused.
//	4: level-0 records only as long as their links (a count and that many
//	   ids, not room for M0), their total length in the header: the chunk
//	   graph of the generated 10,000-note vault 8.0 -> 2.9 MB. Layout 3
//	   is still read.
const (
	VectorFileLayout = 4
	HNSWLayout       = 4
)

// Embedder kinds: whether the vectors capture meaning or only shared words.
const (
	// EmbedderLexical vectors match texts that share words and word
	// fragments; they do not know synonyms or paraphrases.
	EmbedderLexical = "lexical"
	// EmbedderSemantic vectors come from a trained language model.
	EmbedderSemantic = "semantic"
	// EmbedderStatic vectors join static word vectors (a weighted mean
	// of pre-trained vectors of the text's words, blind to word order)
	// with lexical features.
	EmbedderStatic = "static-word-vectors+lexical"
)

// DistanceCosine is the distance of every vector graph: 1 - cosine
// similarity, computed as 1 - dot product of unit vectors.
const DistanceCosine = "cosine"

// Embedder records the model every vector of a snapshot was computed with.
// Vectors of two models never mix in one snapshot: the indexer refuses to
// build on a parent whose Fingerprint or Revision differs unless told to
// re-embed everything, and searchers refuse a query embedder with another
// Fingerprint, or a server that now has another Revision of the model.
type Embedder struct {
	// Provider is builtin, ollama or openai.
	Provider string `json:"provider"`
	// Model is the provider's model name (nomic-embed-text:latest,
	// text-embedding-3-small) or the builtin algorithm's name.
	Model string `json:"model"`
	// Dimensions of every vector; 0 while no vector has been computed
	// (every text pending).
	Dimensions int `json:"dimensions"`
	// Fingerprint (hex sha256) identifies provider, model, task prefixes
	// and, for the builtin embedder, its algorithm and dimension. It is also
	// written into every vector file's header.
	Fingerprint string `json:"fingerprint"`
	// Kind is EmbedderLexical, EmbedderStatic or EmbedderSemantic.
	Kind string `json:"kind"`
	// Note says in words what the vectors can and cannot find.
	Note string `json:"note,omitempty"`
	// Revision identifies the model's weights where the provider reports
	// them (Ollama: the model's digest, which changes when ollama pull
	// fetches new weights under the same name); "" when the provider has
	// none or the server could not be asked before any vector was stored.
	// Manifests written before it existed read as "".
	Revision string `json:"revision,omitempty"`
}

// Spec returns the --embedder value that selects this embedder again:
// "builtin:<model>" (the builtin embedders have several models),
// "ollama:<model>" or "openai:<model>".
func (e *Embedder) Spec() string {
	if e.Provider == "builtin" && e.Model == "" {
		return "builtin"
	}
	return e.Provider + ":" + e.Model
}

// Vectors describes a snapshot's vector and graph files.
type Vectors struct {
	HNSW   HNSW        `json:"hnsw"`
	Chunks VectorIndex `json:"chunks"`
	Edges  VectorIndex `json:"edges"`
	// Code is the vectors of code chunks, in snapshots that indexed
	// repositories (written since format version 3's code vectors; nil
	// before, and without repositories).
	Code *VectorIndex `json:"code,omitempty"`
	// PendingReason says why some texts have no vector (the model server
	// was unreachable, refused, timed out); "" when nothing is pending.
	PendingReason string `json:"pending_reason,omitempty"`
	// EdgesWithoutVectors are the edge types whose sentences are not
	// embedded (UnembeddedEdgeTypes when written): their edges have no row
	// in the edge vector file, are not counted in Edges.Items and are not
	// pending. Empty in snapshots written before it existed, whose every
	// edge was embedded.
	EdgesWithoutVectors []string `json:"edges_without_vectors,omitempty"`
}

// UnembeddedEdgeTypes are the edge types the indexer gives no vector:
// plain links, whose sentence only says "A links to B". They were 51,421
// of the 68,760 edges of the generated 10,000-note vault, three quarters of
// the edge vectors' disk and graph build time, and nothing searched them:
// retrieval seeds and walks typed edges and embeds only, and a plain link's
// ends are found by title in the chunk and note searches. Links stay in
// edges.parquet, the graph database and every navigation.
var UnembeddedEdgeTypes = []string{TypeLinksTo}

// Unembedded returns the message that explains why a search for edges of
// the given types finds nothing, when every one of them has no vectors;
// "" when some have.
func (v *Vectors) Unembedded(types []string) string {
	if len(types) == 0 {
		return ""
	}
	for _, t := range types {
		if v.EdgeEmbedded(strings.ToLower(strings.TrimSpace(t))) {
			return ""
		}
	}
	return "plain links (links_to) have no vectors, so a vector search never finds them: list a note's links with " +
		"the graph navigation (neighbors, backlinks) or a Cypher query, and search typed edges by their sentences"
}

// EdgeEmbedded reports whether an edge of type typ has a vector in a
// snapshot whose manifest records v.
func (v *Vectors) EdgeEmbedded(typ string) bool {
	if v == nil {
		return true
	}
	for _, t := range v.EdgesWithoutVectors {
		if t == typ {
			return false
		}
	}
	return true
}

// HNSW are the parameters the graphs were built with.
type HNSW struct {
	M              int    `json:"m"`
	M0             int    `json:"m0"`
	EfConstruction int    `json:"ef_construction"`
	EfSearch       int    `json:"ef_search"`
	Distance       string `json:"distance"`
}

// HNSW build modes recorded in VectorIndex.HNSWBuild.
const (
	HNSWBuilt   = "built"   // built from scratch
	HNSWUpdated = "updated" // the parent's graph with removed rows deleted and new ones added
	HNSWShared  = "shared"  // the parent's vector and graph files, unchanged and hard-linked
)

// VectorIndex describes the vectors and HNSW graph of one target (chunks
// or edges).
type VectorIndex struct {
	// VectorsFile and HNSWFile are file names in the snapshot directory.
	VectorsFile string `json:"vectors_file"`
	HNSWFile    string `json:"hnsw_file"`
	// Items is the number of chunks (edges of the types embedded) in the
	// snapshot; Vectors the number of distinct texts with a vector (rows of
	// the files).
	Items   int `json:"items"`
	Vectors int `json:"vectors"`
	// Embedded rows were computed by this run; Reused ones were copied from
	// the parent snapshot because their text was unchanged.
	Embedded int `json:"embedded"`
	Reused   int `json:"reused"`
	// Pending items have no vector yet; the next index run embeds them.
	Pending int `json:"pending"`
	// HNSWBuild is HNSWBuilt, HNSWUpdated or HNSWShared.
	HNSWBuild string `json:"hnsw_build"`
}
