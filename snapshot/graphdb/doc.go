// Package graphdb owns a snapshot's graph database: it builds the Kuzu
// database (format.GraphFile) from the snapshot's notes and edges, opens it
// read-only, and runs openCypher queries written in vault names against it,
// with a timeout and a row cap, returning typed results.
//
// Building (Build) infers a typed column for every property key, gives
// the most frequent edge types a relationship table each and puts the
// long tail in one shared table (so that a note with thousands of inline
// field keys costs no more than one with a few), escapes names the way
// format/graph.go documents, writes Parquet staging files with
// PLAIN-encoded strings into a temporary folder of the snapshot directory,
// bulk-loads them with COPY FROM, removes them, and reopens the database
// read-only to check the row counts. The returned format.Graph goes into the
// manifest.
//
// Updating (Update) makes the same database from the parent snapshot's:
// it copies the parent's file into the snapshot directory (checking it
// against the parent's manifest; the parent's file is never opened for
// writing), compares the parent's rows with the new ones, deletes and adds
// the rows that changed and sets fixed-width columns in place, checkpoints
// once, and checks the copy as Build checks its database. It refuses
// (ErrNotUpdatable) when the layout would change or the change would cost
// more than a share of a build (UpdateOptions.Limit); the indexer's graph
// stage then builds. The result answers every query as a built database
// does, except that rows it added come last in scans, so the order of
// rows that no ORDER BY fixes, and of values collect() gathers, may
// differ. Which statements an update may run is shaped by Kuzu 0.11.3's
// bugs with updated string and list data (see apply in update.go).
//
// Querying (Open, DB.Query, DB.Run) is read-only twice over: the engine is
// opened with ReadOnly set, and package cypher refuses write clauses and
// procedure calls before the engine sees them. A DB is safe for concurrent
// use; it holds a pool of connections (one per core by default), which
// bounds the queries that run at once, worker threads enough for each of
// them (so a heavy query never holds up a light one), and a buffer pool
// sized by Options (Kuzu's own default would
// take 80% of the machine's memory). The queries running at once share the
// pool; one that finds it full fails with KindOutOfMemory, which callers
// report as worth retrying (or as a reason for a larger pool), never as a
// fault of the query.
//
// Simple queries are answered without the engine (Options.Direct, see
// direct.go and direct_plan.go): a note found by id, path or title and its
// neighbours over one typed or untyped hop, notes by label, counts and
// counts by label, with ORDER BY, SKIP, LIMIT and DISTINCT over built-in
// columns. They are answered from a copy of the notes' built-in columns,
// labels and edges, read from the database itself after the first such
// query (the engine answers until the copy is ready), from the
// translated query, so every check and error of translation stays the
// same. In Kuzu each of them scans the notes, since the notes' key is id
// and a neighbour's columns are read through a hash join: milliseconds
// where the copy takes microseconds. An answer the copy cannot be sure to
// give as the engine would (a sort key that is null) is left to the
// engine; TestDirectAnswersEqualTheEngine compares the two on every note.
// Once the copy is ready, a query the engine answers that tests a node's
// path or title against a value only one note has also tests that note's
// id, the table's primary key, so that Kuzu looks it up instead of
// scanning (direct_keys.go).
//
// The syntax trees of the last 256 query texts are kept (parsed.go): a
// query sent again with other parameters is translated from its tree
// without being parsed again; translation never changes a tree
// (TestTranslateLeavesTheTreeAlone).
//
// A query's timeout covers parsing, binding, planning and the conversion
// of its rows, not only the execution Kuzu can interrupt: Run returns at
// the deadline, and a connection still inside the engine finishes alone
// while a spare takes its place.
//
// Kuzu runs in this process through cgo. A crash inside it ends the
// process; package cypher rewrites the inputs known to crash Kuzu 0.11.3
// (functions given an untyped null) and bounds parameter values (a list
// nested 1,000 deep overflows Kuzu's parser), see its documentation.
package graphdb
