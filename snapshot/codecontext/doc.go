// Package codecontext answers the questions an agent asks before it changes
// code: what to read, what may have to change with it, which tests cover
// it, which notes explain it and what they flag as dangerous. It works on
// a snapshot that indexed git repositories beside the vault (format/code.go).
//
// Load reads a snapshot's notes, edges and code tables into an in-memory
// graph of notes, code files and symbols, and a lexical index of code
// chunks with identifiers split into words (fetchEpisode and
// fetch_episode both match "fetch episode"); notes are searched through the
// snapshot's own BM25 index. It runs once per snapshot, when a server opens
// it, never on the request path.
//
// Retrieve seeds a personalized PageRank from the lexical hits over notes
// and code, walks every edge in both directions with a weight per edge type
// (Weights), and sorts what it reaches into five buckets: must_read (code
// that implements it), may_change (code that depends on that: importers,
// callers, files changed together), must_test (tests covering either),
// knowledge (notes linked to any of it, whether or not their words match)
// and danger (what notes flag with a dangerous-like edge). Every entry says
// why it is there, as the edges that brought it; the answer fits a byte
// budget. Impact answers in the same buckets for one file or symbol;
// Divergence lists notes whose code links name files or symbols that do
// not exist.
//
// An Index is read-only after Load and safe for concurrent use.
package codecontext
