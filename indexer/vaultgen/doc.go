// Package vaultgen writes synthetic Obsidian vaults for benchmarks and
// load tests, and edits them for incremental-indexing benchmarks.
//
// It owns the shape of a synthetic vault: how many notes, in which folders,
// how large, how densely linked, and with which Markdown and Typed Graph
// syntax. A vault is a pure function of its Config: the same Config writes
// the same bytes on every machine and with any number of CPUs, because
// every note is generated from its own random stream seeded by (Seed, note
// number). Generated vaults look like real ones where the indexer's cost
// depends on it: note sizes are log-normal around 3 KB with a long tail,
// link targets follow a Zipf law so that a few hub notes collect thousands
// of backlinks, and the text uses every link, field, tag and code form the
// parser must handle, including link-like text inside code that must not
// count.
//
// vaultgen deliberately does not import the parser (package note): Stats
// counts what was written, so tests can check the parser against it
// rather than against itself.
//
// Nothing here is synced to disk: a synthetic vault is scratch input that
// can always be regenerated, so Generate and Edit skip fsync. Edit still
// replaces each note by renaming a temporary file over it, so an indexer
// running at the same time never reads a half-written note.
package vaultgen
