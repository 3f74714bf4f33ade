// Package format is the contract between the indexer, which writes
// snapshots, and every reader of them (the server, the CLI, other
// programs). It owns the on-disk format version, the names of the files in a
// snapshot directory, the manifest schema, the row types of the Parquet
// tables, and the rules for identifiers.
//
// format imports nothing else of vaultgraph and does no I/O beyond encoding
// and decoding values; reading and writing snapshot directories lives in
// package snapshot.
//
// # Snapshot directory
//
// A snapshot is a directory DATA/snapshots/<id>/ holding the files named by
// the constants in files.go and a manifest.json that records the size and
// sha256 of every other file. A directory without a manifest.json is not a
// snapshot. Ids are ULIDs, so they sort in creation order; see NewSnapshotID.
//
// # Parquet tables
//
// nodes.parquet (Note), links.parquet (Link), edges.parquet (Edge) and
// chunks.parquet (Chunk) are plain Parquet files with zstd-compressed pages,
// each the first segment of its table: a vault of more than a few hundred
// notes has further segments (nodes-0001.parquet, ...), and a table is its
// segments in order (segments.go; the manifest's Tables section lists them).
// Every string column is written with PLAIN (or dictionary) encoding, never
// the DELTA_LENGTH_BYTE_ARRAY encoding that parquet-go uses by default: Kuzu's
// Parquet reader (0.11.3) aborts on delta-encoded strings, and older JS
// readers cannot read them either. TestStringColumnsArePlain pins this.
// Chunks' start_byte and end_byte, which grow along a note, are
// DELTA_BINARY_PACKED (format 7), which Kuzu's reader, DuckDB and hyparquet
// read (TestTablesOpenInIndependentReaders, the README's DuckDB queries);
// their line, which compressed better plain, is not. Since format 7,
// pages carry no statistics (the footer has a column chunk's bounds, and a
// column chunk is one page or a few), and a note's content has no bounds
// in the footer either.
//
// Lists are standard three-level LIST groups. Properties are a list of
// structs with one column per kind (key, kind, text, number, bool, date,
// datetime, list; see Property), so that rows of one table carry properties
// of different types and a reader such as DuckDB filters on them without
// JSON functions. Absent values are NULL, never placeholders, and no column
// is named with an SQL keyword (TestColumnNamesAreNotSQLKeywords in
// cmd/vaultgraph asks DuckDB).
//
// # Graph database
//
// A snapshot may also hold graph.kuzu, a Kuzu database built from the notes
// and edges tables; graph.go documents its layout and naming rules, and the
// manifest's Graph section maps vault names to its tables and columns.
package format
