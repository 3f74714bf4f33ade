package format

// Version is the on-disk format version written into every manifest.
// Readers refuse a snapshot whose version they do not know (ErrUnknownVersion)
// rather than guessing.
//
// Changelog:
//
//	1: nodes, links, edges and chunks tables; manifest with note signatures,
//	   warnings and file checksums.
//	2: typed tables: a property is a struct with one column per kind (text,
//	   number, bool, date, datetime, list) instead of a JSON string; absent
//	   values are NULL (a stub's path, signature and modified; empty
//	   headings, anchors and display texts); chunks' start and end are
//	   start_byte and end_byte. Version 1 snapshots are refused with the
//	   command that replaces them (index again: the run parses every note).
//	   Within version 2, additively (format/vectors.go): the manifest's
//	   vectors section lists edges_without_vectors, the edge types given
//	   no vector (links_to); a reader that does not know the field counts
//	   those edges as pending.
//	   The manifest ends with manifest_sha256, the sha256 of its own bytes
//	   (that value zeroed); readers refuse a manifest without it or edited
//	   after publishing (CheckManifestSum).
//	3: code beside the notes: code_files, symbols, code_chunks and
//	   code_edges tables and the manifest's repos (see code.go); version 2
//	   snapshots, which have none, still read. Within version 3,
//	   additively: vectors of code chunks (vectors-code.f32, hnsw-code,
//	   the manifest's vectors.code); a snapshot without them is searched
//	   by BM25 alone.
//	4: one vector representation: vector files hold codes with a scale per
//	   row, an int8 and a residual plane (vector file layout 2), and graph
//	   files links only (HNSW layout 3), instead of float32 rows beside int8
//	   codes of the same vectors in the graph (see vectors.go). Note text
//	   stored once: chunks.parquet has no text column, a chunk's text is
//	   its note's content from start_byte to end_byte (chunk.go). Snapshots of
//	   versions 2 and 3 are refused with the command that replaces them
//	   (index again: the run parses every note and embeds every text).
//	5: tables in segments: the notes, links, edges and chunks tables are
//	   each one or more Parquet files (nodes.parquet, nodes-0001.parquet,
//	   ...), cut by notes (segments.go) and listed in order, with a key per
//	   segment, in the manifest's Tables section; an edit writes only the
//	   segments of the notes it changed and hard-links the others from its
//	   parent. Snapshots of version 4 are refused with the command that
//	   replaces them (index again).
//	6: a chunk's text_sha256 holds the first 16 bytes of the sha256 (32
//	   hex digits), the bytes vector files key rows by, instead of all 32
//	   (format.TextKey; -0.94 MB of the help vault's 67.3). Version 5
//	   snapshots still read (readers take the first 16 bytes of either),
//	   and an edit of one keeps the segments it does not rewrite; builds
//	   that know only version 5 refuse version 6 with "upgrade vaultgraph".
//	7: chunks.parquet has no context column: a chunk's context is its
//	   note's row and heading put in words (chunk.go), which only the
//	   indexer reads and computes again for the chunks it reuses (-0.80 MB
//	   of the help vault's 66.4). Tables are written without page
//	   statistics, and the notes' content without bounds in the footer
//	   (whole notes, twice per segment: -0.52 MB of the notes segments).
//	   Chunks' start_byte and end_byte are DELTA_BINARY_PACKED (-0.05 MB).
//	   Versions 5 and 6 still read (their context column is ignored); an
//	   index run on one writes every segment again rather than link a
//	   file of another layout into this one. Builds that know only
//	   version 6 refuse version 7 with "upgrade vaultgraph".
const Version = 7

// SupportedVersion reports whether this build can read snapshots written in
// format version v: this one, 6, which differs only in holding a context
// column in chunks.parquet, and 5, which also holds whole text hashes.
func SupportedVersion(v int) bool { return v == Version || v == 6 || v == 5 }
